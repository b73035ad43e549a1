//! The durable trace: a folder of append-only JSONL segments, one event per line, held under
//! an exclusive lock. A call's events are written when it ends, before it is answered; a
//! failed write leaves nothing of them (a torn line is cut off), starts an outage in which
//! recorded calls are refused, and is retried until writing works again. A crash can leave at
//! most a torn final line in the newest segment; opening the folder again cuts that line off
//! and continues the chain in a fresh segment. Every write goes through a [`Disk`], the seam
//! tests fail. A segment is sealed once it passes the
//! configured size, and retention removes the oldest sealed segments, recording the cut first.

use super::Event;
use super::disk::{self, Disk, SegmentFile};
use super::durability::{Durability, Fsync, OnWriteFailure};
use super::segments::{self, Cut, LEGACY_FILE, LOCK_FILE, Segment, segment_name};
use super::syncer::{BackgroundSync, SyncJob};
use crate::limits::{TRACE_FSYNC_INTERVAL_MS, TRACE_RESERVE_BYTES, TRACE_RETRY_MS};
use anyhow::{Context, Result, bail};
use std::collections::VecDeque;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How far back recovery reads at a time while looking for the previous line break.
const SCAN_CHUNK: u64 = 64 * 1024;
/// How often a quiet host checks segments against `maxAgeDays`.
const AGE_CHECK_EVERY: Duration = Duration::from_secs(60);

/// How large segments grow and how much history is kept (`[trace]` in the configuration).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retention {
    /// A segment is sealed, and a new one started, once it holds this many bytes.
    pub segment_bytes: u64,
    /// Oldest segments are removed while all of them together hold more than this.
    pub max_bytes: Option<u64>,
    /// Segments whose newest event is older than this are removed.
    pub max_age: Option<Duration>,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            segment_bytes: crate::limits::TRACE_SEGMENT_BYTES,
            max_bytes: Some(crate::limits::TRACE_MAX_BYTES),
            max_age: None,
        }
    }
}

/// Where the chain stood at the end of the history that was opened again.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Resume {
    /// Sequence number of the last complete event.
    pub seq: u64,
    /// Its hash, which the next event chains from.
    pub hash: String,
}

/// The open, locked segments folder, the lines not yet written, and whether writing works.
pub(super) struct Store {
    dir: PathBuf,
    /// Held for the store's life: a second host on the same folder is refused.
    _lock: File,
    disk: Arc<dyn Disk>,
    file: Box<dyn SegmentFile>,
    /// The segment being written; its `len` counts the bytes written to it.
    active: Segment,
    /// Older segments, oldest first.
    sealed: VecDeque<Segment>,
    retention: Retention,
    durability: Durability,
    /// The hash the active segment's first event chains from, while it has none yet.
    head_hash: Option<String>,
    /// The first sequence number still kept, shared with the indexer so it drops the rest.
    first_kept: Arc<AtomicU64>,
    last_age_check: Instant,
    /// Lines appended since the last write, and where each starts with its sequence number.
    pending: Vec<u8>,
    pending_lines: Vec<(u64, usize)>,
    /// Written since the last sync.
    unsynced: bool,
    last_sync: Instant,
    /// An `interval` sync running off the engine thread.
    background: BackgroundSync,
    /// Why writing failed, while it does (refusing mode).
    outage: Option<Outage>,
    /// A failed write may have left bytes past `active.len` that could not be cut yet.
    torn: bool,
    /// `onWriteFailure = "memory"` after a failure: nothing more is written.
    memory_only: bool,
    /// The outage as `/readyz` reports it.
    health: Health,
    /// Retention keeps every event from this sequence number on (the world journal after
    /// the oldest world checkpoint kept; 0: no pin).
    pinned_from: u64,
    /// Retention stopped at the pin last time it ran.
    pin_blocks: bool,
}

/// The trace's readiness, shared with whoever reports it (`/readyz`): why the trace cannot be
/// written, while it cannot.
pub type Health = Arc<Mutex<Option<String>>>;

/// A write failure that has not been resolved yet.
struct Outage {
    cause: String,
    since: Instant,
    next_try: Instant,
}

