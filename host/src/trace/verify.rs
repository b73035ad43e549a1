//! Replays a JSONL trace and checks its hash chain end to end, naming the first bad line.
//! It reads plain JSON, not our `Event` type, so it checks exactly what any outside reader
//! of the file would check.

use super::event::chain_hash;
use serde_json::Value;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// What a replay of a good trace found.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyReport {
    /// Number of events in the file.
    pub events: u64,
    /// Hash of the last event, `None` for an empty file.
    pub last_hash: Option<String>,
}

/// Why a line breaks the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainBreak {
    /// The line is not a JSON object.
    InvalidJson,
    /// The file ends in a line without a line break: a write was cut short.
    PartialFinalLine,
    /// The event has no `integrity {hash, previousHash}`.
    MissingIntegrity,
    /// `previousHash` is not the hash of the line before (a line was removed, moved or
    /// inserted).
    PreviousHashMismatch,
    /// The event's content does not hash to its `hash` (it was altered).
    HashMismatch,
    /// The history starts after event 1 and no retention cut accounts for what is missing.
    MissingHistory,
}

impl ChainBreak {
    /// The reason as reported on the wire and in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            ChainBreak::InvalidJson => "invalid_json",
            ChainBreak::PartialFinalLine => "partial_final_line",
            ChainBreak::MissingIntegrity => "missing_integrity",
            ChainBreak::PreviousHashMismatch => "previous_hash_mismatch",
            ChainBreak::HashMismatch => "hash_mismatch",
            ChainBreak::MissingHistory => "missing_history",
        }
    }
}

impl fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a trace did not verify.
#[derive(Debug)]
pub enum VerifyError {
    /// The file could not be read.
    Io(io::Error),
    /// The first line that breaks the chain (1-based), why, and what was seen.
    BadLine {
        line: u64,
        reason: ChainBreak,
        detail: String,
    },
    /// The same, in one segment of a folder.
    BadSegment {
        segment: String,
        line: u64,
        reason: ChainBreak,
        detail: String,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Io(e) => write!(f, "cannot read the trace: {e}"),
            VerifyError::BadLine {
                line,
                reason,
                detail,
            } => write!(f, "line {line}: {reason} ({detail})"),
            VerifyError::BadSegment {
                segment,
                line,
                reason,
                detail,
            } => write!(f, "{segment} line {line}: {reason} ({detail})"),
        }
    }
}

impl std::error::Error for VerifyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifyError::Io(e) => Some(e),
            VerifyError::BadLine { .. } | VerifyError::BadSegment { .. } => None,
        }
    }
}

impl From<io::Error> for VerifyError {
    fn from(e: io::Error) -> Self {
        VerifyError::Io(e)
    }
}

/// Replays the JSONL file at `path` and checks every link of the chain.
pub fn verify_file(path: &Path) -> Result<VerifyReport, VerifyError> {
    verify_reader(BufReader::new(File::open(path)?))
}

/// Replays JSONL from any reader and checks every link of the chain.
pub fn verify_reader(reader: impl BufRead) -> Result<VerifyReport, VerifyError> {
    verify_from(reader, None)
}

/// A history in segments that verified.
#[derive(Debug, Clone, PartialEq)]
pub struct DirReport {
    /// Segments read.
    pub segments: u64,
    /// Events checked, and the first and last of their sequence numbers.
    pub events: u64,
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    pub last_hash: Option<String>,
    /// Where retention cut the history, when it did and the check started there.
    pub cut_at: Option<u64>,
}

