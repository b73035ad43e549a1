//! The durable trace: a folder of append-only JSONL segments, one event per line, held under
//! an exclusive lock. Writes are buffered and flushed once per message batch, so a crash can
//! leave at most a torn final line in the newest segment; opening the folder again cuts that
//! line off and continues the chain in a fresh segment. A segment is sealed once it passes the
//! configured size, and retention removes the oldest sealed segments, recording the cut first.

use super::Event;
use super::segments::{self, Cut, LEGACY_FILE, LOCK_FILE, Segment, segment_name};
use anyhow::{Context, Result, bail};
use std::collections::VecDeque;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// The open, locked segments folder and the write buffer of its newest segment.
pub(super) struct Store {
    dir: PathBuf,
    /// Held for the store's life: a second host on the same folder is refused.
    _lock: File,
    writer: BufWriter<File>,
    /// The segment being written; its `len` counts buffered bytes too.
    active: Segment,
    /// Older segments, oldest first.
    sealed: VecDeque<Segment>,
    retention: Retention,
    /// The hash the active segment's first event chains from, while it has none yet.
    head_hash: Option<String>,
    /// The first sequence number still kept, shared with the indexer so it drops the rest.
    first_kept: Arc<AtomicU64>,
    last_age_check: Instant,
    /// Set by the first failed write: later events stay in memory only, since a file with a
    /// missing event can no longer be chained onto.
    failed: Option<String>,
    /// The line being written, reused.
    line: Vec<u8>,
}

impl Store {
    /// Opens (or creates) the segments folder `dir`, takes the lock, recovers from a torn
    /// final line, applies retention and starts a fresh segment. Returns where the chain
    /// resumes, or `None` for an empty history.
    pub fn open(dir: &Path, retention: Retention) -> Result<(Store, Option<Resume>)> {
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
        let (writer, active) = create_segment(dir, next)?;
        let first_kept = listed.first().map_or(next, |s| s.first_seq);
        let mut store = Store {
            dir: dir.to_path_buf(),
            _lock: lock,
            writer,
            active,
            sealed: listed.into(),
            retention,
            head_hash: resume.as_ref().map(|r| r.hash.clone()),
            first_kept: Arc::new(AtomicU64::new(first_kept)),
            last_age_check: Instant::now(),
            failed: None,
            line: Vec::new(),
        };
        store.apply_retention()?;
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

    /// Buffers one event as a line, starting a new segment first when the active one is
    /// full. A failure is logged once and stops further writes.
    pub fn append(&mut self, event: &Event) {
        if self.failed.is_some() {
            return;
        }
        if self.active.len >= self.retention.segment_bytes
            && let Some(seq) = event.seq()
            && let Err(e) = self.rotate(seq)
        {
            self.fail(e);
            return;
        }
        // Serialized apart first, so the segment's size counts exactly what was written.
        self.line.clear();
        let written = serde_json::to_writer(&mut self.line, event)
            .map_err(io::Error::from)
            .and_then(|()| {
                self.line.push(b'\n');
                self.writer.write_all(&self.line)
            });
        match written {
            Ok(()) => self.active.len += self.line.len() as u64,
            Err(e) => self.fail(e),
        }
        self.head_hash = None;
    }

    /// Pushes buffered lines to the file; reports a write failure, once seen, every time.
    pub fn flush(&mut self) -> Result<()> {
        if self.failed.is_none()
            && let Err(e) = self.writer.flush()
        {
            self.fail(e);
        }
        if self.retention.max_age.is_some() && self.last_age_check.elapsed() >= AGE_CHECK_EVERY {
            self.last_age_check = Instant::now();
            if let Err(e) = self.apply_retention() {
                crate::log::warn(&format!("trace retention: {e:#}"));
            }
        }
        match &self.failed {
            None => Ok(()),
            Some(why) => bail!("{why}"),
        }
    }

    /// Seals the active segment and starts one whose first event is `next_seq`.
    fn rotate(&mut self, next_seq: u64) -> io::Result<()> {
        self.writer.flush()?;
        self.writer.get_ref().sync_data()?;
        let (writer, active) = create_segment(&self.dir, next_seq).map_err(io::Error::other)?;
        self.writer = writer;
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
        for segment in &self.sealed {
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
            kept_bytes -= segment.len;
            remove += 1;
        }
        if remove == 0 {
            return Ok(());
        }
        let first_kept = self.sealed.get(remove).unwrap_or(&self.active).first_seq;
        let previous_hash = match self.sealed.get(remove) {
            Some(kept) => first_previous_hash(&kept.path)?,
            None if self.active.len > 0 => {
                self.writer.flush()?;
                first_previous_hash(&self.active.path)?
            }
            None => self.head_hash.clone(),
        }
        .context("the first kept event has no previous hash")?;
        let removed: Vec<Segment> = self.sealed.drain(..remove).collect();
        segments::record_cut(
            &self.dir,
            &Cut {
                first_seq: first_kept,
                previous_hash,
                at: super::event::now_iso8601(),
                removed_segments: removed.len() as u64,
                removed_bytes: removed.iter().map(|s| s.len).sum(),
            },
        )?;
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

    fn fail(&mut self, e: io::Error) {
        let why = format!(
            "cannot write the trace segment {}: {e}; new events are kept in memory only",
            self.active.path.display()
        );
        crate::log::error(&why);
        self.failed = Some(why);
    }

    /// The segments as they stand, oldest first (sizes as written so far).
    pub fn segments(&self) -> Vec<Segment> {
        let mut all: Vec<Segment> = self.sealed.iter().cloned().collect();
        all.push(self.active.clone());
        all
    }
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

fn lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open the trace lock {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => bail!(
            "the trace folder {} is locked by another process (is another limina host \
             running?); pass a different --trace-dir",
            dir.display()
        ),
        Err(TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock the trace folder {}", dir.display()))
        }
    }
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

fn create_segment(dir: &Path, first_seq: u64) -> Result<(BufWriter<File>, Segment)> {
    let path = dir.join(segment_name(first_seq));
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(&path)
        .with_context(|| format!("cannot create the trace segment {}", path.display()))?;
    let len = file.metadata()?.len();
    let segment = Segment {
        first_seq,
        path,
        len,
    };
    Ok((BufWriter::with_capacity(64 * 1024, file), segment))
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
