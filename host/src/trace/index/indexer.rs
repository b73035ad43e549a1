//! The indexer: a thread of its own that follows the segments as the tracer flushes them and
//! records every event in the index, off the request path. On start it checks the index
//! against the segments (the newest indexed event must still be there with the same hash) and
//! rebuilds it from scratch when it is missing, of another version or stale.

use super::line::Line;
use super::schema;
use crate::trace::segments::{self, segment_name};
use crate::trace::seq_of_id;
use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Lines recorded per transaction: readers see progress at least this often during a rebuild.
const BATCH: usize = 8_192;
/// How long the indexer sleeps when nobody wakes it: the tracer wakes it at most once a
/// millisecond, so lines flushed just after a wake wait at most this long.
const IDLE: Duration = Duration::from_millis(100);
/// How long the indexer waits before trying again when its database cannot be written (a full
/// disk): the index is derived, so calls go on and queries read the segments meanwhile.
const RETRY: Duration = Duration::from_secs(1);

/// What the tracer and the indexer thread share.
pub(super) struct Shared {
    /// Whether there may be new lines to read, and whether the indexer sleeps on `bell`.
    wake: Mutex<Bell>,
    bell: Condvar,
    stop: AtomicBool,
    /// Newest sequence number committed to the index.
    pub indexed: AtomicU64,
    /// First sequence number retention keeps; rows below it are dropped.
    pub first_kept: Arc<AtomicU64>,
}

impl Shared {
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

/// Lowers this thread's priority (Linux nice 10): when the cores are saturated the engine and
/// the transports come first, and the index catches up when they idle. Queries stay whole
/// meanwhile, reading what the index lacks from the segments.
fn yield_to_requests() {
    // SAFETY: plain syscalls on the calling thread's own id; no memory is shared.
    let tid = unsafe { libc::gettid() };
    let result = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10) };
    if result != 0 {
        crate::log::debug("the trace indexer keeps the default priority");
    }
}

