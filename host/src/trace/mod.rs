//! The trace: every decision and effect as an event with causal links, chained by sha256 so
//! any reader can verify the history end to end.

mod event;

pub use event::{Event, Integrity, canonical_json};

use serde_json::Value;
use std::collections::VecDeque;

/// What a caller supplies for a new event; the tracer adds id, time and integrity.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub kind: String,
    pub actor_id: String,
    pub thread_id: String,
    pub parent_event_id: Option<String>,
    pub caused_by: Vec<String>,
    pub payload: Value,
}

/// Issues events in sequence, chains their hashes and keeps a bounded recent window.
pub struct Tracer {
    seq: u64,
    last_hash: Option<String>,
    window: VecDeque<Event>,
    window_cap: usize,
}

impl Tracer {
    /// A tracer keeping at most `window_cap` recent events in memory.
    pub fn new(window_cap: usize) -> Self {
        Tracer {
            seq: 0,
            last_hash: None,
            window: VecDeque::new(),
            window_cap,
        }
    }

    /// Appends an event and returns its id.
    pub fn emit(&mut self, new: NewEvent) -> String {
        self.seq += 1;
        let event = Event::seal(self.seq, new, self.last_hash.take());
        self.last_hash = Some(event.integrity.hash.clone());
        let id = event.id.clone();
        if self.window.len() == self.window_cap {
            self.window.pop_front();
        }
        self.window.push_back(event);
        id
    }

    /// Recent events, oldest first.
    pub fn recent(&self) -> impl Iterator<Item = &Event> {
        self.window.iter()
    }

    /// Number of events issued so far.
    pub fn count(&self) -> u64 {
        self.seq
    }
}

#[cfg(test)]
mod tests;
