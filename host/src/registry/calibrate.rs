//! Calibration: every guest skill runs a few times on a scratch world — never the live one —
//! with an input made from its schema, so its latency tier is known before its first real
//! call. The scratch world is empty and has its own trace; the live world and trace are not
//! touched.

use super::{Caller, Handler, Registry};
use crate::limits::{LATENCY_MIN_SAMPLES, TRACE_WINDOW};
use crate::policy::{LatencyTier, Permissions};
use crate::realm::{Realm, Rng};
use crate::trace::Tracer;
use serde_json::{Map, Value, json};
use std::time::Instant;

/// The session calibration runs under.
const SESSION: &str = "calibration";

/// What calibrating one skill found.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated {
    pub skill: String,
    pub runs: usize,
    /// Runs that failed (the made-up input may not suit the skill; the time still counts).
    pub failed: usize,
    pub p50_ms: Option<f64>,
    pub tier: LatencyTier,
}

impl Registry {
    /// Runs every guest skill `runs` times (at least [`LATENCY_MIN_SAMPLES`]) on a scratch
    /// world and records the times in its latency window. Skills for which no valid input
    /// can be made from the schema are left out and named in the second list.
    pub fn calibrate(&mut self, runs: usize) -> (Vec<Calibrated>, Vec<String>) {
        let runs = runs.max(LATENCY_MIN_SAMPLES);
        let caller = Caller {
            agent_id: SESSION.into(),
            session_id: SESSION.into(),
            profile: SESSION.into(),
            permissions: Permissions::all(),
        };
        let live = self.realm.take().expect("the realm is home between calls");
        self.realm = Some(Box::new(Realm {
            world: live.world.emptied(),
            tracer: Tracer::new(TRACE_WINDOW),
            rng: Rng::seeded(0),
            // Calibration's calls must not touch the packages' real state.
            state: crate::state::StateStore::in_memory(),
        }));
        let mut guests: Vec<(String, Handler, Value)> = Vec::new();
        let mut skipped = Vec::new();
        for s in self
            .skills
            .values()
            .filter(|s| matches!(s.handler, Handler::Guest(_)))
        {
            let mut input = sample(s.input.source());
            s.input.fill_defaults(&mut input);
            match s.input.check(&input) {
                None => guests.push((s.name.clone(), s.handler, input)),
                Some(_) => skipped.push(s.name.clone()),
            }
        }
        let mut found = Vec::new();
        for (name, handler, input) in guests {
            let mut failed = 0;
            for _ in 0..runs {
                let started = Instant::now();
                let cpu_before = self.guest_cpu_ms;
                self.realm_mut().world.begin();
                let mut events = Vec::new();
                let ran = self.hooks_and_handler(
                    &caller,
                    &name,
                    handler,
                    input.clone(),
                    "calibration",
                    None,
                    &mut events,
                );
                self.realm_mut().world.rollback();
                failed += usize::from(ran.is_err());
                // Timed like any call, but a made-up input failing is not the skill failing.
                self.record_latency(&name, started, cpu_before, &Ok((Value::Null, Value::Null)));
            }
            let Some(skill) = self.skills.get(&name) else {
                continue;
            };
            let report = self.latency(skill);
            found.push(Calibrated {
                skill: name,
                runs,
                failed,
                p50_ms: report.p50_ms,
                tier: report.tier,
            });
        }
        self.realm = Some(live);
        self.end_session(SESSION);
        if let Err(e) = self.save_calibration() {
            crate::log::warn(&format!("could not keep the calibration: {e:#}"));
        }
        (found, skipped)
    }
}

/// A value the schema accepts, as plain as possible: declared defaults and examples first,
/// then the first enum value, then the least value of the type within its bounds.
pub(crate) fn sample(schema: &Value) -> Value {
    if let Some(v) = schema.get("default") {
        return v.clone();
    }
    if let Some(v) = schema.get("examples").and_then(|e| e.get(0)) {
        return v.clone();
    }
    if let Some(v) = schema.get("const") {
        return v.clone();
    }
    if let Some(v) = schema.get("enum").and_then(|e| e.get(0)) {
        return v.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema.get(key).and_then(|e| e.get(0)) {
            return sample(first);
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "null",
    };
    let bound = |inclusive: &str, exclusive: &str, step: f64| {
        schema.get(inclusive).and_then(Value::as_f64).or_else(|| {
            schema
                .get(exclusive)
                .and_then(Value::as_f64)
                .map(|v| v + step)
        })
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            let props = schema.get("properties").and_then(Value::as_object);
            for key in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let prop = props.and_then(|p| p.get(key)).unwrap_or(&Value::Null);
                out.insert(key.to_string(), sample(prop));
            }
            Value::Object(out)
        }
        "array" => {
            let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item = schema.get("items").map(sample).unwrap_or(Value::Null);
            Value::Array(vec![item; n])
        }
        "string" => {
            let n = schema.get("minLength").and_then(Value::as_u64).unwrap_or(1) as usize;
            json!("a".repeat(n.max(1)))
        }
        "integer" => {
            let low = bound("minimum", "exclusiveMinimum", 1.0).unwrap_or(1.0);
            json!(low.ceil() as i64)
        }
        "number" => {
            let low = bound("minimum", "exclusiveMinimum", 0.5).unwrap_or(1.0);
            json!(low)
        }
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::sample;
    use serde_json::json;

    #[test]
    fn samples_take_defaults_examples_enums_then_the_least_value_in_bounds() {
        let schema = json!({
            "type": "object",
            "properties": {
                "expression": {"type": "string", "examples": ["2d6+3"]},
                "size": {"type": "number", "exclusiveMinimum": 0, "maximum": 50},
                "count": {"type": "integer", "minimum": 2},
                "kind": {"type": "string", "enum": ["label", "callout"]},
                "position": {"type": "array", "items": {"type": "number"}, "minItems": 3},
                "name": {"type": "string", "minLength": 3},
                "color": {"type": "integer", "default": 7},
                "target": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "array"}]},
                "optional": {"type": "boolean"}
            },
            "required": ["expression", "size", "count", "kind", "position", "name", "target"]
        });
        assert_eq!(
            sample(&schema),
            json!({
                "expression": "2d6+3", "size": 0.5, "count": 2, "kind": "label",
                "position": [1.0, 1.0, 1.0], "name": "aaa", "target": "a"
            })
        );
    }
}
