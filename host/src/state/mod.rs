//! State: each package's own key-value store, kept by the host — an NPC's memory, a game's
//! scores. Keys live in a scope: the package's (shared by every caller) or the calling
//! agent's (an agent's own memory, which no other agent's call reaches: the agent is the
//! session's, never an argument).
//!
//! A call's state changes share its fate: they are held aside while it runs (its own reads
//! see them), written in one SQLite transaction when it succeeds and committed — durably (WAL,
//! `synchronous = FULL`) — once the call's trace events are written and before the reply goes
//! out ([`StateStore::prepare`], then [`StateStore::finish`]); dropped when it fails, is
//! cancelled or cannot be recorded, as the world's changes are rolled back. A package's state is bounded by its grant's quota (keys,
//! and bytes of keys and values together), checked on every write against what is stored plus
//! what the call has pending. The store is `state.sqlite` in the trace folder, so it survives
//! restarts; a host without a trace folder keeps it in memory.
//!
//! Calls run on the engine own the store; a package holding a state grant never runs on a
//! worker thread (its call could not commit or roll back with the world's there).

use crate::limits::{MAX_STATE_KEY_BYTES, MAX_STATE_VALUE_BYTES};
use rusqlite::{Connection, OptionalExtension, params};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// Whose keys: the package's, or the calling agent's within the package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Package,
    Agent,
}

/// Keys and bytes (of keys and values together): a package's usage or its quota.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub keys: u64,
    pub bytes: u64,
}

/// Why a state operation failed. None of them changed anything.
#[derive(Debug, Clone, PartialEq)]
pub enum StateError {
    /// A key or value out of bounds; the message names it.
    Invalid(String),
    /// The write would take the package past its quota.
    Quota(String),
    /// The store cannot be reached (a worker thread, or a broken database).
    Unavailable(String),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Invalid(m) | StateError::Quota(m) | StateError::Unavailable(m) => {
                f.write_str(m)
            }
        }
    }
}

/// Where one value lives.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    package: String,
    /// Empty for the package's scope, `@` and the agent's id for an agent's (so no agent id,
    /// not even an empty one, names the package's scope).
    agent: String,
    key: String,
}

/// Every package's state, and the call in progress's pending changes.
pub struct StateStore {
    /// The database, or why there is none; opened on first use when the store was made
    /// with [`StateStore::open`] (a host whose packages keep no state never opens it).
    db: OnceCell<Result<Connection, String>>,
    /// Where the database is opened from on first use (`None`: it is already decided).
    path: Option<PathBuf>,
    /// Writes (`Some`) and deletions (`None`) of the call in progress.
    pending: BTreeMap<Slot, Option<Vec<u8>>>,
    /// Committed usage per package, read once and kept up to date.
    usage: HashMap<String, Usage>,
    /// The packages of a call's changes written in an open transaction, waiting for
    /// [`StateStore::finish`].
    prepared: Option<Vec<String>>,
}

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS state (
        package TEXT NOT NULL,
        agent TEXT NOT NULL,
        key TEXT NOT NULL,
        value BLOB NOT NULL,
        PRIMARY KEY (package, agent, key)
    ) WITHOUT ROWID;";

impl StateStore {
    /// The store in the file `path`, made if missing.
    pub fn open(path: &Path) -> Result<StateStore, String> {
        let store = StateStore::deferred(path);
        store.ready()?;
        Ok(store)
    }

    /// The store in the file `path`, made if missing, opened when first used: start-up does
    /// not touch the file, and a host whose packages keep no state never does. An error
    /// opening it is the error of that first use ([`StateStore::ready`] asks at once).
    pub fn deferred(path: &Path) -> StateStore {
        StateStore {
            db: OnceCell::new(),
            path: Some(path.to_path_buf()),
            pending: BTreeMap::new(),
            usage: HashMap::new(),
            prepared: None,
        }
    }

    /// Opens the database now if it is not open yet; why it cannot be, if so.
    pub fn ready(&self) -> Result<(), String> {
        self.connection().map(|_| ())
    }

