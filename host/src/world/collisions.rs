//! Contact start/stop events: collected from rapier during each step, resolved to entity ids,
//! and kept until a caller drains them.

use super::journal::Undo;
use super::oplog::Op;
use super::{World, entity_id};
use crate::limits::MAX_PENDING_COLLISION_EVENTS;
use hecs::Entity;
use rapier3d::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// A contact between two bodies that started or stopped.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CollisionEvent {
    /// True when the contact began, false when it ended.
    pub started: bool,
    /// Body ids of the two sides.
    pub body_a: u64,
    pub body_b: u64,
    /// Entity ids of the two sides, when they still existed at the step.
    pub entity_a: Option<String>,
    pub entity_b: Option<String>,
    /// The deepest contact point in world space (start events only).
    pub point: Option<[f64; 3]>,
    /// Contact normal pointing from side A to side B (start events only).
    pub normal: Option<[f64; 3]>,
}

/// One side of a contact: who owns a collider.
#[derive(Debug, Clone, Copy)]
pub(super) struct Owner {
    pub(super) body_id: u64,
    pub(super) entity: Entity,
}

/// An event as rapier reported it, before owners are resolved.
struct RawContact {
    started: bool,
    colliders: [ColliderHandle; 2],
    geometry: Option<(Vector, Vector)>,
}

/// Receives rapier's events during a step. rapier calls it through `&self` (and may do so
/// from several threads), hence the mutex.
#[derive(Default)]
pub(super) struct Collector {
    raw: Mutex<Vec<RawContact>>,
}

impl EventHandler for Collector {
    fn handle_collision_event(
        &self,
        _bodies: &RigidBodySet,
        colliders: &ColliderSet,
        event: rapier3d::geometry::CollisionEvent,
        pair: Option<&ContactPair>,
    ) {
        let first = event.collider1();
        let geometry = pair
            .filter(|_| event.started())
            .and_then(|p| contact_geometry(colliders, p, first));
        self.raw
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(RawContact {
                started: event.started(),
                colliders: [first, event.collider2()],
                geometry,
            });
    }

    fn handle_contact_force_event(
        &self,
        _dt: Real,
        _bodies: &RigidBodySet,
        _colliders: &ColliderSet,
        _pair: &ContactPair,
        _total_force_magnitude: Real,
    ) {
    }

    fn handle_soft_body_tear_event(&self, _soft_bodies: &SoftBodySet, _event: &SoftBodyTearEvent) {}
}

/// The deepest contact point (world space) and the normal from `first` to the other collider.
fn contact_geometry(
    colliders: &ColliderSet,
    pair: &ContactPair,
    first: ColliderHandle,
) -> Option<(Vector, Vector)> {
    let manifold = pair.manifolds().iter().find(|m| !m.points.is_empty())?;
    let deepest = manifold.find_deepest_contact()?;
    let pose = colliders.get(pair.collider1)?.position();
    let point = pose.transform_point(deepest.local_p1);
    let normal = pose.transform_vector(manifold.local_n1);
    Some((
        point,
        if pair.collider1 == first {
            normal
        } else {
            -normal
        },
    ))
}

/// Events of past steps and who owns each collider.
#[derive(Default)]
pub(super) struct Contacts {
    collector: Collector,
    pub(super) owners: HashMap<ColliderHandle, Owner>,
    /// Colliders of removed bodies: their owners are kept through one more step, which
    /// reports their stop events.
    pub(super) retired: Vec<ColliderHandle>,
    /// Resolved events, oldest first, at most `MAX_PENDING_COLLISION_EVENTS`.
    pub(super) pending: VecDeque<CollisionEvent>,
}

impl Contacts {
    pub(super) fn collector(&self) -> &Collector {
        &self.collector
    }

    /// Records who owns a new collider.
    pub(super) fn own(&mut self, collider: ColliderHandle, body_id: u64, entity: Entity) {
        self.owners.insert(collider, Owner { body_id, entity });
    }

    /// Marks colliders of a removed body for forgetting after the next step.
    pub(super) fn retire(&mut self, colliders: &[ColliderHandle]) {
        self.retired.extend_from_slice(colliders);
    }

    /// Forgets the owners of colliders retired before the step just resolved, whose stop
    /// events that step reported. (Handles carry a generation, so a reused slot is a
    /// different key.)
    fn forget_retired(&mut self) {
        for handle in self.retired.drain(..) {
            self.owners.remove(&handle);
        }
    }
}

impl World {
    /// Resolves the events of the step just taken to entity ids and queues them. Runs right
    /// after the physics step, while the ids of the step's entities still resolve.
    pub(super) fn queue_collision_events(&mut self) {
        let raw = std::mem::take(
            &mut *self
                .physics
                .contacts
                .collector
                .raw
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        if raw.is_empty() {
            self.physics.contacts.forget_retired();
            return;
        }
        let numbers: HashMap<Entity, u64> = self.by_number.iter().map(|(n, e)| (*e, *n)).collect();
        let contacts = &mut self.physics.contacts;
        for event in raw {
            let owner = |h: ColliderHandle| contacts.owners.get(&h).copied();
            let (Some(a), Some(b)) = (owner(event.colliders[0]), owner(event.colliders[1])) else {
                continue;
            };
            let id = |o: Owner| numbers.get(&o.entity).copied().map(entity_id);
            let v = |v: Vector| [v.x as f64, v.y as f64, v.z as f64];
            if contacts.pending.len() >= MAX_PENDING_COLLISION_EVENTS {
                // Nobody drained for a long while: keep the newest.
                contacts.pending.pop_front();
            }
            contacts.pending.push_back(CollisionEvent {
                started: event.started,
                body_a: a.body_id,
                body_b: b.body_id,
                entity_a: id(a),
                entity_b: id(b),
                point: event.geometry.map(|(p, _)| v(p)),
                normal: event.geometry.map(|(_, n)| v(n)),
            });
        }
        contacts.forget_retired();
    }

    /// Takes every contact start/stop event since the last drain, oldest first.
    pub fn drain_collision_events(&mut self) -> Vec<CollisionEvent> {
        self.logged(self.wants_op().then_some(Op::DrainCollisions), |w| {
            w.drain_collision_events_now()
        })
    }

    fn drain_collision_events_now(&mut self) -> Vec<CollisionEvent> {
        let events: Vec<CollisionEvent> = self.physics.contacts.pending.drain(..).collect();
        if !events.is_empty() {
            self.record(Undo::Collisions(events.clone()));
        }
        events
    }

    /// Puts drained events back in front of any newer ones (a rolled-back drain).
    pub(super) fn undrain_collision_events(&mut self, events: Vec<CollisionEvent>) {
        let pending = &mut self.physics.contacts.pending;
        for event in events.into_iter().rev() {
            pending.push_front(event);
        }
    }
}
