//! `[trace] fsync = "interval"` syncs in the background. A sync of a second's writes took
//! 70 ms on this project's machine under a pipelined burst (strace), and on the engine thread
//! it would stall every client for that long once a second. The store hands a handle of the
//! active segment to a short-lived thread and goes on writing; the outcome is picked up at the
//! next batch, so a failed sync still becomes an outage. Rotation, `sync_now` and shutdown wait
//! for a sync in flight first, so syncs never overlap and never outlive their file.

use std::io;
use std::thread::JoinHandle;

/// One sync of a segment, runnable on another thread.
pub type SyncJob = Box<dyn FnOnce() -> io::Result<()> + Send>;

/// The sync in flight, if any.
#[derive(Default)]
pub(super) struct BackgroundSync {
    running: Option<JoinHandle<io::Result<()>>>,
}

impl BackgroundSync {
    /// Whether a sync is still running.
    pub fn busy(&self) -> bool {
        self.running.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Runs `job` on a thread of its own. Callers check [`BackgroundSync::finished`] first.
    pub fn start(&mut self, job: SyncJob) -> io::Result<()> {
        debug_assert!(self.running.is_none(), "one sync at a time");
        let handle = std::thread::Builder::new()
            .name("trace-sync".into())
            .spawn(job)?;
        self.running = Some(handle);
        Ok(())
    }

    /// The outcome of a sync that has ended since the last look; `None` when there was none
    /// or it still runs.
    pub fn finished(&mut self) -> Option<io::Result<()>> {
        if self.busy() { None } else { self.wait() }
    }

    /// Waits for the sync in flight, if any, and gives its outcome.
    pub fn wait(&mut self) -> Option<io::Result<()>> {
        let handle = self.running.take()?;
        Some(
            handle
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the trace's sync thread panicked"))),
        )
    }
}
