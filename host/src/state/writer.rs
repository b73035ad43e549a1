//! The state writer: a thread of its own that makes calls' state changes durable in groups, so
//! no call's sync holds the engine. The engine hands each kept call's changes over as one
//! numbered batch ([`Writer::send`]) and goes on; the writer takes every batch waiting, writes
//! them in one SQLite transaction and commits it with one sync (WAL, `synchronous = FULL`),
//! then reports the newest batch that is durable — while it syncs, the next group gathers.
//!
//! A group that cannot be written (a full disk) is reported failed, and so is every batch
//! already handed over behind it (they may build on what was lost), until the engine has
//! heard of the failure and says so ([`Writer::resume`]): batches after that are tried again.

use super::Slot;
use crate::limits::STATE_BUSY_MS;
use rusqlite::{Connection, params};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;

/// One call's state changes: writes (`Some`) and deletions (`None`).
pub(super) type Changes = BTreeMap<Slot, Option<Vec<u8>>>;

/// What the writer tells the engine, in the order the batches were handed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// Every batch up to this ticket is durable.
    Durable(u64),
    /// Every batch up to this ticket (after the last one settled) was not written; the cause.
    Failed { through: u64, cause: String },
}

/// What the engine sends the writer.
enum Order {
    Batch {
        ticket: u64,
        changes: Changes,
    },
    /// The engine heard of the last failure: write what follows.
    Resume,
}

/// The writer thread, and the way to it and back.
pub(super) struct Writer {
    orders: Option<Sender<Order>>,
    reports: Receiver<Settled>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Starts a writer over the database at `path` (its own connection); `wake` is called
    /// after each report, so the engine looks at [`Writer::reports`] without polling.
    pub fn start(path: &Path, wake: Box<dyn Fn() + Send>) -> Result<Writer, String> {
        let db = super::open_file(path)?;
        db.busy_timeout(std::time::Duration::from_millis(STATE_BUSY_MS))
            .map_err(|e| format!("{}: cannot open the state store: {e}", path.display()))?;
        let (orders, inbox) = channel();
        let (report, reports) = channel();
        let thread = std::thread::Builder::new()
            .name("state-writer".into())
            .spawn(move || run(db, &inbox, &report, &*wake))
            .map_err(|e| format!("cannot start the state writer: {e}"))?;
        Ok(Writer {
            orders: Some(orders),
            reports,
            thread: Some(thread),
        })
    }

    /// Hands over the changes of the call given `ticket` (tickets rise by one per batch).
    pub fn send(&self, ticket: u64, changes: Changes) -> Result<(), String> {
        self.order(Order::Batch { ticket, changes })
    }

    /// After a failure was heard: the batches handed over from now on are written again.
    pub fn resume(&self) -> Result<(), String> {
        self.order(Order::Resume)
    }

    fn order(&self, order: Order) -> Result<(), String> {
        self.orders
            .as_ref()
            .and_then(|o| o.send(order).ok())
            .ok_or_else(|| "the state writer has stopped".to_string())
    }

    /// What the writer has settled since the last look, oldest first.
    pub fn reports(&self) -> Vec<Settled> {
        self.reports.try_iter().collect()
    }

    /// Waits for the reports up to `last_ticket` and gives them.
    pub fn drain(&mut self, last_ticket: u64) -> Vec<Settled> {
        let mut settled = Vec::new();
        while let Ok(report) = self.reports.recv() {
            let done = match &report {
                Settled::Durable(t) | Settled::Failed { through: t, .. } => *t >= last_ticket,
            };
            settled.push(report);
            if done {
                break;
            }
        }
        settled
    }
}

impl Drop for Writer {
    /// What was handed over is written before the writer goes (a clean shutdown loses none).
    fn drop(&mut self) {
        self.orders = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The writer's loop: a group is every batch waiting when the last sync ended.
fn run(mut db: Connection, inbox: &Receiver<Order>, report: &Sender<Settled>, wake: &dyn Fn()) {
    // The cause of the last failure, until the engine says it heard of it.
    let mut failed: Option<String> = None;
    while let Ok(first) = inbox.recv() {
        let mut group: Vec<(u64, Changes)> = Vec::new();
        // The last batch refused in this gathering, with the failure's cause.
        let mut refused: Option<(u64, String)> = None;
        let mut next = Some(first);
        while let Some(order) = next {
            match order {
                Order::Resume => {
                    // Batches gathered before the resume were handed over before the engine
                    // heard: they are refused with the failure, the rest tried.
                    failed = None;
                }
                Order::Batch { ticket, changes } => match &failed {
                    Some(cause) => {
                        debug_assert!(group.is_empty());
                        refused = Some((ticket, cause.clone()));
                        drop(changes);
                    }
                    None => {
                        if let Some((through, cause)) = refused.take() {
                            send(report, wake, Settled::Failed { through, cause });
                        }
                        group.push((ticket, changes));
                    }
                },
            }
            next = inbox.try_recv().ok();
        }
        if let Some((through, cause)) = refused {
            send(report, wake, Settled::Failed { through, cause });
        }
        let Some(&(through, _)) = group.last() else {
            continue;
        };
        match write_group(&mut db, group.iter().map(|(_, c)| c)) {
            Ok(()) => send(report, wake, Settled::Durable(through)),
            Err(e) => {
                let cause = format!("the state store could not be written: {e}");
                crate::log::error(&cause);
                failed = Some(cause.clone());
                send(report, wake, Settled::Failed { through, cause });
            }
        }
    }
}

fn send(report: &Sender<Settled>, wake: &dyn Fn(), settled: Settled) {
    let _ = report.send(settled);
    wake();
}

/// Writes `groups` (in order: a later change of a slot wins) in one transaction and commits
/// it, durably; on failure nothing of them is written.
pub(super) fn write_group<'a>(
    db: &mut Connection,
    groups: impl Iterator<Item = &'a Changes>,
) -> rusqlite::Result<()> {
    let written = (|| {
        db.execute_batch("BEGIN IMMEDIATE")?;
        let mut put = db.prepare_cached(
            "INSERT INTO state (package, agent, key, value) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (package, agent, key) DO UPDATE SET value = excluded.value",
        )?;
        let mut remove =
            db.prepare_cached("DELETE FROM state WHERE package = ?1 AND agent = ?2 AND key = ?3")?;
        for changes in groups {
            for (slot, value) in changes {
                match value {
                    Some(value) => {
                        put.execute(params![slot.package, slot.agent, slot.key, value])?
                    }
                    None => remove.execute(params![slot.package, slot.agent, slot.key])?,
                };
            }
        }
        drop((put, remove));
        db.execute_batch("COMMIT")
    })();
    if written.is_err() && !db.is_autocommit() {
        // A failed write or COMMIT may leave the transaction open: end it, undone.
        let _ = db.execute_batch("ROLLBACK");
    }
    written
}
