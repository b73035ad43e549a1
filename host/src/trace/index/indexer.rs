//! The indexer: a thread of its own that follows the segments as the tracer flushes them and
//! records every event in the index, off the request path. On start it checks the index
//! against the segments (the newest indexed event must still be there with the same hash) and
//! rebuilds it from scratch when it is missing, of another version or stale.

use super::keys::Keys;
use super::line::Line;
use super::names::Names;
use super::rows::Rows;
use super::schema;
use crate::trace::segments::{self, segment_name};
use crate::trace::seq_of_id;
use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use std::time::Instant;

/// Most lines recorded per transaction: readers see progress at least this often during a
/// rebuild.
const BATCH: usize = 8_192;
/// Longest a transaction stays open while the indexer follows a busy writer: one commit per
/// this many milliseconds instead of one per flush writes each hot page of the indexes once.
/// A query that needs newer rows asks for them ([`Shared::want`]) and gets a commit at once.
const COMMIT_EVERY: Duration = Duration::from_millis(crate::limits::TRACE_INDEX_COMMIT_MS);
/// How long the indexer sleeps when nobody wakes it: the tracer wakes it at most once a
/// millisecond, so lines flushed just after a wake wait at most this long.
const IDLE: Duration = Duration::from_millis(100);
/// How long the indexer waits before trying again when its database cannot be written (a full
/// disk): the index is derived, so calls go on and queries read the segments meanwhile.
const RETRY: Duration = Duration::from_secs(1);

/// The database is being opened and checked; readers read the segments meanwhile.
pub(super) const OPENING: u8 = 0;
/// The database holds a checked prefix of the history.
pub(super) const READY: u8 = 1;
/// The indexer stopped (the database could not be opened, or the host is stopping).
pub(super) const GONE: u8 = 2;

/// What the tracer and the indexer thread share.
pub(super) struct Shared {
    /// Whether there may be new lines to read, and whether the indexer sleeps on `bell`.
    wake: Mutex<Bell>,
    bell: Condvar,
    stop: AtomicBool,
    /// Newest sequence number committed to the index.
    pub indexed: AtomicU64,
    /// Newest sequence number a query waits for: the indexer commits as soon as it has it.
    wanted: AtomicU64,
    /// Whether readers may use the database: [`OPENING`] until the indexer has opened it and
    /// checked it against the segments, then [`READY`]; [`GONE`] once the indexer has stopped.
    pub state: AtomicU8,
    /// First sequence number retention keeps; rows below it are dropped.
    pub first_kept: Arc<AtomicU64>,
}

impl Shared {
    /// Asks for the rows up to `seq` to be committed without waiting for the next periodic
    /// commit.
    pub fn want(&self, seq: u64) {
        if self.indexed.load(Ordering::Acquire) < seq {
            self.wanted.fetch_max(seq, Ordering::AcqRel);
            self.notify();
        }
    }

    pub fn notify(&self) {
        let mut bell = self.wake.lock().unwrap_or_else(|p| p.into_inner());
        bell.wake = true;
        // A busy indexer looks for more lines anyway: no wake-up call for it.
        if bell.sleeping {
            self.bell.notify_one();
        }
    }
}

#[derive(Default)]
pub(super) struct Bell {
    wake: bool,
    sleeping: bool,
}

