//! Hooks run around handlers: before-hooks see (and may rewrite or refuse) the validated
//! input, after-hooks the output. Host hooks run first, then guest hooks in load order.

use super::Caller;
use crate::call::Failure;
use crate::policy::glob;
use serde_json::Value;

/// When a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPhase {
    Before,
    After,
}

/// What a host hook does: given the caller, the skill and the payload, return a replacement
/// payload, `None` to keep it, or a failure to refuse the call.
pub type HostHookFn = dyn FnMut(&Caller, &str, &Value) -> Result<Option<Value>, Failure> + Send;

/// A hook registered by the host.
pub struct HostHook {
    pub name: String,
    pub phase: HookPhase,
    /// Glob patterns over skill names.
    pub skills: Vec<String>,
    pub run: Box<HostHookFn>,
}

/// A hook a guest declared in `describe`.
#[derive(Debug, Clone)]
pub(crate) struct GuestHook {
    pub name: String,
    pub phase: HookPhase,
    pub skills: Vec<String>,
}

/// Whether any of `patterns` matches `skill`.
pub(super) fn covers(patterns: &[String], skill: &str) -> bool {
    patterns.iter().any(|p| glob::matches(p, skill))
}