impl Store {
    /// Opens (or creates) the segments folder `dir`, takes the lock, recovers from a torn
    /// final line, applies retention and starts a fresh segment. Returns where the chain
    /// resumes, or `None` for an empty history.
    pub fn open(
        dir: &Path,
        retention: Retention,
        durability: Durability,
        disk: Arc<dyn Disk>,
    ) -> Result<(Store, Option<Resume>)> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the trace folder {}", dir.display()))?;
        let lock = lock(dir)?;
        adopt_legacy_file(dir)?;
        let mut listed = segments::list(dir)?;
        let mut resume = None;
        // The newest segment with an event tells where the chain stands; empty ones after it
        // (a host that stopped before writing) hold nothing and go.
        while let Some(last) = listed.pop() {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&last.path)
                .with_context(|| {
                    format!("cannot open the trace segment {}", last.path.display())
                })?;
            resume = recover(&mut file, &last.path)?;
            if resume.is_some() {
                listed.push(Segment {
                    len: file.metadata()?.len(),
                    ..last
                });
                break;
            }
            std::fs::remove_file(&last.path)?;
        }
        if resume.is_none()
            && let Some(cut) = segments::last_cut(dir)?
        {
            // Retention removed every segment with events: the chain goes on from the cut.
            resume = Some(Resume {
                seq: cut.first_seq - 1,
                hash: cut.previous_hash,
            });
        }
        let next = resume.as_ref().map_or(1, |r| r.seq + 1);
        let (file, active) = create_segment(&*disk, dir, next)?;
        let first_kept = listed.first().map_or(next, |s| s.first_seq);
        let mut store = Store {
            dir: dir.to_path_buf(),
            _lock: lock,
            disk,
            file,
            active,
            sealed: listed.into(),
            retention,
            durability,
            head_hash: resume.as_ref().map(|r| r.hash.clone()),
            first_kept: Arc::new(AtomicU64::new(first_kept)),
            last_age_check: Instant::now(),
            pending: Vec::new(),
            pending_lines: Vec::new(),
            unsynced: false,
            last_sync: Instant::now(),
            background: BackgroundSync::default(),
            outage: None,
            torn: false,
            memory_only: false,
            health: Health::default(),
            pinned_from: 0,
            pin_blocks: false,
        };
        if let Err(e) = store.apply_retention() {
            crate::log::warn(&format!("trace retention: {e:#}"));
        }
        Ok((store, resume))
    }

    /// The segments folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The first sequence number retention keeps, as it moves.
    pub fn first_kept(&self) -> Arc<AtomicU64> {
        self.first_kept.clone()
    }

    /// The first sequence number retention keeps now.
    pub fn first_kept_seq(&self) -> u64 {
        self.first_kept.load(Ordering::Relaxed)
    }

    /// The trace's readiness, for `/readyz`.
    pub fn health(&self) -> Health {
        self.health.clone()
    }

    /// Why the trace cannot be written now, if it cannot (refusing mode only).
    pub fn outage(&self) -> Option<&str> {
        self.outage.as_ref().map(|o| o.cause.as_str())
    }

    /// Appends one event's line to what the next [`Store::write`] writes.
    pub fn append(&mut self, seq: u64, line: &[u8]) {
        if self.memory_only || self.outage.is_some() {
            return;
        }
        self.pending_lines.push((seq, self.pending.len()));
        self.pending.extend_from_slice(line);
        self.pending.push(b'\n');
        self.head_hash = None;
    }

    /// Writes the appended lines to the active segment, starting a new segment whenever one
    /// fills. Ok means every appended event is in a file. On a failure the store is in an
    /// outage and the cause is returned with the last event that did reach a file (lines
    /// written before a rotation failed), if any: the caller forgets every event after it. A
    /// line torn by the failed write is cut off. With `onWriteFailure = "memory"` a failure is
    /// logged, writing stops for good, and this answers Ok.
    pub fn write(&mut self) -> std::result::Result<(), (String, Option<Resume>)> {
        if let Some(outage) = &self.outage {
            return Err((outage.cause.clone(), None));
        }
        if self.pending.is_empty() || self.memory_only {
            self.pending.clear();
            self.pending_lines.clear();
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let lines = std::mem::take(&mut self.pending_lines);
        let result = self.write_lines(&pending, &lines);
        // The buffers are kept for their capacity.
        self.pending = pending;
        self.pending.clear();
        self.pending_lines = lines;
        self.pending_lines.clear();
        result
    }

    /// Writes `lines` of `bytes` segment by segment; see [`Store::write`].
    fn write_lines(
        &mut self,
        bytes: &[u8],
        lines: &[(u64, usize)],
    ) -> std::result::Result<(), (String, Option<Resume>)> {
        let mut i = 0;
        let mut done: Option<usize> = None;
        while i < lines.len() {
            if self.active.len >= self.retention.segment_bytes
                && let Err(e) = self.rotate(lines[i].0)
            {
                return self.failed_after(e, bytes, lines, done);
            }
            // Lines up to the one that fills the segment go in one write.
            let mut end = i;
            let mut len = self.active.len;
            while end < lines.len() && len < self.retention.segment_bytes {
                let next = lines.get(end + 1).map_or(bytes.len(), |l| l.1);
                len += (next - lines[end].1) as u64;
                end += 1;
            }
            let from = lines[i].1;
            let to = lines.get(end).map_or(bytes.len(), |l| l.1);
            match disk::append_all(&mut *self.file, &bytes[from..to]) {
                Ok(()) => {
                    self.active.len += (to - from) as u64;
                    self.unsynced = true;
                    done = Some(end - 1);
                    i = end;
                }
                Err((partly, e)) => {
                    if partly > 0 && self.file.truncate(self.active.len).is_err() {
                        self.torn = true;
                    }
                    return self.failed_after(e, bytes, lines, done);
                }
            }
        }
        Ok(())
    }

    /// [`Store::failed`], naming the last line of `lines` that was written, if any.
    fn failed_after(
        &mut self,
        e: io::Error,
        bytes: &[u8],
        lines: &[(u64, usize)],
        done: Option<usize>,
    ) -> std::result::Result<(), (String, Option<Resume>)> {
        let written = done.and_then(|k| {
            let end = lines.get(k + 1).map_or(bytes.len(), |l| l.1);
            let event: Event = serde_json::from_slice(&bytes[lines[k].1..end]).ok()?;
            Some(Resume {
                seq: lines[k].0,
                hash: event.integrity.hash,
            })
        });
        match self.failed(e) {
            Ok(()) => Ok(()),
            Err(cause) => Err((cause, written)),
        }
    }

    /// Syncs what was written when `[trace] fsync` says it is due: at every batch for
    /// `always`, inline; once per interval for `interval`, in the background (see
    /// `syncer.rs`). A failed sync is an outage too, found at the batch after it for a
    /// background one.
    pub fn sync_due(&mut self) -> std::result::Result<(), String> {
        if self.memory_only || self.outage.is_some() {
            return Ok(());
        }
        if let Some(Err(e)) = self.background.finished() {
            return self.failed(e);
        }
        if !self.unsynced {
            return Ok(());
        }
        match self.durability.fsync {
            Fsync::Always => self.sync_inline(),
            Fsync::Interval
                if self.last_sync.elapsed() >= Duration::from_millis(TRACE_FSYNC_INTERVAL_MS) =>
            {
                // What is written from now on is the next sync's: `write` marks it unsynced.
                let started = self
                    .file
                    .sync_job()
                    .and_then(|job| self.background.start(job));
                match started {
                    Ok(()) => {
                        self.unsynced = false;
                        self.last_sync = Instant::now();
                        Ok(())
                    }
                    Err(e) => self.failed(e),
                }
            }
            Fsync::Interval | Fsync::Never => Ok(()),
        }
    }

    /// Waits for a background sync in flight; its failure comes back as an error.
    fn settle_background(&mut self) -> io::Result<()> {
        self.background.wait().unwrap_or(Ok(()))
    }

    /// Lets the next batch start an `interval` sync at once and waits for one in flight
    /// (tests).
    #[cfg(test)]
    pub fn sync_interval_now(&mut self) -> std::result::Result<(), String> {
        self.last_sync = Instant::now() - Duration::from_millis(TRACE_FSYNC_INTERVAL_MS);
        match self.settle_background() {
            Ok(()) => Ok(()),
            Err(e) => self.failed(e),
        }
    }

    /// Whether every written event must be synced before a reply naming it leaves.
    pub fn syncs_every_batch(&self) -> bool {
        self.durability.fsync == Fsync::Always
    }

    /// Ages out old segments now and then (`maxAgeDays`).
    pub fn housekeeping(&mut self) {
        if self.retention.max_age.is_some() && self.last_age_check.elapsed() >= AGE_CHECK_EVERY {
            self.last_age_check = Instant::now();
            if let Err(e) = self.apply_retention() {
                crate::log::warn(&format!("trace retention: {e:#}"));
            }
        }
    }

    /// In an outage, tries (at most every `TRACE_RETRY_MS`) whether writing works again: the
    /// torn tail cut off, room reserved after the end. Ok once the outage is over.
    pub fn try_resume(&mut self) -> std::result::Result<(), String> {
        let Some(outage) = &mut self.outage else {
            return Ok(());
        };
        let now = Instant::now();
        if now < outage.next_try {
            return Err(outage.cause.clone());
        }
        outage.next_try = now + Duration::from_millis(TRACE_RETRY_MS);
        let tried = (|| -> io::Result<()> {
            if self.torn {
                self.file.truncate(self.active.len)?;
                self.torn = false;
            }
            if !self.active.path.exists() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("the trace segment {} is gone", self.active.path.display()),
                ));
            }
            self.file.reserve(self.active.len, TRACE_RESERVE_BYTES)
        })();
        let outage = self.outage.as_mut().expect("checked above");
        match tried {
            Ok(()) => {
                crate::log::info(&format!(
                    "the trace can be written again ({} after: {}); recorded calls are accepted",
                    format_secs(outage.since.elapsed()),
                    outage.cause
                ));
                self.outage = None;
                *self.health.lock().unwrap_or_else(|e| e.into_inner()) = None;
                Ok(())
            }
            Err(_) => Err(outage.cause.clone()),
        }
    }

    /// The next [`Store::try_resume`] tries at once.
    pub fn retry_now(&mut self) {
        if let Some(outage) = &mut self.outage {
            outage.next_try = Instant::now();
        }
    }

    /// A write or sync failed: an outage begins (logged once), or in memory mode writing stops.
    fn failed(&mut self, e: io::Error) -> std::result::Result<(), String> {
        if self.durability.on_write_failure == OnWriteFailure::Memory {
            crate::log::error(&format!(
                "cannot write the trace segment {}: {e}; onWriteFailure = \"memory\": new \
                 events are kept in memory only and are lost when the host stops",
                self.active.path.display()
            ));
            self.memory_only = true;
            return Ok(());
        }
        let cause = format!(
            "the trace cannot be written ({}: {e}); free space in {} or fix the disk: the host \
             retries every {TRACE_RETRY_MS} ms and resumes by itself",
            self.active.path.display(),
            self.dir.display()
        );
        crate::log::error(&format!(
            "{cause}. Until then calls that would be recorded are refused (capacity_exceeded); \
             ping, listings and reads of the written history go on"
        ));
        *self.health.lock().unwrap_or_else(|e| e.into_inner()) = Some(cause.clone());
        let now = Instant::now();
        self.outage = Some(Outage {
            cause: cause.clone(),
            since: now,
            next_try: now + Duration::from_millis(TRACE_RETRY_MS),
        });
        Err(cause)
    }

    /// Keeps every event from `seq` on through retention (see `pinned_from`).
    pub fn pin_from(&mut self, seq: u64) {
        let moved = seq > self.pinned_from && self.pin_blocks;
        self.pinned_from = seq;
        if moved && let Err(e) = self.apply_retention() {
            crate::log::warn(&format!("trace retention: {e:#}"));
        }
    }

    /// Whether retention would remove segments it keeps only for the pin.
    pub fn pin_blocks(&self) -> bool {
        self.pin_blocks
    }

    /// Whether the store can sync at all; if not, why: it is out, or keeps the trace in memory
    /// only since a write failed.
    fn syncable(&self) -> std::result::Result<(), String> {
        if let Some(outage) = &self.outage {
            return Err(outage.cause.clone());
        }
        if self.memory_only {
            return Err("the trace is kept in memory only since a write failed \
                        ([trace] onWriteFailure = \"memory\")"
                .into());
        }
        Ok(())
    }

    /// Syncs everything written so far now, whatever `[trace] fsync` says: a world
    /// checkpoint names the last event it covers, which must be on disk first.
    pub fn sync_now(&mut self) -> std::result::Result<(), String> {
        self.syncable()?;
        if let Err(e) = self.settle_background() {
            return self.failed(e);
        }
        if !self.unsynced {
            return Ok(());
        }
        self.sync_inline()
    }

    /// A job that syncs everything written so far from another thread, whatever `[trace]
    /// fsync` says (a world checkpoint written off the engine names its last event); `None`
    /// when all of it is synced already.
    pub fn sync_job(&mut self) -> std::result::Result<Option<SyncJob>, String> {
        self.syncable()?;
        // A background sync still running covers what it was started for, but is not done.
        if !self.unsynced && !self.background.busy() {
            return Ok(None);
        }
        match self.file.sync_job() {
            Ok(job) => Ok(Some(job)),
            Err(e) => self.failed(e).map(|()| None),
        }
    }

    /// Syncs the active segment on this thread; a failure is an outage.
    fn sync_inline(&mut self) -> std::result::Result<(), String> {
        match self.file.sync() {
            Ok(()) => {
                self.unsynced = false;
                self.last_sync = Instant::now();
                Ok(())
            }
            Err(e) => self.failed(e),
        }
    }

    /// Seals the active segment and starts one whose first event is `next_seq`.
    fn rotate(&mut self, next_seq: u64) -> io::Result<()> {
        self.settle_background()?;
        self.file.sync()?;
        self.unsynced = false;
        let (file, active) = create_segment(&*self.disk, &self.dir, next_seq)
            .map_err(|e| io::Error::other(format!("{e:#}")))?;
        self.file = file;
        let sealed = std::mem::replace(&mut self.active, active);
        self.sealed.push_back(sealed);
        if let Err(e) = self.apply_retention() {
            crate::log::warn(&format!("trace retention: {e:#}"));
        }
        Ok(())
    }

    /// Removes the oldest sealed segments past `maxBytes` or `maxAgeDays`, recording the cut
    /// (synced) before any file goes, so what remains always verifies.
    fn apply_retention(&mut self) -> Result<()> {
        let total: u64 = self.sealed.iter().map(|s| s.len).sum::<u64>() + self.active.len;
        let now = SystemTime::now();
        let mut remove = 0;
        let mut kept_bytes = total;
        self.pin_blocks = false;
        for (i, segment) in self.sealed.iter().enumerate() {
            let next_first = self.sealed.get(i + 1).unwrap_or(&self.active).first_seq;
            let pinned = self.pinned_from > 0 && next_first > self.pinned_from;
            let too_big = self.retention.max_bytes.is_some_and(|max| kept_bytes > max);
            let too_old = !too_big
                && self.retention.max_age.is_some_and(|age| {
                    std::fs::metadata(&segment.path)
                        .and_then(|m| m.modified())
                        .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > age)
                });
            if !(too_big || too_old) {
                break;
            }
            if pinned {
                // It holds a pinned event: it stays (and every newer one) until the pin moves.
                self.pin_blocks = true;
                break;
            }
            kept_bytes -= segment.len;
            remove += 1;
        }
        if remove == 0 {
            return Ok(());
        }
        let first_kept = self.sealed.get(remove).unwrap_or(&self.active).first_seq;
        let previous_hash = match self.sealed.get(remove) {
            Some(kept) => first_previous_hash(&kept.path)?,
            None if self.active.len > 0 => first_previous_hash(&self.active.path)?,
            None => self.head_hash.clone(),
        }
        .context("the first kept event has no previous hash")?;
        let removed: Vec<Segment> = self.sealed.drain(..remove).collect();
        let cut = Cut {
            first_seq: first_kept,
            previous_hash,
            at: super::event::now_iso8601(),
            removed_segments: removed.len() as u64,
            removed_bytes: removed.iter().map(|s| s.len).sum(),
        };
        if let Err(e) = segments::record_cut(&*self.disk, &self.dir, &cut) {
            // Nothing is removed without its record: the segments stay, to go next time.
            for segment in removed.into_iter().rev() {
                self.sealed.push_front(segment);
            }
            return Err(e);
        }
        self.first_kept.store(first_kept, Ordering::Release);
        for segment in &removed {
            if let Err(e) = std::fs::remove_file(&segment.path) {
                crate::log::warn(&format!(
                    "trace retention: cannot remove {}: {e}",
                    segment.path.display()
                ));
            }
        }
        crate::log::info(&format!(
            "trace retention: removed {} segment(s), {} bytes; the history now starts at event {first_kept}",
            removed.len(),
            removed.iter().map(|s| s.len).sum::<u64>(),
        ));
        Ok(())
    }

    /// The segments as they stand, oldest first (sizes as written so far).
    pub fn segments(&self) -> Vec<Segment> {
        let mut all: Vec<Segment> = self.sealed.iter().cloned().collect();
        all.push(self.active.clone());
        all
    }
}

