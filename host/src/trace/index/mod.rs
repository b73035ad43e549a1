//! The trace index: an embedded SQLite database (WAL) beside the segments that answers
//! `trace.tail`, event lookups, children and policy-decision queries without reading the
//! history. An indexer thread keeps it up to date; queries read a consistent snapshot and
//! report how far it reaches (`upto`), so the tracer adds the newer events from its window.

mod ids;
mod indexer;
mod keys;
pub(super) mod line;
mod names;
#[cfg(test)]
mod plan_tests;
mod rows;
mod schema;

use super::Event;
use super::store::LineReader;
use crate::limits::TRACE_INDEX_OPEN_WAIT_MS;
use anyhow::{Context, Result};
use indexer::Indexer;
use rusqlite::{Connection, ToSql};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Event types that record a policy decision.
pub const DECISION_KINDS: [&str; 2] = ["policy.decision", "policy.denied"];

pub(super) fn is_decision_kind(kind: &str) -> bool {
    DECISION_KINDS.contains(&kind)
}

/// Which policy decisions an audit query wants.
#[derive(Debug, Clone, Default)]
pub struct DecisionQuery {
    /// Only allowed (`Some(true)`) or only denied (`Some(false)`) decisions.
    pub allow: Option<bool>,
    pub cap: Option<String>,
    pub rule: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub package: Option<String>,
    /// Most decisions to list (the newest); the summary counts all.
    pub limit: usize,
}

impl DecisionQuery {
    /// Whether a decision event matches the filters (the tests' plain reading to compare
    /// the index against; queries match stored lines, [`DecisionQuery::matches_line`]).
    #[cfg(test)]
    pub fn matches(&self, e: &Event) -> bool {
        let p = &e.payload;
        let field = |k: &str| p[k].as_str().unwrap_or("");
        is_decision_kind(&e.kind)
            && self
                .allow
                .is_none_or(|a| p["allow"].as_bool().unwrap_or(false) == a)
            && [
                (&self.cap, "cap"),
                (&self.rule, "rule"),
                (&self.agent_id, "agentId"),
                (&self.session_id, "sessionId"),
                (&self.package, "package"),
            ]
            .iter()
            .all(|(want, k)| want.as_deref().is_none_or(|w| w == field(k)))
    }

    /// Whether a stored decision line, read as the indexer reads it, matches: the same answer
    /// as [`DecisionQuery::matches`] on the parsed event, without building its payload.
    pub(super) fn matches_line(&self, l: &line::Line) -> bool {
        let d = &l.payload;
        fn field<'a>(v: &'a Option<std::borrow::Cow<str>>) -> &'a str {
            v.as_deref().unwrap_or("")
        }
        is_decision_kind(&l.kind)
            && self.allow.is_none_or(|a| d.allow.unwrap_or(false) == a)
            && [
                (&self.cap, &d.cap),
                (&self.rule, &d.rule),
                (&self.agent_id, &d.agent_id),
                (&self.session_id, &d.session_id),
                (&self.package, &d.package),
            ]
            .iter()
            .all(|(want, have)| want.as_deref().is_none_or(|w| w == field(have)))
    }

    /// `(column, value)` for each filter given.
    fn filters(&self) -> Vec<(&'static str, &dyn ToSql)> {
        let mut out: Vec<(&'static str, &dyn ToSql)> = Vec::new();
        if let Some(a) = &self.allow {
            out.push(("allow", a));
        }
        for (column, value) in [
            ("cap", &self.cap),
            ("rule", &self.rule),
            ("agent", &self.agent_id),
            ("session", &self.session_id),
            ("package", &self.package),
        ] {
            if let Some(v) = value {
                out.push((column, v));
            }
        }
        out
    }
}

/// Counts of the decisions that match a query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecisionSummary {
    pub total: u64,
    pub allowed: u64,
    pub by_rule: BTreeMap<String, u64>,
    pub by_cap: BTreeMap<String, u64>,
    pub packages: BTreeSet<String>,
}

impl DecisionSummary {
    /// Counts one more matching decision.
    pub fn add(&mut self, allow: bool, cap: &str, rule: &str, package: &str, n: u64) {
        self.total += n;
        self.allowed += if allow { n } else { 0 };
        *self.by_rule.entry(rule.to_string()).or_default() += n;
        *self.by_cap.entry(cap.to_string()).or_default() += n;
        if !package.is_empty() {
            self.packages.insert(package.to_string());
        }
    }
}