/// The running indexer thread; stopped and joined on drop.
pub(super) struct Indexer {
    pub shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Indexer {
    /// Starts indexing the segments in `dir` into the database at `db`. The thread opens (and
    /// when needed creates or replaces) the database itself: nothing here touches the disk, so
    /// a start-up never waits for the index.
    pub fn start(db: PathBuf, dir: PathBuf, first_kept: Arc<AtomicU64>) -> Result<Indexer> {
        let shared = Arc::new(Shared {
            wake: Mutex::new(Bell {
                wake: true,
                sleeping: false,
            }),
            bell: Condvar::new(),
            stop: AtomicBool::new(false),
            indexed: AtomicU64::new(0),
            wanted: AtomicU64::new(0),
            state: AtomicU8::new(OPENING),
            first_kept,
        });
        let state = shared.clone();
        let thread = std::thread::Builder::new()
            .name("trace-index".into())
            // The default priority, as the threads serving calls, though under a pipelined burst
            // it needs two thirds of the engine thread's CPU per call (9 against 13.5 µs,
            // 2026-11-25) and sleeps once caught up. At a lower priority (nice 10, as
            // before) it got a tenth of a core whenever other processes kept both cores busy,
            // fell most of a burst behind, and the queries after it read that gap instead.
            // It is scheduled as batch work, though: the same share of the CPU, but its
            // wake-ups do not preempt a thread that is answering a call.
            .spawn(move || {
                batch_scheduling();
                let conn = match open(&db) {
                    Ok(conn) => conn,
                    Err(e) => {
                        crate::log::error(&format!(
                            "{e:#}; trace and audit queries will read the segments instead"
                        ));
                        state.state.store(GONE, Ordering::Release);
                        return;
                    }
                };
                let mut follower = Follower {
                    conn,
                    dir,
                    shared: state.clone(),
                    at: None,
                    partial: Vec::new(),
                    last_seq: 0,
                    last_hash: String::new(),
                    min_seq: 0,
                    open: None,
                    rows: 0,
                    pending: Rows::new(),
                    keys: Keys::default(),
                    names: Names::default(),
                    committed: 0,
                };
                if let Err(e) = follower.run() {
                    crate::log::error(&format!(
                        "the trace index stopped: {e:#}; audit and trace queries that need \
                         it will say so"
                    ));
                }
                state.state.store(GONE, Ordering::Release);
            })?;
        Ok(Indexer {
            shared,
            thread: Some(thread),
        })
    }
}

/// Opens (creating, or replacing a damaged file) the database at `db` for the indexer.
fn open(db: &Path) -> Result<Connection> {
    let open = |db: &Path| {
        schema::connect(db).and_then(|c| {
            // The writer keeps more of the indexes' pages in memory than a reader needs.
            c.pragma_update(None, "cache_size", -8192)?;
            // Checkpoints every 16 MiB of log rather than 4: a page the index rewrites often
            // (the tail of each index) is copied back into the database less often.
            c.pragma_update(None, "wal_autocheckpoint", 4096)?;
            schema::ensure(&c).map(|()| c)
        })
    };
    match open(db) {
        Ok(conn) => Ok(conn),
        Err(e) => {
            // The index is derived data: one that cannot be opened (damaged, not a database)
            // is removed and built again from the segments.
            crate::log::warn(&format!(
                "the trace index {} cannot be used ({e}); building it again from the segments",
                db.display()
            ));
            for suffix in ["", "-wal", "-shm"] {
                let mut path = db.to_path_buf().into_os_string();
                path.push(suffix);
                let _ = std::fs::remove_file(path);
            }
            open(db).with_context(|| format!("cannot open the trace index {}", db.display()))
        }
    }
}

impl Drop for Indexer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.shared.notify();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Where the indexer reads: a segment and the byte offset of its next line.
struct Position {
    seg: u64,
    offset: u64,
    reader: BufReader<File>,
}

struct Follower {
    conn: Connection,
    dir: PathBuf,
    shared: Arc<Shared>,
    at: Option<Position>,
    /// The start of a line whose break is not written yet.
    partial: Vec<u8>,
    last_seq: u64,
    last_hash: String,
    /// Lowest sequence number the index may hold (retention drops rows below it).
    min_seq: u64,
    /// When the open transaction began, if one is open.
    open: Option<Instant>,
    /// Rows recorded in the open transaction.
    rows: usize,
    /// Rows recorded but not written yet (written before [`Follower::read_lines`] returns).
    pending: Rows,
    /// Ids of the event and decision keys the index holds, as far as they are cached, and the
    /// decisions of the open transaction counted per key but not written yet.
    keys: Keys,
    /// Ids of the names the index holds, as far as they are cached.
    names: Names,
    /// Newest sequence number committed (what readers see).
    committed: u64,
}

impl Follower {
    /// Follows the segments until stopped. A failure to write the database (a full disk) is
    /// logged once and retried every `RETRY` from where the index stands; recovery is logged.
    fn run(&mut self) -> Result<()> {
        let mut failing: Option<String> = None;
        while !self.shared.stop.load(Ordering::Acquire) {
            match self.follow() {
                Ok(()) => return Ok(()),
                Err(e) => {
                    self.abort();
                    let why = format!("{e:#}");
                    if failing.is_none() {
                        crate::log::warn(&format!(
                            "the trace index cannot be written ({why}); queries read the \
                             segments meanwhile, and it catches up once it can"
                        ));
                    }
                    failing = Some(why);
                }
            }
            let bell = self.shared.wake.lock().unwrap_or_else(|p| p.into_inner());
            let _ = self.shared.bell.wait_timeout(bell, RETRY);
            if self.shared.stop.load(Ordering::Acquire) {
                break;
            }
            match self.resume() {
                Ok(()) => {
                    if failing.take().is_some() {
                        crate::log::info("the trace index can be written again; it catches up");
                    }
                }
                // Started over at the next try.
                Err(_) => self.at = None,
            }
        }
        Ok(())
    }

