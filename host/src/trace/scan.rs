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
    for (i, segment) in listed[start..].iter().enumerate() {
        let file = std::fs::File::open(&segment.path)
            .with_context(|| format!("cannot read {}", segment.path.display()))?;
        // Only the first segment holds events at or before `after`.
        let offset = if i == 0 {
            start_offset(&file, after)
        } else {
            0
        };
        let _done = segments::each_line(file, offset, |line| {
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

/// Where to read a segment from for the events after `after`: the start of a line whose event
/// is at or before `after`, or 0. Lines are in sequence order, so the offsets are bisected
/// (reading a line or two per probe): a restart reads its segment from the newest checkpoint
/// on, not from the segment's start — up to 64 MiB, 25 ms warm, on every first start after a
/// long run. A line whose sequence number cannot be read sends it back to 0.
fn start_offset(file: &std::fs::File, after: u64) -> u64 {
    // Close enough: the rest is read line by line.
    const NEAR: u64 = 64 << 10;
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return 0;
    };
    // Every line starting at or after `hi` holds an event after `after`; the line at `lo`
    // (when `lo` > 0) holds one at or before it.
    let (mut lo, mut hi) = (0, len);
    while hi - lo > NEAR {
        let mid = lo + (hi - lo) / 2;
        match line_from(file, mid) {
            Ok(Some((start, seq))) if start < hi => {
                if seq <= after {
                    lo = start;
                } else {
                    hi = mid;
                }
            }
            // No whole line starts between `mid` and `hi`.
            Ok(_) => hi = mid,
            Err(()) => return 0,
        }
    }
    lo
}

/// The first whole line starting at or after `at` (`at` > 0): its offset and sequence number.
/// `Ok(None)` when none does; `Err` for a line that holds no event.
fn line_from(file: &std::fs::File, at: u64) -> Result<Option<(u64, u64)>, ()> {
    use std::io::{BufRead, BufReader, Seek, SeekFrom};
    let mut reader = BufReader::with_capacity(8 << 10, file);
    // From the byte before `at`: a line starting exactly at `at` follows that byte's break.
    reader.seek(SeekFrom::Start(at - 1)).map_err(|_| ())?;
    let mut line = Vec::new();
    let skipped = reader.read_until(b'\n', &mut line).map_err(|_| ())?;
    if line.last() != Some(&b'\n') {
        return Ok(None);
    }
    let start = at - 1 + skipped as u64;
    line.clear();
    reader.read_until(b'\n', &mut line).map_err(|_| ())?;
    if line.last() != Some(&b'\n') {
        return Ok(None);
    }
    line_seq(&line).map(|seq| Some((start, seq))).ok_or(())
}

/// The sequence number of the event on `line`, read from its id (the first field) without
/// parsing the rest.
fn line_seq(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"{\"id\":\"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    super::seq_of_id(std::str::from_utf8(&rest[..end]).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Retention;

    /// Every line of the trace in `dir`: (byte offset, sequence number, type), in order.
    fn lines(dir: &Path) -> Vec<(u64, u64, String)> {
        let listed = segments::list(&dir.join(SEGMENTS_DIR)).unwrap();
        assert_eq!(listed.len(), 1, "one segment");
        let mut out = Vec::new();
        let mut at = 0;
        let file = std::fs::File::open(&listed[0].path).unwrap();
        let _ = segments::each_line(file, 0, |line| {
            let event: Event = serde_json::from_slice(line).unwrap();
            out.push((at, line_seq(line).unwrap(), event.kind));
            at += line.len() as u64;
            Ok(ControlFlow::Continue(()))
        });
        out
    }

    #[test]
    fn a_scan_starts_near_the_events_after_and_sees_exactly_them() {
        let dir = tempfile::tempdir().unwrap();
        crate::trace::synthetic::write_history(dir.path(), 20_000, Retention::default()).unwrap();
        let all = lines(dir.path());
        let path = &segments::list(&dir.path().join(SEGMENTS_DIR)).unwrap()[0].path;
        let file = std::fs::File::open(path).unwrap();
        let last = all.last().unwrap().1;
        for after in [
            0,
            1,
            2,
            777,
            5_000,
            12_345,
            last - 3,
            last - 1,
            last,
            last + 10,
        ] {
            let mut seen = Vec::new();
            let scan = events_after(dir.path(), after, "skill.executed", |e| {
                seen.push(crate::trace::seq_of_id(&e.id).unwrap());
                Ok(())
            })
            .unwrap();
            let expected: Vec<u64> = all
                .iter()
                .filter(|(_, seq, kind)| *seq > after && kind == "skill.executed")
                .map(|(_, seq, _)| *seq)
                .collect();
            assert!(
                seen == expected,
                "after {after}: saw {} events from {:?}, expected {} from {:?}",
                seen.len(),
                seen.first(),
                expected.len(),
                expected.first()
            );
            assert_eq!(scan.last_seq, last);
            // It starts at a line at or before `after`, and not far before the first one after.
            let offset = start_offset(&file, after);
            let line = all
                .iter()
                .find(|(at, ..)| *at == offset)
                .expect("a line start");
            assert!(
                offset == 0 || line.1 <= after,
                "after {after}: line {line:?}"
            );
            let first_after = all
                .iter()
                .find(|(_, seq, _)| *seq > after)
                .map_or(std::fs::metadata(path).unwrap().len(), |l| l.0);
            assert!(
                first_after - offset <= 64 << 10,
                "after {after}: read from {offset}, the events after start at {first_after}"
            );
        }
    }

    #[test]
    fn lines_without_an_event_id_send_the_scan_back_to_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("not-events.jsonl");
        let text: String = (0..20_000).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        std::fs::write(&path, text).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        assert_eq!(start_offset(&file, 10_000), 0);
    }
}