/// The index of one trace folder: the indexer thread that writes it, and what opens readers.
pub(super) struct Index {
    pub handle: IndexHandle,
    _indexer: Indexer,
}

impl Index {
    /// Starts the indexer of the segments in `segments`, with its database in `trace_dir`. The
    /// database is opened, checked and caught up on the indexer's thread; queries asked before
    /// it is ready wait briefly and then read the segments.
    pub fn open(trace_dir: &Path, segments: &Path, first_kept: Arc<AtomicU64>) -> Result<Index> {
        let db = indexer::db_path(trace_dir);
        let indexer = Indexer::start(db.clone(), segments.to_path_buf(), first_kept)?;
        let handle = IndexHandle {
            db,
            segments: segments.to_path_buf(),
            shared: indexer.shared.clone(),
        };
        Ok(Index {
            handle,
            _indexer: indexer,
        })
    }
}

/// What opens a reader of the index on any thread, and talks to its indexer.
#[derive(Clone)]
pub struct IndexHandle {
    db: PathBuf,
    segments: PathBuf,
    shared: Arc<indexer::Shared>,
}

impl IndexHandle {
    /// This thread's reader, opened on first use, once the indexer has opened and checked the
    /// database; the first query after a start waits up to `TRACE_INDEX_OPEN_WAIT_MS` for
    /// that. `None` (read the segments instead) when it is not ready by then, or is gone.
    pub fn reader(&self) -> Option<std::rc::Rc<IndexReader>> {
        let deadline = Instant::now() + Duration::from_millis(TRACE_INDEX_OPEN_WAIT_MS);
        loop {
            match self.shared.state.load(Ordering::Acquire) {
                indexer::READY => break,
                indexer::OPENING if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                _ => return None,
            }
        }
        IndexReader::for_thread(self)
            .map_err(|e| crate::log::warn(&format!("{e:#}; reading the segments instead")))
            .ok()
    }

    /// Whether the indexer has stopped for good (nothing to wait for).
    pub fn gone(&self) -> bool {
        self.shared.state.load(Ordering::Acquire) == indexer::GONE
    }

    /// Tells the indexer that new lines were flushed.
    pub fn notify(&self) {
        self.shared.notify();
    }

    /// Asks the indexer to commit the rows up to `seq` as soon as it has them.
    pub fn want(&self, seq: u64) {
        self.shared.want(seq);
    }

    /// The newest sequence number the index holds.
    pub fn indexed(&self) -> u64 {
        self.shared.indexed.load(Ordering::Acquire)
    }
}

/// A read connection to the index. Queries read one consistent snapshot each.
pub(super) struct IndexReader {
    conn: Connection,
    handle: IndexHandle,
}

