//! A read's events written with its batch. A call that changed neither the world nor package
//! state has nothing to undo but its policy effects (budget, tally, quota), so its events may
//! wait for the write that ends the transport's message batch instead of taking a write of
//! their own — one `write` per batch instead of one per call. It stays answered only once they
//! are written: the transport holds its reply until then ([`Registry::take_deferred`] names
//! it), and when that write fails the call is refused after all — its policy effects put back,
//! newest first, behind those of the call whose write failed — as if its own write had failed.
//!
//! Only an outermost call the transport asked for ([`Registry::allow_deferral`]) is deferred.
//! Everything else that changes a session's policy state (a detached call settling, a session
//! ending, a reload, a package admitted or revoked) first writes what waits, so a deferred
//! call's mark is never put back over a change that was kept.

use super::durable::refusal;
use super::{Handler, Registry};
use crate::call::Failure;
use crate::policy::PolicyMark;

/// The calls whose events wait for a write.
#[derive(Default)]
pub(super) struct Deferral {
    /// The transport will hold the next call's reply until the batch is written.
    allowed: bool,
    next_ticket: u64,
    /// Oldest first, each with its policy state from before it.
    waiting: Vec<(u64, PolicyMark)>,
    /// The last call deferred, for the transport to take.
    taken: Option<u64>,
    /// Calls refused after all, and why, for the transport to take.
    lost: Vec<u64>,
    cause: Option<String>,
}

impl Registry {
    /// Lets the next outermost call leave its events for the batch's write when it changes
    /// nothing; the transport then holds its reply until [`Registry::settle_deferred`].
    pub fn allow_deferral(&mut self, allowed: bool) {
        self.deferral.allowed = allowed;
    }

    /// The call just answered, when its events wait for the batch's write.
    pub fn take_deferred(&mut self) -> Option<u64> {
        self.deferral.taken.take()
    }

    /// After a write: forgets the deferred calls it took, and puts back the policy effects of
    /// those it dropped (newest first). The transport takes them with
    /// [`Registry::take_refused`].
    pub fn settle_deferred(&mut self) {
        // Every call's end comes here: nothing to do unless something was deferred.
        if self.deferral.waiting.is_empty() {
            return;
        }
        let tracer = &mut self.realm_mut().tracer;
        let (lost, cause) = tracer.take_lost();
        let waiting = std::mem::take(&mut self.deferral.waiting);
        let mut still = Vec::new();
        for (ticket, mark) in waiting.into_iter().rev() {
            if lost.contains(&ticket) {
                self.policy.restore(mark);
                self.deferral.lost.push(ticket);
            } else if self.realm().tracer.awaits(ticket) {
                still.push((ticket, mark));
            }
        }
        still.reverse();
        self.deferral.waiting = still;
        if !lost.is_empty() {
            self.deferral.cause = cause;
        }
    }

    /// The deferred calls whose events could not be written, and the refusal their replies
    /// become (as a call whose own write failed gets).
    pub fn take_refused(&mut self) -> (Vec<u64>, Failure) {
        let cause = self.deferral.cause.take().unwrap_or_default();
        (std::mem::take(&mut self.deferral.lost), refusal(&cause))
    }

    /// Writes the events deferred calls left waiting, before something else changes policy
    /// state they could be put back over.
    pub(super) fn write_deferred(&mut self) {
        if !self.deferral.waiting.is_empty() {
            let _ = self.realm_mut().tracer.commit();
            self.settle_deferred();
        }
    }

    /// Whether the call about to open may be deferred (asked for, outermost, durable trace,
    /// a guest skill or a built-in that only reads). Asking is used up either way.
    pub(super) fn may_defer(&mut self, name: &str) -> bool {
        std::mem::take(&mut self.deferral.allowed)
            && self.outermost_call_next()
            && self.realm().tracer.records_to_disk()
            && match self.skills.get(name).map(|s| s.handler) {
                Some(Handler::Guest(_)) => true,
                Some(Handler::Builtin(builtin)) => builtin.only_reads(),
                _ => false,
            }
    }

    /// Leaves the call's events for the next write, keeping `mark` until it is known.
    pub(super) fn defer(&mut self, mark: PolicyMark) {
        let ticket = self.deferral.next_ticket;
        self.deferral.next_ticket += 1;
        self.realm_mut().tracer.defer(ticket);
        self.deferral.waiting.push((ticket, mark));
        self.deferral.taken = Some(ticket);
    }
}