    /// The follow loop: resume, then index what is new each time the tracer rings, committing
    /// every `COMMIT_EVERY`, every `BATCH` rows, when a query wants newer rows, and on stop.
    fn follow(&mut self) -> Result<()> {
        if self.at.is_none() {
            self.resume()?;
        }
        // Checked against the segments (or started over): readers may use it.
        self.shared.state.store(READY, Ordering::Release);
        while !self.shared.stop.load(Ordering::Acquire) {
            self.apply_cut()?;
            loop {
                let more = self.ingest()?;
                if self.commit_due() {
                    self.commit()?;
                }
                if self.shared.stop.load(Ordering::Acquire) {
                    return self.commit();
                }
                if !more {
                    break;
                }
            }
            // Everything written is read: a waiting query gets it now.
            if self.shared.wanted.load(Ordering::Acquire) > self.committed {
                self.commit()?;
            }
            let wait = match self.open {
                Some(since) => COMMIT_EVERY.saturating_sub(since.elapsed()),
                None => IDLE,
            };
            let mut bell = self.shared.wake.lock().unwrap_or_else(|p| p.into_inner());
            if !bell.wake && !wait.is_zero() {
                bell.sleeping = true;
                bell = self
                    .shared
                    .bell
                    .wait_timeout(bell, wait)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
                bell.sleeping = false;
            }
            bell.wake = false;
        }
        self.commit()
    }

    /// Whether the open transaction should be committed now.
    fn commit_due(&self) -> bool {
        let Some(since) = self.open else {
            return false;
        };
        let wanted = self.shared.wanted.load(Ordering::Acquire);
        self.rows >= BATCH
            || since.elapsed() >= COMMIT_EVERY
            || (wanted > self.committed && self.last_seq >= wanted)
    }

