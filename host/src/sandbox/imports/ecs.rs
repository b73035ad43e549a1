//! `limina:skill/ecs`: transform components and tags.

use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::instance::GuestState;

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::ecs;

            impl ecs::Host for GuestState {
                fn update_component(
                    &mut self,
                    id: String,
                    component: ecs::TransformComponent,
                    value: Vec<f64>,
                ) -> Result<bool, WorldError> {
                    let call = self.active(Permission::EcsModify)?;
                    let world = &mut call.realm.world;
                    let three = |v: &[f64]| -> Result<[f64; 3], WorldError> {
                        match v {
                            [x, y, z] => Ok([*x, *y, *z]),
                            _ => Err(WorldError::Invalid(format!(
                                "`value` must have 3 numbers for this component, got {}",
                                v.len()
                            ))),
                        }
                    };
                    Ok(match component {
                        ecs::TransformComponent::Position => {
                            world.set_transform(&id, Some(three(&value)?), None, None)
                        }
                        ecs::TransformComponent::Scale => {
                            world.set_transform(&id, None, None, Some(three(&value)?))
                        }
                        ecs::TransformComponent::Rotation => {
                            let q = match value.as_slice() {
                                [x, y, z] => [*x, *y, *z, 1.0],
                                [x, y, z, w] => [*x, *y, *z, *w],
                                _ => {
                                    return Err(WorldError::Invalid(format!(
                                        "`value` must have 3 or 4 numbers for a rotation, got {}",
                                        value.len()
                                    )));
                                }
                            };
                            world.set_transform(&id, None, Some(q), None)
                        }
                    })
                }

                fn add_tag(&mut self, id: String, tag: String) -> Result<bool, WorldError> {
                    let call = self.active(Permission::EcsModify)?;
                    Ok(call.realm.world.add_tag(&id, &tag))
                }

                fn remove_tag(&mut self, id: String, tag: String) -> Result<bool, WorldError> {
                    let call = self.active(Permission::EcsModify)?;
                    Ok(call.realm.world.remove_tag(&id, &tag))
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
