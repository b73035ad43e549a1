//! Stopping a guest at once: a call's wall-clock deadline and its cancellation, checked while
//! wasm runs (the engine's epoch ticks every `EPOCH_TICK_MS` and calls back into the store)
//! and while the guest waits in WASI (a sleep wakes early for either). So a guest looping,
//! or sleeping in `time.sleep`, is cut at its deadline, and `notifications/cancelled` stops
//! it within a couple of milliseconds.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A flag a transport raises to cancel a call, plus an optional watcher run on each check
/// (stdio's: it reads any waiting input so a cancellation sent behind the call is seen while
/// the call runs, on the same thread).
#[derive(Clone, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    watch: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl fmt::Debug for Cancel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.flag.load(Ordering::Relaxed))
            .finish()
    }
}

impl Cancel {
    /// A cancel over `flag`, running `watch` at each check.
    pub fn new(flag: Arc<AtomicBool>, watch: Option<Arc<dyn Fn() + Send + Sync>>) -> Self {
        Cancel { flag, watch }
    }

    /// Raises the flag.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Release);
    }

    /// Whether the call is cancelled (running the watcher first).
    pub fn is_cancelled(&self) -> bool {
        if let Some(watch) = &self.watch {
            watch();
        }
        self.flag.load(Ordering::Acquire)
    }
}

/// Why a guest was stopped from outside its own code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cut {
    /// The caller cancelled the call.
    Cancelled,
    /// The call's wall-clock deadline passed.
    Deadline { timeout_ms: u64 },
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cut::Cancelled => f.write_str("the call was cancelled"),
            Cut::Deadline { timeout_ms } => {
                write!(f, "the call ran past its {timeout_ms} ms deadline")
            }
        }
    }
}

impl std::error::Error for Cut {}

/// What the current call may not outlive.
#[derive(Clone, Debug)]
pub struct Interrupt {
    deadline: Instant,
    timeout_ms: u64,
    cancel: Cancel,
}

impl Interrupt {
    /// A deadline `timeout_ms` from now, and `cancel`.
    pub fn new(timeout_ms: u64, cancel: Cancel) -> Self {
        Interrupt {
            deadline: Instant::now() + Duration::from_millis(timeout_ms),
            timeout_ms,
            cancel,
        }
    }

    /// Whether the guest must stop now, and why.
    pub fn check(&self) -> Option<Cut> {
        if self.cancel.is_cancelled() {
            Some(Cut::Cancelled)
        } else if Instant::now() >= self.deadline {
            Some(Cut::Deadline {
                timeout_ms: self.timeout_ms,
            })
        } else {
            None
        }
    }

    /// The deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_is_seen_and_the_watcher_runs_on_each_check() {
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = runs.clone();
        let flag = Arc::new(AtomicBool::new(false));
        let cancel = Cancel::new(
            flag.clone(),
            Some(Arc::new(move || {
                seen.fetch_add(1, Ordering::Relaxed);
            })),
        );
        let interrupt = Interrupt::new(60_000, cancel.clone());
        assert_eq!(interrupt.check(), None);
        cancel.cancel();
        assert_eq!(interrupt.check(), Some(Cut::Cancelled));
        assert_eq!(runs.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_passed_deadline_cuts() {
        let interrupt = Interrupt::new(0, Cancel::default());
        assert_eq!(interrupt.check(), Some(Cut::Deadline { timeout_ms: 0 }));
    }
}
