//! Entities: what they are made of and the operations on them.

use super::journal::Undo;
use super::oplog::Op;
use super::physics::{BodyShape, SavedBody};
use super::{World, WorldError, entity_id};
use hecs::Entity;
use rapier3d::prelude::RigidBodyHandle;
use std::collections::BTreeSet;

/// Render shape.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Shape {
    Box,
    Sphere,
}

/// Collision shape.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ColliderShape {
    Box,
    Sphere,
    Capsule,
}

/// Physics body kind.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum BodyKind {
    None,
    Dynamic,
    Fixed,
}

/// What to create.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EntitySpec {
    pub shape: Shape,
    pub collider: Option<ColliderShape>,
    pub size: f64,
    pub color: u32,
    pub position: [f64; 3],
    pub body: BodyKind,
    pub friction: f64,
    pub restitution: f64,
}

/// Position, rotation (quaternion x, y, z, w) and scale.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transform {
    pub position: [f64; 3],
    pub rotation: [f64; 4],
    pub scale: [f64; 3],
}

/// The render description of an entity.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Appearance {
    pub shape: Shape,
    pub size: f64,
    pub color: u32,
}

/// The rigid body an entity owns.
#[derive(Debug, Clone, Copy)]
pub struct Body {
    pub handle: RigidBodyHandle,
    pub shape: BodyShape,
}

/// The entity's number (`ent_<n>`), so per-entity passes can name what they touched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number(pub u64);

/// String tags attached to an entity.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tags(pub BTreeSet<String>);

/// Which entities a query returns.
#[derive(Debug, Clone, Default)]
pub struct EntityFilter {
    pub near: Option<[f64; 3]>,
    pub radius: Option<f64>,
    pub tag: Option<String>,
}

/// An entity as queries report it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityInfo {
    pub id: String,
    pub transform: Transform,
    pub tags: Vec<String>,
    pub distance: f64,
    pub body_id: Option<u64>,
}

/// Everything needed to bring a destroyed entity back (for rollback).
pub(super) struct Removed {
    number: u64,
    transform: Transform,
    appearance: Appearance,
    tags: Tags,
    body: Option<SavedBody>,
}

impl World {
    /// Creates an entity and returns its id. Fails over the entity cap.
    pub fn create_entity(&mut self, spec: &EntitySpec) -> Result<String, WorldError> {
        self.logged(
            self.wants_op().then(|| Op::CreateEntity(spec.clone())),
            |w| w.create_entity_now(spec),
        )
    }

