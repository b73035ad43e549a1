//! The rapier3d side of the world: bodies, colliders and the fixed-step pipeline; impulses
//! and ray casts on it (collision events live in `collisions.rs`).

use super::collisions::Contacts;
use super::entity::{Body, BodyKind, ColliderShape, EntitySpec, Shape};
use super::journal::Undo;
use super::oplog::Op;
use super::{World, WorldError, entity_id};
use hecs::Entity;
use rapier3d::math::{Pose, Vector};
use rapier3d::prelude::*;

/// Physical properties a body was created with, enough to rebuild it on rollback.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct BodyShape {
    pub kind: BodyKind,
    pub collider: ColliderShape,
    pub size: f64,
    pub friction: f64,
    pub restitution: f64,
}

/// A removed body, kept so a rolled-back call can put it back where it was.
pub struct SavedBody {
    shape: BodyShape,
    pose: Pose,
    linvel: Vector,
    angvel: Vector,
}

/// The rapier world.
pub struct Physics {
    pub(super) world: PhysicsWorld,
    /// Contact start/stop events collected during steps, waiting to be drained.
    pub(super) contacts: Contacts,
}

/// The nearest hit of a ray.
#[derive(Debug, Clone, PartialEq)]
pub struct RayHit {
    /// Distance from the origin along the (normalized) direction, in metres.
    pub distance: f64,
    /// Where the ray hit, in world space.
    pub point: [f64; 3],
    /// The entity owning the hit collider, when it still exists.
    pub entity: Option<String>,
}

/// The inverse of one physics change.
pub(super) enum PhysicsUndo {
    /// Put back a body's velocities (an impulse changed them).
    Velocity {
        number: u64,
        linvel: Vector,
        angvel: Vector,
    },
}

impl Physics {
    pub fn new(tick_seconds: f32) -> Self {
        let mut world = PhysicsWorld::new();
        world.integration_parameters.dt = tick_seconds;
        Physics {
            world,
            contacts: Contacts::default(),
        }
    }

    /// A physics side rebuilt from a saved rapier world and its collider owners.
    pub(super) fn from_parts(world: PhysicsWorld, contacts: Contacts) -> Self {
        Physics { world, contacts }
    }

    pub fn step(&mut self) {
        // Events land in the collector; `World::queue_collision_events` resolves them.
        self.world.step_with_events(&(), self.contacts.collector());
    }

    /// Adds the body and collider an entity spec asks for.
    pub fn add_body(&mut self, spec: &EntitySpec, entity: Entity) -> (RigidBodyHandle, BodyShape) {
        let shape = BodyShape {
            kind: spec.body,
            collider: spec.collider.unwrap_or(match spec.shape {
                Shape::Box => ColliderShape::Box,
                Shape::Sphere => ColliderShape::Sphere,
            }),
            size: spec.size,
            friction: spec.friction,
            restitution: spec.restitution,
        };
        let p = spec.position;
        let pose = Pose::from_translation(Vector::new(p[0] as f32, p[1] as f32, p[2] as f32));
        (
            self.insert(shape, pose, Vector::ZERO, Vector::ZERO, entity),
            shape,
        )
    }

    fn insert(
        &mut self,
        shape: BodyShape,
        pose: Pose,
        linvel: Vector,
        angvel: Vector,
        entity: Entity,
    ) -> RigidBodyHandle {
        let builder = match shape.kind {
            BodyKind::Fixed => RigidBodyBuilder::fixed(),
            _ => RigidBodyBuilder::dynamic(),
        };
        let body = builder
            .pose(pose)
            .linvel(linvel)
            .angvel(angvel)
            .user_data(entity.to_bits().get() as u128)
            .build();
        let half = (shape.size / 2.0) as f32;
        let collider = match shape.collider {
            ColliderShape::Box => ColliderBuilder::cuboid(half, half, half),
            ColliderShape::Sphere => ColliderBuilder::ball(half),
            ColliderShape::Capsule => ColliderBuilder::capsule_y(half / 2.0, half / 2.0),
        }
        .friction(shape.friction as f32)
        .restitution(shape.restitution as f32)
        .active_events(ActiveEvents::COLLISION_EVENTS)
        .user_data(entity.to_bits().get() as u128)
        .build();
        let (handle, collider) = self.world.insert(body, collider);
        self.contacts.own(collider, body_id(handle), entity);
        handle
    }

