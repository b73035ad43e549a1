//! The trace: every decision and effect as an event with causal links, chained by sha256 so
//! any reader can verify the history end to end. A tracer keeps a bounded window in memory for
//! hot queries and, when opened on a folder, appends every event to durable JSONL segments
//! that an index beside them makes quick to query.

pub mod disk;
mod durability;
mod event;
mod gap;
mod history;
mod index;
mod reading;
mod scan;
mod segments;
mod store;
mod syncer;
pub mod synthetic;
mod verify;

pub use durability::{Durability, Fsync, OnWriteFailure};
pub use event::{Event, Integrity, canonical_json, iso8601, seq_of_id};
pub use history::{ExportNameError, ExportRange, check_export_name};
pub use index::{DECISION_KINDS, DecisionQuery, DecisionSummary};
pub use reading::{History, HistorySnapshot};
pub use scan::{EventsAfter, events_after};
pub use segments::{LOCK_FILE, SEGMENTS_DIR};
pub use store::{FolderInUse, Health, Retention};
pub use verify::{ChainBreak, VerifyError, VerifyReport, verify_dir, verify_file, verify_reader};

use index::Index;
use serde_json::Value;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::Store;

/// An event payload: what [`Tracer::emit`] writes as the event's `payload`. Anything serde
/// serializes is one; the two events of every call (the decision and the outcome) write
/// themselves ([`JsonWriter`]), since serde's per-byte string escaping was most of their cost. Either way the JSON must be
/// canonical (object keys in code-point order, no whitespace), as debug builds check.
pub trait Payload {
    fn write_json(&self, out: &mut Vec<u8>);
}

impl<T: serde::Serialize> Payload for T {
    fn write_json(&self, out: &mut Vec<u8>) {
        serde_json::to_writer(out, self).expect("event payloads serialize");
    }
}

pub use event::JsonWriter;

/// How often at most a busy tracer wakes its indexer: as often as the indexer commits while it
/// follows a busy writer (it wakes itself for that commit, reading what came meanwhile). Waking
/// a sleeping thread cost the engine about 8 µs a call on this 2-core VM (`perf`, calls every
/// 6 ms); a query that needs newer rows asks for them (`IndexHandle::want`) and is not delayed.
const NOTIFY_EVERY: Duration = Duration::from_millis(crate::limits::TRACE_INDEX_COMMIT_MS);

/// What a caller supplies for a new event; the tracer adds id, time and integrity. The payload
/// is a `Value`, or on the hot path a struct that writes its own canonical JSON ([`Payload`]),
/// so no `Value` tree is built and dropped per call. Its texts are owned, or on the hot path
/// borrowed (`S = &str`), so the call's two events copy none of the caller's strings.
#[derive(Debug, Clone)]
pub struct NewEvent<P = Value, S = String> {
    pub kind: S,
    pub actor_id: S,
    pub thread_id: S,
    pub parent_event_id: Option<S>,
    pub caused_by: Vec<S>,
    pub payload: P,
}

/// Issues events in sequence, chains their hashes, keeps a bounded recent window and, when
/// durable, appends every event to its file.
pub struct Tracer {
    seq: u64,
    last_hash: Option<String>,
    /// The newest events as their stored lines, with consecutive sequence numbers ending at
    /// `seq` (parsed when read: reads are rare, and a line holds a fraction of the memory);
    /// shared, so a snapshot for a query off the engine copies none.
    window: VecDeque<Arc<[u8]>>,
    window_cap: usize,
    store: Option<Store>,
    /// The index of the durable history; `None` for an in-memory tracer, or when it could not
    /// be opened (queries then say so).
    index: Option<Index>,
    /// The newest event the indexer was told about, and when.
    notified: (u64, Instant),
    /// The newest event written to the store, and its hash: where the chain goes back to when
    /// a write fails (events never written are never chained).
    written: (u64, Option<String>),
    stamp: event::Stamp,
    /// The line of the event being sealed, kept for its capacity.
    line: Vec<u8>,
    /// An event was emitted while the trace could not be written, since the last commit.
    dropped: bool,
    /// Calls answered once a later write takes their events ([`Tracer::defer`]), and those
    /// whose events a failed write dropped, with its cause.
    awaiting: Vec<u64>,
    lost: Vec<u64>,
    lost_cause: Option<String>,
}

