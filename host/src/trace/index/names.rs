//! The index stores each text it sorts by (event types, actors, caps, rules, sessions, packages)
//! once, in `names`, and a small integer everywhere else: the secondary indexes compare and
//! hold integers, which makes each row cheaper to insert and the database several times smaller
//! than with the texts repeated in every row and index.

use super::ids::{IdCache, find_or_add};
use rusqlite::Connection;

/// The indexer's map from a name to its id, backed by the `names` table.
#[derive(Default)]
pub(super) struct Names(IdCache<String>);

impl Names {
    /// The id of `name`, added to `names` (inside the open transaction) when new.
    pub fn id(&mut self, conn: &Connection, name: &str) -> rusqlite::Result<i64> {
        self.0.id(name, || {
            find_or_add(
                conn,
                "SELECT id FROM names WHERE name = ?1",
                "INSERT INTO names (name) VALUES (?1)",
                &[&name],
            )
        })
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
