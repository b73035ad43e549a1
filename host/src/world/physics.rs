//! The rapier3d side of the world: bodies, colliders and the fixed-step pipeline.

use super::entity::{BodyKind, ColliderShape, EntitySpec, Shape};
use hecs::Entity;
use rapier3d::math::{Pose, Vector};
use rapier3d::prelude::*;

/// Physical properties a body was created with, enough to rebuild it on rollback.
#[derive(Debug, Clone, Copy)]
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
    world: PhysicsWorld,
}

impl Physics {
    pub fn new(tick_seconds: f32) -> Self {
        let mut world = PhysicsWorld::new();
        world.integration_parameters.dt = tick_seconds;
        Physics { world }
    }

    pub fn step(&mut self) {
        self.world.step();
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
        self.world.insert(body, collider).0
    }

    /// Removes a body with its colliders, returning what is needed to restore it.
    pub fn remove_body(&mut self, handle: RigidBodyHandle, shape: BodyShape) -> SavedBody {
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
}

/// The public id of a body: its arena index.
pub fn body_id(handle: RigidBodyHandle) -> u64 {
    handle.into_raw_parts().0 as u64
}
