//! What the orchestrator's probes read, kept by the engine loop itself: when it last turned
//! (`/healthz`: a loop that has not turned for [`ENGINE_STALL_MS`] is stalled, whatever the
//! process still answers) and whether it takes traffic (`/readyz`: it has begun serving and is
//! not draining). Transports read these without asking the engine, so a stalled engine is
//! still reported.

use crate::limits::ENGINE_STALL_MS;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// The engine's pulse and state, shared with the transports.
#[derive(Debug)]
pub struct Vitals {
    since: Instant,
    /// Milliseconds after `since` of the loop's last turn, plus one (0: not turned yet).
    pulse: AtomicU64,
    draining: AtomicBool,
}

impl Vitals {
    pub(super) fn new() -> Vitals {
        Vitals {
            since: Instant::now(),
            pulse: AtomicU64::new(0),
            draining: AtomicBool::new(false),
        }
    }

    /// The loop turned now.
    pub(super) fn beat(&self) {
        let now = self.since.elapsed().as_millis() as u64 + 1;
        self.pulse.store(now, Ordering::Relaxed);
    }

    /// The host stopped admitting (a termination signal): no longer ready.
    pub(super) fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Whether the host stopped admitting.
    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Why the engine counts as stalled, if it does: its loop has not turned for
    /// `ENGINE_STALL_MS` (a call holding the engine, a deadlock). Before its first turn it is
    /// starting, not stalled.
    pub fn stalled(&self) -> Option<String> {
        let pulse = self.pulse.load(Ordering::Relaxed);
        if pulse == 0 {
            return None;
        }
        let quiet = (self.since.elapsed().as_millis() as u64 + 1).saturating_sub(pulse);
        (quiet >= ENGINE_STALL_MS).then(|| {
            format!(
                "the engine loop has not turned for {quiet} ms (stalled past {ENGINE_STALL_MS} ms)"
            )
        })
    }

    /// Why the host should not be sent new traffic from the engine's side, if so.
    pub fn not_ready(&self) -> Option<String> {
        if self.pulse.load(Ordering::Relaxed) == 0 {
            return Some("starting: the engine has not begun serving".into());
        }
        if self.draining.load(Ordering::Relaxed) {
            return Some("draining: the host is shutting down and admits no new calls".into());
        }
        self.stalled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_is_starting_then_ready_then_draining() {
        let vitals = Vitals::new();
        assert!(vitals.not_ready().unwrap().starts_with("starting"));
        assert_eq!(vitals.stalled(), None, "starting is not stalled");
        vitals.beat();
        assert_eq!(vitals.not_ready(), None);
        vitals.drain();
        assert!(vitals.not_ready().unwrap().starts_with("draining"));
    }

    #[test]
    fn a_loop_that_stops_turning_is_stalled() {
        // Its last turn came right after it started, longer ago than the stall limit.
        let since = Instant::now() - std::time::Duration::from_millis(ENGINE_STALL_MS + 50);
        let old = Vitals {
            since,
            pulse: AtomicU64::new(1),
            draining: AtomicBool::new(false),
        };
        assert!(
            old.stalled().unwrap().contains("has not turned for"),
            "{:?}",
            old.stalled()
        );
        assert!(old.not_ready().is_some());
    }
}
