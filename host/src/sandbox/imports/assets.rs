//! `limina:skill/assets`: glTF/GLB files from the host's assets folder, placed as entities.

use super::{from_world, v3};
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
            use crate::sandbox::bindings::$v::limina::skill::assets;

            impl assets::Host for GuestState {
                fn load_gltf(
                    &mut self,
                    asset_id: String,
                    position: Vec3,
                ) -> Result<(String, assets::GltfSummary), WorldError> {
                    let call = self.active(Permission::SceneWrite)?;
                    let (id, r) = call
                        .realm
                        .world
                        .load_gltf(&asset_id, v3(position))
                        .map_err(from_world)?;
                    Ok((
                        id,
                        assets::GltfSummary {
                            source: r.source,
                            bytes: r.bytes,
                            root_name: r.root_name,
                            object_count: r.object_count,
                            mesh_count: r.mesh_count,
                            material_count: r.material_count,
                            texture_count: r.texture_count,
                        },
                    ))
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
