//! `limina:skill/ui`: panels as scene data, created and changed by JSON spec.

use super::from_world;
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::instance::GuestState;
use serde_json::Value;

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::ui;

            fn parse(text: &str, what: &str) -> Result<Value, WorldError> {
                serde_json::from_str(text)
                    .map_err(|e| WorldError::Invalid(format!("`{what}` is not valid JSON: {e}")))
            }

            impl ui::Host for GuestState {
                fn create_panel(
                    &mut self,
                    kind: String,
                    spec: String,
                ) -> Result<String, WorldError> {
                    let call = self.active(Permission::UiWrite)?;
                    let spec = parse(&spec, "spec")?;
                    call.realm
                        .world
                        .create_panel(&kind, spec, &call.info.agent_id)
                        .map_err(from_world)
                }

                fn update_panel(
                    &mut self,
                    handle: String,
                    patch: String,
                ) -> Result<(bool, bool), WorldError> {
                    let call = self.active(Permission::UiWrite)?;
                    let patch = parse(&patch, "patch")?;
                    call.realm
                        .world
                        .update_panel(&handle, patch)
                        .map_err(from_world)
                }

                fn remove_panel(&mut self, handle: String) -> Result<bool, WorldError> {
                    let call = self.active(Permission::UiWrite)?;
                    Ok(call.realm.world.remove_panel(&handle))
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
