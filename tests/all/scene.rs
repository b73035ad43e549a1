//! The core `scene` skills over MCP: effects, documented errors, and that refusals change
//! nothing.

use crate::support::{Client, error_of};
use serde_json::{Value, json};

fn entities(c: &mut Client) -> Vec<Value> {
    c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn created_entities_are_found_at_the_right_distance() {
    let mut c = Client::session("builder.readWrite", &[]);
    let a = c.call_ok("scene.createEntity", json!({"position": [3, 4, 0]}))["entity"].clone();
    c.call_ok(
        "scene.createEntity",
        json!({"position": [100, 0, 0], "shape": "sphere"}),
    );
    let near = c.call_ok(
        "scene.queryEntities",
        json!({"near": [0, 0, 0], "radius": 5}),
    );
    let found = near["entities"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{near}");
    assert_eq!(found[0]["entity"], a);
    assert_eq!(found[0]["position"], json!([3.0, 4.0, 0.0]));
    assert!((found[0]["distance"].as_f64().unwrap() - 5.0).abs() < 1e-9);

    let all = entities(&mut c);
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["distance"], 0.0);
    assert_eq!(
        all.iter().map(|e| e["entity"].clone()).collect::<Vec<_>>(),
        vec![json!("ent_1"), json!("ent_2")]
    );
}

#[test]
fn destroy_removes_and_ids_are_never_reused() {
    let mut c = Client::session("builder.readWrite", &[]);
    c.call_ok("scene.createEntity", json!({"dynamic": true}));
    assert_eq!(
        c.call_ok("scene.destroyEntity", json!({"entity": "ent_1"}))["removed"],
        true
    );
    assert_eq!(
        c.call_ok("scene.destroyEntity", json!({"entity": "ent_1"}))["removed"],
        false
    );
    assert_eq!(
        c.call_ok("scene.destroyEntity", json!({"entity": "bogus"}))["removed"],
        false
    );
    assert_eq!(
        c.call_ok("scene.createEntity", json!({}))["entity"],
        "ent_2"
    );
}

#[test]
fn a_player_limited_session_is_refused_create_and_nothing_is_created() {
    let mut c = Client::session("player.limited", &[]);
    let r = c.call("scene.createEntity", json!({"position": [1, 1, 1]}));
    let (code, message) = error_of(&r);
    assert_eq!(code, "forbidden");
    assert_eq!(message, "missing permission: scene.write");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("forbidden: ")
    );
    assert!(entities(&mut c).is_empty());
    // It may still read the scene, and the refused tool is not offered to it.
    let list = c.request("tools/list", json!({}));
    let names: Vec<_> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert!(
        names.contains(&json!("scene.queryEntities"))
            && !names.contains(&json!("scene.createEntity"))
    );
}

#[test]
fn out_of_range_and_unknown_values_are_invalid_input_naming_the_field() {
    let mut c = Client::session("builder.readWrite", &[]);
    for (args, field) in [
        (json!({"size": 0}), "size"),
        (json!({"size": 51}), "size"),
        (json!({"shape": "cone"}), "shape"),
        (json!({"color": 16777216}), "color"),
        (json!({"position": [1, 2]}), "position"),
        (json!({"friction": 11}), "friction"),
    ] {
        let r = c.call("scene.createEntity", args.clone());
        let (code, message) = error_of(&r);
        assert_eq!(code, "invalid_input", "{args}");
        assert!(message.contains(&format!("`{field}`")), "{args}: {message}");
    }
    let r = c.call("scene.destroyEntity", json!({}));
    let (code, message) = error_of(&r);
    assert_eq!(code, "invalid_input");
    assert!(message.contains("entity"), "{message}");
    assert!(entities(&mut c).is_empty());
}

#[test]
fn defaults_are_filled_and_the_edges_of_ranges_are_accepted() {
    let mut c = Client::session("builder.readWrite", &[]);
    c.call_ok(
        "scene.createEntity",
        json!({"size": 50, "friction": 10, "restitution": 2, "color": 0}),
    );
    c.call_ok("scene.createEntity", json!({"size": 0.001, "static": true}));
    let r = c.call(
        "scene.createEntity",
        json!({"dynamic": true, "static": true}),
    );
    let (code, message) = error_of(&r);
    assert_eq!(code, "invalid_input");
    assert!(
        message.contains("dynamic") && message.contains("static"),
        "{message}"
    );
    assert_eq!(entities(&mut c).len(), 2);
}

#[test]
fn the_entity_cap_answers_capacity_exceeded() {
    let mut c = Client::session("builder.readWrite", &["--max-entities", "2"]);
    c.call_ok("scene.createEntity", json!({}));
    c.call_ok("scene.createEntity", json!({}));
    let (code, message) = error_of(&c.call("scene.createEntity", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(message.contains('2'), "{message}");
    assert_eq!(entities(&mut c).len(), 2);
}

#[test]
fn inspector_snapshot_pages_entities_and_reports_the_host() {
    let mut c = Client::session("builder.readWrite", &[]);
    for x in 0..5 {
        c.call_ok(
            "scene.createEntity",
            json!({"position": [x, 0, 0], "dynamic": x == 0}),
        );
    }
    c.call_ok(
        "ecs.addComponent",
        json!({"entity": "ent_2", "component": "crate"}),
    );
    let first = c.call_ok("inspector.snapshot", json!({"limit": 2}));
    assert_eq!(
        first["page"],
        json!({"limit": 2, "totalEntities": 5, "nextAfterEntity": "ent_2"})
    );
    let ids: Vec<_> = first["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entity"].clone())
        .collect();
    assert_eq!(ids, vec![json!("ent_1"), json!("ent_2")]);
    assert!(
        first["entities"][0]["physics"]["bodyId"].is_u64(),
        "the dynamic one has a body"
    );
    assert_eq!(first["entities"][1]["tags"], json!(["crate"]));
    assert_eq!(
        first["entities"][1]["transform"]["rotation"],
        json!([0.0, 0.0, 0.0, 1.0])
    );
    let last = c.call_ok(
        "inspector.snapshot",
        json!({"afterEntity": "ent_4", "limit": 10}),
    );
    assert_eq!(last["page"]["nextAfterEntity"], serde_json::Value::Null);
    assert_eq!(last["entities"].as_array().unwrap().len(), 1);
    assert!(
        last["skills"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "dev.reload"
                && s["version"] == "2.0.0"
                && s["permissions"] == json!(["scene.write"]))
    );
    assert!(
        last["permissions"]["caller"]
            .as_array()
            .unwrap()
            .contains(&json!("scene.write"))
    );
    assert_eq!(
        last["permissions"]["profiles"]["system.readonly"],
        json!(["scene.read", "ecs.read", "physics.read", "agent.read"])
    );
    assert!(last["trace"]["eventCount"].as_u64().unwrap() > 10);
    let (code, message) = error_of(&c.call("inspector.snapshot", json!({"afterEntity": "bogus"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("afterEntity"), "{message}");
}
