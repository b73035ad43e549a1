//! `audit.explain`, `audit.query`, `audit.usage`: policy decisions read back from the trace
//! and the engine's tallies.

use super::{Builtin, Spec, object};
use crate::registry::{Failure, Registry};
use crate::trace::Event;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

const DECISION_KINDS: [&str; 2] = ["policy.decision", "policy.denied"];

pub(super) fn specs() -> Vec<Spec> {
    let nullable_string = json!({"type": ["string", "null"]});
    let decision_row = object(
        json!({
            "eventId": {"type": "string"}, "allow": {"type": "boolean"}, "rule": {"type": "string"},
            "reason": {"type": "string"}, "boundary": {"type": "string"}, "cap": {"type": "string"},
            "agentId": {"type": "string"}, "sessionId": {"type": "string"}, "profile": nullable_string,
            "package": nullable_string, "tick": {"type": ["integer", "null"]}
        }),
        &[
            "eventId",
            "allow",
            "rule",
            "reason",
            "boundary",
            "cap",
            "agentId",
            "sessionId",
            "profile",
            "package",
            "tick",
        ],
    );
    let decision = json!({
        "type": ["object", "null"],
        "properties": {
            "eventId": {"type": "string"}, "allow": {"type": "boolean"}, "rule": {"type": "string"},
            "reason": {"type": "string"}, "boundary": {"type": "string"},
            "context": object(json!({
                "agentId": {"type": "string"}, "sessionId": {"type": "string"}, "cap": {"type": "string"},
                "profile": nullable_string, "package": nullable_string, "tick": {"type": ["integer", "null"]},
                "requiredPermissions": {"type": ["array", "null"], "items": {"type": "string"}}
            }), &["agentId", "sessionId", "cap", "profile", "package", "tick", "requiredPermissions"]),
            "quota": {}, "budget": {}
        },
        "required": ["eventId", "allow", "rule", "reason", "boundary", "context", "quota", "budget"],
    });
    let per_session = |field: &str, value: Value| {
        object(
            json!({"sessionId": {"type": "string"}, field: value}),
            &["sessionId", field],
        )
    };
    let link = object(
        json!({"id": {"type": "string"}, "type": {"type": "string"}, "actorId": {"type": "string"}, "threadId": {"type": "string"}}),
        &["id", "type", "actorId", "threadId"],
    );
    vec![
        Spec {
            builtin: Builtin::AuditExplain,
            name: "audit.explain",
            description: "Explain an event: the policy decision that governed it (the event itself or its nearest policy ancestor), who caused it, and its causal ancestry.",
            input: object(
                json!({"eventId": {"type": "string", "description": "A trace event id."}}),
                &["eventId"],
            ),
            output: object(
                json!({
                    "eventId": {"type": "string"}, "eventType": {"type": "string"}, "found": {"type": "boolean"},
                    "decision": decision,
                    "provenance": object(json!({"agentId": {"type": "string"}, "sessionId": {"type": "string"}, "profile": nullable_string, "package": nullable_string}), &["agentId", "sessionId", "profile", "package"]),
                    "causalTrace": object(json!({"parents": {"type": "array", "items": link}, "ancestry": {"type": "array", "items": link}}), &["parents", "ancestry"])
                }),
                &[
                    "eventId",
                    "eventType",
                    "found",
                    "decision",
                    "provenance",
                    "causalTrace",
                ],
            ),
        },
        Spec {
            builtin: Builtin::AuditQuery,
            name: "audit.query",
            description: "Filter policy decisions (allowed, denied or all; by capability, rule, agent, session or package) and summarise them by rule, capability and package.",
            input: object(
                json!({
                    "decision": {"type": "string", "enum": ["allow", "deny", "all"], "default": "all", "description": "Only allowed, only denied, or all decisions."},
                    "cap": {"type": "string", "description": "Only decisions about this capability, e.g. a skill name."},
                    "rule": {"type": "string", "description": "Only decisions made by this policy rule."},
                    "agentId": {"type": "string", "description": "Only this agent's decisions."},
                    "sessionId": {"type": "string", "description": "Only this session's decisions."},
                    "package": {"type": "string", "description": "Only decisions about this package."},
                    "limit": {"type": "integer", "minimum": 0, "maximum": 2000, "default": 200, "description": "Most decisions to list, the latest ones; the summary counts all."}
                }),
                &[],
            ),
            output: object(
                json!({
                    "summary": object(json!({
                        "total": {"type": "integer"}, "allowed": {"type": "integer"}, "denied": {"type": "integer"},
                        "byRule": {"type": "object", "additionalProperties": {"type": "number"}},
                        "byCap": {"type": "object", "additionalProperties": {"type": "number"}},
                        "packages": {"type": "array", "items": {"type": "string"}}
                    }), &["total", "allowed", "denied", "byRule", "byCap", "packages"]),
                    "decisions": {"type": "array", "items": decision_row}
                }),
                &["summary", "decisions"],
            ),
        },
        Spec {
            builtin: Builtin::AuditUsage,
            name: "audit.usage",
            description: "Per-session usage: allowed and denied counts per capability, and the latest quota and budget state.",
            input: object(
                json!({"sessionId": {"type": "string", "description": "Only this session."}}),
                &[],
            ),
            output: object(
                json!({
                    "perSessionCap": {"type": "array", "items": object(
                        json!({"sessionId": {"type": "string"}, "cap": {"type": "string"}, "allowed": {"type": "integer"}, "denied": {"type": "integer"}}),
                        &["sessionId", "cap", "allowed", "denied"],
                    )},
                    "quotas": {"type": "array", "items": per_session("quota", json!({}))},
                    "budgets": {"type": "array", "items": per_session("budget", json!({}))}
                }),
                &["perSessionCap", "quotas", "budgets"],
            ),
        },
    ]
}

