//! Reading the history back: `trace.tail` pages, `trace.explainEvent` lookups and
//! `trace.export`. The window answers when it covers the question; otherwise the index does,
//! for everything up to the newest event it holds, and the window adds the rest, so answers
//! are the same whether or not an event has left memory.

use super::index::Index;
use super::segments::{LEGACY_FILE, SEGMENTS_DIR};
use super::store::Store;
use super::{Event, Tracer, seq_of_id};
use crate::limits::TRACE_INDEX_WAIT_MS;
use anyhow::{Context, Result, bail};
use std::fmt;
use std::fs::File;
use std::io::Seek;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

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

/// The index, given a moment to catch up with the window: it normally follows a flush
/// within a millisecond. `None` when there is no index.
fn settled<'a>(
    store: &mut Option<Store>,
    index: &'a Option<Index>,
    need: u64,
) -> Option<&'a Index> {
    let index = index.as_ref()?;
    if index.indexed() >= need {
        return Some(index);
    }
    // The lines it needs may still sit in the write buffer.
    if let Some(store) = store {
        let _ = store.flush();
    }
    index.notify();
    let deadline = Instant::now() + Duration::from_millis(TRACE_INDEX_WAIT_MS);
    while index.indexed() < need && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    Some(index)
}

impl Tracer {
    /// The index, given up to `TRACE_INDEX_WAIT_MS` to reach the window. Whatever it does
    /// not hold yet (a rebuild in progress) is read from the segments by [`Tracer::each_after`].
    pub(super) fn index(&mut self) -> Option<&Index> {
        let need = self.first_kept() - 1;
        settled(&mut self.store, &self.index, need)
    }

    /// Waits until the index has caught up with the window (tests that check the index itself).
    #[cfg(test)]
    pub(super) fn settle_index(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let need = self.first_kept() - 1;
        while self.index().is_some_and(|i| i.indexed() < need) {
            assert!(Instant::now() < deadline, "the index never caught up");
        }
    }

