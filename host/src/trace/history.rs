//! `trace.export`: the trace, or a range of it, streamed from the segments to a file; and the
//! page that `trace.tail` fills.

use super::segments::{self, LEGACY_FILE, SEGMENTS_DIR, Segment};
use super::{Event, Tracer};
use anyhow::{Context, Result, bail};
use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Longest export name; file systems commonly refuse longer names.
const MAX_EXPORT_NAME: usize = 255;

/// Which events `trace.export` writes: a sequence range and/or a time range, all inclusive.
/// Times are compared in the trace's own format (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportRange {
    pub from_seq: Option<u64>,
    pub to_seq: Option<u64>,
    pub since: Option<String>,
    pub until: Option<String>,
}

impl ExportRange {
    fn holds(&self, event: &Event) -> bool {
        let seq = event.seq().unwrap_or(0);
        self.from_seq.is_none_or(|f| seq >= f)
            && self.to_seq.is_none_or(|t| seq <= t)
            && self
                .since
                .as_deref()
                .is_none_or(|s| event.timestamp.as_str() >= s)
            && self
                .until
                .as_deref()
                .is_none_or(|u| event.timestamp.as_str() <= u)
    }

    /// Past the range's end: nothing later can be in it (times assumed to grow with seq).
    fn is_past(&self, event: &Event) -> bool {
        self.to_seq.is_some_and(|t| event.seq().unwrap_or(0) > t)
            || self
                .until
                .as_deref()
                .is_some_and(|u| event.timestamp.as_str() > u)
    }
}

impl Tracer {
    /// Writes the trace as JSONL to `dir/name` (`name` a bare file name, see
    /// [`check_export_name`]) and returns the number of events and bytes written. A durable
    /// trace is streamed from its segments; an in-memory one holds only its window. The file
    /// appears whole or not at all.
    pub fn export(&mut self, dir: &Path, name: &str) -> Result<(u64, u64)> {
        self.export_range(dir, name, &ExportRange::default(), &mut |_, _| {})
    }

    /// [`Tracer::export`] of the events in `range`, calling `report(done, total)` as it goes
    /// (bytes of the segments read, or events of the in-memory window), about every MiB or
    /// 4,096 events.
    pub fn export_range(
        &mut self,
        dir: &Path,
        name: &str,
        range: &ExportRange,
        report: &mut dyn FnMut(u64, u64),
    ) -> Result<(u64, u64)> {
        self.export_snapshot().write(dir, name, range, report)
    }

    /// The history as it stands, to export on any thread: the segments as they are (flushed),
    /// or a copy of the window of an in-memory trace; up to the newest event so far.
    pub fn export_snapshot(&mut self) -> Export {
        let _ = self.commit();
        let source = match &self.store {
            Some(store) => Source::Segments(store.segments()),
            None => Source::Window(self.window.iter().cloned().collect()),
        };
        Export {
            source,
            trace_dir: self.dir().map(Path::to_path_buf),
            newest: self.count(),
        }
    }
}

/// A trace export ready to run on any thread (see [`Tracer::export_snapshot`]).
pub struct Export {
    source: Source,
    trace_dir: Option<PathBuf>,
    /// Events issued after the snapshot are left out, though they reach the segments.
    newest: u64,
}

enum Source {
    Segments(Vec<Segment>),
    /// The window's lines (shared, so the snapshot copies none), as stored.
    Window(Vec<std::sync::Arc<[u8]>>),
}

