//! State changes on their way to the disk. With commits grouped ([`StateStore::group_commits`],
//! what the engine asks for), a kept call's changes go to the writer thread (`writer.rs`) as
//! one numbered batch — a ticket — and wait here until it says they are durable. Reads look
//! here before the database, so later calls see them at once; a reply that saw or made a
//! change still in flight waits for its ticket ([`StateStore::take_owed`]), since it would
//! otherwise tell of state a power loss could take.
//!
//! When a group cannot be written, every change still in flight is dropped (those behind it
//! may build on it, and the writer refuses them too), the replies waiting on them are told
//! so, and state writes are refused for `STATE_RETRY_MS` before the disk is tried again: a
//! full disk refuses calls rather than losing what they wrote.
//!
//! [`StateStore::group_commits`]: super::StateStore::group_commits
//! [`StateStore::take_owed`]: super::StateStore::take_owed

use super::writer::{Changes, Settled, Writer};
use super::{Slot, StateError};
use crate::limits::STATE_RETRY_MS;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the engine is woken when the writer settles a group.
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// The changes handed to the writer and not yet durable, and the writer.
#[derive(Default)]
pub(super) struct InFlight {
    /// Each slot's newest change in flight, with the ticket of its batch.
    entries: BTreeMap<Slot, (u64, Option<Vec<u8>>)>,
    /// The last ticket handed out (0: none yet), and the newest one settled.
    last: u64,
    settled: u64,
    /// The newest ticket the replies made since the last [`InFlight::take_owed`] wait for.
    owed: u64,
    /// Set once commits are grouped: how to wake the engine.
    wake: Option<Wake>,
    /// Started with the first batch.
    writer: Option<Writer>,
    /// Since a group failed: until when writes are refused, and why.
    outage: Option<(Instant, String)>,
}

impl InFlight {
    /// Groups commits from now on, waking the engine through `wake` when they settle.
    pub fn group(&mut self, wake: Wake) {
        self.wake = Some(wake);
    }

    /// Whether kept calls' changes go to the writer (else they are written at once).
    pub fn grouped(&self) -> bool {
        self.wake.is_some()
    }

    /// The change in flight for `slot`, if any (what the reply reading it then waits for).
    pub fn get(&mut self, slot: &Slot) -> Option<&Option<Vec<u8>>> {
        let (ticket, value) = self.entries.get(slot)?;
        self.owed = self.owed.max(*ticket);
        Some(value)
    }

    /// Shows `visit` the changes in flight of `package`'s scope `agent` whose keys start with
    /// `prefix` (key, whether it is set), noting the newest ticket seen as owed.
    pub fn scan(
        &mut self,
        package: &str,
        agent: &str,
        prefix: &str,
        mut visit: impl FnMut(&str, bool),
    ) {
        let from = Slot {
            package: package.to_string(),
            agent: agent.to_string(),
            key: prefix.to_string(),
        };
        for (slot, (ticket, value)) in self.entries.range(from..) {
            if slot.package != package || slot.agent != agent || !slot.key.starts_with(prefix) {
                break;
            }
            self.owed = self.owed.max(*ticket);
            visit(&slot.key, value.is_some());
        }
    }

    /// The changes in flight of `package`'s scope `agent` (key, value; `None`: a deletion),
    /// noting nothing owed (a copy of the scope is being made).
    pub fn of_scope(&self, package: &str, agent: &str) -> Vec<(String, Option<Vec<u8>>)> {
        let from = Slot {
            package: package.to_string(),
            agent: agent.to_string(),
            key: String::new(),
        };
        self.entries
            .range(from..)
            .take_while(|(slot, _)| slot.package == package && slot.agent == agent)
            .map(|(slot, (_, value))| (slot.key.clone(), value.clone()))
            .collect()
    }

