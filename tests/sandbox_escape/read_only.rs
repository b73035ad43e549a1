//! A read-only session cannot change the world by any path: every tool the host offers, called
//! under `system.readonly`, either reads or is refused, and the world (entities, bodies,
//! scene state, tick) is exactly as it was.

use crate::support::{Client, error_of};
use serde_json::{Value, json};

fn world(c: &mut Client) -> Value {
    let s = c.call_ok("inspector.snapshot", json!({"limit": 500}));
    json!({"world": s["world"], "entities": s["entities"], "agents": s["agents"]})
}

#[test]
fn a_read_only_session_changes_nothing_whatever_it_calls() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.jsonl");
    std::fs::write(
        &scene,
        "{\"skill\": \"scene.createEntity\", \"input\": {\"dynamic\": true, \"position\": [0, 4, 0]}}\n",
    )
    .unwrap();
    let mut c = Client::session("builder.readWrite", &["--scene", scene.to_str().unwrap()]);
    let entity = c.call_ok("scene.createEntity", json!({"position": [3, 0, 0]}))["entity"].clone();
    let names: Vec<String> = c.request("tools/list", json!({}))["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.len() > 40, "{names:?}");
    c.rebind("system.readonly", "reader");
    let before = world(&mut c);
    let mut refused = Vec::new();
    for name in &names {
        // Empty input, then input naming the entity and the usual fields of writes.
        for input in [
            json!({}),
            json!({"entity": entity, "ticks": 100, "target": "scene", "impulse": [9, 9, 9],
                   "component": "tag", "text": "hi", "type": "x", "handle": "ui_1",
                   "anchor": {"kind": "screen"}, "freq": 440, "secs": 1, "volume": 1,
                   "position": [1, 1, 1], "value": [1, 1, 1]}),
        ] {
            let r = c.call(name, input);
            if r["isError"] == true {
                let (code, message) = error_of(&r);
                assert!(
                    code == "forbidden" || code == "invalid_input",
                    "{name}: {code}: {message}"
                );
                if code == "forbidden" {
                    refused.push(name.clone());
                }
            }
        }
    }
    for write in [
        "dev.reload",
        "world.step",
        "scene.createEntity",
        "physics.applyImpulse",
    ] {
        assert!(
            refused.iter().any(|r| r == write),
            "{write} was not refused"
        );
    }
    assert_eq!(
        world(&mut c),
        before,
        "a read-only session changed the world"
    );
}
