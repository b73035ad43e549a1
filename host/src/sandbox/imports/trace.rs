//! `limina:skill/trace`: events a package writes, caused by the current invocation.

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
            use crate::sandbox::bindings::$v::limina::skill::trace;

            impl trace::Host for GuestState {
                fn emit(&mut self, kind: String, payload: String) -> Result<String, WorldError> {
                    let package = self.package.clone();
                    // No secret value enters the trace, even one the guest puts in an event.
                    let (kind, payload) = (self.redacted(kind), self.redacted_json(payload));
                    let Some(call) = self.call.as_mut() else {
                        return Err(WorldError::Forbidden(
                            "host imports are only available during a skill call".into(),
                        ));
                    };
                    let payload: Value = serde_json::from_str(&payload).map_err(|e| {
                        WorldError::Invalid(format!("`payload` is not valid JSON: {e}"))
                    })?;
                    let id = call.emit(&format!("{package}.{kind}"), payload);
                    Ok(id)
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