    /// Commits the open transaction, if any, with the decision counts and where the index
    /// stands; readers see its rows from here on.
    fn commit(&mut self) -> Result<()> {
        if self.open.is_none() {
            return Ok(());
        }
        self.keys.write(&self.conn)?;
        if self.last_seq != self.committed {
            self.conn
                .prepare_cached(
                    "INSERT INTO meta (key, value) VALUES ('last_seq', ?1), ('last_hash', ?2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                )?
                .execute(params![self.last_seq as i64, self.last_hash])?;
        }
        self.conn.execute_batch("COMMIT")?;
        self.open = None;
        self.rows = 0;
        if self.last_seq != self.committed {
            self.committed = self.last_seq;
            self.shared.indexed.store(self.last_seq, Ordering::Release);
        }
        Ok(())
    }

    /// Rolls back the open transaction after a failure; [`Follower::resume`] then starts from
    /// what was committed.
    fn abort(&mut self) {
        if self.open.take().is_some() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        self.rows = 0;
        self.pending.clear();
        self.keys.forget();
        self.names.forget();
        self.at = None;
    }

    /// Picks up where the index left off, or starts over when it no longer matches the
    /// segments.
    fn resume(&mut self) -> Result<()> {
        let last = schema::last_seq(&self.conn)?;
        if last > 0 {
            match self.check(last) {
                Ok(Some((seg, end, hash))) => {
                    self.last_seq = last;
                    self.last_hash = hash;
                    self.min_seq = self
                        .conn
                        .query_row("SELECT MIN(seq) FROM events", [], |r| {
                            r.get::<_, Option<i64>>(0)
                        })?
                        .unwrap_or(0) as u64;
                    self.open_at(seg, end)?;
                    self.committed = last;
                    self.shared.indexed.store(last, Ordering::Release);
                    return Ok(());
                }
                Ok(None) => crate::log::info(
                    "the trace index does not match the segments; rebuilding it from them",
                ),
                Err(e) => crate::log::info(&format!(
                    "the trace index cannot be checked ({e:#}); rebuilding it from the segments"
                )),
            }
        }
        schema::clear(&self.conn)?;
        self.names.forget();
        self.keys.forget();
        self.last_seq = 0;
        self.committed = 0;
        self.shared.indexed.store(0, Ordering::Release);
        self.start_at_first_segment()
    }

    /// The position after the indexed event `seq` if its line is still in the segments with
    /// the hash the index recorded.
    fn check(&self, seq: u64) -> Result<Option<(u64, u64, String)>> {
        let row = schema::location(&self.conn, seq)?;
        let hash: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'last_hash'", [], |r| {
                r.get(0)
            })
            .optional()?;
        let (Some((seg, off, len)), Some(hash)) = (row, hash) else {
            return Ok(None);
        };
        let Ok(bytes) = crate::trace::store::LineReader::new(&self.dir).read(seg, off, len) else {
            return Ok(None);
        };
        let matches = Line::parse(&bytes)
            .is_ok_and(|l| l.integrity.hash == hash && seq_of_id(&l.id) == Some(seq));
        Ok(matches.then_some((seg, off + len, hash)))
    }

    fn start_at_first_segment(&mut self) -> Result<()> {
        self.at = None;
        self.partial.clear();
        if let Some(first) = segments::list(&self.dir)?.first() {
            self.open_at(first.first_seq, 0)?;
        }
        Ok(())
    }

    fn open_at(&mut self, seg: u64, offset: u64) -> Result<()> {
        use std::io::Seek;
        let mut file = File::open(self.dir.join(segment_name(seg)))?;
        file.seek(std::io::SeekFrom::Start(offset))?;
        self.partial.clear();
        self.at = Some(Position {
            seg,
            offset,
            reader: BufReader::with_capacity(256 * 1024, file),
        });
        Ok(())
    }

    /// Drops rows that retention cut off.
    fn apply_cut(&mut self) -> Result<()> {
        let first_kept = self.shared.first_kept.load(Ordering::Acquire);
        if first_kept <= self.min_seq.max(1) {
            return Ok(());
        }
        self.commit()?;
        let tx = self.conn.transaction()?;
        let below = first_kept as i64;
        tx.execute("DELETE FROM events WHERE seq < ?1", [below])?;
        tx.execute("DELETE FROM links WHERE child < ?1", [below])?;
        tx.execute("DELETE FROM decisions WHERE seq < ?1", [below])?;
        tx.execute_batch(
            "UPDATE decision_keys
                 SET n = (SELECT COUNT(*) FROM decisions WHERE key = decision_keys.id);
             DELETE FROM decision_keys WHERE n = 0;
             DELETE FROM event_keys
                 WHERE NOT EXISTS (SELECT 1 FROM events WHERE key = event_keys.id);",
        )?;
        tx.commit()?;
        self.keys.forget();
        self.min_seq = first_kept;
        // Reading a removed segment can only fail from here on; start at the first kept one.
        if self.at.as_ref().is_some_and(|p| p.seg < first_kept)
            && !self
                .dir
                .join(segment_name(self.at.as_ref().unwrap().seg))
                .exists()
        {
            self.start_at_first_segment()?;
        }
        Ok(())
    }