impl Export {
    /// Writes the events in `range` to `dir/name` (see [`Tracer::export_range`]).
    pub fn write(
        &self,
        dir: &Path,
        name: &str,
        range: &ExportRange,
        report: &mut dyn FnMut(u64, u64),
    ) -> Result<(u64, u64)> {
        check_export_name(name)?;
        if self.trace_dir.as_deref().is_some_and(|d| same_dir(d, dir))
            && ([SEGMENTS_DIR, LEGACY_FILE].contains(&name) || name.starts_with("index.sqlite"))
        {
            bail!("`{name}` is a file of the trace itself; choose another export name");
        }
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the export folder {}", dir.display()))?;
        let target = dir.join(name);
        let range = ExportRange {
            to_seq: Some(range.to_seq.map_or(self.newest, |t| t.min(self.newest))),
            ..range.clone()
        };
        // Export names never start with `.`, so the temporary file cannot clash with one.
        let temp = dir.join(format!(".{name}.tmp"));
        let written = self.write_jsonl(&temp, &range, report).and_then(|counts| {
            std::fs::rename(&temp, &target)?;
            Ok(counts)
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written.with_context(|| format!("cannot export the trace to {}", target.display()))
    }

    fn write_jsonl(
        &self,
        path: &Path,
        range: &ExportRange,
        report: &mut dyn FnMut(u64, u64),
    ) -> Result<(u64, u64)> {
        let mut out = BufWriter::new(File::create(path)?);
        let (mut events, mut bytes) = (0u64, 0u64);
        match &self.source {
            Source::Segments(segments) => {
                // A segment ends where the next begins: it is skipped when the next one starts
                // at or before the range (times taken to grow with sequence numbers).
                let before_range = |next: &Segment| {
                    range.from_seq.is_some_and(|f| next.first_seq <= f)
                        || range.since.as_deref().is_some_and(|since| {
                            first_timestamp(&next.path).is_some_and(|t| t.as_str() < since)
                        })
                };
                let start = segments
                    .windows(2)
                    .take_while(|pair| before_range(&pair[1]))
                    .count();
                let segments = &segments[start..];
                let total: u64 = segments.iter().map(|s| s.len).sum();
                let (mut read, mut reported) = (0u64, 0u64);
                for segment in segments {
                    let flow = segments::each_line(File::open(&segment.path)?, 0, |line| {
                        read += line.len() as u64;
                        let event: Event = serde_json::from_slice(line).with_context(|| {
                            format!(
                                "{} holds a line that is not an event",
                                segment.path.display()
                            )
                        })?;
                        if range.is_past(&event) {
                            return Ok(ControlFlow::Break(()));
                        }
                        if range.holds(&event) {
                            out.write_all(line)?;
                            (events, bytes) = (events + 1, bytes + line.len() as u64);
                        }
                        if read - reported >= 1 << 20 {
                            report(read, total.max(read));
                            reported = read;
                        }
                        Ok(ControlFlow::Continue(()))
                    })?;
                    if flow.is_break() {
                        break;
                    }
                }
                report(read, total.max(read));
            }
            Source::Window(window) => {
                let total = window.len() as u64;
                for (i, line) in window.iter().enumerate() {
                    if range.holds(&super::parse_kept(line)) {
                        out.write_all(line)?;
                        out.write_all(b"\n")?;
                        (events, bytes) = (events + 1, bytes + line.len() as u64 + 1);
                    }
                    if (i + 1) % 4096 == 0 {
                        report(i as u64 + 1, total);
                    }
                }
                report(total, total);
            }
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok((events, bytes))
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The timestamp of the first event in a segment.
fn first_timestamp(path: &Path) -> Option<String> {
    super::segments::first_event(path)
        .ok()
        .flatten()
        .map(|e| e.timestamp)
}

/// One `trace.tail` page being filled.
pub(super) struct Page<'a> {
    after_seq: i64,
    limit: usize,
    actor_id: Option<&'a str>,
    kind: Option<&'a str>,
    events: Vec<Event>,
    /// A match was found beyond the limit.
    more: bool,
}

impl<'a> Page<'a> {
    pub(super) fn new(
        after_seq: i64,
        limit: usize,
        actor_id: Option<&'a str>,
        kind: Option<&'a str>,
    ) -> Self {
        Page {
            after_seq,
            limit,
            actor_id,
            kind,
            events: Vec::new(),
            more: false,
        }
    }

    pub(super) fn offer(&mut self, event: &Event) -> ControlFlow<()> {
        let wanted = event.seq().is_some_and(|seq| seq as i64 > self.after_seq)
            && self.actor_id.is_none_or(|a| a == event.actor_id)
            && self.kind.is_none_or(|k| k == event.kind);
        if !wanted {
            return ControlFlow::Continue(());
        }
        if self.events.len() == self.limit {
            self.more = true;
            return ControlFlow::Break(());
        }
        self.events.push(event.clone());
        ControlFlow::Continue(())
    }

    pub(super) fn finish(self) -> (Vec<Event>, Option<i64>) {
        let last = self.events.last().and_then(Event::seq);
        let next = self
            .more
            .then(|| last.map_or(self.after_seq, |seq| seq as i64));
        (self.events, next)
    }
}

/// An export name that is not a bare file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportNameError {
    /// The name as given.
    pub name: String,
    /// The rule it breaks, phrased for the user.
    pub rule: &'static str,
}

impl fmt::Display for ExportNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "export name `{}` is not allowed: {}",
            self.name, self.rule
        )
    }
}

impl std::error::Error for ExportNameError {}

/// Checks that `name` is a bare file name: 1 to 255 characters from `A-Z a-z 0-9 . _ -`,
/// not starting with `.` and without `..`, so an export can only land inside its folder.
pub fn check_export_name(name: &str) -> Result<(), ExportNameError> {
    let rule = if name.is_empty() {
        Some("it must not be empty")
    } else if name.len() > MAX_EXPORT_NAME {
        Some("it must be at most 255 characters")
    } else if name.starts_with('.') {
        Some("it must not start with `.`")
    } else if name.contains("..") {
        Some("it must not contain `..`")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        Some("it must be a bare file name of letters, digits, `.`, `_` and `-` (no `/` or `\\`)")
    } else {
        None
    };
    match rule {
        Some(rule) => Err(ExportNameError {
            name: name.to_string(),
            rule,
        }),
        None => Ok(()),
    }
}
