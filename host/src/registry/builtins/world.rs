//! `world.step`: advance the simulation by whole ticks on request. With `--manual-clock` this
//! is the only way time passes, which makes physics tests deterministic; with the real-time
//! clock it adds steps on top of the ones wall time brings.

use super::{Builtin, Spec, object};
use crate::call::{ErrorCode, Failure};
use crate::registry::Registry;
use serde_json::{Value, json};

/// Most ticks one call may take, so a single call cannot stall the host.
const MAX_TICKS: u64 = 1000;

pub(super) fn specs() -> Vec<Spec> {
    let mut specs = vec![Spec {
        builtin: Builtin::WorldStep,
        name: "world.step",
        description: "Advance the world simulation by a number of fixed ticks (physics, movement) and return the tick reached.",
        input: object(
            json!({"ticks": {"type": "integer", "minimum": 1, "maximum": MAX_TICKS, "default": 1, "description": "How many fixed steps to take."}}),
            &[],
        ),
        output: object(
            json!({"tick": {"type": "integer", "minimum": 0, "description": "The world tick after stepping."}}),
            &["tick"],
        ),
    }];
    specs.extend(kept_world_specs());
    specs
}

fn kept_world_specs() -> Vec<Spec> {
    vec![
        Spec {
            builtin: Builtin::WorldCheckpoint,
            name: "world.checkpoint",
            description: "Write a checkpoint of the whole world now (it survives restarts either way; this shortens the journal a restart replays) and return where it went.",
            input: object(json!({}), &[]),
            output: object(
                json!({
                    "file": {"type": "string"},
                    "coversEvent": {"type": "integer", "minimum": 0, "description": "The last trace event the checkpoint includes."},
                    "tick": {"type": "integer", "minimum": 0},
                    "entities": {"type": "integer", "minimum": 0},
                    "bytes": {"type": "integer", "minimum": 0},
                    "reason": {"type": "string"},
                    "ms": {"type": "number"}
                }),
                &["file", "coversEvent", "tick", "entities", "bytes"],
            ),
        },
        Spec {
            builtin: Builtin::WorldHash,
            name: "world.hash",
            description: "Return a sha256 of everything observable in the world (entities, transforms, bodies and velocities, materials, lighting, panels, audio, agents, tick), to check that two worlds are the same.",
            input: object(json!({}), &[]),
            output: object(
                json!({
                    "hash": {"type": "string"},
                    "tick": {"type": "integer", "minimum": 0},
                    "entities": {"type": "integer", "minimum": 0}
                }),
                &["hash", "tick", "entities"],
            ),
        },
        Spec {
            builtin: Builtin::WorldExport,
            name: "world.export",
            description: "Export the live world as a scene file: JSONL lines of {skill, input} that --scene and dev.reload scene replay into the same world.",
            input: object(json!({}), &[]),
            output: object(
                json!({
                    "scene": {"type": "string", "description": "The scene file's text, one call per line."},
                    "lines": {"type": "integer", "minimum": 0},
                    "sceneHash": {"type": "string", "description": "world.export's hash of what a scene can carry, equal in the world a replay of it builds."}
                }),
                &["scene", "lines", "sceneHash"],
            ),
        },
    ]
}

/// `world.checkpoint`: a checkpoint now, or a clear refusal when the world is not kept (on
/// the engine; a host that keeps its world runs it off the engine, `registry/detached.rs`).
pub(super) fn checkpoint(registry: &mut Registry) -> Result<Value, Failure> {
    match registry.checkpoint_world("asked for") {
        Ok(Some(summary)) => Ok(summary),
        Ok(None) => Err(Failure::new(
            ErrorCode::InvalidInput,
            "this host keeps its world in memory only (its trace is not in a folder, or it \
             was started with --ephemeral-trace); nothing to checkpoint",
        )),
        Err(e) => Err(checkpoint_failure(&e)),
    }
}

/// The failure of a checkpoint that was not written.
pub(crate) fn checkpoint_failure(e: &anyhow::Error) -> Failure {
    Failure::new(
        ErrorCode::HandlerError,
        format!(
            "the checkpoint was not written: {e:#}; the world and its journal are as they were"
        ),
    )
}

/// `world.hash`: the world's canonical hash.
pub(super) fn hash(registry: &Registry) -> Value {
    let world = &registry.realm().world;
    json!({"hash": world.state_hash(), "tick": world.tick(), "entities": world.entity_count()})
}

/// `world.export`: the world as a scene file.
pub(super) fn export(registry: &Registry) -> Value {
    let world = &registry.realm().world;
    let scene = crate::persistence::export::scene(world);
    json!({"lines": scene.lines, "sceneHash": crate::persistence::export::scene_hash(world), "scene": scene.text})
}

/// Steps the world `ticks` times (validated to 1..=MAX_TICKS).
pub(super) fn step(registry: &mut Registry, input: &Value) -> Value {
    let ticks = input["ticks"].as_u64().unwrap_or(1).clamp(1, MAX_TICKS);
    let world = &mut registry.realm_mut().world;
    for _ in 0..ticks {
        world.step();
    }
    json!({ "tick": world.tick() })
}
