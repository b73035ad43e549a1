//! The redo side of the world: every mutation that reaches the world from outside, recorded as
//! the operation and its arguments, in order, with the steps and call boundaries between them.
//!
//! Why operations and not the state they left: the world is deterministic. Replaying the same
//! operations on a world restored byte for byte (a checkpoint, `checkpoint.rs`) reproduces
//! every position, velocity, handle and rapier cache exactly, so physics stepped after a
//! restart goes on as it would have. A state diff could not promise that: rapier's contact
//! caches, islands and free lists are not in any diff. Calls that were rolled back are kept
//! too (their ops, then `Rollback`), since undoing leaves rapier's internals changed.
//!
//! Only the outermost operation is recorded (`say` creating a panel records `say`), and
//! nothing is recorded until the host turns the log on ([`World::record_ops`]).

use super::{
    ApproachTarget, Bus, EntitySpec, GltfResource, Heard, Lighting, MaterialPatch, SoundSpec, World,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One mutation of the world as it was asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Op {
    /// Consecutive simulation steps.
    Steps(u64),
    /// A call began ([`World::begin`]).
    Begin,
    /// The call was kept.
    Commit,
    /// The call was undone.
    Rollback,
    CreateEntity(EntitySpec),
    DestroyEntity(String),
    SetTransform {
        id: String,
        position: Option<[f64; 3]>,
        rotation: Option<[f64; 4]>,
        scale: Option<[f64; 3]>,
    },
    AddTag(String, String),
    RemoveTag(String, String),
    SetMaterial(String, MaterialPatch),
    SetLighting(Lighting),
    ApplyImpulse(String, [f64; 3]),
    DrainCollisions,
    CreatePanel {
        kind: String,
        #[serde(with = "super::json_text")]
        spec: Value,
        owner: String,
    },
    UpdatePanel {
        handle: String,
        #[serde(with = "super::json_text")]
        patch: Value,
    },
    RemovePanel(String),
    PlaySound(SoundSpec, String),
    StopSound(String),
    SetSoundVolume(String, f64),
    SetBusVolume(Bus, f64),
    Approach {
        agent: String,
        target: ApproachTarget,
        talk_distance: Option<f64>,
    },
    Hear(Heard),
    Say {
        agent: String,
        text: String,
    },
    /// A glTF asset placed (the file's summary, so replay reads no file).
    PlaceGltf {
        resource: GltfResource,
        position: [f64; 3],
    },
}

/// The recorded operations not yet taken, and whether recording is on.
#[derive(Debug, Default)]
pub(super) struct OpLog {
    on: bool,
    /// How deep inside a recorded operation we are: nested ones are not recorded.
    depth: u32,
    ops: Vec<Op>,
}

impl World {
    /// Turns recording of operations on or off (off drops what was recorded).
    pub fn record_ops(&mut self, on: bool) {
        self.oplog.on = on;
        if !on {
            self.oplog.ops.clear();
        }
    }

    /// Whether operations are being recorded.
    pub fn records_ops(&self) -> bool {
        self.oplog.on
    }

    /// Whether an operation starting now is recorded: recording is on and no recorded
    /// operation is running (its own record covers what nested ones do).
    pub(super) fn wants_op(&self) -> bool {
        self.oplog.on && self.oplog.depth == 0
    }

    /// Runs `f` as one recorded operation, recording `op` first (`Some` when
    /// [`World::wants_op`]).
    pub(super) fn logged<R>(&mut self, op: Option<Op>, f: impl FnOnce(&mut World) -> R) -> R {
        if !self.oplog.on {
            return f(self);
        }
        if let Some(op) = op {
            self.oplog.ops.push(op);
        }
        self.oplog.depth += 1;
        let out = f(self);
        self.oplog.depth -= 1;
        out
    }

    /// Records one simulation step (folded into the previous `Steps`).
    pub(super) fn log_step(&mut self) {
        if !self.oplog.on || self.oplog.depth > 0 {
            return;
        }
        match self.oplog.ops.last_mut() {
            Some(Op::Steps(n)) => *n += 1,
            _ => self.oplog.ops.push(Op::Steps(1)),
        }
    }

    /// Records a call boundary.
    pub(super) fn log_frame(&mut self, op: Op) {
        if self.oplog.on && self.oplog.depth == 0 {
            self.oplog.ops.push(op);
        }
    }

    /// The record of the call running or just ended, when it changed the world: everything
    /// recorded so far (steps before it included), then `closing` (the `Commit` of a call
    /// kept once its record is written). `None` when the call changed nothing. Nothing is
    /// removed until [`World::settle_ops`].
    pub fn call_record(&self, closing: Option<Op>) -> Option<Vec<Op>> {
        let ops = &self.oplog.ops;
        let begin = ops.iter().rposition(|op| *op == Op::Begin)?;
        let changed = ops[begin + 1..]
            .iter()
            .any(|op| !matches!(op, Op::Commit | Op::Rollback));
        changed.then(|| ops.iter().cloned().chain(closing).collect())
    }

    /// After the call's frame closed: with its record written (`journaled`) everything
    /// recorded goes; otherwise a call that changed nothing leaves no empty frame, and what a
    /// call whose record could not be written did (undone) waits for the next record.
    pub fn settle_ops(&mut self, journaled: bool) {
        let ops = &mut self.oplog.ops;
        if journaled {
            ops.clear();
            return;
        }
        if let Some(begin) = ops.iter().rposition(|op| *op == Op::Begin)
            && ops[begin + 1..]
                .iter()
                .all(|op| matches!(op, Op::Commit | Op::Rollback))
        {
            ops.truncate(begin);
        }
    }

    /// Everything recorded and not yet taken (steps between calls), leaving the log empty:
    /// a checkpoint covers them.
    pub fn take_ops(&mut self) -> Vec<Op> {
        let taken = std::mem::take(&mut self.oplog.ops);
        // Taken inside a call (a `world.checkpoint`): the call's frame stays open.
        if self.oplog.on && self.in_call() {
            self.oplog.ops.push(Op::Begin);
        }
        taken
    }

    /// What was recorded and not yet taken (steps between calls), oldest first.
    pub fn pending_ops(&self) -> &[Op] {
        &self.oplog.ops
    }

    /// Whether anything changed the world since the log was last taken.
    pub fn has_pending_ops(&self) -> bool {
        !self.oplog.ops.is_empty()
    }

    /// Applies a recorded operation again, as it was first applied.
    pub fn replay(&mut self, op: Op) {
        // Results are those of the first run: errors then were errors now.
        match op {
            Op::Steps(n) => (0..n).for_each(|_| self.step()),
            Op::Begin => self.begin(),
            Op::Commit => self.commit(),
            Op::Rollback => self.rollback(),
            Op::CreateEntity(spec) => {
                let _ = self.create_entity(&spec);
            }
            Op::DestroyEntity(id) => {
                let _ = self.destroy_entity(&id);
            }
            Op::SetTransform {
                id,
                position,
                rotation,
                scale,
            } => {
                let _ = self.set_transform(&id, position, rotation, scale);
            }
            Op::AddTag(id, tag) => {
                let _ = self.add_tag(&id, &tag);
            }
            Op::RemoveTag(id, tag) => {
                let _ = self.remove_tag(&id, &tag);
            }
            Op::SetMaterial(id, patch) => {
                let _ = self.set_material(&id, &patch);
            }
            Op::SetLighting(lighting) => {
                let _ = self.set_lighting(lighting);
            }
            Op::ApplyImpulse(id, impulse) => {
                let _ = self.apply_impulse(&id, impulse);
            }
            Op::DrainCollisions => {
                let _ = self.drain_collision_events();
            }
            Op::CreatePanel { kind, spec, owner } => {
                let _ = self.create_panel(&kind, spec, &owner);
            }
            Op::UpdatePanel { handle, patch } => {
                let _ = self.update_panel(&handle, patch);
            }
            Op::RemovePanel(handle) => {
                let _ = self.remove_panel(&handle);
            }
            Op::PlaySound(spec, owner) => {
                let _ = self.play_sound(spec, &owner);
            }
            Op::StopSound(handle) => {
                let _ = self.stop_sound(&handle);
            }
            Op::SetSoundVolume(handle, volume) => {
                let _ = self.set_sound_volume(&handle, volume);
            }
            Op::SetBusVolume(bus, volume) => {
                let _ = self.set_bus_volume(bus, volume);
            }
            Op::Approach {
                agent,
                target,
                talk_distance,
            } => {
                let _ = self.approach(&agent, target, talk_distance);
            }
            Op::Hear(heard) => self.hear(heard),
            Op::Say { agent, text } => {
                let _ = self.say(&agent, &text);
            }
            Op::PlaceGltf { resource, position } => {
                let _ = self.place_gltf(resource, position);
            }
        }
    }
}
