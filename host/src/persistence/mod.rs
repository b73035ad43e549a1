//! The world survives restarts and crashes: checkpoints of the whole world plus a journal of
//! every change since, both kept with the trace folder they belong to.
//!
//! How a change becomes durable: the world records each operation a call makes
//! (`world/oplog.rs`); when the call ends, the registry writes them as one `world.journal`
//! trace event ([`journal`]) before the call's `skill.executed`, so they are flushed (and,
//! under the trace's sync rules, synced) before the reply leaves, and they fail closed with
//! the trace. Real-time steps between calls ride along in the next record. A checkpoint
//! ([`checkpoint`]) writes the world whole, naming the last event it covers, once the trace
//! up to it is synced; trace retention keeps every event after the newest checkpoint, and
//! when it would cut into them a checkpoint is written first (older checkpoints are fallbacks
//! only while their journal is still there). The engine only takes a checkpoint's snapshot
//! (steps not yet journaled are journaled first, so nothing depends on the checkpoint being
//! written); encoding, writing and syncing happen off it ([`writer`]), and it learns the
//! outcome later ([`WorldStore::poll`], or the call that asked for it).
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
pub mod writer;

pub use checkpoint::CheckpointError;
pub use config::{RawWorld, WorldConfig, parse_world_section};
pub use replay_cost::{ReplayBound, ReplayCost};

use crate::limits::MAX_CHECKPOINTS_IN_FLIGHT;
use crate::realm::Realm;
use crate::world::{Op, World, WorldSettings};
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// Checkpoints being written off the engine, oldest first.
    writing: Vec<Writing>,
}

/// A checkpoint being written off the engine.
struct Writing {
    seq: u64,
    tick: u64,
    entities: usize,
    reason: String,
    replaced: bool,
    started: Instant,
    /// What a restart would replay without it: given back if it fails.
    cost: ReplayCost,
    pending: writer::Pending,
    /// A call waits for it and finishes it ([`WorldStore::start_for_call`]); while it does,
    /// [`WorldStore::poll`] leaves it alone.
    claimed: Arc<AtomicBool>,
}

/// A checkpoint started for a call, which waits for its outcome off the engine
/// (`done.wait()`) and gives it to [`WorldStore::finish`]. Dropped unfinished (the call was
/// refused, its client went away), it is finished between messages like any other.
pub struct Started {
    pub seq: u64,
    pub done: Arc<writer::Done>,
    _claim: Claim,
}

/// A call's hold on a checkpoint being written, let go when dropped.
struct Claim(Arc<AtomicBool>);

impl Drop for Claim {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
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
            writing: Vec::new(),
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
    /// journal after the newest checkpoint). Never while one is being written.
    pub fn due(&self, realm: &Realm) -> bool {
        if !self.writing.is_empty() {
            return false;
        }
        let scheduled = self
            .config
            .every
            .is_some_and(|every| self.last_checkpoint.elapsed() >= every)
            && (self.dirty || realm.world.has_pending_ops());
        let scan = realm.tracer.count().saturating_sub(self.covers) >= self.bound.events;
        scheduled || self.cost.over(self.bound) || scan || realm.tracer.pin_blocks_retention()
    }

    /// Writes a checkpoint of the realm's world and waits for it ([`WorldStore::start`],
    /// then [`WorldStore::finish`]): at shutdown, after a scene reload, in tests.
    pub fn checkpoint(&mut self, realm: &mut Realm, reason: &str, replaced: bool) -> Result<Value> {
        let started = self.start_for_call(realm, reason, replaced)?;
        let outcome = started.done.wait();
        self.finish(realm, started.seq, outcome)
    }

    /// Starts a checkpoint of the realm's world and returns at once; [`WorldStore::poll`]
    /// finishes it. Returns the event it covers. On failure the world and the journal are as
    /// they were.
    ///
    /// After the world was replaced whole (`replaced`: a scene reload, `--fresh-world`) the
    /// older checkpoints go once it is written: no journal leads from them to this world.
    pub fn start(&mut self, realm: &mut Realm, reason: &str, replaced: bool) -> Result<u64> {
        let seq = self.snapshot(realm, reason, replaced)?;
        Ok(seq)
    }

    /// [`WorldStore::start`] for a call that waits for the outcome itself.
    pub fn start_for_call(
        &mut self,
        realm: &mut Realm,
        reason: &str,
        replaced: bool,
    ) -> Result<Started> {
        let seq = self.snapshot(realm, reason, replaced)?;
        let writing = self.writing.last().expect("just started");
        writing.claimed.store(true, Ordering::Release);
        Ok(Started {
            seq,
            done: writing.pending.done.clone(),
            _claim: Claim(writing.claimed.clone()),
        })
    }

