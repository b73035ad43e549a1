//! The core `agent` skills over MCP: signals into the trace as the caller, perception from
//! the caller's body, documented errors, and refusals that change nothing.

use crate::support::{Client, error_of};
use serde_json::{Value, json};

/// Trace events of `kind`, oldest first.
pub fn events_of(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind, "limit": 1000}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

/// Creates an entity at `position` and makes it `agent`'s body (needs scene.write, ecs.modify).
pub fn give_body(c: &mut Client, agent: &str, position: [f64; 3]) -> String {
    let id = c.call_ok("scene.createEntity", json!({"position": position}))["entity"]
        .as_str()
        .unwrap()
        .to_string();
    let tag = format!("agent:{agent}");
    let added = c.call_ok("ecs.addComponent", json!({"entity": id, "component": tag}));
    assert_eq!(added["ok"], true);
    id
}

/// `inspector.snapshot` as the caller sees it (needs the read permissions).
pub fn snapshot(c: &mut Client) -> Value {
    c.call_ok("inspector.snapshot", json!({}))
}

fn perception(c: &mut Client) -> Value {
    c.call_ok("agent.getPerception", json!({}))["perception"].clone()
}

#[test]
fn emit_event_writes_an_agent_signal_as_the_caller_caused_by_the_call() {
    let mut c = Client::session("builder.readWrite", &[]);
    let out = c.call_ok(
        "agent.emitEvent",
        json!({"type": "wave", "payload": {"to": "bob", "n": 2}}),
    );
    let id = out["eventId"].as_str().unwrap().to_string();
    let signals = events_of(&mut c, "agent.signal.wave");
    assert_eq!(signals.len(), 1, "{signals:?}");
    let signal = &signals[0];
    assert_eq!(signal["id"], json!(id));
    assert_eq!(signal["actorId"], "tester");
    assert_eq!(signal["payload"], json!({"to": "bob", "n": 2}));
    // Caused by the policy decision that let this very call run.
    let parent = signal["causedBy"][0].as_str().unwrap();
    let explained = c.call_ok("trace.explainEvent", json!({"eventId": parent}));
    assert_eq!(explained["event"]["type"], "policy.decision");
    assert_eq!(explained["event"]["payload"]["cap"], "agent.emitEvent");
}

#[test]
fn emit_event_defaults_its_payload_and_checks_type_and_payload() {
    let mut c = Client::session("builder.readWrite", &[]);
    c.call_ok("agent.emitEvent", json!({"type": "ping"}));
    assert_eq!(
        events_of(&mut c, "agent.signal.ping")[0]["payload"],
        json!({})
    );
    for (args, field) in [
        (json!({"type": ""}), "type"),
        (json!({}), "type"),
        (json!({"type": 3}), "type"),
        (json!({"type": "x", "payload": [1, 2]}), "payload"),
        (json!({"type": "x", "payload": "text"}), "payload"),
    ] {
        let (code, message) = error_of(&c.call("agent.emitEvent", args.clone()));
        assert_eq!(code, "invalid_input", "{args}");
        assert!(message.contains(field), "{args}: {message}");
    }
    assert!(events_of(&mut c, "agent.signal.x").is_empty());
}

#[test]
fn agent_inputs_are_not_strict_unknown_keys_are_ignored() {
    let mut c = Client::session("builder.readWrite", &[]);
    c.call_ok("agent.emitEvent", json!({"type": "hi", "extra": true}));
    assert_eq!(
        c.call_ok("agent.getPerception", json!({"extra": 1}))["perception"],
        Value::Null
    );
}

#[test]
fn perception_is_null_without_a_body() {
    let mut c = Client::session("builder.readWrite", &[]);
    assert_eq!(perception(&mut c), Value::Null);
    // Someone else's body is not ours.
    give_body(&mut c, "someone-else", [0.0; 3]);
    assert_eq!(perception(&mut c), Value::Null);
}

#[test]
fn perception_reports_the_body_nearby_entities_recent_events_and_the_tick() {
    let mut c = Client::session("builder.readWrite", &[]);
    let me = give_body(&mut c, "tester", [1.0, 0.0, 0.0]);
    let far = c.call_ok("scene.createEntity", json!({"position": [1, 0, 6]}))["entity"].clone();
    let friend = give_body(&mut c, "bob", [1.0, 0.0, 3.0]);
    c.call_ok("scene.createEntity", json!({"position": [500, 0, 0]}));
    c.call_ok(
        "agent.emitEvent",
        json!({"type": "hello", "payload": {"k": 1}}),
    );
    c.call_ok("world.step", json!({"ticks": 5}));

    let p = perception(&mut c);
    assert_eq!(p["agentId"], "tester");
    assert_eq!(p["entity"], json!(me));
    assert_eq!(p["position"], json!([1.0, 0.0, 0.0]));
    assert_eq!(p["tick"], 5);
    let nearby = p["nearby"].as_array().unwrap();
    let ids: Vec<_> = nearby.iter().map(|e| e["entity"].clone()).collect();
    assert_eq!(
        ids,
        vec![json!(friend), far],
        "nearest first, the far one out of sight"
    );
    assert_eq!(nearby[0]["agentId"], "bob");
    assert_eq!(nearby[0]["distance"], 3.0);
    let events = p["recentEvents"].as_array().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["type"], "agent.signal.hello");
    assert_eq!(events[0]["actorId"], "tester");
    assert_eq!(events[0]["payload"], json!({"k": 1}));
}

#[test]
fn a_session_without_agent_write_is_refused_and_no_signal_is_written() {
    let mut c = Client::session("system.readonly", &[]);
    let (code, message) = error_of(&c.call("agent.emitEvent", json!({"type": "sneak"})));
    assert_eq!(code, "forbidden");
    assert_eq!(message, "missing permission: agent.write");
    assert!(events_of(&mut c, "agent.signal.sneak").is_empty());
    // It may still perceive.
    assert_eq!(perception(&mut c), Value::Null);
}

#[test]
fn a_flood_of_huge_signals_leaves_perception_bounded_and_callable() {
    // Each call carries 256 KiB through the guest and into the trace: on a loaded machine that
    // can outlast the engine's short deadline, which is not what this test is about.
    let config = crate::support::long_calls_config();
    let mut c = Client::session("builder.readWrite", &["--config", &config]);
    give_body(&mut c, "tester", [0.0; 3]);
    let blob = "x".repeat(256 << 10);
    for i in 0..20 {
        c.call_ok(
            "agent.emitEvent",
            json!({"type": format!("flood{i}"), "payload": {"blob": blob}}),
        );
    }
    let p = perception(&mut c);
    let events = p["recentEvents"].as_array().unwrap();
    assert_eq!(events.len(), 16, "the newest signals are still perceived");
    for e in events {
        assert_eq!(e["payload"]["clipped"], true, "{}", e["type"]);
        assert!(e["payload"]["bytes"].as_u64().unwrap() > 256 << 10);
    }
    assert!(p.to_string().len() < 64 << 10, "perception stays small");
    // The trace still holds every signal whole.
    let last = events.last().unwrap()["id"].clone();
    let full = c.call_ok("trace.explainEvent", json!({"eventId": last}));
    assert_eq!(
        full["event"]["payload"]["blob"].as_str().unwrap().len(),
        256 << 10
    );
}
