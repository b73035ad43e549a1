//! How long the engine looks for its next message before it sleeps. Waking a thread that
//! slept in `poll` on another core can cost more than a call: on this 2-core VM
//! (2026-11-27) a one-at-a-time echo answered at p50 34 µs with client and server on one
//! core and 343 µs across two. A client calling one at a time sends its next call about a
//! round trip after the reply, so the engine keeps looking for about as long as the recent
//! gaps were — within a bound, and not at all once messages come seldom (an idle host, an
//! agent thinking between calls). On one core it never looks: the client could not run
//! while it did (pinned to one core, the look cost a quarter of sequential calls/s).

use crate::limits::{ENGINE_SPIN_MAX_US, ENGINE_SPIN_US};
use std::time::Duration;

/// The recent gaps between going idle and the next message, smoothed.
#[derive(Debug)]
pub struct Spin {
    /// Exponentially weighted mean of the recent gaps, in µs, each counted at most twice the
    /// bound (one long pause should not take many quick calls to forget).
    gap_us: f64,
    /// More than one core to run on: looking can only help then.
    cores: bool,
}

impl Spin {
    /// For a process that may run on `cores` cores; no looking until messages have come
    /// quickly.
    pub fn for_cores(cores: usize) -> Spin {
        Spin {
            gap_us: Self::LONGEST_GAP_US,
            cores: cores > 1,
        }
    }

    const LONGEST_GAP_US: f64 = 2.0 * ENGINE_SPIN_MAX_US as f64;
    /// The weight of the newest gap.
    const NEWEST: f64 = 0.25;

    /// How long to look before sleeping, the engine having just gone idle: twice the usual
    /// gap, at least `ENGINE_SPIN_US`, at most `ENGINE_SPIN_MAX_US`; nothing when gaps run
    /// longer than that bound, or on one core.
    pub fn window(&self) -> Duration {
        let max = ENGINE_SPIN_MAX_US as f64;
        if !self.cores || self.gap_us > max {
            return Duration::ZERO;
        }
        let us = (2.0 * self.gap_us).clamp(ENGINE_SPIN_US as f64, max);
        Duration::from_nanos((us * 1_000.0) as u64)
    }

    /// A message came `gap` after the engine went idle.
    pub fn arrived(&mut self, gap: Duration) {
        let us = (gap.as_secs_f64() * 1e6).min(Self::LONGEST_GAP_US);
        self.gap_us += Self::NEWEST * (us - self.gap_us);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(gaps_us: &[u64]) -> Spin {
        let mut spin = Spin::for_cores(2);
        for &gap in gaps_us {
            spin.arrived(Duration::from_micros(gap));
        }
        spin
    }

    #[test]
    fn a_fresh_or_seldom_called_engine_does_not_spin() {
        assert_eq!(Spin::for_cores(2).window(), Duration::ZERO);
        assert_eq!(after(&[5_000_000; 20]).window(), Duration::ZERO);
        // One quick call after a long quiet is not yet a client calling in a loop.
        assert_eq!(after(&[5_000_000, 40]).window(), Duration::ZERO);
    }

    #[test]
    fn a_client_calling_one_at_a_time_is_waited_for_about_twice_its_gap_within_the_bounds() {
        let window = after(&[300; 30]).window();
        let bound = Duration::from_micros(ENGINE_SPIN_MAX_US);
        assert!(window <= bound, "{window:?}");
        assert!(
            window >= Duration::from_micros(ENGINE_SPIN_MAX_US.min(590)),
            "{window:?}"
        );
        let quick = after(&[100; 30]).window();
        assert!(
            quick > Duration::from_micros(190) && quick < Duration::from_micros(210),
            "{quick:?}"
        );
        // Pipelined calls come at once: the shortest look.
        assert_eq!(
            after(&[0; 30]).window(),
            Duration::from_micros(ENGINE_SPIN_US)
        );
    }

    #[test]
    fn on_one_core_the_engine_never_spins() {
        let mut spin = Spin::for_cores(1);
        for _ in 0..30 {
            spin.arrived(Duration::from_micros(50));
        }
        assert_eq!(spin.window(), Duration::ZERO);
    }

    #[test]
    fn the_window_closes_once_calls_slow_down_and_reopens_when_they_quicken() {
        let mut spin = after(&[100; 30]);
        for _ in 0..3 {
            spin.arrived(Duration::from_secs(2));
        }
        assert_eq!(spin.window(), Duration::ZERO);
        for _ in 0..6 {
            spin.arrived(Duration::from_micros(100));
        }
        assert!(spin.window() > Duration::ZERO);
    }
}
