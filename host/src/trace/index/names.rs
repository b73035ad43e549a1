//! The index stores each text it sorts by (event types, actors, caps, rules, sessions, packages)
//! once, in `names`, and a small integer everywhere else: the secondary indexes compare and
//! hold integers, which makes each row cheaper to insert and the database several times smaller
//! than with the texts repeated in every row and index.

use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

/// Most names the indexer keeps in memory; past it the cache starts over (each miss costs one
/// lookup in `names`), so a host with endless new session ids keeps its memory bounded.
const CACHED: usize = 65_536;

/// The indexer's map from a name to its id, backed by the `names` table. Hashed by
/// `foldhash` (seeded per process): SipHash was the larger part of each lookup, two to eight
/// per event.
#[derive(Default)]
pub(super) struct Names(HashMap<String, i64, foldhash::fast::RandomState>);

impl Names {
    /// The id of `name`, added to `names` (inside the open transaction) when new.
    pub fn id(&mut self, conn: &Connection, name: &str) -> rusqlite::Result<i64> {
        if let Some(&id) = self.0.get(name) {
            return Ok(id);
        }
        let found: Option<i64> = conn
            .prepare_cached("SELECT id FROM names WHERE name = ?1")?
            .query_row([name], |r| r.get(0))
            .optional()?;
        let id = match found {
            Some(id) => id,
            None => {
                conn.prepare_cached("INSERT INTO names (name) VALUES (?1)")?
                    .execute([name])?;
                conn.last_insert_rowid()
            }
        };
        if self.0.len() >= CACHED {
            self.0.clear();
        }
        self.0.insert(name.to_string(), id);
        Ok(id)
    }

    /// Forgets every id: after a rollback some may not exist, after a rebuild none do.
    pub fn forget(&mut self) {
        self.0.clear();
    }
}

/// SQL giving the id of the name bound to parameter `n` (NULL, matching nothing, when the
/// index has never seen it).
pub(super) fn id_of_param(n: usize) -> String {
    format!("(SELECT id FROM names WHERE name = ?{n})")
}