    fn connection(&self) -> Result<&Connection, String> {
        let opened = self.db.get_or_init(|| match &self.path {
            Some(path) => open_file(path),
            None => Err("the state store was never opened".into()),
        });
        opened.as_ref().map_err(Clone::clone)
    }

    /// A store that lives as long as the process (hosts without a trace folder, tests).
    pub fn in_memory() -> StateStore {
        let db = Connection::open_in_memory().expect("an in-memory SQLite database opens");
        db.execute_batch(SCHEMA).expect("the state schema applies");
        StateStore::over(Ok(db))
    }

    /// No store: every operation fails with `why` (a worker thread's scratch realm).
    pub fn unavailable(why: &'static str) -> StateStore {
        StateStore::over(Err(why.to_string()))
    }

    fn over(db: Result<Connection, String>) -> StateStore {
        StateStore {
            db: OnceCell::from(db),
            path: None,
            pending: BTreeMap::new(),
            usage: HashMap::new(),
            prepared: None,
        }
    }

    fn db(&self) -> Result<&Connection, StateError> {
        self.connection().map_err(StateError::Unavailable)
    }

    /// The open database to write to, `None` when there is none.
    fn db_mut(&mut self) -> Option<&mut Connection> {
        let _ = self.connection();
        self.db.get_mut().and_then(|db| db.as_mut().ok())
    }
}

/// Opens (or makes) the state database in `path`.
fn open_file(path: &Path) -> Result<Connection, String> {
    let fail =
        |e: &dyn fmt::Display| format!("{}: cannot open the state store: {e}", path.display());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| fail(&e))?;
    }
    let db = Connection::open(path).map_err(|e| fail(&e))?;
    db.pragma_update(None, "journal_mode", "WAL")
        .map_err(|e| fail(&e))?;
    db.pragma_update(None, "synchronous", "FULL")
        .map_err(|e| fail(&e))?;
    db.execute_batch(SCHEMA).map_err(|e| fail(&e))?;
    Ok(db)
}

impl StateStore {
    /// The value of `key` in `package`'s scope (or `agent`'s within it), as the call in
    /// progress sees it.
    pub fn get(
        &mut self,
        package: &str,
        agent: Option<&str>,
        key: &str,
    ) -> Result<Option<Vec<u8>>, StateError> {
        let slot = slot(package, agent, key)?;
        if let Some(pending) = self.pending.get(&slot) {
            return Ok(pending.clone());
        }
        self.stored(&slot)
    }

    fn stored(&self, slot: &Slot) -> Result<Option<Vec<u8>>, StateError> {
        let mut statement = self
            .db()?
            .prepare_cached(
                "SELECT value FROM state WHERE package = ?1 AND agent = ?2 AND key = ?3",
            )
            .map_err(storage)?;
        statement
            .query_row(params![slot.package, slot.agent, slot.key], |row| {
                row.get(0)
            })
            .optional()
            .map_err(storage)
    }

    /// Sets `key` to `value`, within `quota` for the whole package.
    pub fn set(
        &mut self,
        package: &str,
        agent: Option<&str>,
        key: &str,
        value: Vec<u8>,
        quota: Usage,
    ) -> Result<(), StateError> {
        let slot = slot(package, agent, key)?;
        if value.len() > MAX_STATE_VALUE_BYTES {
            return Err(StateError::Invalid(format!(
                "the value of `{key}` is {} bytes, over the {MAX_STATE_VALUE_BYTES} byte limit of one value",
                value.len()
            )));
        }
        let before = self.get(package, agent, key)?;
        let mut after = self.usage(package)?;
        if let Some(old) = &before {
            after.keys -= 1;
            after.bytes -= (key.len() + old.len()) as u64;
        }
        after.keys += 1;
        after.bytes += (key.len() + value.len()) as u64;
        if after.keys > quota.keys || after.bytes > quota.bytes {
            return Err(StateError::Quota(format!(
                "setting `{key}` would take package `{package}`'s state to {} keys and {} bytes, past its quota of {} keys and {} bytes; delete keys or ask the host for a larger `state` grant",
                after.keys, after.bytes, quota.keys, quota.bytes
            )));
        }
        self.pending.insert(slot, Some(value));
        Ok(())
    }

