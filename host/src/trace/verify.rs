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
        }
    }
}

impl std::error::Error for VerifyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifyError::Io(e) => Some(e),
            VerifyError::BadLine { .. } => None,
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
pub fn verify_reader(mut reader: impl BufRead) -> Result<VerifyReport, VerifyError> {
    let mut report = VerifyReport {
        events: 0,
        last_hash: None,
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
