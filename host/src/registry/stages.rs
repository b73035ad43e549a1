//! Recording what one call went through, stage by stage (the stages are `crate::call`'s; the
//! MCP layer turns them into OpenTelemetry spans). The registry knows nothing of telemetry.
//! Recorded only while [`Registry::observe_stages`] is on, and only for the outermost call (a
//! scene replay's inner calls are part of their caller's handler), so a host that exports
//! nothing pays one flag check per stage.

use super::Registry;
use crate::call::{CallStages, GuestStage, PolicyStage, Stage};
use std::time::Instant;

/// The registry's side: whether stages are recorded, how deep the current call is nested, and
/// what the outermost one recorded so far.
#[derive(Default)]
pub(super) struct StageRecorder {
    on: bool,
    depth: u32,
    stages: CallStages,
    /// The fuel and peak memory of the last guest run settled.
    usage: Option<(u64, u64)>,
}

impl Registry {
    /// Records the stages of every call from now on (or stops), for [`Registry::take_stages`].
    pub fn observe_stages(&mut self, on: bool) {
        self.recorder.on = on;
    }

    /// What the last call went through (empty when not observing).
    pub fn take_stages(&mut self) -> CallStages {
        std::mem::take(&mut self.recorder.stages)
    }

    /// Enters a call: the outermost one starts with no stages recorded.
    pub(super) fn enter_call(&mut self) {
        self.recorder.depth += 1;
        if self.recorder.depth == 1 && self.recorder.on {
            self.recorder.stages = CallStages::default();
        }
    }

    /// Whether the call running is not nested in another (a scene replay's calls are).
    pub(super) fn outermost_call(&self) -> bool {
        self.recorder.depth <= 1
    }

    /// Whether a call opened now would be outermost (none is running).
    pub(super) fn outermost_call_next(&self) -> bool {
        self.recorder.depth == 0
    }

    pub(super) fn leave_call(&mut self) {
        self.recorder.depth = self.recorder.depth.saturating_sub(1);
    }

    /// The start of a stage worth recording: `None` unless observing the outermost call.
    pub(super) fn stage_start(&self) -> Option<Instant> {
        (self.recorder.on && self.recorder.depth == 1).then(Instant::now)
    }

    pub(super) fn record_policy(
        &mut self,
        started: Option<Instant>,
        allow: bool,
        rule: &'static str,
    ) {
        if let Some(started) = started {
            self.recorder.stages.policy = Some(PolicyStage {
                stage: Stage::until_now(started),
                allow,
                rule,
            });
        }
    }

    /// Hooks of one phase ran from `started` until now.
    pub(super) fn record_hooks(&mut self, started: Option<Instant>, before: bool) {
        if let Some(started) = started {
            let stage = Some(Stage::until_now(started));
            if before {
                self.recorder.stages.before_hooks = stage;
            } else {
                self.recorder.stages.after_hooks = stage;
            }
        }
    }

    /// What a guest run used, as it is settled (read back by [`Registry::record_guest`]).
    pub(super) fn record_usage(&mut self, fuel_used: u64, peak_memory_bytes: u64) {
        if self.recorder.on {
            self.recorder.usage = Some((fuel_used, peak_memory_bytes));
        }
    }

    /// Forgets the usage of earlier guest runs (hooks) before the handler's.
    pub(super) fn clear_usage(&mut self) {
        self.recorder.usage = None;
    }

    /// The handler ran in `package` (an index into the packages) over `stage`.
    pub(super) fn record_guest(&mut self, stage: Option<Stage>, package: usize) {
        if stage.is_some() {
            let label = self.package_label(package);
            self.record_guest_in(stage, label);
        }
    }

    /// The handler ran in the package named `label` (name, version) over `stage`.
    pub(super) fn record_guest_in(
        &mut self,
        stage: Option<Stage>,
        label: Option<(String, String)>,
    ) {
        let (Some(stage), Some((package, package_version))) = (stage, label) else {
            return;
        };
        let (fuel_used, peak_memory_bytes) = self.recorder.usage.take().unwrap_or_default();
        self.recorder.stages.guest = Some(GuestStage {
            stage,
            fuel_used,
            peak_memory_bytes,
            package,
            package_version,
        });
    }

    /// The name and version of package `package`, while stages are observed (a detached call
    /// notes them as it leaves: a reload may replace the package before it comes back).
    pub(super) fn package_label(&self, package: usize) -> Option<(String, String)> {
        let manifest = &self
            .packages
            .get(package)
            .filter(|_| self.recorder.on)?
            .manifest;
        Some((manifest.name.clone(), manifest.version.clone()))
    }

    /// Puts back stages taken out with [`Registry::take_stages`] (a detached call carries
    /// them to its completion).
    pub(super) fn restore_recorded(&mut self, stages: CallStages) {
        if self.recorder.on {
            self.recorder.stages = stages;
        }
    }

    /// Whether stages are being recorded at all.
    pub(super) fn observing(&self) -> bool {
        self.recorder.on
    }
}
