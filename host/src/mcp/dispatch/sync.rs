//! State sync: `state/subscribe`, `aoi/declare`, and the `state/delta` each subscriber is
//! owed after the world changes. Deltas come from the world's change set (recorded as it
//! mutates), filtered per subscriber by its area of interest (snapshots and moved areas ask
//! the world's spatial index which entities are inside);
//! each subscriber remembers which entities it sees, so one that leaves its area arrives as
//! a removal and one that enters as a change.
//!
//! A delta is built and serialized once per distinct content, not once per subscriber: what
//! a subscriber is owed is fixed by which of the update's changes its area admits, which
//! entities it must be told are gone, and whether it asked for detail ([`DeltaKey`]);
//! subscribers with the same key share one [`Frame`]. The frames live for one update only
//! ([`Deltas`]), so nothing built for one tick is sent for another. The fan-out walks every
//! subscriber on the engine for each update, so what it does per subscriber is kept small:
//! the key is worked out in buffers reused from one subscriber to the next and looked up as
//! it stands (no allocation, and `foldhash` rather than SipHash), and the visible sets hash
//! with `foldhash` too.

use super::answer::not_initialized;
use super::aoi::{Aoi, inside, within};
use super::request::Request;
use super::server::{Connection, Server};
use crate::mcp::engine::outbox::{self, Frame};
use crate::mcp::wire::jsonrpc;
use crate::mcp::wire::jsonrpc::RpcError;
use crate::world::{ChangeSet, EntityState, World, entity_id};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// Entity numbers, hashed by `foldhash` (one set per subscriber, touched by every delta).
type Numbers = HashSet<u64, foldhash::fast::RandomState>;

/// One connection's subscription.
#[derive(Debug, Default)]
pub struct Subscription {
    pub aoi: Option<Aoi>,
    /// Asked for `detail`: entities as a renderer draws them (shape, size, material, tags)
    /// and the scene-wide parts (lighting, panels, agents), for the browser viewer.
    pub detail: bool,
    /// Entities this subscriber has been told about and not told are gone.
    visible: Numbers,
    /// Since when deltas could not be queued (the client is behind); it gets a fresh snapshot
    /// once it catches up.
    pub behind_since: Option<Instant>,
}

/// What the world did since sync last looked.
pub enum WorldUpdate {
    /// Entities changed.
    Changes(ChangeSet),
    /// A different world was swapped in (a scene reload): everyone needs a fresh snapshot.
    Replaced,
}

/// What fixes a delta's content within one update: whether its entities are drawn in detail
/// (with the scene), which of the update's changes it carries (indexes into
/// `ChangeSet::changed`) and which entities it reports gone.
#[derive(Default, Clone, PartialEq, Eq, Hash)]
struct DeltaKey {
    detail: bool,
    admitted: Vec<u32>,
    removed: Vec<u64>,
}

/// The deltas of one world update, each serialized once and shared by every subscriber owed
/// the same one.
pub struct Deltas<'u> {
    update: &'u WorldUpdate,
    caused_by: &'u [String],
    /// The frames built, by their key.
    frames: HashMap<DeltaKey, Frame, foldhash::fast::RandomState>,
    /// The key of the subscriber being looked at, in buffers kept for the next one.
    key: DeltaKey,
}

impl<'u> Deltas<'u> {
    pub fn new(update: &'u WorldUpdate, caused_by: &'u [String]) -> Deltas<'u> {
        Deltas {
            update,
            caused_by,
            frames: HashMap::default(),
            key: DeltaKey::default(),
        }
    }

    /// Distinct deltas built so far.
    #[cfg(test)]
    pub fn built(&self) -> usize {
        self.frames.len()
    }
}

/// What sync watches while someone subscribes: the world value its subscribers were told
/// about (another one swapped in means everyone needs a fresh snapshot).
pub struct SyncWatch {
    world: u64,
}

fn entity_json(state: &EntityState) -> Value {
    let t = &state.transform;
    json!({"id": state.id, "pos": t.position, "rot": t.rotation, "scale": t.scale})
}

/// An entity as `subscription` asked to see it.
fn entity_for(world: &World, subscription: &Subscription, state: &EntityState) -> Value {
    if subscription.detail {
        world
            .entity_view(state.number)
            .unwrap_or_else(|| entity_json(state))
    } else {
        entity_json(state)
    }
}

