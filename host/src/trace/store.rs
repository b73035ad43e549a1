//! The durable trace: an append-only JSONL file, one event per line, held under an exclusive
//! lock. Writes are buffered and flushed once per message batch, so a crash can leave at most a
//! torn final line; opening the file again cuts that line off and continues the chain.

use super::Event;
use anyhow::{Context, Result, bail};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, BufRead, BufReader, BufWriter, Chain, Read, Seek, SeekFrom, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// How far back recovery reads at a time while looking for the previous line break.
const SCAN_CHUNK: u64 = 64 * 1024;

/// Where the chain stood at the end of a file that was opened again.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Resume {
    /// Sequence number of the last complete event.
    pub seq: u64,
    /// Its hash, which the next event chains from.
    pub hash: String,
}

/// An open, locked trace file and its write buffer.
pub(super) struct Store {
    path: PathBuf,
    writer: BufWriter<File>,
    /// Set by the first failed write: later events stay in memory only, since a file with a
    /// missing event can no longer be chained onto.
    failed: Option<String>,
}

impl Store {
    /// Opens (or creates) the file, takes the lock and recovers from a torn final line.
    /// Returns where the chain resumes, or `None` for an empty file.
    pub fn open(path: &Path) -> Result<(Store, Option<Resume>)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the trace folder {}", dir.display()))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("cannot open the trace file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => bail!(
                "the trace file {} is locked by another process (is another limina host \
                 running?); pass a different --trace-dir",
                path.display()
            ),
            Err(TryLockError::Error(e)) => {
                return Err(e)
                    .with_context(|| format!("cannot lock the trace file {}", path.display()));
            }
        }
        let resume = recover(&mut file, path)?;
        let store = Store {
            path: path.to_path_buf(),
            writer: BufWriter::with_capacity(64 * 1024, file),
            failed: None,
        };
        Ok((store, resume))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Buffers one event as a line. A failure is logged once and stops further writes.
    pub fn append(&mut self, event: &Event) {
        if self.failed.is_some() {
            return;
        }
        let written = serde_json::to_writer(&mut self.writer, event)
            .map_err(io::Error::from)
            .and_then(|()| self.writer.write_all(b"\n"));
        if let Err(e) = written {
            self.fail(e);
        }
    }

    /// Pushes buffered lines to the file; reports a write failure, once seen, every time.
    pub fn flush(&mut self) -> Result<()> {
        if self.failed.is_none()
            && let Err(e) = self.writer.flush()
        {
            self.fail(e);
        }
        match &self.failed {
            None => Ok(()),
            Some(why) => bail!("{why}"),
        }
    }

    fn fail(&mut self, e: io::Error) {
        let why = format!(
            "cannot write the trace file {}: {e}; new events are kept in memory only",
            self.path.display()
        );
        crate::log::error(&why);
        self.failed = Some(why);
    }

    /// The history from byte `offset` on: the file as written so far, then the lines still
    /// waiting in the buffer, so readers need no `&mut` to see every event.
    pub fn reader(&self, offset: u64) -> Result<BufReader<Chain<File, &[u8]>>> {
        let mut file = File::open(&self.path)
            .with_context(|| format!("cannot read the trace file {}", self.path.display()))?;
        let written = file.metadata()?.len();
        let pending = self.writer.buffer();
        // An offset past the file's end points into the lines still buffered.
        let skip = offset.saturating_sub(written).min(pending.len() as u64) as usize;
        file.seek(SeekFrom::Start(offset.min(written)))?;
        Ok(BufReader::new(file.chain(&pending[skip..])))
    }

    /// Calls `visit` with each event from byte `offset` on and the byte offset just past its
    /// line, until it breaks or the history ends.
    pub fn scan(
        &self,
        offset: u64,
        mut visit: impl FnMut(Event, u64) -> ControlFlow<()>,
    ) -> Result<()> {
        let mut reader = self.reader(offset)?;
        let (mut line, mut end) = (Vec::new(), offset);
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 {
                return Ok(());
            }
            let start = end;
            end += n as u64;
            let event: Event = serde_json::from_slice(&line).with_context(|| {
                format!(
                    "the trace file {} holds a line that is not an event at byte {start}",
                    self.path.display()
                )
            })?;
            if visit(event, end).is_break() {
                return Ok(());
            }
        }
    }
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