    fn create_entity_now(&mut self, spec: &EntitySpec) -> Result<String, WorldError> {
        if !(spec.size > 0.0 && spec.size <= 50.0) {
            return Err(WorldError::Invalid(format!(
                "`size` must be > 0 and ≤ 50, got {}",
                spec.size
            )));
        }
        if self.by_number.len() >= self.settings.max_entities {
            return Err(WorldError::Capacity(format!(
                "the world holds its maximum of {} entities; destroy some first",
                self.settings.max_entities
            )));
        }
        let number = self.next_number;
        self.next_number += 1;
        let transform = Transform {
            position: spec.position,
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0, 1.0, 1.0],
        };
        let appearance = Appearance {
            shape: spec.shape,
            size: spec.size,
            color: spec.color,
        };
        let entity = self
            .ecs
            .spawn((transform, appearance, Tags::default(), Number(number)));
        if spec.body != BodyKind::None {
            let (handle, shape) = self.physics.add_body(spec, entity);
            self.ecs
                .insert_one(entity, Body { handle, shape })
                .expect("entity was just spawned");
        }
        self.by_number.insert(number, entity);
        self.places.put(number, spec.position);
        self.touch(number);
        self.record(Undo::Create(number));
        Ok(entity_id(number))
    }

    /// Removes an entity and its body; false when the id names none.
    pub fn destroy_entity(&mut self, id: &str) -> bool {
        self.logged(self.wants_op().then(|| Op::DestroyEntity(id.into())), |w| {
            w.destroy_entity_now(id)
        })
    }

    fn destroy_entity_now(&mut self, id: &str) -> bool {
        let Some((number, entity)) = self.lookup(id) else {
            return false;
        };
        let removed = self.remove(number, entity);
        self.record(Undo::Destroy(Box::new(removed)));
        // Side tables keyed by the entity's number, journaled on their own.
        self.forget_material(number);
        self.forget_resource(number);
        true
    }

    pub(super) fn remove(&mut self, number: u64, entity: Entity) -> Removed {
        self.by_number.remove(&number);
        self.places.remove(number);
        self.touch(number);
        let body = self.ecs.get::<&Body>(entity).ok().map(|b| *b);
        let (transform, appearance, tags) = self
            .ecs
            .remove::<(Transform, Appearance, Tags)>(entity)
            .expect("every entity has these components");
        for tag in &tags.0 {
            self.tagged.remove(tag, number);
        }
        let _ = self.ecs.despawn(entity);
        let body = body.map(|b| self.physics.remove_body(b.handle, b.shape));
        Removed {
            number,
            transform,
            appearance,
            tags,
            body,
        }
    }

    pub(super) fn restore(&mut self, removed: Removed) {
        self.index(removed.number, &removed.transform, &removed.tags);
        let entity = self.ecs.spawn((
            removed.transform,
            removed.appearance,
            removed.tags,
            Number(removed.number),
        ));
        if let Some(saved) = removed.body {
            let (handle, shape) = self.physics.restore_body(saved, entity);
            self.ecs
                .insert_one(entity, Body { handle, shape })
                .expect("entity was just spawned");
        }
        self.by_number.insert(removed.number, entity);
        self.touch(removed.number);
    }

    /// Puts entity `number` in the indexes by position and by tag (it is new, or back).
    pub(super) fn index(&mut self, number: u64, transform: &Transform, tags: &Tags) {
        self.places.put(number, transform.position);
        for tag in &tags.0 {
            self.tagged.insert(tag, number);
        }
    }

    /// Entities matching the filter, sorted by id. Only the candidates the indexes propose
    /// are looked at (the entities carrying the tag, or those in the grid cells around `near`
    /// when a radius is given), each tested exactly as [`World::scan_entities`] tests every
    /// entity, so the results are the same.
    pub fn query_entities(&self, filter: &EntityFilter) -> Vec<EntityInfo> {
        let tagged = filter.tag.as_deref().map(|t| self.tagged.carrying(t));
        if let Some(None) = tagged {
            return Vec::new();
        }
        let tagged = tagged.flatten();
        let numbers: Vec<u64> = match (filter.near, filter.radius) {
            (Some(near), Some(radius)) => {
                let within = |p: [f64; 3]| inside(distance(near, p), radius);
                match tagged {
                    // Few carry the tag: test them rather than the cells around `near`.
                    Some(numbers) if numbers.len() <= self.places.cost(near, radius) => numbers
                        .iter()
                        .copied()
                        .filter(|n| self.places.position(*n).is_some_and(within))
                        .collect(),
                    _ => {
                        let mut found = Vec::new();
                        self.places.candidates(near, radius, |number, p| {
                            if within(p) && tagged.is_none_or(|t| t.contains(&number)) {
                                found.push(number);
                            }
                        });
                        found.sort_unstable();
                        found
                    }
                }
            }
            _ => match tagged {
                Some(numbers) => numbers.iter().copied().collect(),
                None => self.by_number.keys().copied().collect(),
            },
        };
        numbers
            .into_iter()
            .filter_map(|n| self.info(n, self.by_number[&n], filter.near))
            .collect()
    }

    /// What [`World::query_entities`] answers, found by looking at every entity: the
    /// reference the indexes are tested and measured against.
    pub fn scan_entities(&self, filter: &EntityFilter) -> Vec<EntityInfo> {
        let mut out = Vec::new();
        for (&number, &entity) in &self.by_number {
            let Some(info) = self.info(number, entity, filter.near) else {
                continue;
            };
            if let (Some(_), Some(radius)) = (filter.near, filter.radius)
                && info.distance > radius
            {
                continue;
            }
            if let Some(tag) = &filter.tag
                && !info.tags.iter().any(|t| t == tag)
            {
                continue;
            }
            out.push(info);
        }
        out
    }

    /// One entity, if it exists.
    pub fn get_entity(&self, id: &str) -> Option<EntityInfo> {
        let (number, entity) = self.lookup(id)?;
        self.info(number, entity, None)
    }

    fn info(&self, number: u64, entity: Entity, near: Option<[f64; 3]>) -> Option<EntityInfo> {
        let transform = *self.ecs.get::<&Transform>(entity).ok()?;
        let tags = self
            .ecs
            .get::<&Tags>(entity)
            .ok()?
            .0
            .iter()
            .cloned()
            .collect();
        let body_id = self
            .ecs
            .get::<&Body>(entity)
            .ok()
            .map(|b| super::physics::body_id(b.handle));
        let distance = near.map_or(0.0, |p| distance(p, transform.position));
        Some(EntityInfo {
            id: entity_id(number),
            transform,
            tags,
            distance,
            body_id,
        })
    }

    /// Sets whichever parts are given; false for an unknown entity. A body follows.
    pub fn set_transform(
        &mut self,
        id: &str,
        position: Option<[f64; 3]>,
        rotation: Option<[f64; 4]>,
        scale: Option<[f64; 3]>,
    ) -> bool {
        let op = || Op::SetTransform {
            id: id.into(),
            position,
            rotation,
            scale,
        };
        self.logged(self.wants_op().then(op), |w| {
            w.set_transform_now(id, position, rotation, scale)
        })
    }

    fn set_transform_now(
        &mut self,
        id: &str,
        position: Option<[f64; 3]>,
        rotation: Option<[f64; 4]>,
        scale: Option<[f64; 3]>,
    ) -> bool {
        let Some((number, entity)) = self.lookup(id) else {
            return false;
        };
        let before = *self
            .ecs
            .get::<&Transform>(entity)
            .expect("entity has a transform");
        let mut after = before;
        if let Some(p) = position {
            after.position = p;
        }
        if let Some(r) = rotation {
            after.rotation = normalize(r);
        }
        if let Some(s) = scale {
            after.scale = s;
        }
        self.write_transform(entity, after);
        self.record(Undo::Transform(number, before));
        true
    }

    pub(super) fn write_transform(&mut self, entity: Entity, transform: Transform) {
        if let Ok(number) = self.ecs.get::<&Number>(entity).map(|n| n.0) {
            self.places.put(number, transform.position);
            self.touch(number);
        }
        *self
            .ecs
            .get::<&mut Transform>(entity)
            .expect("entity has a transform") = transform;
        if let Ok(body) = self.ecs.get::<&Body>(entity) {
            self.physics
                .set_pose(body.handle, transform.position, transform.rotation);
        }
    }

    pub(super) fn entity_by_number(&self, number: u64) -> Option<Entity> {
        self.by_number.get(&number).copied()
    }

    /// Attaches a tag; false for an unknown entity.
    pub fn add_tag(&mut self, id: &str, tag: &str) -> bool {
        self.logged(
            self.wants_op().then(|| Op::AddTag(id.into(), tag.into())),
            |w| w.add_tag_now(id, tag),
        )
    }

    fn add_tag_now(&mut self, id: &str, tag: &str) -> bool {
        let Some((number, entity)) = self.lookup(id) else {
            return false;
        };
        let added = self
            .ecs
            .get::<&mut Tags>(entity)
            .expect("entity has tags")
            .0
            .insert(tag.to_string());
        if added {
            self.tagged.insert(tag, number);
            self.record(Undo::AddTag(number, tag.to_string()));
        }
        true
    }

    /// Detaches a tag; false when nothing was removed.
    pub fn remove_tag(&mut self, id: &str, tag: &str) -> bool {
        self.logged(
            self.wants_op()
                .then(|| Op::RemoveTag(id.into(), tag.into())),
            |w| w.remove_tag_now(id, tag),
        )
    }

    fn remove_tag_now(&mut self, id: &str, tag: &str) -> bool {
        let Some((number, entity)) = self.lookup(id) else {
            return false;
        };
        let removed = self
            .ecs
            .get::<&mut Tags>(entity)
            .expect("entity has tags")
            .0
            .remove(tag);
        if removed {
            self.tagged.remove(tag, number);
            self.record(Undo::RemoveTag(number, tag.to_string()));
        }
        removed
    }

    /// Puts `tag` on entity `number` (`on`) or takes it off, unjournaled: for undoing.
    pub(super) fn retag(&mut self, number: u64, tag: String, on: bool) {
        let Some(entity) = self.entity_by_number(number) else {
            return;
        };
        let mut tags = self.ecs.get::<&mut Tags>(entity).expect("entity has tags");
        if on {
            self.tagged.insert(&tag, number);
            tags.0.insert(tag);
        } else {
            self.tagged.remove(&tag, number);
            tags.0.remove(&tag);
        }
    }
}

/// Whether a distance passes a radius test: inclusive, and a NaN distance passes (it is
/// not greater), exactly as [`World::scan_entities`] tests.
fn inside(distance: f64, radius: f64) -> bool {
    distance.partial_cmp(&radius) != Some(std::cmp::Ordering::Greater)
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn normalize(q: [f64; 4]) -> [f64; 4] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 0.0 && n.is_finite() {
        [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}
