//! Reading the history back: `trace.tail` pages, lookups by id, children and policy
//! decisions. A [`History`] answers from the index for everything up to the newest event it
//! holds, from the segments for what it does not hold yet (a rebuild in progress), and from the
//! window after that, so answers are whole and the same whether or not an event has left
//! memory. The engine reads through its own tracer; a worker thread reads a
//! [`HistorySnapshot`] taken on the engine, so a query never holds up world calls.

use super::gap::{Want, line_head};
use super::history::Page;
use super::index::line::Line;
use super::index::{IndexHandle, IndexReader};
use super::segments::{self, Segment};
use super::{DECISION_KINDS, DecisionQuery, DecisionSummary, Event, Tracer, parse_kept, seq_of_id};
use crate::limits::{TAIL_ON_ENGINE_EVENTS, TAIL_ON_ENGINE_SCAN, TRACE_INDEX_WAIT_MS};
use anyhow::Result;
use std::collections::VecDeque;
use std::fs::File;
use std::ops::ControlFlow;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One reading of the history.
pub struct History<'a> {
    index: Option<Rc<IndexReader>>,
    /// The segments as they stood (empty for an in-memory trace).
    segments: Vec<Segment>,
    /// The first sequence number retention keeps.
    kept: u64,
    /// The newest events' lines, consecutive, starting at `window_start` and ending with the
    /// newest.
    window: &'a [Arc<[u8]>],
    window_start: u64,
}

/// What a worker thread needs to read the history as it stood when the snapshot was taken.
pub struct HistorySnapshot {
    index: Option<IndexHandle>,
    segments: Vec<Segment>,
    kept: u64,
    /// The lines of the events the index did not hold yet, oldest first.
    recent: Vec<Arc<[u8]>>,
    recent_start: u64,
}

impl HistorySnapshot {
    /// Reads it on this thread (opening the index here on first use).
    pub fn read<R>(&self, with: impl FnOnce(&mut History) -> R) -> R {
        let mut history = History {
            index: self.index.as_ref().and_then(IndexHandle::reader),
            segments: self.segments.clone(),
            kept: self.kept,
            window: &self.recent,
            window_start: self.recent_start,
        };
        with(&mut history)
    }
}

