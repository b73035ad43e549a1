//! Reading the history back: `trace.tail` pages, `trace.explainEvent` lookups and
//! `trace.export`. The window answers when it covers the question; otherwise the durable file
//! does, so answers are the same whether or not an event has left memory.

use super::{Event, Tracer, seq_of_id};
use anyhow::{Context, Result, bail};
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::Path;

/// Longest export name; file systems commonly refuse longer names.
const MAX_EXPORT_NAME: usize = 255;

impl Tracer {
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
        let covered = after_seq.max(0) as u64 + 1 >= self.first_kept();
        let Some(store) = self.store.as_mut().filter(|_| !covered) else {
            let _ = self.window.iter().try_for_each(|e| page.offer(e));
            return Ok(page.finish());
        };
        // Put the batch on disk for other readers too; the read below sees buffered lines
        // anyway, and a write failure has already been logged.
        let _ = store.flush();
        let start = match self.file_cursor {
            Some((seq, offset)) if after_seq >= seq as i64 => offset,
            _ => 0,
        };
        let mut cursor = None;
        store.scan(start, |event, end| {
            let kept = page.events.len();
            let flow = page.offer(&event);
            if page.events.len() > kept {
                cursor = event.seq().map(|seq| (seq, end));
            }
            flow
        })?;
        if cursor.is_some() {
            self.file_cursor = cursor;
        }
        Ok(page.finish())
    }

    /// The event with this id, from the window or else the durable file.
    pub fn get(&self, id: &str) -> Option<Event> {
        // The seq in the id says where the event must be: in the window, in the file, or not
        // issued yet (no scan needed).
        let seq = seq_of_id(id).filter(|&seq| seq <= self.seq)?;
        if seq >= self.first_kept() {
            let event = &self.window[(seq - self.first_kept()) as usize];
            return (event.id == id).then(|| event.clone());
        }
        let mut found = None;
        self.scan_file("look up an event", |event| match event.seq() {
            Some(s) if s == seq => {
                found = (event.id == id).then_some(event);
                ControlFlow::Break(())
            }
            Some(s) if s > seq => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        });
        found
    }

    /// Events that name `id` as their parent or among their causes, oldest first.
    pub fn children_of(&self, id: &str) -> Vec<Event> {
        let is_child = |e: &Event| {
            e.parent_event_id.as_deref() == Some(id) || e.caused_by.iter().any(|c| c == id)
        };
        // Children come after their parent, so a parent still in the window has all its
        // children there too.
        let parent_in_window = seq_of_id(id).is_some_and(|seq| seq >= self.first_kept());
        if parent_in_window || self.store.is_none() {
            return self
                .window
                .iter()
                .filter(|e| is_child(e))
                .cloned()
                .collect();
        }
        let mut children = Vec::new();
        self.scan_file("find an event's children", |event| {
            if is_child(&event) {
                children.push(event);
            }
            ControlFlow::Continue(())
        });
        children
    }

    /// Writes the whole trace as JSONL to `dir/name` (`name` a bare file name, see
    /// [`check_export_name`]) and returns the number of events and bytes written. A durable
    /// trace is copied line for line; an in-memory one holds only its window. The file
    /// appears whole or not at all.
    pub fn export(&mut self, dir: &Path, name: &str) -> Result<(u64, u64)> {
        self.export_reporting(dir, name, &mut |_, _| {})
    }

    /// [`Tracer::export`], calling `report(done, total)` as it goes (bytes of the durable
    /// file, or events of the in-memory window), about every MiB or 4,096 events.
    pub fn export_reporting(
        &mut self,
        dir: &Path,
        name: &str,
        report: &mut dyn FnMut(u64, u64),
    ) -> Result<(u64, u64)> {
        check_export_name(name)?;
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the export folder {}", dir.display()))?;
        let target = dir.join(name);
        // Writing over the file being appended to would destroy the trace it copies.
        let is_live = match (self.path().map(Path::canonicalize), dir.canonicalize()) {
            (Some(Ok(live)), Ok(dir)) => live == dir.join(name),
            _ => false,
        };
        if is_live {
            bail!("`{name}` is the live trace file itself; choose another export name");
        }
        if let Some(store) = &mut self.store {
            let _ = store.flush();
        }
        // Export names never start with `.`, so the temporary file cannot clash with one.
        let temp = dir.join(format!(".{name}.tmp"));
        let written = self.write_jsonl(&temp, report).and_then(|counts| {
            std::fs::rename(&temp, &target)?;
            Ok(counts)
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written.with_context(|| format!("cannot export the trace to {}", target.display()))
    }

    fn write_jsonl(&self, path: &Path, report: &mut dyn FnMut(u64, u64)) -> Result<(u64, u64)> {
        let mut out = BufWriter::new(File::create(path)?);
        let (mut events, mut bytes) = (0u64, 0u64);
        match &self.store {
            Some(store) => {
                let total = std::fs::metadata(store.path()).map_or(0, |m| m.len());
                let mut reader = store.reader(0)?;
                let mut line = Vec::new();
                let mut reported = 0;
                while reader.read_until(b'\n', &mut line)? > 0 {
                    out.write_all(&line)?;
                    (events, bytes) = (events + 1, bytes + line.len() as u64);
                    line.clear();
                    if bytes - reported >= 1 << 20 {
                        report(bytes, total.max(bytes));
                        reported = bytes;
                    }
                }
                report(bytes, total.max(bytes));
            }
            None => {
                let total = self.window.len() as u64;
                for event in &self.window {
                    let mut line = serde_json::to_vec(event)?;
                    line.push(b'\n');
                    out.write_all(&line)?;
                    (events, bytes) = (events + 1, bytes + line.len() as u64);
                    if events % 4096 == 0 {
                        report(events, total);
                    }
                }
                report(events, total);
            }
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok((events, bytes))
    }

    /// Visits every event of the durable file; a read failure is logged, not returned,
    /// because lookups answer with what they found.
    fn scan_file(&self, purpose: &str, visit: impl FnMut(Event) -> ControlFlow<()>) {
        let Some(store) = &self.store else { return };
        let mut visit = visit;
        if let Err(e) = store.scan(0, |event, _| visit(event)) {
            crate::log::warn(&format!("cannot {purpose} in the trace file: {e:#}"));
        }
    }
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
