//! What the indexer writes for each event, within one open transaction: its row, its links
//! and, for a policy decision, the decision's row. Decision counts are summed in memory and
//! written once per transaction and kind of decision, not once per event.

use super::line::Line;
use super::names::Names;
use crate::trace::seq_of_id;
use rusqlite::{Connection, params};
use std::collections::HashMap;

/// The columns a decision is counted by: allow, then the name ids of cap, rule, agent, session
/// and package.
type CountKey = (bool, i64, i64, i64, i64, i64);

/// Decisions counted since the transaction began, not written yet.
#[derive(Default)]
pub(super) struct Counts(HashMap<CountKey, i64>);

impl Counts {
    /// Adds the counts to `decision_counts` and forgets them (inside the transaction).
    pub fn write(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        let mut add = conn.prepare_cached(
            "INSERT INTO decision_counts (allow, cap, rule, agent, session, package, n)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT DO UPDATE SET n = n + excluded.n",
        )?;
        for ((allow, cap, rule, agent, session, package), n) in self.0.drain() {
            add.execute(params![allow, cap, rule, agent, session, package, n])?;
        }
        Ok(())
    }

    /// Forgets counts of a transaction that was rolled back.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// The insert statements of one transaction.
pub(super) struct Rows<'c> {
    conn: &'c Connection,
    event: rusqlite::CachedStatement<'c>,
    link: rusqlite::CachedStatement<'c>,
    decision: rusqlite::CachedStatement<'c>,
}

impl<'c> Rows<'c> {
    pub fn prepare(conn: &'c Connection) -> rusqlite::Result<Rows<'c>> {
        Ok(Rows {
            conn,
            event: conn.prepare_cached(
                "INSERT OR IGNORE INTO events (seq, seg, off, len, kind, actor)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            link: conn
                .prepare_cached("INSERT OR IGNORE INTO links (parent, child) VALUES (?1, ?2)")?,
            decision: conn.prepare_cached(
                "INSERT OR IGNORE INTO decisions (seq, allow, cap, rule, agent, session, package)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?,
        })
    }

    /// Records the event `line` of sequence number `seq`, found at `len` bytes from `off` in
    /// the segment starting at `seg`, its texts as ids from `names`; its decision, if any, is
    /// counted in `counts`.
    pub fn record(
        &mut self,
        seq: u64,
        (seg, off, len): (u64, u64, u64),
        line: &Line,
        names: &mut Names,
        counts: &mut Counts,
    ) -> rusqlite::Result<()> {
        let seq_i = seq as i64;
        let (kind, actor) = (
            names.id(self.conn, &line.kind)?,
            names.id(self.conn, &line.actor_id)?,
        );
        self.event.execute(params![
            seq_i, seg as i64, off as i64, len as i64, kind, actor
        ])?;
        // An event's parent is usually also its first cause: one link, one insert.
        let parents = line.parent_event_id.iter().chain(line.caused_by.iter());
        let mut linked: Option<u64> = None;
        for parent in parents {
            if let Some(p) = seq_of_id(parent)
                && linked != Some(p)
            {
                self.link.execute(params![p as i64, seq_i])?;
                linked = Some(p);
            }
        }
        if super::is_decision_kind(&line.kind) {
            let d = &line.payload;
            let mut id =
                |v: &Option<std::borrow::Cow<str>>| names.id(self.conn, v.as_deref().unwrap_or(""));
            let key = (
                d.allow.unwrap_or(false),
                id(&d.cap)?,
                id(&d.rule)?,
                id(&d.agent_id)?,
                id(&d.session_id)?,
                id(&d.package)?,
            );
            let (allow, cap, rule, agent, session, package) = &key;
            // Counted once: a line met again (it never should be) is not counted twice.
            let new = self
                .decision
                .execute(params![seq_i, allow, cap, rule, agent, session, package])?;
            if new == 1 {
                *counts.0.entry(key).or_default() += 1;
            }
        }
        Ok(())
    }
}
