//! Reading the events of one type after a sequence number straight from the segments of a
//! trace folder, oldest first, without the index or the lock: what a restart replays (the
//! world journal after the newest checkpoint) and what a shell command reads beside a
//! running host (a final line still being written is left alone).

use super::Event;
use super::segments::{self, SEGMENTS_DIR};
use anyhow::{Context, Result};
use std::ops::ControlFlow;
use std::path::Path;

/// What a scan saw besides the events it handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventsAfter {
    /// The oldest event still in the segments (`None`: there are none).
    pub first_seq: Option<u64>,
    /// The newest complete event read.
    pub last_seq: u64,
}

/// Calls `visit` with every complete event of type `kind` whose sequence number is above
/// `after`, in order, from the trace folder `dir` (the `--trace-dir`).
pub fn events_after(
    dir: &Path,
    after: u64,
    kind: &str,
    mut visit: impl FnMut(Event) -> Result<()>,
) -> Result<EventsAfter> {
    let folder = dir.join(SEGMENTS_DIR);
    let listed = match segments::list(&folder) {
        Ok(listed) => listed,
        Err(_) if !folder.exists() => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut seen = EventsAfter {
        first_seq: listed.first().map(|s| s.first_seq),
        last_seq: 0,
    };
    // Segments are named by their first event: start at the last one beginning at or
    // before `after + 1`.
    let start = listed
        .iter()
        .rposition(|s| s.first_seq <= after + 1)
        .unwrap_or(0);
    let needle = format!("\"type\":{}", serde_json::to_string(kind)?);
    let needle = memchr::memmem::Finder::new(needle.as_bytes());
    for segment in &listed[start..] {
        let file = std::fs::File::open(&segment.path)
            .with_context(|| format!("cannot read {}", segment.path.display()))?;
        let _done = segments::each_line(file, 0, |line| {
            let Some(seq) = line_seq(line) else {
                return Ok(ControlFlow::Continue(()));
            };
            seen.last_seq = seen.last_seq.max(seq);
            if seq <= after || needle.find(line).is_none() {
                return Ok(ControlFlow::Continue(()));
            }
            let event: Event = serde_json::from_slice(line)
                .with_context(|| format!("event {seq} in {} is damaged", segment.path.display()))?;
            if event.kind == kind {
                visit(event)?;
            }
            Ok(ControlFlow::Continue(()))
        })?;
    }
    Ok(seen)
}

/// The sequence number of the event on `line`, read from its id (the first field) without
/// parsing the rest.
fn line_seq(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"{\"id\":\"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    super::seq_of_id(std::str::from_utf8(&rest[..end]).ok()?)
}
