//! State: each package's own key-value store, kept by the host — an NPC's memory, a game's
//! scores. Keys live in a scope: the package's (shared by every caller) or the calling
//! agent's (an agent's own memory, which no other agent's call reaches: the agent is the
//! session's, never an argument).
//!
//! A call's state changes share its fate: they are held aside while it runs (its own reads
//! see them), and kept only once the call succeeded and its trace events are written
//! ([`StateStore::end_call`]); dropped when it fails, is cancelled or cannot be recorded, as
//! the world's changes are rolled back. Kept changes are made durable (SQLite, WAL,
//! `synchronous = FULL`) either at once, or — when the engine groups commits
//! ([`StateStore::group_commits`]) — by a writer thread that syncs many calls' changes at once
//! while the engine goes on, each reply waiting for its own (`in_flight.rs`, `writer.rs`). A
//! package's state is bounded by its grant's quota (keys, and bytes of keys and values
//! together), checked on every write against what is stored plus what is in flight and
//! pending. The store is `state.sqlite` in the trace folder, so it survives restarts; a host
//! without a trace folder keeps it in memory. The engine is its only writer, so it reads the
//! scopes it uses from a copy it keeps up to date (`cache.rs`), not from SQLite.
//!
//! Calls run on the engine own the store; a package holding a state grant never runs on a
//! worker thread (its call could not commit or roll back with the world's there).

mod cache;
mod in_flight;
mod writer;

pub use in_flight::Wake;
pub use writer::Settled;