    /// Records new lines in the open transaction (beginning one) until it holds `BATCH` rows,
    /// a query's wanted row is in, or the written lines end; `true` when there may be more
    /// right away.
    fn ingest(&mut self) -> Result<bool> {
        if self.at.is_none() {
            self.start_at_first_segment()?;
        }
        let Some(mut at) = self.at.take() else {
            return Ok(false);
        };
        if self.open.is_none() {
            self.conn.execute_batch("BEGIN")?;
            self.open = Some(Instant::now());
        }
        let more = self.read_lines(&mut at);
        self.at = Some(at);
        more
    }

    /// Reads and records lines until the end of what is written, a full batch or a wanted
    /// sequence number; their rows are all written when it returns.
    fn read_lines(&mut self, at: &mut Position) -> Result<bool> {
        let more = self.read_lines_pending(at)?;
        self.pending.write(&self.conn)?;
        Ok(more)
    }

    fn read_lines_pending(&mut self, at: &mut Position) -> Result<bool> {
        loop {
            let wanted = self.shared.wanted.load(Ordering::Acquire);
            if self.rows >= BATCH || (wanted > self.committed && self.last_seq >= wanted) {
                return Ok(true);
            }
            let n = at.reader.read_until(b'\n', &mut self.partial)?;
            if n == 0 || self.partial.last() != Some(&b'\n') {
                // The end of what is written. A full segment is followed by the next.
                let next = self.last_seq + 1;
                if self.partial.is_empty()
                    && next > at.seg
                    && self.dir.join(segment_name(next)).exists()
                {
                    let file = File::open(self.dir.join(segment_name(next)))?;
                    *at = Position {
                        seg: next,
                        offset: 0,
                        reader: BufReader::with_capacity(256 * 1024, file),
                    };
                    return Ok(true);
                }
                return Ok(false);
            }
            let len = self.partial.len() as u64;
            match Line::parse(&self.partial) {
                Ok(line) => {
                    let kept = self.shared.first_kept.load(Ordering::Acquire);
                    // A line of a segment retention removed while it was being read, or (it
                    // never should be) one met again.
                    let new = |&s: &u64| s >= kept && s > self.last_seq;
                    if let Some(seq) = seq_of_id(&line.id).filter(new) {
                        self.pending.record(
                            &self.conn,
                            seq,
                            (at.seg, at.offset, len),
                            &line,
                            &mut self.names,
                            &mut self.keys,
                        )?;
                        self.last_seq = seq;
                        self.last_hash.clear();
                        self.last_hash.push_str(&line.integrity.hash);
                        self.rows += 1;
                    }
                }
                Err(e) => crate::log::warn(&format!(
                    "trace index: skipping a line that is not an event in segment {} at \
                     byte {}: {e}",
                    segment_name(at.seg),
                    at.offset
                )),
            }
            at.offset += len;
            self.partial.clear();
        }
    }
}

/// The database file beside the segments folder.
pub(super) fn db_path(trace_dir: &Path) -> PathBuf {
    trace_dir.join("index.sqlite")
}

/// Marks the calling thread as batch work (`SCHED_BATCH`, nice unchanged): the scheduler gives
/// it its fair share but does not let its wake-ups preempt running threads. Best effort.
fn batch_scheduling() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param; 0 names the calling thread.
    let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
}
