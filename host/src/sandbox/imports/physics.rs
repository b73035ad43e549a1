//! `limina:skill/physics`: impulses, ray casts and collision events on the rapier world.

use super::{from_world, to_v3, v3};
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::{Vec3, WorldError};
use crate::sandbox::instance::GuestState;

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::physics;

            impl physics::Host for GuestState {
                fn apply_impulse(&mut self, id: String, impulse: Vec3) -> Result<bool, WorldError> {
                    let call = self.active(Permission::PhysicsWrite)?;
                    call.realm
                        .world
                        .apply_impulse(&id, v3(impulse))
                        .map_err(from_world)
                }

                fn raycast(
                    &mut self,
                    origin: Vec3,
                    direction: Vec3,
                    max_distance: f64,
                ) -> Result<Option<physics::RayHit>, WorldError> {
                    let call = self.active(Permission::PhysicsRead)?;
                    let hit = call
                        .realm
                        .world
                        .raycast(v3(origin), v3(direction), max_distance)
                        .map_err(from_world)?;
                    Ok(hit.map(|h| physics::RayHit {
                        distance: h.distance,
                        point: to_v3(h.point),
                        entity: h.entity,
                    }))
                }

                fn drain_collision_events(
                    &mut self,
                ) -> Result<Vec<physics::CollisionEvent>, WorldError> {
                    let call = self.active(Permission::PhysicsRead)?;
                    Ok(call
                        .realm
                        .world
                        .drain_collision_events()
                        .into_iter()
                        .map(|e| physics::CollisionEvent {
                            started: e.started,
                            body_a: e.body_a,
                            body_b: e.body_b,
                            entity_a: e.entity_a,
                            entity_b: e.entity_b,
                            point: e.point.map(to_v3),
                            normal: e.normal.map(to_v3),
                        })
                        .collect())
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
