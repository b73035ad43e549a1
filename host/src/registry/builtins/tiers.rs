//! `skills.setLatencyTier`: a session changes the latency tier its listings are cut to, within
//! its profile's `maxLatencyTier`. A system skill rather than a protocol method, so it works
//! the same on every transport and crosses the policy like any other call. And
//! `skills.calibrate`: measure every guest skill on a scratch world so tiers are known early.

use super::{Builtin, Spec, object};
use crate::call::{ErrorCode, Failure};
use crate::policy::LatencyTier;
use crate::registry::{Caller, Registry};
use serde_json::{Value, json};

pub(super) fn specs() -> Vec<Spec> {
    let tier = json!({"type": "string", "enum": ["fast", "standard", "deep"]});
    vec![
        Spec {
            builtin: Builtin::SkillsSetLatencyTier,
            name: "skills.setLatencyTier",
            description: "Choose the slowest latency tier (fast, standard or deep) of the skills this session is shown, within what its profile allows.",
            input: object(json!({"tier": tier}), &["tier"]),
            output: object(
                json!({
                    "tier": {"description": "The tier now in force.", "type": "string", "enum": ["fast", "standard", "deep"]},
                    "maxTier": {"description": "The slowest tier the session's profile allows.", "type": "string", "enum": ["fast", "standard", "deep"]}
                }),
                &["tier", "maxTier"],
            ),
        },
        Spec {
            builtin: Builtin::SkillsCalibrate,
            name: "skills.calibrate",
            description: "Measure every package skill by running it on a scratch copy of the world (never the live one) so its latency tier is known before its first real call.",
            input: object(
                json!({"runs": {"type": "integer", "minimum": 10, "maximum": 100, "default": 10, "description": "Calls per skill."}}),
                &[],
            ),
            output: object(
                json!({"calibrated": {"type": "array", "items": object(json!({
                "name": {"type": "string"},
                "runs": {"type": "integer", "minimum": 0},
                "failed": {"type": "integer", "minimum": 0, "description": "Runs the made-up input failed; their time still counts."},
                "p50Ms": {"type": ["number", "null"], "minimum": 0},
                "tier": {"type": "string", "enum": ["fast", "standard", "deep"]}
            }), &["name", "runs", "failed", "p50Ms", "tier"])},
                "skipped": {"type": "array", "items": {"type": "string"}, "description": "Skills no valid input could be made for from their schema; not run."}}),
                &["calibrated", "skipped"],
            ),
        },
    ]
}

pub(super) fn calibrate(registry: &mut Registry, input: &Value) -> Value {
    let runs = input["runs"].as_u64().unwrap_or(10) as usize;
    let (found, skipped) = registry.calibrate(runs);
    let calibrated: Vec<Value> = found
        .into_iter()
        .map(|c| {
            json!({
                "name": c.skill,
                "runs": c.runs,
                "failed": c.failed,
                "p50Ms": c.p50_ms.map(|v| (v * 1000.0).round() / 1000.0),
                "tier": c.tier.as_str(),
            })
        })
        .collect();
    json!({ "calibrated": calibrated, "skipped": skipped })
}

pub(super) fn set(
    registry: &mut Registry,
    caller: &Caller,
    input: &Value,
) -> Result<Value, Failure> {
    let asked = LatencyTier::parse(input["tier"].as_str().unwrap_or_default())
        .map_err(|e| Failure::new(ErrorCode::InvalidInput, format!("`tier`: {e}")))?;
    let tier = registry
        .set_session_tier(caller, Some(asked))
        .map_err(|e| Failure::new(ErrorCode::Forbidden, e))?;
    let ceiling = registry
        .profiles()
        .get(&caller.profile)
        .ok()
        .and_then(|p| p.max_latency_tier)
        .unwrap_or(LatencyTier::Deep);
    Ok(json!({"tier": tier.as_str(), "maxTier": ceiling.as_str()}))
}