impl Drop for Store {
    /// What was appended but not written yet (events outside calls) goes out on the way.
    fn drop(&mut self) {
        let _ = self.write();
        let _ = self.settle_background();
        if self.unsynced && self.outage.is_none() && self.durability.fsync != Fsync::Never {
            let _ = self.file.sync();
        }
    }
}

fn format_secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// Reads lines by position in the segments of one folder, keeping the last segment it opened
/// (rows of one query mostly fall in one or two segments).
pub(super) struct LineReader<'a> {
    dir: &'a Path,
    open: Option<(u64, File)>,
}

impl<'a> LineReader<'a> {
    pub fn new(dir: &'a Path) -> Self {
        LineReader { dir, open: None }
    }

    /// The line at `offset..offset + len` of the segment starting at `first_seq`.
    pub fn read(&mut self, first_seq: u64, offset: u64, len: u64) -> io::Result<Vec<u8>> {
        if self.open.as_ref().is_none_or(|(seg, _)| *seg != first_seq) {
            let file = File::open(self.dir.join(segment_name(first_seq)))?;
            self.open = Some((first_seq, file));
        }
        let (_, file) = self.open.as_ref().expect("opened above");
        let mut buf = vec![0; len as usize];
        file.read_exact_at(&mut buf, offset)?;
        Ok(buf)
    }
}

