//! A session: the identity and permissions bound at `initialize`.

use crate::mcp::wire::classic::{declares_elicitation, negotiate};
use crate::policy::Profiles;
use crate::registry::{Caller, HOST_SESSION};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

/// A bound session.
#[derive(Debug, Clone)]
pub struct Session {
    pub caller: Caller,
    pub protocol_version: String,
    /// Its client declared form elicitation at `initialize`: it can be asked for approvals.
    pub elicits: bool,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn generated(prefix: &str) -> String {
    let n = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}_{}_{n}", std::process::id())
}

impl Session {
    /// Binds a session from `initialize` params; the error names the bad field.
    pub fn bind(
        params: &Value,
        profiles: &Profiles,
        default_profile: &str,
    ) -> Result<Session, String> {
        let text = |key: &str| -> Result<Option<String>, String> {
            match params.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if !s.is_empty() && s.len() <= 128 => Ok(Some(s.clone())),
                Some(_) => Err(format!(
                    "`{key}` must be a non-empty string of at most 128 characters"
                )),
            }
        };
        // The host's own identity is not for clients: its calls run on the host's authority.
        let text = |key: &str| match text(key)? {
            Some(id) if id == HOST_SESSION => Err(format!(
                "`{key}` `{HOST_SESSION}` is reserved for the host's own calls; choose another"
            )),
            other => Ok(other),
        };
        let agent_id = text("agentId")?.unwrap_or_else(|| generated("agent"));
        let session_id = text("sessionId")?.unwrap_or_else(|| generated("session"));
        let profile_name = text("profile")?.unwrap_or_else(|| default_profile.to_string());
        let profile = profiles.get(&profile_name)?;
        let protocol_version =
            negotiate(params.get("protocolVersion").and_then(Value::as_str)).to_string();
        Ok(Session {
            caller: Caller {
                agent_id,
                session_id,
                profile: profile.name.clone(),
                permissions: profile.permissions,
            },
            protocol_version,
            elicits: params.get("capabilities").is_some_and(declares_elicitation),
        })
    }

    /// The `session` object of the initialize result.
    pub fn describe(&self) -> Value {
        json!({
            "agentId": self.caller.agent_id,
            "sessionId": self.caller.session_id,
            "profile": self.caller.profile,
            "permissions": self.caller.permissions.names(),
        })
    }
}