/// An id handed out for an event that was not recorded because the trace cannot be written
/// (only reads are served then, and they record nothing).
pub const UNRECORDED: &str = "evt_unrecorded";

impl Tracer {
    /// A tracer keeping at most `window_cap` recent events in memory, and nothing on disk.
    pub fn new(window_cap: usize) -> Self {
        Tracer {
            seq: 0,
            last_hash: None,
            window: VecDeque::new(),
            window_cap,
            store: None,
            index: None,
            notified: (
                0,
                Instant::now()
                    .checked_sub(NOTIFY_EVERY)
                    .unwrap_or_else(Instant::now),
            ),
            written: (0, None),
            stamp: Default::default(),
            line: Vec::new(),
            dropped: false,
            awaiting: Vec::new(),
            lost: Vec::new(),
            lost_cause: None,
        }
    }

    /// A durable tracer in the folder `dir` (created if missing) with default retention.
    pub fn open(dir: &Path, window_cap: usize) -> anyhow::Result<Tracer> {
        Tracer::open_with(dir, window_cap, Retention::default())
    }

    /// A durable tracer writing segments to `dir/segments`, locked against other processes,
    /// with its index in `dir/index.sqlite`. An existing history is continued: a torn final
    /// line is cut off with a warning, and the sequence and chain resume after the last
    /// complete event in a new segment. The window starts empty; older events are read
    /// through the index.
    pub fn open_with(
        dir: &Path,
        window_cap: usize,
        retention: Retention,
    ) -> anyhow::Result<Tracer> {
        Tracer::open_durable(dir, window_cap, retention, Durability::default())
    }

    /// [`Tracer::open_with`] with the given sync and write-failure settings.
    pub fn open_durable(
        dir: &Path,
        window_cap: usize,
        retention: Retention,
        durability: Durability,
    ) -> anyhow::Result<Tracer> {
        Tracer::open_on(
            dir,
            window_cap,
            retention,
            durability,
            std::sync::Arc::new(disk::RealDisk),
            true,
        )
    }

    /// A durable tracer whose writes go through `disk` (tests pass one that fails); without
    /// `indexed`, no index is kept beside it.
    pub fn open_on(
        dir: &Path,
        window_cap: usize,
        retention: Retention,
        durability: Durability,
        disk: std::sync::Arc<dyn disk::Disk>,
        indexed: bool,
    ) -> anyhow::Result<Tracer> {
        let segments = dir.join(SEGMENTS_DIR);
        let (store, resume) = Store::open(&segments, retention, durability, disk)?;
        let mut tracer = Tracer::new(window_cap);
        if let Some(resume) = resume {
            tracer.seq = resume.seq;
            tracer.last_hash = Some(resume.hash);
            tracer.written = (tracer.seq, tracer.last_hash.clone());
        }
        if indexed {
            tracer.index = match Index::open(dir, &segments, store.first_kept()) {
                Ok(index) => Some(index),
                Err(e) => {
                    crate::log::error(&format!(
                        "{e:#}; trace and audit queries will answer from the newest \
                         {window_cap} events only"
                    ));
                    None
                }
            };
        }
        tracer.store = Some(store);
        Ok(tracer)
    }

    /// Appends an event and returns its id. It is written by the next [`commit`] (at the end
    /// of the call) or [`flush`]. While the trace cannot be written nothing is chained and the
    /// id is [`UNRECORDED`].
    ///
    /// [`commit`]: Tracer::commit
    /// [`flush`]: Tracer::flush
    pub fn emit<P: Payload, S: AsRef<str>>(&mut self, new: NewEvent<P, S>) -> String {
        if self.store.as_ref().is_some_and(|s| s.outage().is_some()) {
            self.dropped = true;
            return UNRECORDED.to_string();
        }
        self.seq += 1;
        let event::Sealed { id, hash } = event::seal(
            self.seq,
            &new,
            self.last_hash.take(),
            self.stamp.now(),
            &mut self.line,
        );
        if let Some(store) = &mut self.store {
            store.append(self.seq, &self.line);
        }
        self.last_hash = Some(hash);
        if self.window.len() >= self.window_cap {
            self.window.pop_front();
        }
        if self.window_cap > 0 {
            self.window.push_back(Arc::from(&self.line[..]));
        }
        event::keep_small(&mut self.line);
        self.forget_removed();
        id
    }

