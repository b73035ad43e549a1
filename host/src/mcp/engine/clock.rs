//! When the world steps: in real time (caught up lazily before each message, so an idle host
//! burns no CPU) or only when told to (deterministic tests).

use std::time::{Duration, Instant};

/// Most steps taken in one catch-up; a host idle for longer skips the rest rather than
/// stalling the next call (the usual fixed-timestep guard).
const MAX_CATCH_UP_STEPS: u64 = 600;

/// The world clock.
#[derive(Debug, Clone)]
pub enum Clock {
    /// One step per `tick` of wall time.
    RealTime { tick: Duration, last: Instant },
    /// Steps happen only on request.
    Manual,
}

impl Clock {
    pub fn real_time(tick_ms: u64) -> Clock {
        Clock::RealTime {
            tick: Duration::from_millis(tick_ms.max(1)),
            last: Instant::now(),
        }
    }

    /// How long until the next step is due (`None` for a manual clock).
    pub fn until_next(&self) -> Option<Duration> {
        match self {
            Clock::Manual => None,
            Clock::RealTime { tick, last } => Some(tick.saturating_sub(last.elapsed())),
        }
    }

    /// How many steps are due now.
    pub fn due_steps(&mut self) -> u64 {
        match self {
            Clock::Manual => 0,
            Clock::RealTime { tick, last } => {
                let elapsed = last.elapsed();
                let steps = (elapsed.as_nanos() / tick.as_nanos()) as u64;
                if steps == 0 {
                    return 0;
                }
                if steps > MAX_CATCH_UP_STEPS {
                    *last = Instant::now();
                    return MAX_CATCH_UP_STEPS;
                }
                *last += *tick * steps as u32;
                steps
            }
        }
    }
}