thread_local! {
    /// Worker threads keep one reader per index they have served, so a query off the engine
    /// does not open the database each time.
    static READERS: std::cell::RefCell<Vec<std::rc::Rc<IndexReader>>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl IndexReader {
    fn open(handle: &IndexHandle) -> Result<IndexReader> {
        let conn = schema::connect(&handle.db)
            .with_context(|| format!("cannot open the trace index {}", handle.db.display()))?;
        Ok(IndexReader {
            conn,
            handle: handle.clone(),
        })
    }

    /// This thread's reader for `handle`'s index, opened on first use.
    fn for_thread(handle: &IndexHandle) -> Result<std::rc::Rc<IndexReader>> {
        READERS.with(|readers| {
            let mut readers = readers.borrow_mut();
            if let Some(r) = readers
                .iter()
                .find(|r| Arc::ptr_eq(&r.handle.shared, &handle.shared))
            {
                return Ok(r.clone());
            }
            // Readers of indexes whose host tracer is gone are dropped with their connection.
            readers.retain(|r| Arc::strong_count(&r.handle.shared) > 1);
            let reader = std::rc::Rc::new(IndexReader::open(handle)?);
            readers.push(reader.clone());
            Ok(reader)
        })
    }

    /// What opens another reader of this index.
    pub fn handle(&self) -> &IndexHandle {
        &self.handle
    }

    /// Asks the indexer to commit the rows up to `seq` as soon as it has them.
    pub fn want(&self, seq: u64) {
        self.handle.want(seq);
    }

    /// The newest sequence number the index holds.
    pub fn indexed(&self) -> u64 {
        self.handle.indexed()
    }

    /// Reads the events of `(seg, off, len)` rows, skipping any whose segment retention has
    /// removed since the snapshot.
    fn events_of(&self, rows: Vec<(i64, i64, i64)>) -> Vec<Event> {
        let mut lines = LineReader::new(&self.handle.segments);
        rows.into_iter()
            .filter_map(|(s, o, l)| {
                let line = lines.read(s as u64, o as u64, l as u64).ok()?;
                serde_json::from_slice(&line).ok()
            })
            .collect()
    }

    /// Indexed events after `after_seq`, oldest first, at most `limit`, with the actor and
    /// type given; and the snapshot's newest sequence number.
    pub fn tail(
        &self,
        after_seq: u64,
        limit: usize,
        actor: Option<&str>,
        kind: Option<&str>,
    ) -> Result<(Vec<Event>, u64)> {
        let tx = self.conn.unchecked_transaction()?;
        let upto = schema::last_seq(&tx)?;
        let after = after_seq.max(self.kept() - 1) as i64;
        let rows = if actor.is_none() && kind.is_none() {
            let limit = limit.min(i64::MAX as usize) as i64;
            locations(&tx, TAIL_SQL, &[&after, &limit])?
        } else {
            let mut filters: Vec<(&str, &dyn ToSql)> = Vec::new();
            if let Some(actor) = &actor {
                filters.push(("actor", actor));
            }
            if let Some(kind) = &kind {
                filters.push(("kind", kind));
            }
            listed(
                &tx,
                &keys::OLDEST_EVENTS,
                &filters,
                (after, i64::MAX),
                limit,
            )?
        };
        drop(tx);
        Ok((self.events_of(rows), upto))
    }

    /// Where the line after indexed event `seq` starts: `(segment, byte offset)`.
    pub fn end_of(&self, seq: u64) -> Option<(u64, u64)> {
        let (seg, off, len) = schema::location(&self.conn, seq).ok()??;
        Some((seg, off + len))
    }

    /// The indexed event with this sequence number.
    pub fn get(&self, seq: u64) -> Result<Option<Event>> {
        let row = schema::location(&self.conn, seq)?;
        Ok(row.and_then(|(s, o, l)| {
            let line = LineReader::new(&self.handle.segments).read(s, o, l).ok()?;
            serde_json::from_slice(&line).ok()
        }))
    }

    /// Indexed events naming `parent_seq` as parent or cause, oldest first; and the
    /// snapshot's newest sequence number.
    pub fn children(&self, parent_seq: u64) -> Result<(Vec<Event>, u64)> {
        let tx = self.conn.unchecked_transaction()?;
        let upto = schema::last_seq(&tx)?;
        let (parent, kept) = (parent_seq as i64, self.kept() as i64);
        let rows = locations(&tx, CHILDREN_SQL, &[&parent, &kept])?;
        drop(tx);
        Ok((self.events_of(rows), upto))
    }

    /// The summary of indexed decisions matching `q` and the newest `q.limit` of them
    /// (oldest first); and the snapshot's newest sequence number.
    pub fn decisions(&self, q: &DecisionQuery) -> Result<(DecisionSummary, Vec<Event>, u64)> {
        let tx = self.conn.unchecked_transaction()?;
        let upto = schema::last_seq(&tx)?;
        let kept = self.kept() as i64;
        let filters = q.filters();
        let columns: Vec<&str> = filters.iter().map(|(column, _)| *column).collect();
        let clause = filter_clause(&columns, "");
        let args: Vec<&dyn ToSql> = filters.iter().map(|(_, value)| *value).collect();
        // Counted by allow and the ids of cap, rule and package; named at the end.
        let mut counts: BTreeMap<(bool, i64, i64, i64), i64> = BTreeMap::new();
        let mut tally = |sql: &str, args: &[&dyn ToSql], sign: i64| -> Result<()> {
            let mut stmt = tx.prepare_cached(sql)?;
            let mut rows = stmt.query(args)?;
            while let Some(r) = rows.next()? {
                let n: i64 = r.get(4)?;
                *counts
                    .entry((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    .or_default() += sign * n;
            }
            Ok(())
        };
        tally(
            &format!(
                "SELECT allow, cap, rule, package, SUM(n) FROM decision_keys WHERE 1{clause}
                 GROUP BY allow, cap, rule, package"
            ),
            &args,
            1,
        )?;
        // Rows retention cut off that the indexer has not dropped yet (and counted) are
        // taken back out.
        let mut below = args.clone();
        below.push(&kept);
        tally(
            &format!(
                "SELECT k.allow, k.cap, k.rule, k.package, COUNT(*)
                 FROM decisions d JOIN decision_keys k ON k.id = d.key
                 WHERE d.seq < ?{}{} GROUP BY k.allow, k.cap, k.rule, k.package",
                below.len(),
                filter_clause(&columns, "k.")
            ),
            &below,
            -1,
        )?;
        let mut summary = DecisionSummary::default();
        let mut named: std::collections::HashMap<i64, String> = Default::default();
        let mut name = |id: i64| -> Result<String> {
            if let Some(name) = named.get(&id) {
                return Ok(name.clone());
            }
            let name: String = tx
                .prepare_cached("SELECT name FROM names WHERE id = ?1")?
                .query_row([id], |r| r.get(0))?;
            named.insert(id, name.clone());
            Ok(name)
        };
        for ((allow, cap, rule, package), n) in counts {
            if n > 0 {
                let (cap, rule, package) = (name(cap)?, name(rule)?, name(package)?);
                summary.add(allow, &cap, &rule, &package, n as u64);
            }
        }
        let bounds = (kept - 1, i64::MAX);
        let rows = listed(&tx, &keys::NEWEST_DECISIONS, &filters, bounds, q.limit)?;
        drop(tx);
        Ok((summary, self.events_of(rows), upto))
    }

    /// The first sequence number retention keeps: rows below it may linger briefly.
    fn kept(&self) -> u64 {
        self.handle.shared.first_kept.load(Ordering::Acquire).max(1)
    }
}

/// `trace.tail` from the index with no filter: `seq > ?1`, at most `?2`.
const TAIL_SQL: &str = "SELECT seg, off, len FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2";

/// The events naming `?1` as parent or cause, from `?2` on.
const CHILDREN_SQL: &str =
    "SELECT e.seg, e.off, e.len FROM links l JOIN events e ON e.seq = l.child
     WHERE l.parent = ?1 AND l.child >= ?2 ORDER BY l.child";

/// ` AND {prefix}{column} = ?N` for each filter column, numbered from 1; the texts compared
/// through their ids.
fn filter_clause(columns: &[&str], prefix: &str) -> String {
    columns
        .iter()
        .enumerate()
        .map(|(i, column)| match *column {
            "allow" => format!(" AND {prefix}allow = ?{}", i + 1),
            _ => format!(" AND {prefix}{column} = {}", names::id_of_param(i + 1)),
        })
        .collect()
}

/// Where the `limit` rows of `listing` nearest its end are, among those of the keys matching
/// `filters` (column, value) strictly between `bounds`, oldest first.
fn listed(
    conn: &Connection,
    listing: &keys::Listing,
    filters: &[(&str, &dyn ToSql)],
    bounds: (i64, i64),
    limit: usize,
) -> Result<Vec<(i64, i64, i64)>> {
    let columns: Vec<&str> = filters.iter().map(|(column, _)| *column).collect();
    let args: Vec<&dyn ToSql> = filters.iter().map(|(_, value)| *value).collect();
    let ids: Vec<i64> = conn
        .prepare_cached(&keys_sql(listing.keys, &columns))?
        .query_map(args.as_slice(), |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let seqs = keys::pick(conn, listing, &ids, bounds, limit)?;
    located(conn, &seqs)
}

/// The ids of the keys in `table` matching the filter `columns` (`?1…`).
fn keys_sql(table: &str, columns: &[&str]) -> String {
    format!(
        "SELECT id FROM {table} WHERE 1{}",
        filter_clause(columns, "")
    )
}

/// Where the indexed events `seqs` are, in their order (any no longer indexed left out).
fn located(conn: &Connection, seqs: &[i64]) -> Result<Vec<(i64, i64, i64)>> {
    let mut rows = Vec::with_capacity(seqs.len());
    for &seq in seqs {
        if let Some((seg, off, len)) = schema::location(conn, seq as u64)? {
            rows.push((seg as i64, off as i64, len as i64));
        }
    }
    Ok(rows)
}

fn locations(conn: &Connection, sql: &str, args: &[&dyn ToSql]) -> Result<Vec<(i64, i64, i64)>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt
        .query_map(args, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}
