//! Replies that wait for their state to be durable. A call that wrote state (or read a write
//! still on its way to the disk) hands its reply a ticket of the state writer
//! (`state/in_flight.rs`); the reply, and every later message to the same connection, waits
//! here in order until the writer says the ticket is durable — while the engine serves
//! everyone else. A ticket whose group could not be written releases its replies as errors
//! instead: no reply claims durability that is not there.

use super::inbox::PeerId;
use crate::state::Settled;
use std::collections::{HashMap, VecDeque};

/// Failed groups remembered, to tell a reply released later that its own state was lost.
const FAILURES_KEPT: usize = 64;

/// Messages held per connection until the state tickets they wait for are settled.
pub(super) struct StateWaits<M> {
    /// The newest ticket settled (durable or failed).
    settled: u64,
    /// Per connection, in order: (the ticket it waits for, its own ticket or 0, message).
    held: HashMap<PeerId, VecDeque<(u64, u64, M)>, foldhash::fast::RandomState>,
    /// The newest failed groups: (last ticket settled before, last ticket of it, cause).
    failures: VecDeque<(u64, u64, String)>,
}

/// A message let go: to send as it is, or — its own ticket's state could not be saved —
/// with why.
pub(super) struct Released<M> {
    pub peer: PeerId,
    pub message: M,
    pub failed: Option<String>,
}

impl<M> Default for StateWaits<M> {
    fn default() -> Self {
        StateWaits {
            settled: 0,
            held: HashMap::default(),
            failures: VecDeque::new(),
        }
    }
}

impl<M> StateWaits<M> {
    /// Holds `message` for `peer` when its connection waits for a ticket after `settled`
    /// (`gate`, its newest) or already holds messages (order is kept); gives it back when it
    /// may leave now. `own` is the ticket of the state the message itself tells of (0: none):
    /// only such a message is released as a failure when that ticket's group failed.
    pub fn hold(&mut self, peer: PeerId, gate: u64, own: u64, message: M) -> Option<Released<M>> {
        match self.held.get_mut(&peer) {
            Some(queue) => queue.push_back((gate, own, message)),
            None if gate > self.settled => {
                self.held
                    .insert(peer, VecDeque::from([(gate, own, message)]));
            }
            None => {
                return Some(Released {
                    peer,
                    message,
                    failed: failure_of(&self.failures, own),
                });
            }
        }
        None
    }

    /// Applies the writer's reports in order; the messages they let go, oldest first per
    /// connection.
    pub fn settle(&mut self, reports: Vec<Settled>) -> Vec<Released<M>> {
        let mut released = Vec::new();
        for report in reports {
            let through = match report {
                Settled::Durable(through) => through,
                Settled::Failed { through, cause } => {
                    if self.failures.len() == FAILURES_KEPT {
                        self.failures.pop_front();
                    }
                    self.failures.push_back((self.settled, through, cause));
                    through
                }
            };
            self.settled = self.settled.max(through);
            let failures = &self.failures;
            self.held.retain(|&peer, queue| {
                while queue.front().is_some_and(|(t, _, _)| *t <= through) {
                    let (_, own, message) = queue.pop_front().expect("looked at");
                    released.push(Released {
                        peer,
                        message,
                        failed: failure_of(failures, own),
                    });
                }
                !queue.is_empty()
            });
        }
        released
    }

    /// Forgets a connection that went away.
    pub fn forget(&mut self, peer: PeerId) {
        self.held.remove(&peer);
    }
}

/// Why the group holding ticket `own` failed, if it did (0: the message owes nothing).
fn failure_of(failures: &VecDeque<(u64, u64, String)>, own: u64) -> Option<String> {
    if own == 0 {
        return None;
    }
    failures
        .iter()
        .rev()
        .find(|(after, through, _)| own > *after && own <= *through)
        .map(|(_, _, cause)| cause.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(out: &[Released<&'static str>]) -> Vec<(PeerId, &'static str, bool)> {
        out.iter()
            .map(|r| (r.peer, r.message, r.failed.is_some()))
            .collect()
    }

    #[test]
    fn held_messages_leave_in_order_once_durable_and_as_failures_only_when_their_own_failed() {
        let mut waits = StateWaits::default();
        let free = waits.hold(1, 0, 0, "ping").expect("nothing to wait for");
        assert_eq!((free.message, free.failed), ("ping", None));
        assert!(waits.hold(1, 2, 2, "wrote").is_none());
        assert!(
            waits.hold(1, 2, 0, "after it").is_none(),
            "behind it, in order"
        );
        assert!(waits.hold(2, 3, 3, "other").is_none());
        assert!(waits.hold(2, 3, 0, "its ping").is_none());
        assert!(waits.hold(3, 0, 0, "free").is_some(), "others go on");

        let out = waits.settle(vec![Settled::Durable(2)]);
        assert_eq!(sent(&out), [(1, "wrote", false), (1, "after it", false)]);
        assert!(waits.hold(1, 2, 0, "now free").is_some());

        let out = waits.settle(vec![Settled::Failed {
            through: 3,
            cause: "disk full".into(),
        }]);
        assert_eq!(sent(&out), [(2, "other", true), (2, "its ping", false)]);
        assert_eq!(out[0].failed.as_deref(), Some("disk full"));

        // A reply of a failed ticket that reaches the waits only after the report still fails;
        // one of a durable ticket does not.
        let late = waits.hold(4, 3, 3, "late").unwrap();
        assert_eq!(late.failed.as_deref(), Some("disk full"));
        assert_eq!(waits.hold(4, 2, 2, "durable").unwrap().failed, None);
    }
}