    /// Removes a body with its colliders, returning what is needed to restore it.
    pub fn remove_body(&mut self, handle: RigidBodyHandle, shape: BodyShape) -> SavedBody {
        if let Some(body) = self.world.bodies.get(handle) {
            // Their stop events come out of the next step and still need an owner.
            self.contacts.retire(body.colliders());
        }
        let body = self
            .world
            .remove_body(handle)
            .expect("entity bodies are always present");
        SavedBody {
            shape,
            pose: *body.position(),
            linvel: body.linvel(),
            angvel: body.angvel(),
        }
    }

    /// Puts a removed body back; it gets a new handle.
    pub fn restore_body(
        &mut self,
        saved: SavedBody,
        entity: Entity,
    ) -> (RigidBodyHandle, BodyShape) {
        let handle = self.insert(saved.shape, saved.pose, saved.linvel, saved.angvel, entity);
        (handle, saved.shape)
    }

    /// Position and rotation of a body, in world units.
    pub fn pose(&self, handle: RigidBodyHandle) -> Option<([f64; 3], [f64; 4])> {
        let body = self.world.bodies.get(handle)?;
        let t = body.translation();
        let r = body.rotation();
        Some((
            [t.x as f64, t.y as f64, t.z as f64],
            [r.x as f64, r.y as f64, r.z as f64, r.w as f64],
        ))
    }

    /// Moves a body to a new pose and wakes it.
    pub fn set_pose(&mut self, handle: RigidBodyHandle, position: [f64; 3], rotation: [f64; 4]) {
        if let Some(body) = self.world.bodies.get_mut(handle) {
            let t = Vector::new(position[0] as f32, position[1] as f32, position[2] as f32);
            let r = rapier3d::math::Rotation::from_xyzw(
                rotation[0] as f32,
                rotation[1] as f32,
                rotation[2] as f32,
                rotation[3] as f32,
            );
            body.set_position(Pose::from_parts(t, r), true);
        }
    }

    /// A body's linear and angular velocity.
    fn velocity(&self, handle: RigidBodyHandle) -> Option<(Vector, Vector)> {
        let body = self.world.bodies.get(handle)?;
        Some((body.linvel(), body.angvel()))
    }

    fn set_velocity(&mut self, handle: RigidBodyHandle, linvel: Vector, angvel: Vector) {
        if let Some(body) = self.world.bodies.get_mut(handle) {
            body.set_linvel(linvel, true);
            body.set_angvel(angvel, true);
        }
    }

    /// The nearest collider hit by a ray within `max_distance`: (distance, owning entity).
    ///
    /// Every collider is tested against its body's current pose rather than through the
    /// broad phase, whose tree is only refreshed by a step: a ray cast right after an entity
    /// was created or moved must see it where it now is.
    fn cast_ray(&self, ray: &Ray, max_distance: f32) -> Option<(f32, Entity)> {
        let mut nearest: Option<(f32, u128)> = None;
        for (_, collider) in self.world.colliders.iter() {
            let pose = match collider.parent().and_then(|b| self.world.bodies.get(b)) {
                Some(body) => {
                    body.position() * collider.position_wrt_parent().copied().unwrap_or_default()
                }
                None => *collider.position(),
            };
            let limit = nearest.map_or(max_distance, |(d, _)| d);
            if let Some(toi) = collider.shape().cast_ray(&pose, ray, limit, true)
                && nearest.is_none_or(|(d, _)| toi < d)
            {
                nearest = Some((toi, collider.user_data));
            }
        }
        let (toi, data) = nearest?;
        Some((toi, Entity::from_bits(data as u64)?))
    }
}

