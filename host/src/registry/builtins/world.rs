//! `world.step`: advance the simulation by whole ticks on request. With `--manual-clock` this
//! is the only way time passes, which makes physics tests deterministic; with the real-time
//! clock it adds steps on top of the ones wall time brings.

use super::{Builtin, Spec, object};
use crate::registry::Registry;
use serde_json::{Value, json};

/// Most ticks one call may take, so a single call cannot stall the host.
const MAX_TICKS: u64 = 1000;

pub(super) fn specs() -> Vec<Spec> {
    vec![Spec {
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
    }]
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
