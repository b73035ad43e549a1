//! `limina:skill/render`: materials and lighting, the scene description a renderer reads.

use super::{from_world, v3};
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::instance::GuestState;
use crate::world;

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::render;

            impl render::Host for GuestState {
                fn set_material(
                    &mut self,
                    id: String,
                    patch: render::MaterialPatch,
                ) -> Result<bool, WorldError> {
                    let call = self.active(Permission::SceneWrite)?;
                    let patch = world::MaterialPatch {
                        color: patch.color,
                        roughness: patch.roughness,
                        metalness: patch.metalness,
                        cast_shadow: patch.cast_shadow,
                        receive_shadow: patch.receive_shadow,
                    };
                    call.realm
                        .world
                        .set_material(&id, &patch)
                        .map_err(from_world)
                }

                fn set_lighting(&mut self, l: render::Lighting) -> Result<(), WorldError> {
                    let call = self.active(Permission::SceneWrite)?;
                    let lighting = world::Lighting {
                        ambient_color: l.ambient_color,
                        ambient_intensity: l.ambient_intensity,
                        directional_color: l.directional_color,
                        directional_intensity: l.directional_intensity,
                        direction: v3(l.direction),
                        cast_shadow: l.cast_shadow,
                        shadow_map_size: l.shadow_map_size,
                        shadow_camera_extent: l.shadow_camera_extent,
                        shadow_camera_near: l.shadow_camera_near,
                        shadow_camera_far: l.shadow_camera_far,
                        shadow_bias: l.shadow_bias,
                    };
                    call.realm.world.set_lighting(lighting).map_err(from_world)
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
