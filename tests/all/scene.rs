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