/// Another live process holds the trace folder's lock: one host writes a trace folder at a
/// time. A `limina --mcp-stdio` that meets it on the same machine joins that host instead
/// (`crate::join`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderInUse {
    /// The trace folder.
    pub dir: std::path::PathBuf,
    /// The process holding it, as it wrote its pid.
    pub pid: Option<u32>,
    /// The machine it runs on, as it wrote its host name (a container's pid alone says
    /// little: it is 1 in every one).
    pub host: Option<String>,
}

impl FolderInUse {
    /// The holder of `dir` as its lock file's text (`PID HOST`, or a pid alone) names it.
    pub fn read(dir: &Path, holder: &str) -> FolderInUse {
        let mut parts = holder.split_whitespace();
        let pid = parts
            .next()
            .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|p| p.parse().ok());
        FolderInUse {
            dir: dir.to_path_buf(),
            pid,
            host: pid.and(parts.next()).map(str::to_string),
        }
    }

    /// Whether the holder runs on this machine (or did not say where it runs).
    pub fn on_this_host(&self) -> bool {
        self.host.as_ref().is_none_or(|h| *h == hostname())
    }
}

impl std::fmt::Display for FolderInUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let holder = match (self.pid, &self.host) {
            (Some(pid), Some(host)) => format!("process {pid} on host {host}"),
            (Some(pid), None) => format!("process {pid}"),
            _ => "another process".to_string(),
        };
        write!(
            f,
            "the trace folder {} is in use by {holder} (another limina host); one host \
             writes a trace folder at a time. Stop that host, pass a different \
             --trace-dir, or run with --ephemeral-trace to keep this run's trace in \
             memory only",
            self.dir.display()
        )
    }
}

