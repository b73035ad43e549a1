//! The durable trace's folder: segment files named by the sequence number of their first event,
//! and the retention cut record. The hash chain runs on across segments (a segment's first
//! event chains from the previous segment's last), so segments concatenated in name order are
//! one verifiable history.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The folder inside `--trace-dir` that holds the segments.
pub const SEGMENTS_DIR: &str = "segments";
/// The file in the segments folder that records where retention cut the history.
pub const CUT_FILE: &str = "retention.jsonl";
/// The lock file that keeps a second host off the same segments.
pub const LOCK_FILE: &str = "lock";
/// The trace file of hosts before segments; adopted as the first segment when found.
pub const LEGACY_FILE: &str = "trace.jsonl";

/// One segment file.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Sequence number of its first event (its name).
    pub first_seq: u64,
    pub path: PathBuf,
    /// Size in bytes when listed.
    pub len: u64,
}

/// The file name of the segment starting at `first_seq`.
pub fn segment_name(first_seq: u64) -> String {
    format!("{first_seq:020}.jsonl")
}

/// The first sequence number a segment file name stands for, if it is one.
fn parse_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".jsonl")?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The segments in `dir`, oldest first. Files that are not segments are ignored.
pub fn list(dir: &Path) -> Result<Vec<Segment>> {
    let mut segments = Vec::new();
    let entries = fs::read_dir(dir)
        .with_context(|| format!("cannot list the segments in {}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(first_seq) = name.to_str().and_then(parse_name) else {
            continue;
        };
        segments.push(Segment {
            first_seq,
            path: entry.path(),
            len: entry.metadata()?.len(),
        });
    }
    segments.sort_by_key(|s| s.first_seq);
    Ok(segments)
}

/// Calls `visit` with each complete line of a segment (break included) from byte `offset` on,
/// until it breaks; a final line still being written is left alone.
pub fn each_line(
    file: File,
    offset: u64,
    mut visit: impl FnMut(&[u8]) -> Result<std::ops::ControlFlow<()>>,
) -> Result<std::ops::ControlFlow<()>> {
    use std::io::Seek;
    let mut reader = BufReader::new(file);
    // Always: the file may have been read from before (`scan::start_offset`).
    reader.seek(std::io::SeekFrom::Start(offset))?;
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 || line.last() != Some(&b'\n') {
            return Ok(std::ops::ControlFlow::Continue(()));
        }
        if visit(&line)?.is_break() {
            return Ok(std::ops::ControlFlow::Break(()));
        }
    }
}

/// The first event of the file at `path`: `None` when it is empty or its first line is not an
/// event.
pub fn first_event(path: &Path) -> std::io::Result<Option<super::Event>> {
    let mut first = String::new();
    BufReader::new(File::open(path)?).read_line(&mut first)?;
    Ok(serde_json::from_str(&first).ok())
}

/// Where retention cut the history: every event before `first_seq` was removed, and the first
/// kept event chains from `previous_hash`. A verifier starts the chain there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cut {
    pub first_seq: u64,
    pub previous_hash: String,
    /// When the cut was made (ISO 8601).
    pub at: String,
    /// Segments and bytes removed by this cut.
    pub removed_segments: u64,
    pub removed_bytes: u64,
}

/// The latest cut recorded in `dir`, if retention ever removed anything.
pub fn last_cut(dir: &Path) -> Result<Option<Cut>> {
    let path = dir.join(CUT_FILE);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut last = None;
    for line in BufReader::new(file).lines() {
        let line = line?;
        // A torn last line (a crash while recording) is no cut: the segments it would have
        // removed are still there, since they are removed only after the record is synced.
        if let Ok(cut) = serde_json::from_str::<Cut>(&line) {
            last = Some(cut);
        }
    }
    Ok(last)
}

/// Appends `cut` to the record and syncs it, before any segment is removed. A line torn by
/// an earlier failed write is ended first, so it cannot swallow this one.
pub fn record_cut(disk: &dyn super::disk::Disk, dir: &Path, cut: &Cut) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let path = dir.join(CUT_FILE);
    let mut line = Vec::new();
    if let Ok(mut file) = File::open(&path)
        && file.metadata()?.len() > 0
    {
        let mut last = [0u8];
        file.seek(SeekFrom::End(-1))?;
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            line.push(b'\n');
        }
    }
    serde_json::to_writer(&mut line, cut)?;
    line.push(b'\n');
    disk.append_synced(&path, &line)
        .with_context(|| format!("cannot write the retention record {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::io::Write;

    #[test]
    fn segment_names_sort_by_sequence_and_round_trip() {
        assert_eq!(segment_name(42), "00000000000000000042.jsonl");
        assert_eq!(parse_name(&segment_name(42)), Some(42));
        assert_eq!(parse_name("42.jsonl"), None);
        assert_eq!(parse_name("trace.jsonl"), None);
        assert_eq!(parse_name(&segment_name(u64::MAX)), Some(u64::MAX));
    }

    #[test]
    fn the_latest_complete_cut_wins_and_a_torn_one_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(last_cut(dir.path()).unwrap(), None);
        let cut = |n| Cut {
            first_seq: n,
            previous_hash: format!("sha256:{n}"),
            at: "2026-01-01T00:00:00Z".into(),
            removed_segments: 1,
            removed_bytes: 10,
        };
        record_cut(&super::super::disk::RealDisk, dir.path(), &cut(5)).unwrap();
        record_cut(&super::super::disk::RealDisk, dir.path(), &cut(9)).unwrap();
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.path().join(CUT_FILE))
            .unwrap();
        f.write_all(b"{\"firstSeq\": 12, \"prev").unwrap();
        assert_eq!(last_cut(dir.path()).unwrap(), Some(cut(9)));
    }
}
