//! Rows the index stores once and refers to by id — names (`names.rs`) and keys (`keys.rs`) —
//! and the indexer's bounded memory of those ids.

use rusqlite::{Connection, OptionalExtension, ToSql};
use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

/// Most ids of one kind kept in memory; past it the cache starts over (each miss costs one
/// lookup in its table), so a host with endless new sessions keeps its memory bounded.
const CACHED: usize = 65_536;

/// Ids by what they stand for, as far as cached. Hashed by `foldhash` (seeded per process):
/// SipHash was the larger part of each name lookup, two to eight per event.
pub(super) struct IdCache<K>(HashMap<K, i64, foldhash::fast::RandomState>);

impl<K> Default for IdCache<K> {
    fn default() -> Self {
        IdCache(HashMap::default())
    }
}

impl<K: Hash + Eq> IdCache<K> {
    /// The id of `key`: cached, or from `find` (then cached).
    pub fn id<Q>(
        &mut self,
        key: &Q,
        find: impl FnOnce() -> rusqlite::Result<i64>,
    ) -> rusqlite::Result<i64>
    where
        K: Borrow<Q>,
        Q: ToOwned<Owned = K> + Hash + Eq + ?Sized,
    {
        if let Some(&id) = self.0.get(key) {
            return Ok(id);
        }
        let id = find()?;
        if self.0.len() >= CACHED {
            self.0.clear();
        }
        self.0.insert(key.to_owned(), id);
        Ok(id)
    }

    /// Forgets every id: after a rollback some may not exist, after a rebuild none do.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// The id of the row `select` finds with `values`, or of the one `insert` adds with them
/// (inside the open transaction).
pub(super) fn find_or_add(
    conn: &Connection,
    select: &str,
    insert: &str,
    values: &[&dyn ToSql],
) -> rusqlite::Result<i64> {
    let found = conn
        .prepare_cached(select)?
        .query_row(values, |r| r.get(0))
        .optional()?;
    if let Some(id) = found {
        return Ok(id);
    }
    conn.prepare_cached(insert)?.execute(values)?;
    Ok(conn.last_insert_rowid())
}
