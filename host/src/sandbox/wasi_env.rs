//! Secrets through `wasi:cli/environment`: `get-environment` is replaced by one that answers,
//! during a call, with the secrets the package declared and the host gives it — as
//! `NAME=value` pairs, nothing else (no host variables, no arguments) — and only when the
//! calling session holds `secrets.read`. A package with secrets called by a session without it
//! sees an empty environment, and the refusal is traced (`security.permission.denied`).

use super::instance::GuestState;
use crate::policy::Permission;
use anyhow::Result;
use serde_json::json;
use wasmtime::StoreContextMut;
use wasmtime::component::Linker;

/// The WASI cli interface version wasmtime-wasi links; guests importing older 0.2.x versions
/// resolve to it.
const ENVIRONMENT: &str = "wasi:cli/environment@0.2.12";

/// Replaces `get-environment`.
pub(super) fn shadow_environment(linker: &mut Linker<GuestState>) -> Result<()> {
    linker.allow_shadowing(true);
    let mut env = linker.instance(ENVIRONMENT)?;
    env.func_wrap(
        "get-environment",
        |mut store: StoreContextMut<'_, GuestState>, (): ()| {
            Ok((store.data_mut().visible_secrets(),))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

impl GuestState {
    /// The environment a guest sees now: its granted secrets during a call whose session
    /// holds `secrets.read`, else nothing.
    fn visible_secrets(&mut self) -> Vec<(String, String)> {
        let package = self.package.clone();
        let Some(call) = self.call.as_mut() else {
            return Vec::new();
        };
        let Some(reach) = call.info.reach.clone() else {
            return Vec::new();
        };
        if reach.declared.secrets.is_empty() {
            return Vec::new();
        }
        if !call.info.grants.contains(Permission::SecretsRead) {
            if !call.secrets_refused {
                call.secrets_refused = true;
                call.emit("security.permission.denied", json!({
                        "boundary": "secrets",
                        "skill": call.info.skill,
                        "package": &*package,
                        "missing": Permission::SecretsRead.as_str(),
                        "rule": "profile.denied",
                        "reason": "the session's profile does not hold secrets.read, so the guest sees no secrets",
                        "agentId": call.info.agent_id,
                        "sessionId": call.info.session_id,
                    }));
            }
            return Vec::new();
        }
        crate::grants::secrets::visible(&package, &reach.declared, &reach.host)
    }
}
