//! The host's own resources under `limina://`: the world's summary and its drawable scene,
//! each entity, the agents, the UI panels and the trace's events. All JSON; all private to
//! the caller's profile and changing at any moment (`ttlMs` 0), except trace events, which
//! never change once written.

use super::{Access, Contents, ResourceInfo, ResourceSource, TemplateInfo, variable};
use crate::call::{ErrorCode, Failure};
use crate::limits::{MAX_SCENE_RESOURCE_ENTITIES, TRACE_EVENT_TTL_MS};
use crate::policy::Permission;
use crate::registry::{Caller, Registry};
use crate::world::{ChangeSet, World, entity_id, parse_entity_id};
use serde_json::{Value, json};
use std::sync::Arc;

const JSON: &str = "application/json";
const WORLD: &str = "limina://world";
const SCENE: &str = "limina://world/scene";
const AGENTS: &str = "limina://agents";
const AGENT: &str = "limina://agent/";
const PANELS: &str = "limina://panels";
const PANEL: &str = "limina://panel/";
const ENTITY: &str = "limina://entity/";
const TRACE: &str = "limina://trace/";

/// The host's world sources, in listing order (the many entities last).
pub(super) fn sources() -> Vec<Arc<dyn ResourceSource>> {
    vec![
        Arc::new(WorldSource),
        Arc::new(AGENT_SOURCE),
        Arc::new(PANEL_SOURCE),
        Arc::new(TraceSource),
        Arc::new(EntitySource),
    ]
}

fn access(cap: &str, required: &[Permission]) -> Access {
    Access {
        cap: cap.to_string(),
        required: required.iter().copied().collect(),
        package: None,
    }
}

fn info(uri: &str, name: &str, title: &str, description: &str) -> ResourceInfo {
    ResourceInfo {
        uri: uri.to_string(),
        name: name.to_string(),
        title: Some(title.to_string()),
        description: Some(description.to_string()),
        mime_type: JSON.to_string(),
        meta: None,
    }
}

fn template(uri: &str, name: &str, title: &str, description: &str) -> TemplateInfo {
    TemplateInfo {
        uri_template: uri.to_string(),
        name: name.to_string(),
        title: Some(title.to_string()),
        description: Some(description.to_string()),
        mime_type: JSON.to_string(),
    }
}

/// JSON contents that may change at any moment and depend on the caller's profile.
fn live(uri: &str, value: &Value) -> Contents {
    Contents {
        uri: uri.to_string(),
        mime_type: JSON.to_string(),
        text: crate::json::text(value),
        blob: None,
        meta: None,
        ttl_ms: 0,
        public: false,
    }
}

/// A fixed list paged by position: the entries after the one keyed `after`.
fn fixed(
    items: Vec<ResourceInfo>,
    after: Option<&str>,
    limit: usize,
) -> Vec<(String, ResourceInfo)> {
    let skip = after
        .and_then(|a| a.parse::<usize>().ok())
        .map_or(0, |a| a + 1);
    items
        .into_iter()
        .enumerate()
        .skip(skip)
        .take(limit)
        .map(|(i, r)| (i.to_string(), r))
        .collect()
}

/// Values among `candidates` starting with `prefix`, at most `limit`.
fn starting(candidates: impl Iterator<Item = String>, prefix: &str, limit: usize) -> Vec<String> {
    candidates
        .filter(|c| c.starts_with(prefix))
        .take(limit)
        .collect()
}

/// `limina://world` (tick, counts, lighting) and `limina://world/scene` (everything a
/// renderer draws).
struct WorldSource;