    /// Removes `key`; false when there was none.
    pub fn delete(
        &mut self,
        package: &str,
        agent: Option<&str>,
        key: &str,
    ) -> Result<bool, StateError> {
        let existed = self.get(package, agent, key)?.is_some();
        if existed {
            self.pending.insert(slot(package, agent, key)?, None);
        }
        Ok(existed)
    }

    /// The keys starting with `prefix` in the scope, sorted, as the call sees them.
    pub fn keys(
        &mut self,
        package: &str,
        agent: Option<&str>,
        prefix: &str,
    ) -> Result<Vec<String>, StateError> {
        let agent = scope_column(agent);
        let mut keys: std::collections::BTreeSet<String> = {
            let mut statement = self
                .db()?
                .prepare_cached(
                    "SELECT key FROM state WHERE package = ?1 AND agent = ?2 AND substr(key, 1, length(?3)) = ?3",
                )
                .map_err(storage)?;
            let rows = statement
                .query_map(params![package, agent, prefix], |row| row.get(0))
                .map_err(storage)?;
            rows.collect::<Result<_, _>>().map_err(storage)?
        };
        for (slot, value) in &self.pending {
            if slot.package == package && slot.agent == agent && slot.key.starts_with(prefix) {
                match value {
                    Some(_) => keys.insert(slot.key.clone()),
                    None => keys.remove(&slot.key),
                };
            }
        }
        Ok(keys.into_iter().collect())
    }

    /// `package`'s usage as the call in progress sees it (stored plus pending).
    pub fn usage(&mut self, package: &str) -> Result<Usage, StateError> {
        let mut usage = self.committed_usage(package)?;
        let pending: Vec<(Slot, Option<usize>)> = self
            .pending
            .iter()
            .filter(|(slot, _)| slot.package == package)
            .map(|(slot, value)| (slot.clone(), value.as_ref().map(Vec::len)))
            .collect();
        for (slot, value) in pending {
            if let Some(old) = self.stored(&slot)? {
                usage.keys -= 1;
                usage.bytes -= (slot.key.len() + old.len()) as u64;
            }
            if let Some(len) = value {
                usage.keys += 1;
                usage.bytes += (slot.key.len() + len) as u64;
            }
        }
        Ok(usage)
    }

