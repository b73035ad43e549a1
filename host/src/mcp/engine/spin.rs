//! How long the engine looks for its next message before it sleeps. Waking a thread that
//! slept in `poll` on another core can cost more than a call: on this 2-core VM
//! (2026-11-27) a one-at-a-time echo answered at p50 34 µs with client and server on one
//! core and 343 µs across two. A client calling one at a time sends its next call about a
//! round trip after its reply, so having answered it the engine keeps looking for about as
//! long as that client's recent gaps between reply and next call were — within a bound. Each
//! connection keeps its own [`Pace`]: the engine looks only for a client that has been
//! calling straight back. Agents that think between calls (a crowd at 2 Hz each, however
//! many of them; a stateless HTTP request, a connection of its own) are never looked for:
//! the engine sleeps on its inputs between their calls (looking for whoever came next had
//! it spinning a quarter of its time at 1,000 agents). On one core it never looks: the
//! client could not run while it did (pinned to one core, the look cost a quarter of
//! sequential calls/s).

use crate::limits::{ENGINE_SPIN_MAX_US, ENGINE_SPIN_US};
use std::time::{Duration, Instant};

/// One connection's pace: how soon after its reply it sends its next message.
#[derive(Debug)]
pub struct Pace {
    gaps: Spin,
    /// When its last reply was queued, until its next message arrives.
    answered_at: Option<Instant>,
}

impl Pace {
    /// For a process that may run on `cores` cores.
    pub fn for_cores(cores: usize) -> Pace {
        Pace {
            gaps: Spin::for_cores(cores),
            answered_at: None,
        }
    }

    /// Its reply was queued now: how long the engine, going idle, should look for its next
    /// message.
    pub fn answered(&mut self) -> Duration {
        self.answered_at = Some(Instant::now());
        self.gaps.window()
    }

    /// How long to look while its reply waits to leave (for its state to be durable): what
    /// wakes the engine then is the state writer, about a sync from now, and then this client
    /// again. Looking for a client that calls straight back is what kept eight writers'
    /// round trips short.
    pub fn waiting(&self) -> Duration {
        self.gaps.window()
    }

    /// A message of its arrived (counted when it came after a reply).
    pub fn arrived(&mut self) {
        if let Some(at) = self.answered_at.take() {
            self.gaps.arrived(at.elapsed());
        }
    }
}

/// A connection's recent gaps between its reply and its next message, smoothed.
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

    /// A message came `gap` after the reply before it.
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
    fn a_connection_is_looked_for_after_its_reply_only_once_it_has_called_straight_back() {
        let mut quick = Pace::for_cores(2);
        let mut thinking = Pace::for_cores(2);
        for _ in 0..30 {
            quick.answered();
            quick.arrived();
            thinking.answered();
            // Its next call half a second after the reply (an agent at 2 Hz).
            thinking.answered_at = Instant::now().checked_sub(Duration::from_millis(500));
            thinking.arrived();
            // What arrives without a reply before it (a pipelined call) says nothing.
            thinking.arrived();
        }
        assert!(quick.answered() >= Duration::from_micros(ENGINE_SPIN_US));
        assert_eq!(thinking.answered(), Duration::ZERO);
        assert_eq!(Pace::for_cores(2).answered(), Duration::ZERO);
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
