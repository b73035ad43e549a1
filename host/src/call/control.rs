//! What travels with a call from its transport to whatever runs it (a guest, a built-in, an
//! upstream server): a way to cancel it, where its progress goes, and a person's answer when
//! an `[[approve]]` rule held it.

use super::Cancel;
use std::sync::Arc;

/// Where a call's progress goes: `(done, total, message)` to the client that asked.
pub type ProgressSink = Arc<dyn Fn(f64, Option<f64>, Option<String>) + Send + Sync>;

/// What the caller's transport attaches to a call: a way to cancel it, and where its progress
/// goes when the client asked for progress.
#[derive(Clone, Default)]
pub struct CallControl {
    pub cancel: Cancel,
    pub progress: Option<ProgressSink>,
    /// A person's answer, for a call an `[[approve]]` rule holds (see `registry/approval.rs`).
    pub approval: Option<crate::policy::Approval>,
}

impl CallControl {
    /// Reports progress to the caller, if it asked for it (host built-ins use this).
    pub fn report(&self, done: f64, total: Option<f64>, message: &str) {
        if let Some(sink) = &self.progress {
            sink(done, total, Some(message.to_string()));
        }
    }
}
