//! `audit.explain`, `audit.query`, `audit.usage`: policy decisions read back from the trace
//! and the engine's tallies.

use super::{Builtin, Spec, object};
use crate::call::{ErrorCode, Failure};
use crate::registry::Registry;
use crate::trace::{DECISION_KINDS, DecisionQuery, Event, History};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap, VecDeque};

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

fn unreadable(e: anyhow::Error) -> Failure {
    Failure::new(
        ErrorCode::HandlerError,
        format!("reading the trace failed: {e:#}"),
    )
}

pub(super) fn query(history: &mut History, input: &Value) -> Result<Value, Failure> {
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(String::from);
    let q = DecisionQuery {
        allow: match text("decision").as_deref() {
            Some("allow") => Some(true),
            Some("deny") => Some(false),
            _ => None,
        },
        cap: text("cap"),
        rule: text("rule"),
        agent_id: text("agentId"),
        session_id: text("sessionId"),
        package: text("package"),
        limit: input["limit"].as_u64().unwrap_or(200) as usize,
    };
    let (summary, decisions) = history.decisions(&q).map_err(unreadable)?;
    Ok(json!({
        "summary": {
            "total": summary.total, "allowed": summary.allowed,
            "denied": summary.total - summary.allowed,
            "byRule": summary.by_rule, "byCap": summary.by_cap, "packages": summary.packages,
        },
        "decisions": decisions.iter().map(row).collect::<Vec<_>>(),
    }))
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

pub(super) fn explain(history: &mut History, input: &Value) -> Result<Value, Failure> {
    let id = input["eventId"].as_str().unwrap_or_default();
    let tracer = history;
    let Some(event) = tracer.get(id) else {
        return Ok(json!({
            "eventId": id, "eventType": "", "found": false, "decision": null,
            "provenance": {"agentId": "", "sessionId": "", "profile": null, "package": null},
            "causalTrace": {"parents": [], "ancestry": []},
        }));
    };
    // Each ancestor is looked up once, by id, in the window or the index.
    let mut known: HashMap<String, Option<Event>> = HashMap::new();
    let mut parents_of = |e: &Event| -> Vec<Event> {
        let mut ids: Vec<&str> = e.parent_event_id.iter().map(String::as_str).collect();
        ids.extend(e.caused_by.iter().map(String::as_str));
        ids.dedup();
        ids.into_iter()
            .filter_map(|p| {
                known
                    .entry(p.to_string())
                    .or_insert_with(|| tracer.get(p))
                    .clone()
            })
            .collect()
    };
    // Breadth-first through the ancestry; the nearest policy event wins, preferring one about
    // the same capability as the event.
    let cap = event
        .payload
        .get("skill")
        .or(event.payload.get("cap"))
        .and_then(Value::as_str);
    let parents = parents_of(&event);
    let mut ancestry: Vec<Event> = Vec::new();
    let mut decision = is_decision(&event).then(|| event.clone());
    let mut fallback = None;
    let mut queue: VecDeque<Event> = parents.clone().into();
    let mut seen = BTreeSet::new();
    while let Some(e) = queue.pop_front() {
        if !seen.insert(e.id.clone()) {
            continue;
        }
        if decision.is_none() && is_decision(&e) {
            if cap.is_none_or(|c| e.payload["cap"].as_str() == Some(c)) {
                decision = Some(e.clone());
            } else if fallback.is_none() {
                fallback = Some(e.clone());
            }
        }
        queue.extend(parents_of(&e));
        ancestry.push(e);
    }
    let decision = decision.or(fallback);
    let link = |e: &Event| json!({"id": e.id, "type": e.kind, "actorId": e.actor_id, "threadId": e.thread_id});
    let p = decision.as_ref().map(|d| &d.payload);
    let provenance = json!({
        "agentId": p.and_then(|p| p["agentId"].as_str()).unwrap_or(&event.actor_id),
        "sessionId": p.and_then(|p| p["sessionId"].as_str()).unwrap_or(&event.thread_id),
        "profile": p.map_or(Value::Null, |p| p["profile"].clone()),
        "package": p.map_or(Value::Null, |p| p["package"].clone()),
    });
    let decision_json = decision.as_ref().map(|d| {
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
            "parents": parents.iter().map(link).collect::<Vec<_>>(),
            "ancestry": ancestry.iter().map(link).collect::<Vec<_>>(),
        },
    }))
}