    /// The engine's part of a checkpoint: the steps not yet journaled journaled, the trace
    /// written, and the world's snapshot taken (`writer.rs`); the rest happens off it.
    fn snapshot(&mut self, realm: &mut Realm, reason: &str, replaced: bool) -> Result<u64> {
        if self.writing.len() >= MAX_CHECKPOINTS_IN_FLIGHT {
            bail!(
                "{} checkpoints are being written already; ask again once one is done",
                self.writing.len()
            );
        }
        let replaced = replaced || !realm.world.records_ops() || self.replaced(realm);
        // What changed the world since the last record (steps) goes to the journal first:
        // then the journal leads to the world whether or not this checkpoint is written.
        let mut pending = realm.world.pending_ops().to_vec();
        if realm.world.in_call()
            && let Some(begin) = pending.iter().rposition(|op| *op == Op::Begin)
        {
            // Taken inside a call (`world.checkpoint` on the engine): its frame is its own.
            pending.truncate(begin);
        }
        let journaled = !replaced && !pending.is_empty();
        if journaled {
            let tick = realm.world.tick();
            realm.tracer.emit(journal::host_record(&pending, tick));
        }
        let sync = realm
            .tracer
            .sync_job()
            .context("the trace could not be written, so no checkpoint was written")?;
        if journaled {
            self.note_record(&pending, realm.world.body_count());
        }
        // Everything recorded so far is in the snapshot (or the journal).
        realm.world.take_ops();
        let seq = realm.tracer.count();
        let dir = self.dir();
        let pending = writer::start(&realm.world, seq, &dir, sync)
            .with_context(|| format!("cannot write a world checkpoint in {}", dir.display()))?;
        if replaced {
            realm.world.record_ops(true);
            self.instance = realm.world.instance();
        }
        self.dirty = false;
        self.last_checkpoint = Instant::now();
        self.writing.push(Writing {
            seq,
            tick: realm.world.tick(),
            entities: realm.world.entity_count(),
            reason: reason.to_string(),
            replaced,
            started: Instant::now(),
            cost: std::mem::take(&mut self.cost),
            pending,
            claimed: Arc::default(),
        });
        Ok(seq)
    }

    /// The checkpoints whose writing ended since the last look (those no call waits for),
    /// finished: each one's summary, or why it was not written.
    pub fn poll(&mut self, realm: &mut Realm) -> Vec<Result<Value>> {
        let mut done = Vec::new();
        for writing in &self.writing {
            if writing.claimed.load(Ordering::Acquire) {
                continue;
            }
            match writing.pending.outcome.try_recv() {
                Ok(outcome) => done.push((writing.seq, outcome)),
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    done.push((writing.seq, Err("the checkpoint writer stopped".into())));
                }
            }
        }
        done.into_iter()
            .map(|(seq, outcome)| self.finish(realm, seq, outcome))
            .collect()
    }

    /// Waits for every checkpoint being written, and finishes those no call waits for (a
    /// call finishes its own when it completes, [`WorldStore::start_for_call`]).
    pub fn wait_all(&mut self, realm: &mut Realm) -> Vec<Result<Value>> {
        let done: Vec<(u64, writer::Outcome)> = self
            .writing
            .iter()
            .map(|w| {
                (
                    w.seq,
                    w.pending.done.wait(),
                    w.claimed.load(Ordering::Acquire),
                )
            })
            .filter(|(_, _, claimed)| !claimed)
            .map(|(seq, outcome, _)| (seq, outcome))
            .collect();
        done.into_iter()
            .map(|(seq, outcome)| self.finish(realm, seq, outcome))
            .collect()
    }

    /// Ends the checkpoint covering `seq` with its writer's `outcome`: once written, it is the
    /// newest (if no newer one is), the oldest beyond `keepCheckpoints` go and retention may
    /// cut before it; otherwise what a restart would replay is counted again. Its summary.
    pub fn finish(
        &mut self,
        realm: &mut Realm,
        seq: u64,
        outcome: writer::Outcome,
    ) -> Result<Value> {
        let Some(at) = self.writing.iter().position(|w| w.seq == seq) else {
            bail!("no checkpoint covering event {seq} is being written");
        };
        let writing = self.writing.remove(at);
        let written = match outcome {
            Ok(written) => written,
            Err(e) => {
                self.cost.add(writing.cost);
                self.dirty = true;
                bail!("{e}");
            }
        };
        self.covers = self.covers.max(seq);
        let kept = self.prune(
            &self.dir(),
            if writing.replaced {
                1
            } else {
                self.config.keep
            },
        )?;
        if let Some(newest) = kept.last() {
            realm.tracer.pin_from(newest.seq + 1);
        }
        let summary = json!({
            "file": written.path.display().to_string(),
            "coversEvent": seq,
            "tick": writing.tick,
            "entities": writing.entities,
            "bytes": written.bytes,
            "reason": writing.reason,
            "ms": writing.started.elapsed().as_secs_f64() * 1000.0,
        });
        crate::log::info(&format!(
            "world checkpoint ({}): {} entities at tick {} in {} ({} bytes)",
            writing.reason,
            writing.entities,
            writing.tick,
            written.path.display(),
            written.bytes
        ));
        Ok(summary)
    }

    /// Checkpoints being written.
    pub fn in_flight(&self) -> usize {
        self.writing.len()
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