/// Verifies a history in segments: `dir` is a segments folder or a `--trace-dir` holding one.
/// With `from_seq`, checking starts at the segment holding that event and trusts the hash its
/// first line chains from; otherwise a history not starting at event 1 must start where the
/// recorded retention cut says. `to_seq` stops after the segment holding that event.
pub fn verify_dir(
    dir: &Path,
    from_seq: Option<u64>,
    to_seq: Option<u64>,
) -> Result<DirReport, VerifyError> {
    use super::segments::{self, SEGMENTS_DIR};
    let dir = if dir.join(SEGMENTS_DIR).is_dir() {
        dir.join(SEGMENTS_DIR)
    } else {
        dir.to_path_buf()
    };
    let all =
        segments::list(&dir).map_err(|e| VerifyError::Io(io::Error::other(format!("{e:#}"))))?;
    let start = from_seq.map_or(0, |f| {
        all.iter().rposition(|s| s.first_seq <= f).unwrap_or(0)
    });
    let end = to_seq.map_or(all.len(), |t| {
        all.iter()
            .rposition(|s| s.first_seq <= t)
            .map_or(0, |i| i + 1)
    });
    let chosen = &all[start..end.max(start)];
    let mut report = DirReport {
        segments: 0,
        events: 0,
        first_seq: None,
        last_seq: None,
        last_hash: None,
        cut_at: None,
    };
    let Some(first) = chosen.first() else {
        return Ok(report);
    };
    let first_line = first_line(&first.path)?;
    let stated: Option<String> = first_line
        .as_deref()
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .and_then(|v| v["integrity"]["previousHash"].as_str().map(String::from));
    let name = |p: &Path| {
        p.file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into())
    };
    let mut previous = None;
    if first.first_seq > 1 && first_line.is_some() {
        if from_seq.is_some() && start > 0 {
            previous = stated;
        } else {
            let cut = segments::last_cut(&dir)
                .map_err(|e| VerifyError::Io(io::Error::other(format!("{e:#}"))))?;
            match cut {
                Some(cut)
                    if cut.first_seq == first.first_seq
                        && Some(&cut.previous_hash) == stated.as_ref() =>
                {
                    report.cut_at = Some(cut.first_seq);
                    previous = stated;
                }
                _ if from_seq.is_some() => previous = stated,
                other => {
                    return Err(VerifyError::BadSegment {
                        segment: name(&first.path),
                        line: 1,
                        reason: ChainBreak::MissingHistory,
                        detail: match other {
                            Some(cut) => format!(
                                "the history starts at event {}, but the retention record says it was cut at event {}",
                                first.first_seq, cut.first_seq
                            ),
                            None => format!(
                                "the history starts at event {} and no retention cut records the removal of the events before it",
                                first.first_seq
                            ),
                        },
                    });
                }
            }
        }
    }
    for segment in chosen {
        let reader = BufReader::new(File::open(&segment.path)?);
        let part = verify_from(reader, previous.clone()).map_err(|e| match e {
            VerifyError::BadLine {
                line,
                reason,
                detail,
            } => VerifyError::BadSegment {
                segment: name(&segment.path),
                line,
                reason,
                detail,
            },
            other => other,
        })?;
        if part.events > 0 {
            report.first_seq.get_or_insert(segment.first_seq);
            report.last_seq = Some(segment.first_seq + part.events - 1);
            previous = part.last_hash.clone();
            report.last_hash = part.last_hash;
        }
        report.events += part.events;
        report.segments += 1;
    }
    Ok(report)
}

fn first_line(path: &Path) -> io::Result<Option<String>> {
    let mut line = String::new();
    BufReader::new(File::open(path)?).read_line(&mut line)?;
    Ok((!line.is_empty()).then_some(line))
}

/// Replays JSONL whose first line chains from `previous`.
fn verify_from(
    mut reader: impl BufRead,
    previous: Option<String>,
) -> Result<VerifyReport, VerifyError> {
    let mut report = VerifyReport {
        events: 0,
        last_hash: previous,
    };
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(report);
        }
        let number = report.events + 1;
        let bad = |reason, detail: String| VerifyError::BadLine {
            line: number,
            reason,
            detail,
        };
        if line.pop() != Some(b'\n') {
            return Err(bad(
                ChainBreak::PartialFinalLine,
                "the file ends without a line break".into(),
            ));
        }
        let hash = check_line(&line, report.last_hash.as_deref()).map_err(|(r, d)| bad(r, d))?;
        report.events = number;
        report.last_hash = Some(hash);
    }
}

/// Checks one line against the previous hash and returns its own hash.
fn check_line(line: &[u8], previous: Option<&str>) -> Result<String, (ChainBreak, String)> {
    let mut body = match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err((ChainBreak::InvalidJson, "not a JSON object".into())),
        Err(e) => return Err((ChainBreak::InvalidJson, e.to_string())),
    };
    let missing = |what: &str| (ChainBreak::MissingIntegrity, format!("no {what}"));
    let integrity = body
        .remove("integrity")
        .ok_or_else(|| missing("`integrity`"))?;
    let hash = integrity
        .get("hash")
        .and_then(Value::as_str)
        .ok_or_else(|| missing("`integrity.hash` string"))?;
    let stated_previous = match integrity.get("previousHash") {
        Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        _ => return Err(missing("`integrity.previousHash` (string or null)")),
    };
    if stated_previous != previous {
        return Err((
            ChainBreak::PreviousHashMismatch,
            format!(
                "previousHash is {}, the line before hashes to {}",
                stated_previous.unwrap_or("null"),
                previous.unwrap_or("null (no line before)")
            ),
        ));
    }
    let computed = chain_hash(&Value::Object(body), previous);
    if computed != hash {
        return Err((
            ChainBreak::HashMismatch,
            format!("stored hash {hash}, content hashes to {computed}"),
        ));
    }
    Ok(hash.to_string())
}