impl ResourceSource for WorldSource {
    fn name(&self) -> &str {
        "world"
    }
    fn access(&self) -> Access {
        access("resource.world", &[Permission::SceneRead])
    }
    fn claims(&self, uri: &str) -> bool {
        uri == WORLD || uri == SCENE
    }
    fn list(&self, _: &Registry, after: Option<&str>, limit: usize) -> Vec<(String, ResourceInfo)> {
        let items = vec![
            info(
                WORLD,
                "world",
                "The world",
                "The shared world now: its tick, how many entities, bodies, agents, panels and sounds it holds, and its lighting.",
            ),
            info(
                SCENE,
                "scene",
                "The world's scene",
                "Everything a renderer draws: lighting, panels, agents and entities with shape, size, transform and material (the first entities by id, up to a cap).",
            ),
        ];
        fixed(items, after, limit)
    }
    fn read(
        &self,
        registry: &mut Registry,
        _: &Caller,
        uri: &str,
    ) -> Result<Option<Contents>, Failure> {
        let world = &registry.realm().world;
        let value = if uri == WORLD {
            summary(world)
        } else {
            scene(world)
        };
        Ok(Some(live(uri, &value)))
    }
    fn touched(
        &self,
        _: &Registry,
        changes: &ChangeSet,
        issued_before: u64,
        out: &mut Vec<String>,
    ) {
        if changes.is_empty() {
            return;
        }
        out.push(SCENE.to_string());
        if changes.scene || appeared_or_went(changes, issued_before) {
            out.push(WORLD.to_string());
        }
    }
}

fn appeared_or_went(changes: &ChangeSet, issued_before: u64) -> bool {
    !changes.removed.is_empty() || changes.changed.iter().any(|c| c.number > issued_before)
}

fn summary(world: &World) -> Value {
    let scene = world.scene_view();
    json!({
        "tick": world.tick(),
        "tickSeconds": world.settings().tick_seconds,
        "counts": {
            "entities": world.entity_count(),
            "bodies": world.body_count(),
            "agents": scene["agents"].as_array().map_or(0, Vec::len),
            "panels": world.ui().len(),
            "sounds": world.mixer().len(),
        },
        "maxEntities": world.settings().max_entities,
        "lighting": scene["lighting"],
    })
}

fn scene(world: &World) -> Value {
    let numbers = world.entity_numbers_after(None, MAX_SCENE_RESOURCE_ENTITIES);
    let entities: Vec<Value> = numbers
        .iter()
        .filter_map(|n| world.entity_view(*n))
        .collect();
    let mut view = world.scene_view();
    view["tick"] = json!(world.tick());
    view["totalEntities"] = json!(world.entity_count());
    view["truncated"] = json!(world.entity_count() > entities.len());
    view["entities"] = Value::Array(entities);
    view
}

/// `limina://entity/{id}`: one entity as a renderer draws it, listed one by one.
struct EntitySource;

impl ResourceSource for EntitySource {
    fn name(&self) -> &str {
        "entity"
    }
    fn access(&self) -> Access {
        access("resource.entity", &[Permission::SceneRead])
    }
    fn claims(&self, uri: &str) -> bool {
        uri.starts_with(ENTITY)
    }
    fn list(
        &self,
        registry: &Registry,
        after: Option<&str>,
        limit: usize,
    ) -> Vec<(String, ResourceInfo)> {
        let after = after.and_then(|a| a.parse::<u64>().ok());
        let world = &registry.realm().world;
        world
            .entity_numbers_after(after, limit)
            .into_iter()
            .map(|n| {
                let id = entity_id(n);
                let uri = format!("{ENTITY}{id}");
                let entry = info(
                    &uri,
                    &id,
                    &format!("Entity {id}"),
                    "One entity: shape, size, transform, material and tags.",
                );
                (n.to_string(), entry)
            })
            .collect()
    }
    fn templates(&self) -> Vec<TemplateInfo> {
        vec![template(
            "limina://entity/{id}",
            "entity",
            "An entity",
            "One entity by id (ent_<n>): shape, size, transform, material and tags.",
        )]
    }
    fn read(
        &self,
        registry: &mut Registry,
        _: &Caller,
        uri: &str,
    ) -> Result<Option<Contents>, Failure> {
        let world = &registry.realm().world;
        let view = variable(uri, ENTITY)
            .and_then(parse_entity_id)
            .and_then(|n| world.entity_view(n));
        Ok(view.map(|v| live(uri, &v)))
    }
    fn complete(
        &self,
        registry: &Registry,
        _caller: &Caller,
        template: &str,
        variable: &str,
        prefix: &str,
        limit: usize,
    ) -> Option<Vec<String>> {
        if template != "limina://entity/{id}" || variable != "id" {
            return None;
        }
        let world = &registry.realm().world;
        let ids = world
            .entity_numbers_after(None, usize::MAX)
            .into_iter()
            .map(entity_id);
        Some(starting(ids, prefix, limit))
    }
    fn touched(&self, _: &Registry, changes: &ChangeSet, _: u64, out: &mut Vec<String>) {
        let numbers = changes
            .changed
            .iter()
            .map(|c| c.number)
            .chain(changes.removed.iter().copied());
        out.extend(numbers.map(|n| format!("{ENTITY}{}", entity_id(n))));
    }
    fn list_changed(&self, changes: &ChangeSet, issued_before: u64) -> bool {
        appeared_or_went(changes, issued_before)
    }
}

