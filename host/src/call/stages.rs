//! What one call went through, stage by stage, for operators watching the host: plain data
//! the registry records (`registry/stages.rs`) and telemetry turns into spans, so neither
//! knows the other.

use std::time::Instant;

/// When a stage began and ended.
#[derive(Debug, Clone, Copy)]
pub struct Stage {
    pub started: Instant,
    pub ended: Instant,
}

impl Stage {
    /// A stage from `started` to `ended` (a run measured elsewhere, on a worker).
    pub fn new(started: Instant, ended: Instant) -> Stage {
        Stage { started, ended }
    }

    /// A stage that began at `started` and ends now.
    pub fn until_now(started: Instant) -> Stage {
        Stage {
            started,
            ended: Instant::now(),
        }
    }
}

/// The policy engine's decision on a call.
#[derive(Debug, Clone, Copy)]
pub struct PolicyStage {
    pub stage: Stage,
    pub allow: bool,
    /// The rule that decided (`profile.allow`, `quota.exceeded`, …).
    pub rule: &'static str,
}

/// The handler's run inside its package's sandbox.
#[derive(Debug, Clone)]
pub struct GuestStage {
    pub stage: Stage,
    pub fuel_used: u64,
    pub peak_memory_bytes: u64,
    pub package: String,
    pub package_version: String,
}

/// Every stage a call reached; `None` for those it did not (a call refused by the policy has
/// no hooks and no guest stage; a built-in has no guest stage; hooks appear only when some ran).
#[derive(Debug, Clone, Default)]
pub struct CallStages {
    pub policy: Option<PolicyStage>,
    pub before_hooks: Option<Stage>,
    pub guest: Option<GuestStage>,
    pub after_hooks: Option<Stage>,
}
