//! The world survives restarts and crashes: checkpoints of the whole world plus a journal of
//! every change since, both kept with the trace folder they belong to.
//!
//! How a change becomes durable: the world records each operation a call makes
//! (`world/oplog.rs`); when the call ends, the registry writes them as one `world.journal`
//! trace event ([`journal`]) before the call's `skill.executed`, so they are flushed (and,
//! under the trace's sync rules, synced) before the reply leaves, and they fail closed with
//! the trace. Real-time steps between calls ride along in the next record. A checkpoint
//! ([`checkpoint`]) syncs the trace, then writes the world whole, naming the last event it
//! covers; trace retention keeps every event after the newest checkpoint, and when it would
//! cut into them a checkpoint is written first (older checkpoints are fallbacks only while
//! their journal is still there).
//!
//! At start the host loads the newest checkpoint that reads and applies the journal after it
//! ([`WorldStore::restore`]): the world is as the last acknowledged call left it, to the bit,
//! because replaying the same operations on the same bytes takes the same path (physics
//! included). Checkpoints are written on a schedule while the world changes, at clean
//! shutdown, after a scene reload replaced the world, and on demand (`world.checkpoint`).

pub mod checkpoint;
mod config;
pub mod export;
pub mod journal;
pub mod replay_cost;

pub use checkpoint::CheckpointError;
pub use config::{RawWorld, WorldConfig, parse_world_section};
pub use replay_cost::{ReplayBound, ReplayCost};

use crate::realm::Realm;
use crate::world::{Op, World, WorldSettings};
use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The folder inside the trace folder that holds the world's checkpoints.
pub const WORLD_DIR: &str = "world";

/// The durable world of one trace folder.
pub struct WorldStore {
    trace_dir: PathBuf,
    config: WorldConfig,
    last_checkpoint: Instant,
    /// The world value the store keeps (a scene reload swaps in another: it is checkpointed).
    instance: u64,
    /// A journal record was written since the last checkpoint.
    dirty: bool,
    /// What a restart would replay now, and where a checkpoint is written to bound it.
    cost: ReplayCost,
    bound: ReplayBound,
    /// The last event the newest checkpoint covers (0: none yet).
    covers: u64,
}

/// What a start-up restore found.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    /// The checkpoint loaded, if any.
    pub checkpoint: Option<PathBuf>,
    pub records: u64,
    pub ops: u64,
    /// What the replay cost: the journal after the checkpoint loaded.
    pub cost: ReplayCost,
}

impl WorldStore {
    /// The store for the trace folder `trace_dir`.
    pub fn new(trace_dir: &Path, config: WorldConfig) -> WorldStore {
        WorldStore {
            trace_dir: trace_dir.to_path_buf(),
            config,
            last_checkpoint: Instant::now(),
            instance: 0,
            dirty: false,
            cost: ReplayCost::default(),
            bound: ReplayBound::default(),
            covers: 0,
        }
    }

    /// The same store with a checkpoint written whenever the journal after the newest one
    /// reaches `bound` (the default is in `limits.rs`).
    pub fn with_replay_bound(mut self, bound: ReplayBound) -> WorldStore {
        self.bound = bound;
        self
    }

    /// What a restart would replay now.
    pub fn replay_cost(&self) -> ReplayCost {
        self.cost
    }

    /// Where the checkpoints are.
    pub fn dir(&self) -> PathBuf {
        self.trace_dir.join(WORLD_DIR)
    }

    /// The world as the trace folder last left it: the newest checkpoint that reads (an older
    /// one, with a warning, when the newest is damaged) and the journal after it. An
    /// incompatible checkpoint stops the start with a message; nothing is half-loaded. The
    /// journal replayed counts toward the next checkpoint, as if this run had written it.
    pub fn restore(&mut self, settings: WorldSettings) -> Result<(World, Restored)> {
        let (world, restored) = load(&self.trace_dir, settings)?;
        self.cost = restored.cost;
        Ok((world, restored))
    }

    /// Takes charge of the realm's world: its operations are recorded from now on, and the
    /// trace keeps the journal after the newest checkpoint.
    pub fn adopt(&mut self, realm: &mut Realm) -> Result<()> {
        realm.world.record_ops(true);
        self.instance = realm.world.instance();
        // Without a checkpoint the whole journal is the world: all of it is kept.
        let newest = checkpoint::list(&self.dir())?.last().map_or(0, |c| c.seq);
        self.covers = newest;
        realm.tracer.pin_from(newest + 1);
        Ok(())
    }

    /// A journal record holding `ops` was written while the world held `bodies` bodies.
    pub fn note_record(&mut self, ops: &[Op], bodies: usize) {
        self.dirty = true;
        self.cost.add_record(ops, bodies);
    }

    /// Whether the world in the realm is not the one this store adopted (a scene reload
    /// replaced it): it must be checkpointed before anything else is recorded on it.
    pub fn replaced(&self, realm: &Realm) -> bool {
        realm.world.instance() != self.instance
    }