    /// Writes the events emitted since the last write to the file: a call's, before it is
    /// answered. On a failure none of them is kept — the chain goes back to the last written
    /// event — and the cause is returned (the trace is then in an outage until
    /// [`Tracer::accepting`] finds writing works again). Always Ok for an in-memory tracer.
    pub fn commit(&mut self) -> Result<(), String> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        // What recorded nothing — pings, listings, reads and refusals while the trace cannot
        // be written — lost nothing: its replies go out as they are.
        let dropped = std::mem::take(&mut self.dropped);
        if !dropped && self.written.0 == self.seq && self.awaiting.is_empty() {
            return Ok(());
        }
        match store.write() {
            Ok(()) => {
                self.written = (self.seq, self.last_hash.clone());
                self.awaiting.clear();
                Ok(())
            }
            Err((cause, written)) => {
                if let Some(written) = written {
                    self.written = (written.seq, Some(written.hash));
                }
                self.forget_unwritten();
                self.lost.append(&mut self.awaiting);
                self.lost_cause = Some(cause.clone());
                Err(cause)
            }
        }
    }

    /// Whether events go to a file now: a durable trace, not in an outage.
    pub fn records_to_disk(&self) -> bool {
        self.store.as_ref().is_some_and(|s| s.outage().is_none())
    }

    /// Leaves the events emitted so far, call `ticket`'s among them, for the next write: the
    /// next [`Tracer::commit`] or [`Tracer::flush`], whatever asks for it. Whether they made it
    /// is told by [`Tracer::awaits`] and [`Tracer::take_lost`].
    pub fn defer(&mut self, ticket: u64) {
        self.awaiting.push(ticket);
    }

    /// Whether call `ticket`'s events still wait for a write.
    pub fn awaits(&self, ticket: u64) -> bool {
        self.awaiting.contains(&ticket)
    }

    /// The deferred calls whose events a failed write dropped since the last time, and why.
    pub fn take_lost(&mut self) -> (Vec<u64>, Option<String>) {
        (std::mem::take(&mut self.lost), self.lost_cause.take())
    }

    /// Ok when events can be recorded; in an outage, tries whether writing works again (at
    /// most every `TRACE_RETRY_MS`) and gives the cause while it does not.
    pub fn accepting(&mut self) -> Result<(), String> {
        match &mut self.store {
            Some(store) => store.try_resume(),
            None => Ok(()),
        }
    }

    /// Lets the next [`Tracer::accepting`] try at once (tests; the host waits
    /// `TRACE_RETRY_MS` between tries).
    pub fn retry_now(&mut self) {
        if let Some(store) = &mut self.store {
            store.retry_now();
        }
    }

    /// Why the trace cannot be written, shared for `/readyz` (never set for an in-memory
    /// tracer).
    pub fn health(&self) -> Health {
        self.store.as_ref().map(|s| s.health()).unwrap_or_default()
    }

    /// Makes the next [`Tracer::flush`] start an `interval` sync and waits for one in flight
    /// (tests).
    #[cfg(test)]
    pub fn sync_interval_now(&mut self) -> Result<(), String> {
        self.store
            .as_mut()
            .map_or(Ok(()), |s| s.sync_interval_now())
    }

    /// Whether replies must wait for [`Tracer::flush`] to sync the events they name
    /// (`[trace] fsync = "always"`).
    pub fn syncs_every_batch(&self) -> bool {
        self.store.as_ref().is_some_and(|s| s.syncs_every_batch())
    }

    /// The chain back to the last written event: what was emitted since is forgotten.
    fn forget_unwritten(&mut self) {
        let (seq, hash) = self.written.clone();
        // The window ends with event `self.seq`.
        let unwritten = self.seq.saturating_sub(seq) as usize;
        let keep = self.window.len().saturating_sub(unwritten);
        self.window.truncate(keep);
        self.seq = seq;
        self.last_hash = hash;
    }

    /// Writes what is still unwritten (events emitted outside calls) and syncs as `[trace]
    /// fsync` says; called once per message batch, before its replies leave. Does nothing for
    /// an in-memory tracer.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        let mut flushed = self.commit().map_err(anyhow::Error::msg);
        if let Some(store) = &mut self.store {
            if flushed.is_ok() {
                flushed = store.sync_due().map_err(anyhow::Error::msg);
            }
            store.housekeeping();
        }
        self.forget_removed();
        // Wake the indexer only when there is something new for it (a batch of pings writes
        // nothing), and at most once a millisecond under load; it also looks on its own.
        if let Some(index) = &self.index
            && self.notified.0 != self.written.0
            && self.notified.1.elapsed() >= NOTIFY_EVERY
        {
            index.handle.notify();
            self.notified = (self.written.0, Instant::now());
        }
        flushed
    }

    /// Writes buffered events and syncs them to the disk (a world checkpoint must never be
    /// newer than the trace it names). Does nothing for an in-memory tracer.
    pub fn sync(&mut self) -> anyhow::Result<()> {
        self.flush()?;
        match &mut self.store {
            Some(store) => store.sync_now().map_err(anyhow::Error::msg),
            None => Ok(()),
        }
    }

    /// Writes buffered events and gives a job that syncs them to the disk from another
    /// thread (a world checkpoint written off the engine must never be newer than the trace
    /// it names); `None` when there is nothing to sync or no disk.
    pub fn sync_job(&mut self) -> anyhow::Result<Option<disk::SyncJob>> {
        self.flush()?;
        match &mut self.store {
            Some(store) => store.sync_job().map_err(anyhow::Error::msg),
            None => Ok(None),
        }
    }

    /// Keeps every event from `seq` on through retention: the world journal after the oldest
    /// world checkpoint kept must outlive the segments around it.
    pub fn pin_from(&mut self, seq: u64) {
        if let Some(store) = &mut self.store {
            store.pin_from(seq);
        }
    }

    /// Whether retention is holding segments only for the pin (a world checkpoint would let
    /// it cut them).
    pub fn pin_blocks_retention(&self) -> bool {
        self.store.as_ref().is_some_and(|s| s.pin_blocks())
    }

    /// Whether events reach a folder (`false` for an in-memory tracer).
    pub fn is_durable(&self) -> bool {
        self.store.is_some()
    }

    /// Drops from the window the events retention removed from the segments, so that
    /// queries answer from the kept history only, whether or not an event is still in memory.
    fn forget_removed(&mut self) {
        let Some(store) = &self.store else { return };
        // The window is consecutive up to the newest event, so its start is known.
        let cut = store.first_kept_seq().saturating_sub(self.first_kept());
        self.window.drain(..(cut as usize).min(self.window.len()));
    }

    /// The `--trace-dir` folder of a durable tracer (the segments folder's parent).
    pub fn dir(&self) -> Option<&Path> {
        self.store.as_ref().and_then(|s| s.dir().parent())
    }

    /// Recent events, oldest first.
    pub fn recent(&self) -> impl DoubleEndedIterator<Item = Event> + '_ {
        self.window.iter().map(|line| parse_kept(line))
    }

    /// The newest event, if the window holds any.
    pub fn newest(&self) -> Option<Event> {
        self.window.back().map(|line| parse_kept(line))
    }

    /// Number of events issued so far (including those of earlier runs on the same file).
    pub fn count(&self) -> u64 {
        self.seq
    }

    /// Sequence number of the oldest event in the window (`seq + 1` when it is empty).
    fn first_kept(&self) -> u64 {
        self.seq + 1 - self.window.len() as u64
    }
}

/// An event of the window from its line (which the tracer wrote itself, so it parses).
fn parse_kept(line: &[u8]) -> Event {
    serde_json::from_slice(line).expect("the window holds lines the tracer wrote")
}

#[cfg(test)]
mod durable_tests;
#[cfg(test)]
mod faults_tests;
#[cfg(test)]
mod history_tests;
#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod retention_tests;
#[cfg(test)]
mod tests;