/// The running indexer thread; stopped and joined on drop.
pub(super) struct Indexer {
    pub shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Indexer {
    /// Starts indexing the segments in `dir` into the database at `db`.
    pub fn start(db: PathBuf, dir: PathBuf, first_kept: Arc<AtomicU64>) -> Result<Indexer> {
        let shared = Arc::new(Shared {
            wake: Mutex::new(Bell {
                wake: true,
                sleeping: false,
            }),
            bell: Condvar::new(),
            stop: AtomicBool::new(false),
            indexed: AtomicU64::new(0),
            first_kept,
        });
        let open = |db: &Path| {
            schema::connect(db).and_then(|c| {
                // The writer keeps more of the indexes' pages in memory than a reader needs.
                c.pragma_update(None, "cache_size", -8192)?;
                schema::ensure(&c).map(|()| c)
            })
        };
        let conn = match open(&db) {
            Ok(conn) => conn,
            Err(e) => {
                // The index is derived data: one that cannot be opened (damaged, not a
                // database) is removed and built again from the segments.
                crate::log::warn(&format!(
                    "the trace index {} cannot be used ({e}); building it again from the segments",
                    db.display()
                ));
                for suffix in ["", "-wal", "-shm"] {
                    let mut path = db.clone().into_os_string();
                    path.push(suffix);
                    let _ = std::fs::remove_file(path);
                }
                open(&db)
                    .with_context(|| format!("cannot open the trace index {}", db.display()))?
            }
        };
        let state = shared.clone();
        let thread = std::thread::Builder::new()
            .name("trace-index".into())
            .spawn(move || {
                yield_to_requests();
                let mut follower = Follower {
                    conn,
                    dir,
                    shared: state,
                    at: None,
                    partial: Vec::new(),
                    last_seq: 0,
                    last_hash: String::new(),
                    min_seq: 0,
                };
                if let Err(e) = follower.run() {
                    crate::log::error(&format!(
                        "the trace index stopped: {e:#}; audit and trace queries that need \
                         it will say so"
                    ));
                }
            })?;
        Ok(Indexer {
            shared,
            thread: Some(thread),
        })
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

    /// The follow loop: resume, then index what is new each time the tracer rings.
    fn follow(&mut self) -> Result<()> {
        if self.at.is_none() {
            self.resume()?;
        }
        while !self.shared.stop.load(Ordering::Acquire) {
            self.apply_cut()?;
            while self.ingest()? {
                if self.shared.stop.load(Ordering::Acquire) {
                    return Ok(());
                }
            }
            let mut bell = self.shared.wake.lock().unwrap_or_else(|p| p.into_inner());
            if !bell.wake {
                bell.sleeping = true;
                bell = self
                    .shared
                    .bell
                    .wait_timeout(bell, IDLE)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
                bell.sleeping = false;
            }
            bell.wake = false;
        }
        Ok(())
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
        self.last_seq = 0;
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
        let matches = serde_json::from_slice::<Line>(&bytes)
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
        let tx = self.conn.transaction()?;
        let below = first_kept as i64;
        tx.execute("DELETE FROM events WHERE seq < ?1", [below])?;
        tx.execute("DELETE FROM links WHERE child < ?1", [below])?;
        tx.execute("DELETE FROM decisions WHERE seq < ?1", [below])?;
        tx.execute_batch(
            "DELETE FROM decision_counts;
             INSERT INTO decision_counts
                 SELECT allow, cap, rule, agent, session, package, COUNT(*) FROM decisions
                 GROUP BY allow, cap, rule, agent, session, package;",
        )?;
        tx.commit()?;
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

    /// Records up to one batch of new lines; `true` when there may be more right away.
    fn ingest(&mut self) -> Result<bool> {
        if self.at.is_none() {
            self.start_at_first_segment()?;
        }
        let Some(mut at) = self.at.take() else {
            return Ok(false);
        };
        let tx = self.conn.transaction()?;
        let mut recorded = 0;
        let mut more = false;
        {
            let mut rows = Rows::prepare(&tx)?;
            loop {
                if recorded == BATCH {
                    more = true;
                    break;
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
                        at = Position {
                            seg: next,
                            offset: 0,
                            reader: BufReader::with_capacity(256 * 1024, file),
                        };
                        more = true;
                    }
                    break;
                }
                let len = self.partial.len() as u64;
                match serde_json::from_slice::<Line>(&self.partial) {
                    Ok(line) => {
                        let kept = self.shared.first_kept.load(Ordering::Acquire);
                        // A line of a segment retention removed while it was being read.
                        if let Some(seq) = seq_of_id(&line.id).filter(|&s| s >= kept) {
                            rows.record(seq, at.seg, at.offset, len, &line)?;
                            self.last_seq = seq;
                            self.last_hash = line.integrity.hash.into_owned();
                            recorded += 1;
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
        if recorded > 0 {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('last_seq', ?1), ('last_hash', ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![self.last_seq as i64, self.last_hash],
            )?;
        }
        tx.commit()?;
        self.at = Some(at);
        if recorded > 0 {
            self.shared.indexed.store(self.last_seq, Ordering::Release);
        }
        Ok(more)
    }
}

/// The insert statements of one transaction.
struct Rows<'c> {
    event: rusqlite::CachedStatement<'c>,
    link: rusqlite::CachedStatement<'c>,
    decision: rusqlite::CachedStatement<'c>,
    count: rusqlite::CachedStatement<'c>,
}

impl<'c> Rows<'c> {
    fn prepare(conn: &'c Connection) -> rusqlite::Result<Rows<'c>> {
        Ok(Rows {
            event: conn.prepare_cached(
                "INSERT OR IGNORE INTO events (seq, seg, off, len, kind, actor)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            link: conn
                .prepare_cached("INSERT OR IGNORE INTO links (parent, child) VALUES (?1, ?2)")?,
            decision: conn.prepare_cached(
                "INSERT OR IGNORE INTO decisions (seq, allow, cap, rule, agent, session, package)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?,
            count: conn.prepare_cached(
                "INSERT INTO decision_counts (allow, cap, rule, agent, session, package, n)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1)
                 ON CONFLICT DO UPDATE SET n = n + 1",
            )?,
        })
    }

    fn record(
        &mut self,
        seq: u64,
        seg: u64,
        off: u64,
        len: u64,
        line: &Line,
    ) -> rusqlite::Result<()> {
        let seq_i = seq as i64;
        self.event.execute(params![
            seq_i,
            seg as i64,
            off as i64,
            len as i64,
            line.kind.as_ref(),
            line.actor_id.as_ref()
        ])?;
        let parents = line.parent_event_id.iter().chain(line.caused_by.iter());
        for parent in parents {
            if let Some(p) = seq_of_id(parent) {
                self.link.execute(params![p as i64, seq_i])?;
            }
        }
        if super::is_decision_kind(&line.kind) {
            let d = &line.payload;
            let text = |v: &Option<std::borrow::Cow<str>>| v.as_deref().unwrap_or("").to_string();
            let (allow, cap, rule) = (d.allow.unwrap_or(false), text(&d.cap), text(&d.rule));
            let (agent, session, package) =
                (text(&d.agent_id), text(&d.session_id), text(&d.package));
            // Counted once: a line met again (it never should be) is not counted twice.
            let new = self
                .decision
                .execute(params![seq_i, allow, cap, rule, agent, session, package])?;
            if new == 1 {
                self.count
                    .execute(params![allow, cap, rule, agent, session, package])?;
            }
        }
        Ok(())
    }
}

/// The database file beside the segments folder.
pub(super) fn db_path(trace_dir: &Path) -> PathBuf {
    trace_dir.join("index.sqlite")
}
