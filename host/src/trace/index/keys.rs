//! Keys: each distinct combination of the columns queries filter a table by is one row of a
//! small keys table, and the big table's rows hold only their key's id. An event's key is its
//! type and actor (`event_keys`); a decision's is allow, cap, rule, agent, session and package
//! (`decision_keys`, which also counts the decisions of each). One secondary index per table,
//! `(key, seq)`, then serves every filter: a query picks the matching keys from the keys table
//! and merges their rows. One index entry per row instead of one per column: the b-tree
//! inserts were the larger part of the indexer's time.

use super::ids::{IdCache, find_or_add};
use rusqlite::{Connection, params};
use std::collections::HashMap;

/// An event's columns: the name ids of its type and actor.
pub(super) type EventKey = (i64, i64);

/// A decision's columns: allow, then the name ids of cap, rule, agent, session and package.
pub(super) type DecisionKey = (bool, i64, i64, i64, i64, i64);

/// The ids of the keys the index holds, as far as they are cached, and the decisions counted
/// per key since the transaction began (written at its commit, once per key).
#[derive(Default)]
pub(super) struct Keys {
    events: IdCache<EventKey>,
    decisions: IdCache<DecisionKey>,
    counted: HashMap<i64, i64, foldhash::fast::RandomState>,
}

impl Keys {
    /// The id of an event's key, added to `event_keys` (inside the open transaction) when new.
    pub fn event(&mut self, conn: &Connection, key: EventKey) -> rusqlite::Result<i64> {
        let (kind, actor) = key;
        self.events.id(&key, || {
            find_or_add(
                conn,
                "SELECT id FROM event_keys WHERE kind = ?1 AND actor = ?2",
                "INSERT INTO event_keys (kind, actor) VALUES (?1, ?2)",
                params![kind, actor],
            )
        })
    }

    /// The id of a decision's key (added to `decision_keys` when new), counting one more
    /// decision of it.
    pub fn decision(&mut self, conn: &Connection, key: DecisionKey) -> rusqlite::Result<i64> {
        let (allow, cap, rule, agent, session, package) = key;
        let id = self.decisions.id(&key, || {
            find_or_add(
                conn,
                "SELECT id FROM decision_keys WHERE allow = ?1 AND cap = ?2 AND rule = ?3
                 AND agent = ?4 AND session = ?5 AND package = ?6",
                "INSERT INTO decision_keys (allow, cap, rule, agent, session, package, n)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0)",
                params![allow, cap, rule, agent, session, package],
            )
        })?;
        *self.counted.entry(id).or_default() += 1;
        Ok(id)
    }

    /// Adds the decisions counted to their keys and forgets them (inside the transaction).
    pub fn write(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if self.counted.is_empty() {
            return Ok(());
        }
        let mut add = conn.prepare_cached("UPDATE decision_keys SET n = n + ?2 WHERE id = ?1")?;
        for (id, n) in self.counted.drain() {
            add.execute([id, n])?;
        }
        Ok(())
    }

    /// Forgets every id and count: after a rollback some may not exist, after a rebuild or a
    /// retention cut none or fewer do.
    pub fn forget(&mut self) {
        self.events.clear();
        self.decisions.clear();
        self.counted.clear();
    }
}

/// Which end of the matching rows a listing takes.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum End {
    Oldest,
    Newest,
}

/// A filtered listing of one table: its keys table, the statement reading one key's rows from
/// `end` (`?1` the key, `?2` and `?3` the bounds, exclusive, `?4` the most rows).
pub(super) struct Listing {
    pub keys: &'static str,
    pub sql: &'static str,
    pub end: End,
}

/// `trace.tail` with an actor or type: the oldest events after the cursor.
pub(super) const OLDEST_EVENTS: Listing = Listing {
    keys: "event_keys",
    sql: "SELECT seq FROM events WHERE key = ?1 AND seq > ?2 AND seq < ?3 ORDER BY seq LIMIT ?4",
    end: End::Oldest,
};

/// `audit.query`: the newest decisions.
pub(super) const NEWEST_DECISIONS: Listing = Listing {
    keys: "decision_keys",
    sql: "SELECT seq FROM decisions WHERE key = ?1 AND seq > ?2 AND seq < ?3
          ORDER BY seq DESC LIMIT ?4",
    end: End::Newest,
};

/// The sequence numbers of the `limit` rows nearest the listing's end among the rows of the
/// keys `ids` strictly between `above` and `below`, oldest first. Each key after the first is
/// read only past the farthest of the best found so far, so a query over many keys reads few
/// rows of each.
pub(super) fn pick(
    conn: &Connection,
    listing: &Listing,
    ids: &[i64],
    (mut above, mut below): (i64, i64),
    limit: usize,
) -> rusqlite::Result<Vec<i64>> {
    let mut best: Vec<i64> = Vec::new();
    if limit == 0 {
        return Ok(best);
    }
    let most = limit.min(i64::MAX as usize) as i64;
    let mut stmt = conn.prepare_cached(listing.sql)?;
    for &id in ids {
        let mut rows = stmt.query(params![id, above, below, most])?;
        while let Some(row) = rows.next()? {
            best.push(row.get(0)?);
        }
        // Keep the best `limit`; the farthest of them bounds the next keys' reads.
        if best.len() >= limit {
            best.sort_unstable();
            match listing.end {
                End::Newest => {
                    best.drain(..best.len() - limit);
                    above = best[0];
                }
                End::Oldest => {
                    best.truncate(limit);
                    below = best[limit - 1];
                }
            }
        }
    }
    best.sort_unstable();
    Ok(best)
}