impl Server {
    /// `state/subscribe {aoi?}`: queues the snapshot, answers `{ok, tick}`.
    pub(in crate::mcp) fn subscribe(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        request.session(conn).ok_or_else(not_initialized)?;
        let aoi = match params.get("aoi") {
            Some(area) => Aoi::parse(area),
            None => conn.declared_aoi,
        };
        self.watch_world();
        let detail = match params.get("detail") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(RpcError::new(
                    jsonrpc::INVALID_PARAMS,
                    format!("`detail` must be a boolean, got {other}"),
                ));
            }
        };
        let mut subscription = Subscription {
            aoi,
            detail,
            ..Subscription::default()
        };
        let snapshot = self.snapshot(&mut subscription);
        conn.pending.push(snapshot);
        conn.subscription = Some(subscription);
        Ok(json!({"ok": true, "tick": self.registry().realm().world.tick()}))
    }

    /// `aoi/declare {center, radius}`: a subscriber hears at once of what entered and left.
    pub(in crate::mcp) fn declare_aoi(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        request.session(conn).ok_or_else(not_initialized)?;
        let aoi = Aoi::parse(params);
        let Some(subscription) = &mut conn.subscription else {
            conn.declared_aoi = aoi;
            return Ok(json!({"ok": true}));
        };
        subscription.aoi = aoi;
        self.watch_world();
        let world = &self.registry().realm().world;
        let now: Numbers = within(world, aoi.as_ref()).into_iter().collect();
        let mut entered: Vec<u64> = now.difference(&subscription.visible).copied().collect();
        let mut left: Vec<u64> = subscription.visible.difference(&now).copied().collect();
        entered.sort_unstable();
        left.sort_unstable();
        let changes: Vec<Value> = entered
            .iter()
            .filter_map(|n| world.entity_state(*n))
            .map(|s| entity_for(world, subscription, &s))
            .collect();
        let removed: Vec<String> = left.iter().map(|&n| entity_id(n)).collect();
        subscription.visible = now;
        if !changes.is_empty() || !removed.is_empty() {
            conn.pending.push(jsonrpc::notification(
                "state/delta",
                json!({"tick": world.tick(), "causedBy": [], "changes": changes, "removed": removed}),
            ));
        }
        Ok(json!({"ok": true}))
    }

    /// Takes the world's changes; `None` when nothing changed.
    pub fn take_world_update(&mut self) -> Option<WorldUpdate> {
        let watched = self.sync_watch.is_some();
        let world = &mut self.registry_mut().realm_mut().world;
        let instance = world.instance();
        if !watched {
            // Nobody subscribes: forget the changes without looking them up.
            world.discard_changes();
            return None;
        }
        let changes = world.take_changes();
        if self.sync_watch.as_ref()?.world != instance {
            self.watch_world();
            return Some(WorldUpdate::Replaced);
        }
        if changes.is_empty() {
            return None;
        }
        Some(WorldUpdate::Changes(changes))
    }

    /// The `state/delta` (or, after a world swap, `state/snapshot`) owed to `subscription`,
    /// serialized: the same frame as every other subscriber owed the same delta. The
    /// subscription now sees what it was told of.
    pub fn delta_frame(
        &self,
        subscription: &mut Subscription,
        deltas: &mut Deltas,
    ) -> Option<Frame> {
        let changes = match deltas.update {
            WorldUpdate::Replaced => return Some(outbox::frame(&self.snapshot(subscription))),
            WorldUpdate::Changes(changes) => changes,
        };
        let key = &mut deltas.key;
        key.admitted.clear();
        key.removed.clear();
        key.detail = subscription.detail;
        for (i, state) in changes.changed.iter().enumerate() {
            if inside(subscription.aoi.as_ref(), state.transform.position) {
                subscription.visible.insert(state.number);
                key.admitted.push(i as u32);
            } else if subscription.visible.remove(&state.number) {
                key.removed.push(state.number);
            }
        }
        for number in &changes.removed {
            if subscription.visible.remove(number) {
                key.removed.push(*number);
            }
        }
        let scene = changes.scene && subscription.detail;
        if key.admitted.is_empty() && key.removed.is_empty() && !scene {
            return None;
        }
        if let Some(frame) = deltas.frames.get(&*key) {
            return Some(frame.clone());
        }
        let frame = outbox::frame(&self.delta(changes, key, deltas.caused_by));
        deltas.frames.insert(key.clone(), frame.clone());
        Some(frame)
    }

    /// The `state/delta` notification `key` describes.
    fn delta(&self, changes: &ChangeSet, key: &DeltaKey, caused_by: &[String]) -> Value {
        let world = &self.registry().realm().world;
        let view = Subscription {
            detail: key.detail,
            ..Subscription::default()
        };
        let out: Vec<Value> = key
            .admitted
            .iter()
            .map(|&i| entity_for(world, &view, &changes.changed[i as usize]))
            .collect();
        let removed: Vec<String> = key.removed.iter().map(|&n| entity_id(n)).collect();
        let mut delta = json!({
            "tick": world.tick(),
            "causedBy": caused_by,
            "changes": out,
            "removed": removed,
        });
        if changes.scene && key.detail {
            delta["scene"] = world.scene_view();
        }
        jsonrpc::notification("state/delta", delta)
    }

    /// A `state/snapshot` of what `subscription` may see; it now sees exactly that.
    pub fn snapshot(&self, subscription: &mut Subscription) -> Value {
        let world = &self.registry().realm().world;
        let numbers = within(world, subscription.aoi.as_ref());
        let entities: Vec<Value> = numbers
            .iter()
            .filter_map(|n| world.entity_state(*n))
            .map(|s| entity_for(world, subscription, &s))
            .collect();
        subscription.visible = numbers.into_iter().collect();
        let mut snapshot = json!({"tick": world.tick(), "entities": entities});
        if subscription.detail {
            snapshot["scene"] = world.scene_view();
        }
        jsonrpc::notification("state/snapshot", snapshot)
    }

    /// Watches the world value now in place (sync then keeps its changes).
    pub(in crate::mcp) fn watch_world(&mut self) {
        let world = self.registry().realm().world.instance();
        self.sync_watch = Some(SyncWatch { world });
    }
}

#[cfg(test)]
#[path = "sync_tests.rs"]
mod tests;