    fn committed_usage(&mut self, package: &str) -> Result<Usage, StateError> {
        if let Some(usage) = self.usage.get(package) {
            return Ok(*usage);
        }
        let (keys, bytes): (i64, i64) = self
            .db()?
            .query_row(
                "SELECT count(*), coalesce(sum(length(CAST(key AS BLOB)) + length(value)), 0) FROM state WHERE package = ?1",
                params![package],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(storage)?;
        let usage = Usage {
            keys: keys as u64,
            bytes: bytes as u64,
        };
        self.usage.insert(package.to_string(), usage);
        Ok(usage)
    }

    /// Starts a call: nothing pending.
    /// Whether a call's changes wait in an open transaction for [`StateStore::finish`].
    pub fn has_prepared(&self) -> bool {
        self.prepared.is_some()
    }

    pub fn begin(&mut self) {
        self.pending.clear();
    }

    /// Drops what the call in progress changed (its prepared transaction too).
    pub fn rollback(&mut self) {
        self.pending.clear();
        if let Err(e) = self.finish(false) {
            crate::log::error(&e);
        }
    }

    /// Writes what the call in progress changed, in one transaction, durably: [`prepare`]
    /// then [`finish`]. On failure nothing is written and the changes are dropped.
    ///
    /// [`prepare`]: StateStore::prepare
    /// [`finish`]: StateStore::finish
    pub fn commit(&mut self) -> Result<(), String> {
        self.prepare()?;
        self.finish(true)
    }

    /// The first half of a commit: writes what the call in progress changed inside a
    /// transaction left open, so every check and write that can fail has run, and nothing is
    /// durable or seen by a reopened store until [`StateStore::finish`]. The registry writes
    /// the call's trace in between: a call the trace cannot record leaves its state as it
    /// was. On failure nothing is written and the changes are dropped.
    pub fn prepare(&mut self) -> Result<(), String> {
        // A transaction left open by a call that never finished is not this call's.
        self.finish(false)?;
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let packages: Vec<String> = pending
            .keys()
            .map(|s| s.package.clone())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let Some(db) = self.db_mut() else {
            return Err(
                "the call's state changes could not be saved: the store is unavailable".into(),
            );
        };
        let written = write_pending(db, &pending);
        self.prepared = Some(packages);
        match written {
            Ok(()) => Ok(()),
            Err(e) => {
                self.finish(false)?;
                Err(format!("the call's state changes could not be saved: {e}"))
            }
        }
    }

    /// The second half of a commit: the prepared transaction made durable (`keep`) or
    /// undone. Nothing prepared: nothing to do.
    pub fn finish(&mut self, keep: bool) -> Result<(), String> {
        let Some(packages) = self.prepared.take() else {
            return Ok(());
        };
        // Usage is read again from what is stored now, whichever way it went.
        for package in packages {
            self.usage.remove(&package);
        }
        let Some(db) = self.db_mut() else {
            return Ok(());
        };
        if db.is_autocommit() {
            // The transaction never began (its BEGIN failed) or SQLite already ended it.
            return match keep {
                false => Ok(()),
                true => Err(
                    "the call's state changes could not be saved: their transaction \
                             ended before its commit"
                        .into(),
                ),
            };
        }
        let end = if keep { "COMMIT" } else { "ROLLBACK" };
        match db.execute_batch(end) {
            Ok(()) => Ok(()),
            Err(e) => {
                // A failed COMMIT may leave the transaction open: end it, undone.
                if !db.is_autocommit() {
                    let _ = db.execute_batch("ROLLBACK");
                }
                Err(format!(
                    "the call's state changes could not be {}: {e}",
                    if keep { "saved" } else { "undone" }
                ))
            }
        }
    }
}

/// Opens a transaction on `db` and writes `pending` into it, leaving it open.
fn write_pending(
    db: &mut Connection,
    pending: &BTreeMap<Slot, Option<Vec<u8>>>,
) -> rusqlite::Result<()> {
    db.execute_batch("BEGIN IMMEDIATE")?;
    let mut put = db.prepare_cached(
        "INSERT INTO state (package, agent, key, value) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (package, agent, key) DO UPDATE SET value = excluded.value",
    )?;
    let mut remove =
        db.prepare_cached("DELETE FROM state WHERE package = ?1 AND agent = ?2 AND key = ?3")?;
    for (slot, value) in pending {
        match value {
            Some(value) => put.execute(params![slot.package, slot.agent, slot.key, value])?,
            None => remove.execute(params![slot.package, slot.agent, slot.key])?,
        };
    }
    Ok(())
}

fn slot(package: &str, agent: Option<&str>, key: &str) -> Result<Slot, StateError> {
    if key.is_empty() || key.len() > MAX_STATE_KEY_BYTES {
        return Err(StateError::Invalid(format!(
            "a state key must be 1 to {MAX_STATE_KEY_BYTES} bytes long, got {}",
            key.len()
        )));
    }
    Ok(Slot {
        package: package.to_string(),
        agent: scope_column(agent),
        key: key.to_string(),
    })
}

fn scope_column(agent: Option<&str>) -> String {
    agent.map_or_else(String::new, |a| format!("@{a}"))
}

fn storage(e: rusqlite::Error) -> StateError {
    StateError::Unavailable(format!("the state store failed: {e}"))
}

#[cfg(test)]
mod tests;