impl World {
    /// Applies an impulse (N·s) to an entity's dynamic body; false for an unknown entity or
    /// one without a dynamic body.
    pub fn apply_impulse(&mut self, id: &str, impulse: [f64; 3]) -> Result<bool, WorldError> {
        self.logged(
            self.wants_op()
                .then(|| Op::ApplyImpulse(id.into(), impulse)),
            |w| w.apply_impulse_now(id, impulse),
        )
    }

    fn apply_impulse_now(&mut self, id: &str, impulse: [f64; 3]) -> Result<bool, WorldError> {
        let v = finite_vector("impulse", impulse)?;
        let Some((number, entity)) = self.lookup(id) else {
            return Ok(false);
        };
        let Some(body) = self.ecs.get::<&Body>(entity).ok().map(|b| *b) else {
            return Ok(false);
        };
        if body.shape.kind != BodyKind::Dynamic {
            return Ok(false);
        }
        let Some((linvel, angvel)) = self.physics.velocity(body.handle) else {
            return Ok(false);
        };
        if let Some(rb) = self.physics.world.bodies.get_mut(body.handle) {
            rb.apply_impulse(v, true);
        }
        self.record(Undo::Physics(PhysicsUndo::Velocity {
            number,
            linvel,
            angvel,
        }));
        Ok(true)
    }

    /// The nearest body collider a ray hits within `max_distance` metres.
    pub fn raycast(
        &self,
        origin: [f64; 3],
        direction: [f64; 3],
        max_distance: f64,
    ) -> Result<Option<RayHit>, WorldError> {
        let o = finite_vector("origin", origin)?;
        let d = finite_vector("direction", direction)?;
        if max_distance.is_nan() || max_distance <= 0.0 {
            return Err(WorldError::Invalid(format!(
                "`maxDistance` must be > 0, got {max_distance}"
            )));
        }
        let Some(dir) = d.try_normalize() else {
            return Err(WorldError::Invalid(
                "`direction` must not be the zero vector".into(),
            ));
        };
        let max = max_distance.min(f32::MAX as f64) as f32;
        let Some((toi, entity)) = self.physics.cast_ray(&Ray::new(o, dir), max) else {
            return Ok(None);
        };
        let point = o + dir * toi;
        Ok(Some(RayHit {
            distance: toi as f64,
            point: [point.x as f64, point.y as f64, point.z as f64],
            entity: self.number_of(entity).map(entity_id),
        }))
    }

    /// The `ent_<n>` number of a live ECS entity.
    pub(super) fn number_of(&self, entity: Entity) -> Option<u64> {
        self.by_number
            .iter()
            .find(|(_, e)| **e == entity)
            .map(|(n, _)| *n)
    }

    pub(super) fn undo_physics(&mut self, undo: PhysicsUndo) {
        match undo {
            PhysicsUndo::Velocity {
                number,
                linvel,
                angvel,
            } => {
                let handle = self
                    .entity_by_number(number)
                    .and_then(|e| self.ecs.get::<&Body>(e).ok().map(|b| b.handle));
                if let Some(handle) = handle {
                    self.physics.set_velocity(handle, linvel, angvel);
                }
            }
        }
    }
}

fn finite_vector(field: &str, v: [f64; 3]) -> Result<Vector, WorldError> {
    if !v
        .iter()
        .all(|c| c.is_finite() && c.abs() <= f32::MAX as f64)
    {
        return Err(WorldError::Invalid(format!(
            "`{field}` must hold three finite numbers, got {v:?}"
        )));
    }
    Ok(Vector::new(v[0] as f32, v[1] as f32, v[2] as f32))
}

/// The public id of a body: its arena index.
pub fn body_id(handle: RigidBodyHandle) -> u64 {
    handle.into_raw_parts().0 as u64
}

#[cfg(test)]
#[path = "physics_tests.rs"]
mod tests;