/// Every event of the durable history (the window alone for an in-memory trace).
fn history(registry: &mut Registry) -> Vec<Event> {
    match registry.realm_mut().tracer.tail(-1, usize::MAX, None, None) {
        Ok((events, _)) => events,
        Err(e) => {
            crate::log::warn(&format!(
                "audit: reading the trace history failed, using the window: {e:#}"
            ));
            registry.realm().tracer.recent().cloned().collect()
        }
    }
}

fn is_decision(e: &Event) -> bool {
    DECISION_KINDS.contains(&e.kind.as_str())
}

fn row(e: &Event) -> Value {
    let p = &e.payload;
    json!({
        "eventId": e.id, "allow": p["allow"], "rule": p["rule"], "reason": p["reason"],
        "boundary": p["boundary"], "cap": p["cap"], "agentId": p["agentId"], "sessionId": p["sessionId"],
        "profile": p["profile"], "package": p["package"], "tick": p["tick"],
    })
}

pub(super) fn query(registry: &mut Registry, input: &Value) -> Value {
    let text = |k: &str| input.get(k).and_then(Value::as_str);
    let want = text("decision").unwrap_or("all");
    let limit = input["limit"].as_u64().unwrap_or(200) as usize;
    let matching: Vec<Event> = history(registry)
        .into_iter()
        .filter(is_decision)
        .filter(|e| {
            let p = &e.payload;
            let allow = p["allow"].as_bool().unwrap_or(false);
            (want == "all" || (want == "allow") == allow)
                && ["cap", "rule", "agentId", "sessionId", "package"]
                    .iter()
                    .all(|k| text(k).is_none_or(|v| p[*k].as_str() == Some(v)))
        })
        .collect();
    let mut by_rule: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_cap: BTreeMap<String, u64> = BTreeMap::new();
    let mut packages = BTreeSet::new();
    let mut allowed = 0;
    for e in &matching {
        let p = &e.payload;
        *by_rule
            .entry(p["rule"].as_str().unwrap_or("").into())
            .or_default() += 1;
        *by_cap
            .entry(p["cap"].as_str().unwrap_or("").into())
            .or_default() += 1;
        if let Some(pkg) = p["package"].as_str() {
            packages.insert(pkg.to_string());
        }
        allowed += u64::from(p["allow"].as_bool().unwrap_or(false));
    }
    let skip = matching.len().saturating_sub(limit);
    json!({
        "summary": {
            "total": matching.len(), "allowed": allowed, "denied": matching.len() as u64 - allowed,
            "byRule": by_rule, "byCap": by_cap, "packages": packages,
        },
        "decisions": matching[skip..].iter().map(row).collect::<Vec<_>>(),
    })
}