    /// Calls `visit` with every kept event after `upto`, oldest first, until it breaks: the
    /// ones older than the window from the segments (those the index does not hold yet), then
    /// the window's.
    pub(super) fn each_after(
        &mut self,
        upto: u64,
        visit: &mut dyn FnMut(&Event) -> ControlFlow<()>,
    ) -> Result<()> {
        let window_start = self.first_kept();
        let from = upto + 1;
        if let Some(store) = &mut self.store
            && from < window_start
        {
            let _ = store.flush();
            let from = from.max(store.first_kept_seq());
            // Start at the line after `upto` when the index knows where it is.
            let known = self.index.as_ref().and_then(|i| i.end_of(upto));
            let segments = store.segments();
            let first = segments
                .iter()
                .rposition(|s| s.first_seq <= from)
                .unwrap_or(0);
            let mut line = Vec::new();
            for segment in &segments[first..] {
                let Ok(file) = File::open(&segment.path) else {
                    continue;
                };
                let mut reader = BufReader::new(file);
                if let Some((seg, offset)) = known
                    && seg == segment.first_seq
                {
                    reader.seek(std::io::SeekFrom::Start(offset))?;
                }
                loop {
                    line.clear();
                    if reader.read_until(b'\n', &mut line)? == 0 || line.last() != Some(&b'\n') {
                        break;
                    }
                    let event: Event = serde_json::from_slice(&line).with_context(|| {
                        format!(
                            "{} holds a line that is not an event",
                            segment.path.display()
                        )
                    })?;
                    let seq = event.seq().unwrap_or(0);
                    if seq >= window_start {
                        break;
                    }
                    if seq >= from && visit(&event).is_break() {
                        return Ok(());
                    }
                }
            }
        }
        for event in &self.window {
            if event.seq().is_some_and(|s| s > upto) && visit(event).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// Events with sequence number above `after_seq`, oldest first, keeping those whose actor
    /// and type match when given, at most `limit` of them. The second value is the cursor for
    /// the next page (the last returned seq) when more matching events follow, else `None`.
    pub fn tail(
        &mut self,
        after_seq: i64,
        limit: usize,
        actor_id: Option<&str>,
        kind: Option<&str>,
    ) -> Result<(Vec<Event>, Option<i64>)> {
        let mut page = Page {
            after_seq,
            limit,
            actor_id,
            kind,
            events: Vec::new(),
            more: false,
        };
        // Sequence numbers start at 1, so any cursor below 1 asks for everything.
        let after = after_seq.max(0) as u64;
        let covered = after + 1 >= self.first_kept();
        let mut upto = after;
        if !covered && let Some(index) = self.index() {
            let (events, indexed) = index.tail(after, limit.saturating_add(1), actor_id, kind)?;
            upto = indexed.max(after);
            for event in &events {
                if page.offer(event).is_break() {
                    return Ok(page.finish());
                }
            }
        }
        self.each_after(upto, &mut |e| page.offer(e))?;
        Ok(page.finish())
    }

    /// The event with this id, from the window, the index or else the segments.
    pub fn get(&mut self, id: &str) -> Option<Event> {
        // The seq in the id says where the event must be: in the window, in the index, or not
        // issued yet.
        let seq = seq_of_id(id).filter(|&seq| seq <= self.seq)?;
        if seq >= self.first_kept() {
            let event = &self.window[(seq - self.first_kept()) as usize];
            return (event.id == id).then(|| event.clone());
        }
        let indexed = match self.index() {
            Some(index) if index.indexed() >= seq => Some(index.get(seq)),
            _ => None,
        };
        let found = match indexed {
            Some(found) => found,
            None => {
                let mut found = None;
                self.each_after(seq - 1, &mut |e| {
                    if e.seq() == Some(seq) {
                        found = Some(e.clone());
                    }
                    ControlFlow::Break(())
                })
                .map(|()| found)
            }
        };
        match found {
            Ok(event) => event.filter(|e| e.id == id),
            Err(e) => {
                crate::log::warn(&format!("cannot look up trace event {id}: {e:#}"));
                None
            }
        }
    }

    /// Events that name `id` as their parent or among their causes, oldest first.
    pub fn children_of(&mut self, id: &str) -> Vec<Event> {
        let is_child = |e: &Event| {
            e.parent_event_id.as_deref() == Some(id) || e.caused_by.iter().any(|c| c == id)
        };
        let mut children = Vec::new();
        // Children come after their parent, so a parent still in the window has all its
        // children there too.
        let parent_seq = seq_of_id(id).unwrap_or(0);
        let mut upto = parent_seq;
        if parent_seq < self.first_kept()
            && let Some(index) = self.index()
        {
            match index.children(parent_seq) {
                Ok((events, indexed)) => {
                    upto = indexed.max(parent_seq);
                    children.extend(events.into_iter().filter(is_child));
                }
                Err(e) => crate::log::warn(&format!("cannot find the children of {id}: {e:#}")),
            }
        }
        let scanned = self.each_after(upto, &mut |e| {
            if is_child(e) {
                children.push(e.clone());
            }
            ControlFlow::Continue(())
        });
        if let Err(e) = scanned {
            crate::log::warn(&format!("cannot find the children of {id}: {e:#}"));
        }
        children
    }

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
        check_export_name(name)?;
        if self.dir.as_deref().is_some_and(|d| same_dir(d, dir))
            && ([SEGMENTS_DIR, LEGACY_FILE].contains(&name) || name.starts_with("index.sqlite"))
        {
            bail!("`{name}` is a file of the trace itself; choose another export name");
        }
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the export folder {}", dir.display()))?;
        let target = dir.join(name);
        if let Some(store) = &mut self.store {
            let _ = store.flush();
        }
        // Export names never start with `.`, so the temporary file cannot clash with one.
        let temp = dir.join(format!(".{name}.tmp"));
        let written = self.write_jsonl(&temp, range, report).and_then(|counts| {
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
        match &self.store {
            Some(store) => {
                let segments = store.segments();
                // Segments wholly before the range are skipped: one ends where the next begins.
                let start = segments
                    .iter()
                    .rposition(|s| {
                        range.from_seq.is_none_or(|f| s.first_seq <= f)
                            && range.since.as_deref().is_none_or(|since| {
                                first_timestamp(&s.path).is_some_and(|t| t.as_str() <= since)
                            })
                    })
                    .unwrap_or(0);
                let segments = &segments[start..];
                let total: u64 = segments.iter().map(|s| s.len).sum();
                let (mut read, mut reported) = (0u64, 0u64);
                let mut line = Vec::new();
                'segments: for segment in segments {
                    let mut reader = BufReader::new(File::open(&segment.path)?);
                    loop {
                        line.clear();
                        if reader.read_until(b'\n', &mut line)? == 0 || line.last() != Some(&b'\n')
                        {
                            break;
                        }
                        read += line.len() as u64;
                        let event: Event = serde_json::from_slice(&line).with_context(|| {
                            format!(
                                "{} holds a line that is not an event",
                                segment.path.display()
                            )
                        })?;
                        if range.is_past(&event) {
                            break 'segments;
                        }
                        if range.holds(&event) {
                            out.write_all(&line)?;
                            (events, bytes) = (events + 1, bytes + line.len() as u64);
                        }
                        if read - reported >= 1 << 20 {
                            report(read, total.max(read));
                            reported = read;
                        }
                    }
                }
                report(read, total.max(read));
            }
            None => {
                let total = self.window.len() as u64;
                for (i, event) in self.window.iter().enumerate() {
                    if range.holds(event) {
                        let mut line = serde_json::to_vec(event)?;
                        line.push(b'\n');
                        out.write_all(&line)?;
                        (events, bytes) = (events + 1, bytes + line.len() as u64);
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
    let mut first = String::new();
    BufReader::new(File::open(path).ok()?)
        .read_line(&mut first)
        .ok()?;
    serde_json::from_str::<Event>(&first)
        .ok()
        .map(|e| e.timestamp)
}

/// One `trace.tail` page being filled.
struct Page<'a> {
    after_seq: i64,
    limit: usize,
    actor_id: Option<&'a str>,
    kind: Option<&'a str>,
    events: Vec<Event>,
    /// A match was found beyond the limit.
    more: bool,
}

impl Page<'_> {
    fn offer(&mut self, event: &Event) -> ControlFlow<()> {
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

    fn finish(self) -> (Vec<Event>, Option<i64>) {
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
