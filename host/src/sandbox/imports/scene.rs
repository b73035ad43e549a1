//! `limina:skill/scene`: entities, queries and transforms.

use super::{from_world, to_v3, v3};
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types;
use crate::sandbox::instance::GuestState;
use crate::world;
use types::{Quat, Vec3, WorldError};

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::scene;

            fn entity_info(e: world::EntityInfo) -> scene::EntityInfo {
                let t = e.transform;
                scene::EntityInfo {
                    id: e.id,
                    transform: scene::Transform {
                        position: to_v3(t.position),
                        rotation: Quat {
                            x: t.rotation[0],
                            y: t.rotation[1],
                            z: t.rotation[2],
                            w: t.rotation[3],
                        },
                        scale: to_v3(t.scale),
                    },
                    tags: e.tags,
                    distance: e.distance,
                    body_id: e.body_id,
                }
            }

            impl scene::Host for GuestState {
                fn create_entity(&mut self, spec: scene::EntitySpec) -> Result<String, WorldError> {
                    let call = self.active(Permission::SceneWrite)?;
                    let spec = world::EntitySpec {
                        shape: match spec.shape {
                            scene::Shape::Box => world::Shape::Box,
                            scene::Shape::Sphere => world::Shape::Sphere,
                        },
                        collider: spec.collider.map(|c| match c {
                            scene::ColliderShape::Box => world::ColliderShape::Box,
                            scene::ColliderShape::Sphere => world::ColliderShape::Sphere,
                            scene::ColliderShape::Capsule => world::ColliderShape::Capsule,
                        }),
                        size: spec.size,
                        color: spec.color,
                        position: v3(spec.position),
                        body: match spec.body {
                            scene::BodyKind::None => world::BodyKind::None,
                            scene::BodyKind::Dynamic => world::BodyKind::Dynamic,
                            scene::BodyKind::Fixed => world::BodyKind::Fixed,
                        },
                        friction: spec.friction,
                        restitution: spec.restitution,
                    };
                    call.realm.world.create_entity(&spec).map_err(from_world)
                }

                fn destroy_entity(&mut self, id: String) -> Result<bool, WorldError> {
                    let call = self.active(Permission::SceneWrite)?;
                    Ok(call.realm.world.destroy_entity(&id))
                }

                fn query_entities(
                    &mut self,
                    filter: scene::EntityFilter,
                ) -> Result<Vec<scene::EntityInfo>, WorldError> {
                    let call = self.active(Permission::SceneRead)?;
                    let filter = world::EntityFilter {
                        near: filter.near.map(v3),
                        radius: filter.radius,
                        tag: filter.tag,
                    };
                    Ok(call
                        .realm
                        .world
                        .query_entities(&filter)
                        .into_iter()
                        .map(entity_info)
                        .collect())
                }

                fn get_entity(
                    &mut self,
                    id: String,
                ) -> Result<Option<scene::EntityInfo>, WorldError> {
                    let call = self.active(Permission::SceneRead)?;
                    Ok(call.realm.world.get_entity(&id).map(entity_info))
                }

                fn set_transform(
                    &mut self,
                    id: String,
                    position: Option<Vec3>,
                    rotation: Option<Quat>,
                    scale: Option<Vec3>,
                ) -> Result<bool, WorldError> {
                    let call = self.active(Permission::SceneWrite)?;
                    let rotation = rotation.map(|q| [q.x, q.y, q.z, q.w]);
                    Ok(call.realm.world.set_transform(
                        &id,
                        position.map(v3),
                        rotation,
                        scale.map(v3),
                    ))
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
