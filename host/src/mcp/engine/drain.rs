//! Stopping for an orchestrator. The first termination signal starts a drain: the host stops
//! admitting (a request gets -32000 saying it is shutting down; `/readyz` turns 503), the
//! calls in flight — off the engine, as tasks, or waiting for a person — get up to
//! `--drain-ms` to finish, then the world is checkpointed and the host exits 0. A second
//! signal, or the end of the drain period, cuts the wait short and says what was abandoned;
//! the checkpoint is still written.

use crate::mcp::wire::jsonrpc::{self, SERVER_BUSY};
use serde_json::Value;
use std::time::{Duration, Instant};

/// How the engine stopped serving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// stdin ended, and no socket transport runs.
    Finished,
    /// A termination signal, and every call in flight finished within the drain period.
    Drained { signal: i32 },
    /// A termination signal, then a second one or the end of the drain period while
    /// `abandoned` calls were still in flight.
    CutShort { signal: i32, abandoned: usize },
}

/// A drain under way.
#[derive(Debug, Clone, Copy)]
pub(super) struct Drain {
    pub signal: i32,
    pub started: Instant,
    pub deadline: Instant,
}

impl Drain {
    pub fn new(signal: i32, period: Duration) -> Drain {
        let started = Instant::now();
        Drain {
            signal,
            started,
            deadline: started + period,
        }
    }

    /// Where the drain stands with `in_flight` calls left: stopped, or still waiting.
    pub fn check(&self, in_flight: usize, now: Instant) -> Option<Stopped> {
        if in_flight == 0 {
            crate::log::info(&format!(
                "drained in {} ms: no call in flight; checkpointing and stopping",
                self.started.elapsed().as_millis()
            ));
            return Some(Stopped::Drained {
                signal: self.signal,
            });
        }
        if now >= self.deadline {
            crate::log::warn(&format!(
                "the drain period (--drain-ms, {} ms) ended with {in_flight} calls in flight: \
                 they are abandoned; checkpointing and stopping",
                (self.deadline - self.started).as_millis()
            ));
            return Some(Stopped::CutShort {
                signal: self.signal,
                abandoned: in_flight,
            });
        }
        None
    }

    /// A second signal: stop now.
    pub fn cut(&self, in_flight: usize) -> Stopped {
        crate::log::warn(&format!(
            "a second termination signal cut the drain short after {} ms: {in_flight} calls in \
             flight are abandoned; checkpointing and stopping",
            self.started.elapsed().as_millis()
        ));
        Stopped::CutShort {
            signal: self.signal,
            abandoned: in_flight,
        }
    }
}

/// The refusal a message gets while draining: requests other than those that finish what is
/// already in flight (a task's status or result, its cancellation) and `ping`. Notifications
/// (a cancellation among them) and responses (a person's answer) pass.
pub(super) fn refusal(text: &str) -> Option<Value> {
    let message: Value = serde_json::from_str(text).ok()?;
    let id = message.get("id")?.clone();
    let method = message.get("method")?.as_str()?;
    if matches!(
        method,
        "ping" | "tasks/get" | "tasks/result" | "tasks/cancel"
    ) {
        return None;
    }
    Some(jsonrpc::error(
        id,
        SERVER_BUSY,
        "the host is shutting down (draining after a termination signal) and admits no new \
         calls; retry once it is back, or on another host",
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_requests_are_refused_and_what_finishes_calls_in_flight_passes() {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}"#;
        let refused = refusal(call).unwrap();
        assert_eq!(refused["id"], 7);
        assert_eq!(refused["error"]["code"], SERVER_BUSY);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("shutting down")
        );
        for passes in [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{"action":"accept"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
        ] {
            assert_eq!(refusal(passes), None, "{passes}");
        }
    }

    #[test]
    fn a_drain_ends_when_nothing_is_in_flight_or_its_period_is_over() {
        let drain = Drain::new(15, Duration::from_millis(500));
        assert_eq!(drain.check(2, Instant::now()), None);
        assert_eq!(
            drain.check(0, Instant::now()),
            Some(Stopped::Drained { signal: 15 })
        );
        assert_eq!(
            drain.check(2, drain.deadline),
            Some(Stopped::CutShort {
                signal: 15,
                abandoned: 2
            })
        );
        assert_eq!(
            drain.cut(1),
            Stopped::CutShort {
                signal: 15,
                abandoned: 1
            }
        );
    }
}