/// A world collection served whole (`limina://agents`) and one member at a time
/// (`limina://agent/{id}`): the agents and the UI panels, told apart only by this table.
struct Collection {
    name: &'static str,
    cap: &'static str,
    permission: Permission,
    /// The whole collection's URI, its name, title and description.
    all: [&'static str; 4],
    /// One member's URI before its key.
    one: &'static str,
    /// The template for one member, its name, title and description.
    template: [&'static str; 4],
    /// The template's variable.
    variable: &'static str,
    /// The field holding the members in the whole collection's contents.
    field: &'static str,
    /// The members' key field.
    key: &'static str,
    members: fn(&World) -> Vec<Value>,
    /// What a member's read holds (from its key and its entry among the members).
    member: fn(&World, &str, Value) -> Value,
    /// The URIs a tick's changes touched.
    touched: fn(&Registry, &ChangeSet, &mut Vec<String>),
}

/// `limina://agents` and `limina://agent/{id}`: agents with bodies or walks in progress.
const AGENT_SOURCE: Collection = Collection {
    name: "agent",
    cap: "resource.agent",
    permission: Permission::AgentRead,
    all: [
        AGENTS,
        "agents",
        "Agents",
        "Every agent with a body in the world or a walk in progress: its entity, position, approach and speech bubble.",
    ],
    one: AGENT,
    template: [
        "limina://agent/{id}",
        "agent",
        "An agent",
        "One agent by id: its body, approach and speech bubble, and what it perceives.",
    ],
    variable: "id",
    field: "agents",
    key: "agentId",
    members: World::agents_json,
    member: |world, id, agent| json!({"agent": agent, "perception": world.perception(id)}),
    touched: agents_touched,
};

/// `limina://panels` and `limina://panel/{handle}`: labels, bubbles and HUD panels.
const PANEL_SOURCE: Collection = Collection {
    name: "panel",
    cap: "resource.panel",
    permission: Permission::SceneRead,
    all: [
        PANELS,
        "panels",
        "UI panels",
        "Every UI panel in the world (labels, text boxes, speech and thought bubbles, callouts, HUD panels) with its anchor, style and owner.",
    ],
    one: PANEL,
    template: [
        "limina://panel/{handle}",
        "panel",
        "A UI panel",
        "One UI panel by handle (ui_<n>): kind, anchor, style, text and owner.",
    ],
    variable: "handle",
    field: "panels",
    key: "handle",
    members: |world| world.ui().to_json(),
    member: |_, _, panel| panel,
    touched: |_, changes, out| {
        if changes.scene {
            out.push(PANELS.to_string());
            out.push(PANEL.to_string());
        }
    },
};

impl ResourceSource for Collection {
    fn name(&self) -> &str {
        self.name
    }
    fn access(&self) -> Access {
        access(self.cap, &[self.permission])
    }
    fn claims(&self, uri: &str) -> bool {
        uri == self.all[0] || uri.starts_with(self.one)
    }
    fn list(&self, _: &Registry, after: Option<&str>, limit: usize) -> Vec<(String, ResourceInfo)> {
        let [uri, name, title, description] = self.all;
        fixed(vec![info(uri, name, title, description)], after, limit)
    }
    fn templates(&self) -> Vec<TemplateInfo> {
        let [uri, name, title, description] = self.template;
        vec![template(uri, name, title, description)]
    }
    fn read(
        &self,
        registry: &mut Registry,
        _: &Caller,
        uri: &str,
    ) -> Result<Option<Contents>, Failure> {
        let world = &registry.realm().world;
        let members = (self.members)(world);
        if uri == self.all[0] {
            return Ok(Some(live(uri, &json!({ self.field: members }))));
        }
        let Some(key) = variable(uri, self.one) else {
            return Ok(None);
        };
        Ok(members
            .into_iter()
            .find(|m| m[self.key] == key)
            .map(|m| live(uri, &(self.member)(world, key, m))))
    }
    fn complete(
        &self,
        registry: &Registry,
        _caller: &Caller,
        template: &str,
        variable: &str,
        prefix: &str,
        limit: usize,
    ) -> Option<Vec<String>> {
        if template != self.template[0] || variable != self.variable {
            return None;
        }
        let members = (self.members)(&registry.realm().world);
        let keys = members
            .into_iter()
            .filter_map(|m| m[self.key].as_str().map(str::to_string));
        Some(starting(keys, prefix, limit))
    }
    fn touched(&self, registry: &Registry, changes: &ChangeSet, _: u64, out: &mut Vec<String>) {
        (self.touched)(registry, changes, out)
    }
}

/// The agent URIs a tick's changes touched: all of them on a new scene, else the agents whose
/// bodies changed.
fn agents_touched(registry: &Registry, changes: &ChangeSet, out: &mut Vec<String>) {
    if changes.scene {
        out.push(AGENTS.to_string());
        out.push(AGENT.to_string());
        return;
    }
    if changes.is_empty() {
        return;
    }
    // One lookup per body, not a scan of the tick's changes per body (a crowd moves
    // hundreds of entities a tick).
    let numbers: std::collections::HashSet<u64> = changes
        .changed
        .iter()
        .map(|c| c.number)
        .chain(changes.removed.iter().copied())
        .collect();
    let moved: Vec<String> = registry
        .realm()
        .world
        .agent_bodies()
        .into_iter()
        .filter(|(_, n)| numbers.contains(n))
        .map(|(id, _)| format!("{AGENT}{id}"))
        .collect();
    if !moved.is_empty() {
        out.push(AGENTS.to_string());
        out.extend(moved);
    }
}

/// `limina://trace/{eventId}`: one event of the trace, never listed (there are too many).
struct TraceSource;

impl ResourceSource for TraceSource {
    fn name(&self) -> &str {
        "trace"
    }
    fn access(&self) -> Access {
        access("resource.trace", &[])
    }
    fn claims(&self, uri: &str) -> bool {
        uri.starts_with(TRACE)
    }
    fn list(&self, _: &Registry, _: Option<&str>, _: usize) -> Vec<(String, ResourceInfo)> {
        Vec::new()
    }
    fn templates(&self) -> Vec<TemplateInfo> {
        vec![template(
            "limina://trace/{eventId}",
            "trace-event",
            "A trace event",
            "One event of the host's trace by id (evt_…): type, actor, causes, payload and its link in the hash chain.",
        )]
    }
    fn read(
        &self,
        registry: &mut Registry,
        _: &Caller,
        uri: &str,
    ) -> Result<Option<Contents>, Failure> {
        let Some(id) = variable(uri, TRACE) else {
            return Ok(None);
        };
        let event = registry.realm_mut().tracer.history().get(id);
        let Some(event) = event else {
            return Ok(None);
        };
        let value = serde_json::to_value(&event).map_err(|e| {
            Failure::new(
                ErrorCode::HandlerError,
                format!("writing event `{id}`: {e}"),
            )
        })?;
        let mut contents = live(uri, &value);
        // An event never changes once written.
        contents.ttl_ms = TRACE_EVENT_TTL_MS;
        Ok(Some(contents))
    }
    fn complete(
        &self,
        registry: &Registry,
        _caller: &Caller,
        template: &str,
        variable: &str,
        prefix: &str,
        limit: usize,
    ) -> Option<Vec<String>> {
        if template != "limina://trace/{eventId}" || variable != "eventId" {
            return None;
        }
        // The newest events the in-memory window holds, newest first.
        let ids = registry.realm().tracer.recent().rev().map(|e| e.id);
        Some(starting(ids, prefix, limit))
    }
}
