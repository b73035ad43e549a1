//! The index's tables. The segments stay the source of truth: every row points back at a line
//! (segment, offset, length), and the whole database can be dropped and rebuilt from them.

use rusqlite::Connection;

/// Bumped whenever the tables change; an index of another version is rebuilt. Version 2 keeps
/// texts in `names` and their ids in the other tables; version 3 an event's and a decision's
/// filtered columns once per distinct combination, in `event_keys` and `decision_keys`
/// (`keys.rs`).
pub const VERSION: i64 = 3;

/// Opens the database at `path` for the indexer or a reader: WAL, so readers never wait for
/// the writer and a crash mid-transaction leaves the last committed state.
pub fn connect(path: &std::path::Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // Small caches: the index serves lookups, not scans (a few MiB per connection).
    conn.pragma_update(None, "cache_size", -4096)?;
    // One plan per statement, whatever its parameters: otherwise SQLite plans a bound `LIMIT`
    // as a constant and re-prepares the statement at every binding (a quarter of a
    // `trace.tail` query's time).
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    // Room for every statement the indexer repeats (two per table it fills, the names, the
    // counts, where it stands) besides a reader's queries: an evicted one is prepared again.
    conn.set_prepared_statement_cache_capacity(32);
    Ok(conn)
}

/// Creates the tables when missing; drops and recreates them for another version.
pub fn ensure(conn: &Connection) -> rusqlite::Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != VERSION {
        conn.execute_batch(
            "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS events; DROP TABLE IF EXISTS links;
             DROP TABLE IF EXISTS decisions; DROP TABLE IF EXISTS decision_counts;
             DROP TABLE IF EXISTS decision_keys; DROP TABLE IF EXISTS event_keys;
             DROP TABLE IF EXISTS names;",
        )?;
    }
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
         CREATE TABLE IF NOT EXISTS event_keys (
             id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, actor INTEGER NOT NULL,
             UNIQUE (kind, actor));
         CREATE TABLE IF NOT EXISTS events (
             seq INTEGER PRIMARY KEY, seg INTEGER NOT NULL, off INTEGER NOT NULL,
             len INTEGER NOT NULL, key INTEGER NOT NULL);
         CREATE INDEX IF NOT EXISTS events_key ON events (key, seq);
         CREATE TABLE IF NOT EXISTS links (
             parent INTEGER NOT NULL, child INTEGER NOT NULL, PRIMARY KEY (parent, child))
             WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS decision_keys (
             id INTEGER PRIMARY KEY, allow INTEGER NOT NULL, cap INTEGER NOT NULL,
             rule INTEGER NOT NULL, agent INTEGER NOT NULL, session INTEGER NOT NULL,
             package INTEGER NOT NULL, n INTEGER NOT NULL,
             UNIQUE (allow, cap, rule, agent, session, package));
         CREATE TABLE IF NOT EXISTS decisions (seq INTEGER PRIMARY KEY, key INTEGER NOT NULL);
         CREATE INDEX IF NOT EXISTS decisions_key ON decisions (key, seq);",
    )?;
    conn.pragma_update(None, "user_version", VERSION)?;
    Ok(())
}

/// Empties every table, for a rebuild.
pub fn clear(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "DELETE FROM meta; DELETE FROM events; DELETE FROM links; DELETE FROM decisions;
         DELETE FROM decision_keys; DELETE FROM event_keys; DELETE FROM names;",
    )
}

/// The sequence number of the newest indexed event (0 when none).
pub fn last_seq(conn: &Connection) -> rusqlite::Result<u64> {
    let seq: Option<i64> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = 'last_seq'")?
        .query_row([], |r| r.get(0))
        .ok();
    Ok(seq.unwrap_or(0) as u64)
}

/// Where indexed event `seq` is: `(segment, byte offset, length)`.
pub fn location(conn: &Connection, seq: u64) -> rusqlite::Result<Option<(u64, u64, u64)>> {
    use rusqlite::OptionalExtension;
    conn.prepare_cached("SELECT seg, off, len FROM events WHERE seq = ?1")?
        .query_row([seq as i64], |r| {
            let (seg, off, len): (i64, i64, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
            Ok((seg as u64, off as u64, len as u64))
        })
        .optional()
}