    /// Whether to checkpoint now: the period passed and the world changed, a restart would
    /// replay or scan more than the bound, or trace retention waits for one (it keeps the
    /// journal after the newest checkpoint).
    pub fn due(&self, realm: &Realm) -> bool {
        let scheduled = self
            .config
            .every
            .is_some_and(|every| self.last_checkpoint.elapsed() >= every)
            && (self.dirty || realm.world.has_pending_ops());
        let scan = realm.tracer.count().saturating_sub(self.covers) >= self.bound.events;
        scheduled || self.cost.over(self.bound) || scan || realm.tracer.pin_blocks_retention()
    }

    /// Writes a checkpoint of the realm's world: the trace is synced first (the checkpoint
    /// names its last event, which must be on disk), then the world is written atomically,
    /// the oldest checkpoints beyond `keepCheckpoints` go, and `world.checkpointed` is
    /// traced. On failure the world and the journal are as they were.
    ///
    /// After the world was replaced whole (`replaced`: a scene reload, `--fresh-world`) the
    /// older checkpoints go: no journal leads from them to this world.
    pub fn checkpoint(&mut self, realm: &mut Realm, reason: &str, replaced: bool) -> Result<Value> {
        let started = Instant::now();
        realm
            .tracer
            .sync()
            .context("the trace could not be synced, so no checkpoint was written")?;
        let seq = realm.tracer.count();
        let bytes = checkpoint::encode(&realm.world, seq);
        let dir = self.dir();
        let path = checkpoint::write(&dir, seq, &bytes)
            .with_context(|| format!("cannot write a world checkpoint in {}", dir.display()))?;
        // Everything recorded so far is in the checkpoint.
        realm.world.take_ops();
        if !realm.world.records_ops() || self.replaced(realm) {
            realm.world.record_ops(true);
            self.instance = realm.world.instance();
        }
        self.dirty = false;
        self.cost = ReplayCost::default();
        self.covers = seq;
        self.last_checkpoint = Instant::now();
        let kept = self.prune(&dir, if replaced { 1 } else { self.config.keep })?;
        if let Some(newest) = kept.last() {
            realm.tracer.pin_from(newest.seq + 1);
        }
        let summary = json!({
            "file": path.display().to_string(),
            "coversEvent": seq,
            "tick": realm.world.tick(),
            "entities": realm.world.entity_count(),
            "bytes": bytes.len(),
            "reason": reason,
            "ms": started.elapsed().as_secs_f64() * 1000.0,
        });
        crate::log::info(&format!(
            "world checkpoint ({reason}): {} entities at tick {} in {} ({} bytes)",
            realm.world.entity_count(),
            realm.world.tick(),
            path.display(),
            bytes.len()
        ));
        Ok(summary)
    }

    /// Removes the oldest checkpoints beyond the configured number; returns those kept.
    fn prune(&self, dir: &Path, keep: usize) -> Result<Vec<checkpoint::Found>> {
        let mut found = checkpoint::list(dir)?;
        let extra = found.len().saturating_sub(keep.max(1));
        for old in found.drain(..extra) {
            if let Err(e) = std::fs::remove_file(&old.path) {
                crate::log::warn(&format!(
                    "cannot remove the old world checkpoint {}: {e}",
                    old.path.display()
                ));
            }
        }
        Ok(found)
    }
}

/// The world of the trace folder `trace_dir` (see [`WorldStore::restore`]); also what
/// `limina world export` reads, beside a running host or not.
pub fn load(trace_dir: &Path, settings: WorldSettings) -> Result<(World, Restored)> {
    let dir = trace_dir.join(WORLD_DIR);
    let mut found = checkpoint::list(&dir)
        .with_context(|| format!("cannot list the world checkpoints in {}", dir.display()))?;
    let mut chosen = None;
    while let Some(newest) = found.pop() {
        match checkpoint::read(&newest.path, settings.clone()) {
            Ok((world, seq)) => {
                chosen = Some((world, seq, newest.path));
                break;
            }
            Err(e @ CheckpointError::Incompatible { .. }) => return Err(e.into()),
            Err(e) if !found.is_empty() => {
                crate::log::warn(&format!("{e}; loading the one before it"));
            }
            Err(e) => {
                return Err(anyhow::Error::new(e).context(
                    "no world checkpoint could be loaded; move the world folder aside or start \
                     with --fresh-world",
                ));
            }
        }
    }
    let (mut world, after, path) = match chosen {
        Some((world, seq, path)) => (world, seq, Some(path)),
        None => (World::new(settings.clone()), 0, None),
    };
    let replayed = journal::replay(&mut world, trace_dir, after)?;
    if world.settings().tick_seconds != settings.tick_seconds {
        world.set_tick_seconds(settings.tick_seconds);
    }
    Ok((
        world,
        Restored {
            checkpoint: path,
            records: replayed.records,
            ops: replayed.ops,
            cost: replayed.cost,
        },
    ))
}

#[cfg(test)]
mod tests;