pub(super) fn usage(registry: &Registry, input: &Value) -> Value {
    let session = input.get("sessionId").and_then(Value::as_str);
    let policy = registry.policy();
    let per_cap: Vec<Value> = policy
        .tallies(session)
        .into_iter()
        .map(|(s, cap, t)| json!({"sessionId": s, "cap": cap, "allowed": t.allowed, "denied": t.denied}))
        .collect();
    let states = policy.session_states(session);
    let quotas: Vec<Value> = states
        .iter()
        .filter_map(|(s, q, _)| q.map(|q| json!({"sessionId": s, "quota": q})))
        .collect();
    let budgets: Vec<Value> = states
        .iter()
        .map(|(s, _, b)| json!({"sessionId": s, "budget": b.snapshot()}))
        .collect();
    json!({"perSessionCap": per_cap, "quotas": quotas, "budgets": budgets})
}

pub(super) fn explain(registry: &mut Registry, input: &Value) -> Result<Value, Failure> {
    let id = input["eventId"].as_str().unwrap_or_default();
    let events = history(registry);
    let by_id: HashMap<&str, &Event> = events.iter().map(|e| (e.id.as_str(), e)).collect();
    let Some(event) = by_id.get(id).copied() else {
        return Ok(json!({
            "eventId": id, "eventType": "", "found": false, "decision": null,
            "provenance": {"agentId": "", "sessionId": "", "profile": null, "package": null},
            "causalTrace": {"parents": [], "ancestry": []},
        }));
    };
    let parents_of = |e: &Event| -> Vec<&Event> {
        let mut ids: Vec<&str> = e.parent_event_id.iter().map(String::as_str).collect();
        ids.extend(e.caused_by.iter().map(String::as_str));
        ids.dedup();
        ids.into_iter()
            .filter_map(|p| by_id.get(p).copied())
            .collect()
    };
    // Breadth-first through the ancestry; the nearest policy event wins, preferring one about
    // the same capability as the event.
    let cap = event
        .payload
        .get("skill")
        .or(event.payload.get("cap"))
        .and_then(Value::as_str);
    let mut ancestry = Vec::new();
    let mut decision = is_decision(event).then_some(event);
    let mut fallback = None;
    let mut queue: VecDeque<&Event> = parents_of(event).into();
    let mut seen = BTreeSet::new();
    while let Some(e) = queue.pop_front() {
        if !seen.insert(e.id.as_str()) {
            continue;
        }
        ancestry.push(e);
        if decision.is_none() && is_decision(e) {
            if cap.is_none_or(|c| e.payload["cap"].as_str() == Some(c)) {
                decision = Some(e);
            } else if fallback.is_none() {
                fallback = Some(e);
            }
        }
        queue.extend(parents_of(e));
    }
    let decision = decision.or(fallback);
    let link = |e: &Event| json!({"id": e.id, "type": e.kind, "actorId": e.actor_id, "threadId": e.thread_id});
    let p = decision.map(|d| &d.payload);
    let provenance = json!({
        "agentId": p.and_then(|p| p["agentId"].as_str()).unwrap_or(&event.actor_id),
        "sessionId": p.and_then(|p| p["sessionId"].as_str()).unwrap_or(&event.thread_id),
        "profile": p.map_or(Value::Null, |p| p["profile"].clone()),
        "package": p.map_or(Value::Null, |p| p["package"].clone()),
    });
    let decision_json = decision.map(|d| {
        let p = &d.payload;
        json!({
            "eventId": d.id, "allow": p["allow"], "rule": p["rule"], "reason": p["reason"], "boundary": p["boundary"],
            "context": {
                "agentId": p["agentId"], "sessionId": p["sessionId"], "cap": p["cap"], "profile": p["profile"],
                "package": p["package"], "tick": p["tick"], "requiredPermissions": p["requiredPermissions"],
            },
            "quota": p["quota"], "budget": p["budget"],
        })
    });
    Ok(json!({
        "eventId": event.id,
        "eventType": event.kind,
        "found": true,
        "decision": decision_json,
        "provenance": provenance,
        "causalTrace": {
            "parents": parents_of(event).into_iter().map(link).collect::<Vec<_>>(),
            "ancestry": ancestry.into_iter().map(link).collect::<Vec<_>>(),
        },
    }))
}