impl std::error::Error for FolderInUse {}

fn lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_FILE);
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open the trace lock {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {
            // Who holds it, for the message a second host gives.
            file.set_len(0)?;
            let holder = format!("{} {}", std::process::id(), hostname());
            file.write_all_at(holder.as_bytes(), 0)?;
            Ok(file)
        }
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            Err(FolderInUse::read(dir.parent().unwrap_or(dir), &holder).into())
        }
        Err(TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock the trace folder {}", dir.display()))
        }
    }
}

/// This machine's (or container's) host name, for the lock's holder; `?` when unknown.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && !h.contains(char::is_whitespace))
        .unwrap_or_else(|| "?".into())
}

/// Moves the single `trace.jsonl` of earlier versions, beside the segments folder, in as the
/// first segment, so its history and chain carry on.
fn adopt_legacy_file(dir: &Path) -> Result<()> {
    let Some(legacy) = dir.parent().map(|p| p.join(LEGACY_FILE)) else {
        return Ok(());
    };
    if !legacy.is_file() || !segments::list(dir)?.is_empty() {
        return Ok(());
    }
    let first_seq = segments::first_event(&legacy)?
        .and_then(|e| e.seq())
        .unwrap_or(1);
    let target = dir.join(segment_name(first_seq));
    std::fs::rename(&legacy, &target)
        .with_context(|| format!("cannot move {} into {}", legacy.display(), dir.display()))?;
    crate::log::info(&format!(
        "trace: moved {} into the segments folder as {}",
        legacy.display(),
        target.display()
    ));
    Ok(())
}