    /// Every change in flight of `package`: slot and the length of its value (`None`: a
    /// deletion).
    pub fn of_package(&self, package: &str) -> Vec<(Slot, Option<usize>)> {
        let from = Slot {
            package: package.to_string(),
            agent: String::new(),
            key: String::new(),
        };
        self.entries
            .range(from..)
            .take_while(|(slot, _)| slot.package == package)
            .map(|(slot, (_, value))| (slot.clone(), value.as_ref().map(Vec::len)))
            .collect()
    }

    /// Refuses a write while the store is in an outage (a group failed not long ago).
    pub fn check_writable(&mut self) -> Result<(), StateError> {
        match &self.outage {
            Some((until, _)) if Instant::now() >= *until => {
                self.outage = None;
                Ok(())
            }
            Some((_, cause)) => Err(StateError::Unavailable(format!(
                "{cause}; state writes are refused until it can be written again (tried again \
                 every {STATE_RETRY_MS} ms), and this call changed nothing"
            ))),
            None => Ok(()),
        }
    }

    /// Hands a kept call's `changes` to the writer (started over `path` if it is not yet);
    /// the reply waits for the ticket returned.
    pub fn send(&mut self, path: &Path, changes: Changes) -> Result<u64, String> {
        if self.writer.is_none() {
            let wake = self.wake.clone().expect("commits are grouped");
            self.writer = Some(Writer::start(path, Box::new(move || wake()))?);
        }
        let ticket = self.last + 1;
        for (slot, value) in &changes {
            self.entries.insert(slot.clone(), (ticket, value.clone()));
        }
        let sent = self
            .writer
            .as_ref()
            .expect("started above")
            .send(ticket, changes);
        if let Err(e) = sent {
            self.entries.retain(|_, (t, _)| *t != ticket);
            return Err(e);
        }
        self.last = ticket;
        self.owed = self.owed.max(ticket);
        Ok(ticket)
    }

    /// The newest ticket the replies made since the last take wait for, if it is in flight.
    pub fn take_owed(&mut self) -> Option<u64> {
        let owed = std::mem::take(&mut self.owed);
        (owed > 0).then_some(owed)
    }

    /// What the writer settled since the last look. Durable changes leave the map (the
    /// database has them); after a failure every change in flight goes and writes are
    /// refused for a while. True in the second member when a group failed (what was counted
    /// of it is gone: usage must be read again).
    pub fn settle(&mut self) -> (Vec<Settled>, bool) {
        let reports = self
            .writer
            .as_ref()
            .map(Writer::reports)
            .unwrap_or_default();
        self.apply(reports)
    }

    /// Waits until every ticket handed out is settled (a clean shutdown, a test).
    pub fn settle_all(&mut self) -> (Vec<Settled>, bool) {
        let reports = match &mut self.writer {
            Some(writer) => {
                let mut reports = writer.reports();
                let seen = reports.last().map_or(self.settled, ticket_of);
                if seen < self.last {
                    reports.extend(writer.drain(self.last));
                }
                reports
            }
            None => Vec::new(),
        };
        self.apply(reports)
    }

    fn apply(&mut self, reports: Vec<Settled>) -> (Vec<Settled>, bool) {
        let mut failed = false;
        for report in &reports {
            self.settled = ticket_of(report);
            match report {
                Settled::Durable(through) => self.entries.retain(|_, (t, _)| *t > *through),
                Settled::Failed { cause, .. } => {
                    failed = true;
                    self.entries.clear();
                    self.outage = Some((
                        Instant::now() + Duration::from_millis(STATE_RETRY_MS),
                        cause.clone(),
                    ));
                    if let Some(writer) = &self.writer {
                        // Everything handed over so far is refused; what comes next is tried.
                        let _ = writer.resume();
                    }
                }
            }
        }
        (reports, failed)
    }
}

/// The newest ticket a report settles.
fn ticket_of(report: &Settled) -> u64 {
    match report {
        Settled::Durable(t) | Settled::Failed { through: t, .. } => *t,
    }
}