use crate::limits::{MAX_STATE_KEY_BYTES, MAX_STATE_VALUE_BYTES};
use rusqlite::{Connection, params};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Usage per package of what is stored and in flight, read once and kept up to date.
    usage: HashMap<String, Usage>,
    /// Kept calls' changes on their way to the disk, when commits are grouped.
    in_flight: in_flight::InFlight,
    /// The scopes read, as kept calls left them (`cache.rs`).
    cache: cache::Cache,
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
            in_flight: in_flight::InFlight::default(),
            cache: cache::Cache::default(),
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
            in_flight: in_flight::InFlight::default(),
            cache: cache::Cache::default(),
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
        self.kept(&slot)
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
        self.in_flight.check_writable()?;
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
        self.in_flight.check_writable()?;
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
        let copy: Option<Vec<String>> = self.copied(package, &agent)?.map(|scope| {
            scope
                .entries
                .range(prefix.to_string()..)
                .take_while(|(key, _)| key.starts_with(prefix))
                .map(|(key, _)| key.clone())
                .collect()
        });
        // Sorted, as kept calls left them.
        let mut keys = match copy {
            Some(keys) => {
                // What is in flight is in the copy already; the scan notes what the reply owes.
                self.in_flight.scan(package, &agent, prefix, |_, _| {});
                keys
            }
            None => {
                let mut in_flight = Vec::new();
                self.in_flight.scan(package, &agent, prefix, |key, set| {
                    in_flight.push((key.to_string(), set));
                });
                let mut statement = self
                    .db()?
                    .prepare_cached(
                        "SELECT key FROM state WHERE package = ?1 AND agent = ?2 AND substr(key, 1, length(?3)) = ?3",
                    )
                    .map_err(storage)?;
                let rows = statement
                    .query_map(params![package, agent, prefix], |row| row.get(0))
                    .map_err(storage)?;
                let mut keys: std::collections::BTreeSet<String> =
                    rows.collect::<Result<_, _>>().map_err(storage)?;
                for (key, set) in in_flight {
                    match set {
                        true => keys.insert(key),
                        false => keys.remove(&key),
                    };
                }
                keys.into_iter().collect()
            }
        };
        // What the call in progress did wins.
        let pending = self.pending.iter().filter(|(slot, _)| {
            slot.package == package && slot.agent == agent && slot.key.starts_with(prefix)
        });
        for (slot, value) in pending {
            match (keys.binary_search(&slot.key), value) {
                (Err(at), Some(_)) => keys.insert(at, slot.key.clone()),
                (Ok(at), None) => drop(keys.remove(at)),
                _ => {}
            }
        }
        Ok(keys)
    }

    /// `package`'s usage as the call in progress sees it (stored, in flight and pending).
    pub fn usage(&mut self, package: &str) -> Result<Usage, StateError> {
        let mut usage = self.kept_usage(package)?;
        let pending: Vec<(Slot, Option<usize>)> = self
            .pending
            .iter()
            .filter(|(slot, _)| slot.package == package)
            .map(|(slot, value)| (slot.clone(), value.as_ref().map(Vec::len)))
            .collect();
        for (slot, value) in pending {
            let before = self.kept(&slot)?.map(|v| v.len());
            usage = usage.replacing(&slot.key, before, value);
        }
        Ok(usage)
    }

    /// `package`'s usage as kept calls left it: what is stored, with what is in flight.
    fn kept_usage(&mut self, package: &str) -> Result<Usage, StateError> {
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
        let mut usage = Usage {
            keys: keys as u64,
            bytes: bytes as u64,
        };
        for (slot, value) in self.in_flight.of_package(package) {
            let before = self.stored(&slot)?.map(|v| v.len());
            usage = usage.replacing(&slot.key, before, value);
        }
        self.usage.insert(package.to_string(), usage);
        Ok(usage)
    }

    /// Starts a call: nothing pending.
    pub fn begin(&mut self) {
        self.pending.clear();
    }

    /// Whether the call in progress has changed anything.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Drops what the call in progress changed.
    pub fn rollback(&mut self) {
        self.pending.clear();
    }

    /// Ends the call in progress, once its events are written (`keep`) or not: its changes
    /// are kept — written and synced now, or handed to the writer when commits are grouped —
    /// or dropped. On a failure to keep them nothing of them is kept, and the error says so.
    pub fn end_call(&mut self, keep: bool) -> Result<(), String> {
        let pending = std::mem::take(&mut self.pending);
        if !keep || pending.is_empty() {
            return Ok(());
        }
        let packages: std::collections::BTreeSet<String> =
            pending.keys().map(|s| s.package.clone()).collect();
        // Usage after the call, counted before its changes leave `pending`.
        self.pending = pending;
        let after: Result<Vec<(String, Usage)>, StateError> = packages
            .into_iter()
            .map(|p| self.usage(&p).map(|u| (p, u)))
            .collect();
        let pending = std::mem::take(&mut self.pending);
        let fail =
            |e: &dyn fmt::Display| format!("the call's state changes could not be saved: {e}");
        let after = after.map_err(|e| fail(&e))?;
        let kept = if self.in_flight.grouped()
            && let Some(path) = self.path.clone()
        {
            self.cache.apply(&pending);
            self.in_flight.send(&path, pending).map(|_| ())
        } else {
            let written = match self.db_mut() {
                Some(db) => {
                    writer::write_group(db, std::iter::once(&pending)).map_err(|e| e.to_string())
                }
                None => Err("the store is unavailable".into()),
            };
            if written.is_ok() {
                self.cache.apply(&pending);
            }
            written
        };
        match kept {
            Ok(()) => {
                self.usage.extend(after);
                Ok(())
            }
            Err(e) => {
                self.usage.clear();
                self.cache.clear();
                Err(fail(&e))
            }
        }
    }

    /// From now on kept calls' changes go to a writer thread, which makes many calls'
    /// changes durable with one sync while the engine goes on; `wake` is called when some
    /// are settled ([`StateStore::settle`]). A store without a file writes at once as before.
    pub fn group_commits(&mut self, wake: impl Fn() + Send + Sync + 'static) {
        let wake: Wake = Arc::new(wake);
        self.in_flight.group(wake);
    }

    /// The newest ticket the replies made since the last take must wait for ([`Settled`]
    /// says when it is durable), `None` when they told of nothing in flight.
    pub fn take_owed(&mut self) -> Option<u64> {
        self.in_flight.take_owed()
    }

    /// What the writer settled since the last look, oldest first: the replies waiting on
    /// tickets up to a `Durable` may leave; those waiting on a `Failed` one must say their
    /// state was not saved.
    pub fn settle(&mut self) -> Vec<Settled> {
        let (settled, failed) = self.in_flight.settle();
        if failed {
            self.usage.clear();
            self.cache.clear();
        }
        settled
    }

    /// [`StateStore::settle`], waiting first until every ticket handed out is settled.
    pub fn settle_all(&mut self) -> Vec<Settled> {
        let (settled, failed) = self.in_flight.settle_all();
        if failed {
            self.usage.clear();
            self.cache.clear();
        }
        settled
    }
}

impl Usage {
    /// This usage after `key`'s value went from `before` bytes to `after` (`None`: absent).
    fn replacing(mut self, key: &str, before: Option<usize>, after: Option<usize>) -> Usage {
        if let Some(old) = before {
            self.keys -= 1;
            self.bytes -= (key.len() + old) as u64;
        }
        if let Some(new) = after {
            self.keys += 1;
            self.bytes += (key.len() + new) as u64;
        }
        self
    }
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