fn create_segment(
    disk: &dyn Disk,
    dir: &Path,
    first_seq: u64,
) -> Result<(Box<dyn SegmentFile>, Segment)> {
    let path = dir.join(segment_name(first_seq));
    let file = disk
        .open_segment(&path)
        .with_context(|| format!("cannot create the trace segment {}", path.display()))?;
    let len = file.size()?;
    let segment = Segment {
        first_seq,
        path,
        len,
    };
    Ok((file, segment))
}

/// The `previousHash` of the first event in the segment at `path`.
fn first_previous_hash(path: &Path) -> Result<Option<String>> {
    let event = segments::first_event(path)?
        .with_context(|| format!("the first line of {} is not an event", path.display()))?;
    Ok(event.integrity.previous_hash)
}

/// Finds the last complete event, cutting off a torn final line (no line break, or not JSON)
/// left by a write that was interrupted.
fn recover(file: &mut File, path: &Path) -> Result<Option<Resume>> {
    let len = file.metadata()?.len();
    // A line is complete once its line break is written; anything after the last one is torn.
    let mut good_end = prev_newline(file, len)?.map_or(0, |p| p + 1);
    let mut cut = len - good_end;
    let mut resume = None;
    if good_end > 0 {
        let start = prev_newline(file, good_end - 1)?.map_or(0, |p| p + 1);
        let line = read_range(file, start, good_end - 1)?;
        match serde_json::from_slice::<serde_json::Value>(&line) {
            // A final line that ends in a break yet is not JSON is torn too (a crash can
            // leave a garbage block). Only the very last line is treated so: a bad line
            // before a torn fragment is damage, not an interrupted write, and is kept.
            Err(_) if cut == 0 => {
                cut += good_end - start;
                good_end = start;
                if start > 0 {
                    resume = Some(last_event(file, path, start)?);
                }
            }
            Err(_) => bail!("{}", damaged(path)),
            Ok(value) => resume = Some(resume_from(value, path)?),
        }
    }
    if cut > 0 {
        file.set_len(good_end)?;
        crate::log::warn(&format!(
            "trace file {}: removed a torn final line ({cut} bytes) left by an interrupted \
             write; the trace continues after {}",
            path.display(),
            resume
                .as_ref()
                .map_or("the start".to_string(), |r| format!("event {}", r.seq)),
        ));
    }
    Ok(resume)
}

