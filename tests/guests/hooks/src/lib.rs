//! Test guest: hooks around the core `scene` skills.
//!
//! - `guardGround`, before `scene.createEntity`: refuses a position below ground (y < 0) with
//!   `invalid_input`; otherwise lifts a position lower than 0.5 m to y = 0.5 and paints the
//!   entity blue (0x0000ff). On size 42 it traps; on size 7 it rewrites `color` to a string,
//!   which breaks the skill's input schema.
//! - `trapAtX42`, after `scene.createEntity`: looks up the entity the handler just made and
//!   traps when it sits at x = 42, after the world was changed.
//! - `nearOnly`, after `scene.queryEntities`: drops every entity farther than 50 m from the
//!   origin (a world radius: `distance` is 0 for a query without a point, so the hook measures
//!   the position itself). An entity at x = -7 makes it return output that breaks the schema.
//!
//! Every hook run first emits `hooks.hook.ran {hook, skill}` into the trace, so tests can see
//! which hooks ran for which skill; `guardGround` adds the input it passes on. A package must
//! declare a skill, so there is `hooks.ping` too.

use limina_sdk::host::{scene, trace};
use limina_sdk::prelude::*;
use serde_json::{Value, json};

/// The world radius `nearOnly` reports within, in metres.
const WORLD_RADIUS: f64 = 50.0;
/// Positions lower than this are lifted to it.
const LIFT_TO: f64 = 0.5;
/// 0x0000ff.
const BLUE: u32 = 255;

type HookResult = Result<Option<String>, SkillError>;

fn witness(hook: &str, skill: &str, extra: Value) {
    let mut payload = json!({"hook": hook, "skill": skill});
    if let (Value::Object(p), Value::Object(extra)) = (&mut payload, extra) {
        p.extend(extra);
    }
    // Witnessing is best effort: a failed emit must not change what the hook decides.
    let _ = trace::emit("hook.ran", &payload.to_string());
}

fn parse(what: &str, text: &str) -> Result<Value, SkillError> {
    serde_json::from_str(text)
        .map_err(|e| SkillError::HandlerError(format!("the {what} is not JSON: {e}")))
}

fn guard_ground(skill: &str, payload: &str, _: &CallContext) -> HookResult {
    let mut input = parse("input", payload)?;
    let size = input["size"].as_f64();
    if size == Some(42.0) {
        witness("guardGround", skill, json!({}));
        panic!("hooks.guardGround traps on size 42");
    }
    let y = input["position"][1].as_f64().ok_or_else(|| {
        SkillError::HandlerError("the validated input has no `position` y".into())
    })?;
    if y < 0.0 {
        witness("guardGround", skill, json!({"refused": true}));
        return Err(SkillError::InvalidInput(format!(
            "`position` y is {y}: below 0 is underground, which hooks.guardGround refuses"
        )));
    }
    if size == Some(7.0) {
        input["color"] = json!("blue");
    } else {
        if y < LIFT_TO {
            input["position"][1] = json!(LIFT_TO);
        }
        input["color"] = json!(BLUE);
    }
    witness("guardGround", skill, json!({"rewritten": input}));
    Ok(Some(input.to_string()))
}

fn trap_at_x42(skill: &str, payload: &str, _: &CallContext) -> HookResult {
    witness("trapAtX42", skill, json!({}));
    let output = parse("output", payload)?;
    let id = output["entity"]
        .as_str()
        .ok_or_else(|| SkillError::HandlerError("the output has no `entity`".into()))?;
    let info = scene::get_entity(id)?
        .ok_or_else(|| SkillError::HandlerError(format!("`{id}` was just made but is gone")))?;
    if info.transform.position.x == 42.0 {
        panic!("hooks.trapAtX42 traps on an entity at x = 42");
    }
    Ok(None)
}

fn within_world(entity: &Value) -> bool {
    let p = &entity["position"];
    let r2: f64 = (0..3)
        .map(|i| p[i].as_f64().unwrap_or(f64::INFINITY).powi(2))
        .sum();
    r2.sqrt() <= WORLD_RADIUS
}

fn near_only(skill: &str, payload: &str, _: &CallContext) -> HookResult {
    witness("nearOnly", skill, json!({}));
    let mut output = parse("output", payload)?;
    let entities = output["entities"]
        .as_array_mut()
        .ok_or_else(|| SkillError::HandlerError("the output has no `entities` array".into()))?;
    if entities
        .iter()
        .any(|e| e["position"][0].as_f64() == Some(-7.0))
    {
        return Ok(Some(json!({"entities": "hidden"}).to_string()));
    }
    entities.retain(within_world);
    Ok(Some(output.to_string()))
}

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Pong {
    pong: bool,
}

fn ping(_: Empty, _: &CallContext) -> Result<Pong, SkillError> {
    Ok(Pong { pong: true })
}

limina_sdk::export_package!(
    Package::new()
        .skill(Skill::new("hooks.ping", "0.1.0", "Answers at once.", ping))
        .hook(Hook::new(
            "guardGround",
            HookPhase::Before,
            &["scene.createEntity"],
            guard_ground,
        ))
        .hook(Hook::new(
            "trapAtX42",
            HookPhase::After,
            &["scene.createEntity"],
            trap_at_x42,
        ))
        .hook(Hook::new(
            "nearOnly",
            HookPhase::After,
            &["scene.queryEntities"],
            near_only,
        ))
);
