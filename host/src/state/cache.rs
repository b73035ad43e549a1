//! The engine's copy of the scopes it reads, as kept calls left them (stored, then in flight).
//! The engine is the database's only writer, so the copy stays true without asking SQLite:
//! every kept call's changes are applied here as they leave for the disk. Without it each read
//! was a read transaction of its own, and each commit of the writer thread dropped the engine
//! connection's page cache, so a call listing a scope of 256 keys re-read its pages from the
//! file (a third of the engine's time at 4,000 `memory.remember`/s, `perf`, 2026-11-28).
//!
//! A scope is loaded whole on its first read and evicted least recently used past
//! `STATE_CACHE_BYTES`; one larger than `STATE_CACHE_SCOPE_BYTES` is not copied (its reads go
//! to SQLite as before). When a group cannot be written the copy is dropped whole: it may
//! hold what was lost.

use super::writer::Changes;
use super::{Slot, StateError, StateStore, storage};
use crate::limits::{STATE_CACHE_BYTES, STATE_CACHE_SCOPE_BYTES};
use rusqlite::{OptionalExtension, params};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What one entry costs beyond its key and value (the map's node, the strings' headers).
const ENTRY_OVERHEAD: usize = 64;

/// One scope's keys and values.
pub(super) struct Scope {
    pub entries: BTreeMap<String, Vec<u8>>,
    bytes: usize,
    used: u64,
}

/// The scopes copied (by package, then agent column: `""` for the package's own), and those
/// found too large to copy.
#[derive(Default)]
pub(super) struct Cache {
    scopes: HashMap<String, HashMap<String, Scope>>,
    too_large: HashMap<String, HashSet<String>>,
    bytes: usize,
    /// Rises with every look: a scope's `used` says how recently it was read.
    clock: u64,
}

fn cost(key: &str, value: &[u8]) -> usize {
    key.len() + value.len() + ENTRY_OVERHEAD
}

impl Cache {
    /// The copy of `package`'s scope `agent`, if it is held.
    pub fn scope(&mut self, package: &str, agent: &str) -> Option<&Scope> {
        self.clock += 1;
        let scope = self.scopes.get_mut(package)?.get_mut(agent)?;
        scope.used = self.clock;
        Some(scope)
    }

    /// Whether the scope was found too large to copy.
    pub fn is_too_large(&self, package: &str, agent: &str) -> bool {
        self.too_large
            .get(package)
            .is_some_and(|agents| agents.contains(agent))
    }

    /// Takes a scope read whole (`None`: it was larger than a scope may be).
    pub fn insert(
        &mut self,
        package: &str,
        agent: &str,
        entries: Option<BTreeMap<String, Vec<u8>>>,
    ) {
        let Some(entries) = entries else {
            self.too_large
                .entry(package.to_string())
                .or_default()
                .insert(agent.to_string());
            return;
        };
        let bytes = entries.iter().map(|(k, v)| cost(k, v)).sum();
        self.clock += 1;
        self.bytes += bytes;
        let old = self.scopes.entry(package.to_string()).or_default().insert(
            agent.to_string(),
            Scope {
                entries,
                bytes,
                used: self.clock,
            },
        );
        if let Some(old) = old {
            self.bytes -= old.bytes;
        }
        self.evict();
    }

    /// Applies a kept call's changes to the scopes held; a scope they take past its bound
    /// is let go.
    pub fn apply(&mut self, changes: &Changes) {
        for (slot, value) in changes {
            let Some(scopes) = self.scopes.get_mut(&slot.package) else {
                continue;
            };
            let Some(scope) = scopes.get_mut(&slot.agent) else {
                continue;
            };
            let before = match value {
                Some(value) => scope.entries.insert(slot.key.clone(), value.clone()),
                None => scope.entries.remove(&slot.key),
            };
            let removed = before.map_or(0, |old| cost(&slot.key, &old));
            let added = value.as_ref().map_or(0, |new| cost(&slot.key, new));
            scope.bytes = scope.bytes + added - removed;
            self.bytes = self.bytes + added - removed;
            if scope.bytes > STATE_CACHE_SCOPE_BYTES {
                let gone = scopes.remove(&slot.agent).map_or(0, |s| s.bytes);
                self.bytes -= gone;
            }
        }
        self.evict();
    }