impl Tracer {
    /// The history as this tracer holds it, for reading on the engine.
    pub fn history(&mut self) -> History<'_> {
        // Events emitted outside calls may not be written yet.
        let _ = self.commit();
        let (segments, kept) = match &self.store {
            Some(store) => (store.segments(), store.first_kept_seq()),
            None => (Vec::new(), 1),
        };
        let window_start = self.first_kept();
        History {
            index: self.index.as_ref().and_then(|i| i.handle.reader()),
            segments,
            kept,
            window: self.window.make_contiguous(),
            window_start,
        }
    }

    /// Whether a `trace.tail` page after `after_seq` lies wholly in the window and is small
    /// enough to answer on the engine: at most `TAIL_ON_ENGINE_EVENTS` events parsed and, with
    /// an actor or type to match (`filtered`), at most `TAIL_ON_ENGINE_SCAN` lines checked.
    pub fn tail_in_window(&self, after_seq: i64, limit: usize, filtered: bool) -> bool {
        // Sequence numbers start at 1, so any cursor below 1 asks for everything.
        let after = after_seq.max(0) as u64;
        let start = self.first_kept();
        if after + 1 < start {
            return false;
        }
        let newer = (start + self.window.len() as u64).saturating_sub(after + 1);
        // One more than the limit is looked for, to tell whether a next page exists.
        let parsed = newer.min(limit as u64 + 1);
        parsed <= TAIL_ON_ENGINE_EVENTS && (!filtered || newer <= TAIL_ON_ENGINE_SCAN)
    }

    /// The window alone, for a read [`Tracer::tail_in_window`] found it holds: no index, no
    /// segment, and nothing written first (the window holds what is not written yet too; a
    /// call answered from it is refused with them if their write fails).
    pub fn window_history(&mut self) -> History<'_> {
        let window_start = self.first_kept();
        History {
            index: None,
            segments: Vec::new(),
            kept: window_start,
            window: self.window.make_contiguous(),
            window_start,
        }
    }

    /// The history as it stands, for a worker thread: the index and segments by reference,
    /// and the newest events the index does not hold yet by copy (usually a handful).
    pub fn snapshot(&mut self) -> HistorySnapshot {
        // Events emitted outside calls may not be written yet.
        let _ = self.commit();
        let index = self.index.as_ref().map(|i| i.handle.clone());
        let (segments, kept) = match &self.store {
            Some(store) => (store.segments(), store.first_kept_seq()),
            None => (Vec::new(), 1),
        };
        let window_start = self.first_kept();
        let window_end = window_start + self.window.len() as u64;
        let from = index.as_ref().map_or(window_start, |i| {
            (i.indexed() + 1).clamp(window_start, window_end)
        });
        let skip = (from - window_start) as usize;
        HistorySnapshot {
            index,
            segments,
            kept,
            recent: self.window.range(skip..).cloned().collect(),
            recent_start: from,
        }
    }

    /// See [`History::tail`].
    pub fn tail(
        &mut self,
        after_seq: i64,
        limit: usize,
        actor_id: Option<&str>,
        kind: Option<&str>,
    ) -> Result<(Vec<Event>, Option<i64>)> {
        self.history().tail(after_seq, limit, actor_id, kind)
    }

    /// See [`History::get`].
    pub fn get(&mut self, id: &str) -> Option<Event> {
        self.history().get(id)
    }

    /// See [`History::children_of`].
    pub fn children_of(&mut self, id: &str) -> Vec<Event> {
        self.history().children_of(id)
    }

    /// See [`History::decisions`].
    pub fn decisions(&mut self, q: &DecisionQuery) -> Result<(DecisionSummary, Vec<Event>)> {
        self.history().decisions(q)
    }

    /// Waits until the index has caught up with the window (tests that check the index itself).
    #[cfg(test)]
    pub(super) fn settle_index(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let need = self.first_kept() - 1;
        while let Some(index) = &self.index
            && index.handle.indexed() < need
            && !index.handle.gone()
        {
            index.handle.want(need);
            assert!(Instant::now() < deadline, "the index never caught up");
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl History<'_> {
    /// The index, given up to `TRACE_INDEX_WAIT_MS` to reach the window: it normally follows a
    /// flush within a millisecond. Whatever it does not hold yet is read from the segments by
    /// [`History::each_after`].
    fn index(&self) -> Option<&IndexReader> {
        let index = self.index.as_deref()?;
        let need = self.window_start - 1;
        if index.indexed() < need && !index.handle().gone() {
            index.want(need);
            let deadline = Instant::now() + Duration::from_millis(TRACE_INDEX_WAIT_MS);
            while index.indexed() < need && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        Some(index)
    }

    /// Calls `visit` with the sequence number, type and bytes of every kept line after `upto`,
    /// oldest first: from the segments for those older than the window, then the window's;
    /// Break when `visit` stopped. Lines are not parsed here (see [`gap`](super::gap)).
    fn lines_after(&self, upto: u64, visit: &mut LineVisit) -> Result<ControlFlow<()>> {
        if self.segment_lines_after(upto, visit)?.is_break() {
            return Ok(ControlFlow::Break(()));
        }
        let from = (upto + 1).max(self.kept);
        let skip = from.saturating_sub(self.window_start) as usize;
        for line in self.window.iter().skip(skip) {
            let Some((seq, kind)) = line_head(line) else {
                continue;
            };
            if visit(seq, kind, line).is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// [`History::lines_after`] for the lines older than the window, from the segments.
    fn segment_lines_after(&self, upto: u64, visit: &mut LineVisit) -> Result<ControlFlow<()>> {
        let from = (upto + 1).max(self.kept);
        if from >= self.window_start || self.segments.is_empty() {
            return Ok(ControlFlow::Continue(()));
        }
        // Start at the line after `upto` when the index knows where it is.
        let known = self.index.as_ref().and_then(|i| i.end_of(upto));
        let first = self
            .segments
            .iter()
            .rposition(|s| s.first_seq <= from)
            .unwrap_or(0);
        let mut stopped = false;
        for segment in &self.segments[first..] {
            let Ok(file) = File::open(&segment.path) else {
                continue;
            };
            let offset = known
                .filter(|(seg, _)| *seg == segment.first_seq)
                .map_or(0, |(_, offset)| offset);
            let flow = segments::each_line(file, offset, |line| {
                // A damaged line is passed over, as the indexer does; `trace verify` names it.
                let Some((seq, kind)) = line_head(line) else {
                    damaged(&segment.path);
                    return Ok(ControlFlow::Continue(()));
                };
                if seq >= self.window_start {
                    // The window holds the rest.
                    return Ok(ControlFlow::Break(()));
                }
                if seq >= from && visit(seq, kind, line).is_break() {
                    stopped = true;
                    return Ok(ControlFlow::Break(()));
                }
                Ok(ControlFlow::Continue(()))
            })?;
            if flow.is_break() {
                break;
            }
        }
        Ok(if stopped {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    }

    /// Calls `visit` with every kept event after `upto` that `want` admits, oldest first, until
    /// it breaks (a line is parsed only if admitted).
    fn each_after(
        &self,
        upto: u64,
        want: &Want,
        visit: &mut dyn FnMut(&Event) -> ControlFlow<()>,
    ) -> Result<()> {
        // Whether `visit` stopped early makes no difference here.
        let _: ControlFlow<()> = self.lines_after(upto, &mut |seq, kind, line| {
            if !want.admits(kind, line) {
                return ControlFlow::Continue(());
            }
            match serde_json::from_slice::<Event>(line) {
                Ok(event) => visit(&event),
                Err(_) => {
                    damaged_event(seq);
                    ControlFlow::Continue(())
                }
            }
        })?;
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
        let mut page = Page::new(after_seq, limit, actor_id, kind);
        let want = kind
            .map_or_else(Want::all, |k| Want::kinds(&[k]))
            .field("actorId", actor_id.unwrap_or(""));
        // Sequence numbers start at 1, so any cursor below 1 asks for everything.
        let after = after_seq.max(0) as u64;
        let covered = after + 1 >= self.window_start;
        let mut upto = after;
        if !covered && let Some(index) = self.index() {
            match index.tail(after, limit.saturating_add(1), actor_id, kind) {
                Ok((events, indexed)) => {
                    upto = indexed.max(after);
                    for event in &events {
                        if page.offer(event).is_break() {
                            return Ok(page.finish());
                        }
                    }
                }
                Err(e) => unusable(&e),
            }
        }
        self.each_after(upto, &want, &mut |e| page.offer(e))?;
        Ok(page.finish())
    }

    /// The event with this id, from the window, the index or else the segments.
    pub fn get(&mut self, id: &str) -> Option<Event> {
        // The seq in the id says where the event must be: in the window, in the index, or not
        // issued yet. The window always ends with the newest event.
        let newest = self.window_start + self.window.len() as u64 - 1;
        let seq = seq_of_id(id).filter(|&seq| seq <= newest && seq >= 1)?;
        if seq >= self.window_start {
            let event = parse_kept(self.window.get((seq - self.window_start) as usize)?);
            return (event.id == id).then_some(event);
        }
        let indexed = match self.index() {
            Some(index) if index.indexed() >= seq => index.get(seq).map_err(|e| unusable(&e)).ok(),
            _ => None,
        };
        let found = match indexed {
            Some(found) => Ok(found),
            None => {
                let mut found = None;
                self.each_after(seq - 1, &Want::all(), &mut |e| {
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
        if parent_seq < self.window_start
            && let Some(index) = self.index()
        {
            match index.children(parent_seq) {
                Ok((events, indexed)) => {
                    upto = indexed.max(parent_seq);
                    children.extend(events.into_iter().filter(is_child));
                }
                Err(e) => unusable(&e),
            }
        }
        let want = Want::all().text(crate::json::text(&serde_json::Value::from(id)).as_bytes());
        let scanned = self.each_after(upto, &want, &mut |e| {
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

    /// The summary of every decision matching `q` and the newest `q.limit` of them, oldest
    /// first.
    pub fn decisions(&mut self, q: &DecisionQuery) -> Result<(DecisionSummary, Vec<Event>)> {
        let (mut summary, events, upto) = match self.index().map(|index| index.decisions(q)) {
            Some(Ok(found)) => found,
            Some(Err(e)) => {
                unusable(&e);
                Default::default()
            }
            None => Default::default(),
        };
        // The newest `q.limit` matches, oldest first: the index's, then the lines after it (a
        // line is parsed whole only if it is among them at the end).
        let mut listed: VecDeque<Found> = events
            .into_iter()
            .map(|e| Found::Event(Box::new(e)))
            .collect();
        let mut keep = |found: Found| {
            listed.push_back(found);
            if listed.len() > q.limit {
                listed.pop_front();
            }
        };
        let want = decision_want(q);
        // The visitor never stops it: every decision after the index is counted.
        let _whole: ControlFlow<()> = self.lines_after(upto, &mut |seq, kind, line| {
            if !want.admits(kind, line) {
                return ControlFlow::Continue(());
            }
            match serde_json::from_slice::<Line>(line) {
                Ok(l) if q.matches_line(&l) => {
                    let d = &l.payload;
                    let allow = d.allow.unwrap_or(false);
                    summary.add(
                        allow,
                        or_empty(&d.cap),
                        or_empty(&d.rule),
                        or_empty(&d.package),
                        1,
                    );
                    keep(Found::Line(line.to_vec()));
                }
                Ok(_) => {}
                Err(_) => damaged_event(seq),
            }
            ControlFlow::Continue(())
        })?;
        let events = listed
            .into_iter()
            .filter_map(|found| match found {
                Found::Event(e) => Some(*e),
                Found::Line(line) => serde_json::from_slice(&line).ok(),
            })
            .collect();
        Ok((summary, events))
    }
}

/// A field of a stored decision, `""` when absent or not a string.
fn or_empty<'a>(v: &'a Option<std::borrow::Cow<str>>) -> &'a str {
    v.as_deref().unwrap_or("")
}

/// What [`History::lines_after`] calls with each line: its sequence number, type and bytes.
type LineVisit<'v> = dyn FnMut(u64, &str, &[u8]) -> ControlFlow<()> + 'v;

/// A decision listed by [`History::decisions`]: an event, or a line of the gap not parsed yet.
enum Found {
    Event(Box<Event>),
    Line(Vec<u8>),
}

/// The lines of the gap that may match a decision query: decisions holding each filter's text.
fn decision_want(q: &DecisionQuery) -> Want {
    let mut want = Want::kinds(&DECISION_KINDS);
    for (key, value) in [
        ("cap", &q.cap),
        ("rule", &q.rule),
        ("agentId", &q.agent_id),
        ("sessionId", &q.session_id),
        ("package", &q.package),
    ] {
        want = want.field(key, value.as_deref().unwrap_or(""));
    }
    // `allow` missing counts as denied, so only a query for allowed decisions narrows here.
    if q.allow == Some(true) {
        want = want.text(b"\"allow\":true");
    }
    want
}

/// A line whose head reads well but whose body does not: passed over, as the indexer does.
fn damaged_event(seq: u64) {
    crate::log::warn(&format!(
        "trace event {seq} is damaged and is skipped; `limina trace verify` names its line"
    ));
}

/// A line that is not an event at all.
fn damaged(segment: &std::path::Path) {
    crate::log::warn(&format!(
        "{} holds a line that is not an event; skipping it",
        segment.display()
    ));
}

/// An index that fails a query (damaged under a running host, a full disk) is passed over:
/// the answer comes from the segments instead, whole but slower.
fn unusable(e: &anyhow::Error) {
    crate::log::warn(&format!(
        "the trace index failed a query ({e:#}); answering from the segments"
    ));
}