/// Reads the complete line that ends (with its break) at byte `end` as the last good event.
fn last_event(file: &mut File, path: &Path, end: u64) -> Result<Resume> {
    let start = prev_newline(file, end - 1)?.map_or(0, |p| p + 1);
    let line = read_range(file, start, end - 1)?;
    let value = serde_json::from_slice(&line).with_context(|| damaged(path))?;
    resume_from(value, path)
}

fn resume_from(value: serde_json::Value, path: &Path) -> Result<Resume> {
    let event: Event = serde_json::from_value(value).with_context(|| damaged(path))?;
    let seq = event.seq().with_context(|| damaged(path))?;
    Ok(Resume {
        seq,
        hash: event.integrity.hash,
    })
}

fn damaged(path: &Path) -> String {
    format!(
        "the last line of the trace file {} is not a trace event, so the chain cannot be \
         continued; move the file aside or pass a different --trace-dir",
        path.display()
    )
}

/// Position of the last `\n` before byte `before`, reading backwards in chunks.
fn prev_newline(file: &mut File, before: u64) -> io::Result<Option<u64>> {
    let mut end = before;
    let mut buf = vec![0; SCAN_CHUNK as usize];
    while end > 0 {
        let start = end.saturating_sub(SCAN_CHUNK);
        let chunk = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(Some(start + i as u64));
        }
        end = start;
    }
    Ok(None)
}

fn read_range(file: &mut File, start: u64, end: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; (end - start) as usize];
    file.seek(SeekFrom::Start(start))?;
    file.read_exact(&mut buf)?;
    Ok(buf)
}