    /// Forgets every copy (a group was lost: they may hold what it wrote).
    pub fn clear(&mut self) {
        *self = Cache::default();
    }

    /// Lets the least recently read scopes go until the copies fit in three quarters of
    /// `STATE_CACHE_BYTES` (so a full cache does not evict on every load).
    fn evict(&mut self) {
        if self.bytes <= STATE_CACHE_BYTES {
            return;
        }
        let mut by_age: Vec<(u64, String, String)> = self
            .scopes
            .iter()
            .flat_map(|(p, agents)| agents.iter().map(|(a, s)| (s.used, p.clone(), a.clone())))
            .collect();
        by_age.sort_unstable();
        for (_, package, agent) in by_age {
            if self.bytes <= STATE_CACHE_BYTES / 4 * 3 {
                break;
            }
            if let Some(scope) = self.scopes.get_mut(&package).and_then(|a| a.remove(&agent)) {
                self.bytes -= scope.bytes;
            }
        }
        self.scopes.retain(|_, agents| !agents.is_empty());
    }

    /// Bytes held (tests).
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl StateStore {
    /// The value of `slot` as kept calls left it: in flight, else stored (from the copy of
    /// its scope when there is one).
    pub(super) fn kept(&mut self, slot: &Slot) -> Result<Option<Vec<u8>>, StateError> {
        if let Some(value) = self.in_flight.get(slot) {
            return Ok(value.clone());
        }
        if let Some(scope) = self.copied(&slot.package, &slot.agent)? {
            return Ok(scope.entries.get(&slot.key).cloned());
        }
        self.stored(slot)
    }

    /// The copy of `package`'s scope `agent` as kept calls left it, read whole from the
    /// database (and what is in flight) on first use; `None` when it is too large to copy.
    pub(super) fn copied(
        &mut self,
        package: &str,
        agent: &str,
    ) -> Result<Option<&Scope>, StateError> {
        if self.cache.scope(package, agent).is_none() && !self.cache.is_too_large(package, agent) {
            let mut entries = self.read_scope(package, agent)?;
            if let Some(entries) = &mut entries {
                for (key, value) in self.in_flight.of_scope(package, agent) {
                    match value {
                        Some(value) => entries.insert(key, value),
                        None => entries.remove(&key),
                    };
                }
            }
            self.cache.insert(package, agent, entries);
        }
        Ok(self.cache.scope(package, agent))
    }

    /// Every stored key and value of the scope, `None` once they pass what a copy may hold.
    fn read_scope(
        &self,
        package: &str,
        agent: &str,
    ) -> Result<Option<BTreeMap<String, Vec<u8>>>, StateError> {
        let mut statement = self
            .db()?
            .prepare_cached("SELECT key, value FROM state WHERE package = ?1 AND agent = ?2")
            .map_err(storage)?;
        let mut rows = statement.query(params![package, agent]).map_err(storage)?;
        let mut entries = BTreeMap::new();
        let mut bytes = 0;
        while let Some(row) = rows.next().map_err(storage)? {
            let key: String = row.get(0).map_err(storage)?;
            let value: Vec<u8> = row.get(1).map_err(storage)?;
            bytes += cost(&key, &value);
            if bytes > STATE_CACHE_SCOPE_BYTES {
                return Ok(None);
            }
            entries.insert(key, value);
        }
        Ok(Some(entries))
    }

    /// The value of `slot` in the database.
    pub(super) fn stored(&self, slot: &Slot) -> Result<Option<Vec<u8>>, StateError> {
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
}
