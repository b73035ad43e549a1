//! The core `ecs` skills over MCP: transform components and tags, their documented errors,
//! and that sessions without `ecs.modify` change nothing.

use crate::core_in_process::Host;
use crate::support::{Client, error_of};
use serde_json::{Value, json};

fn entity(c: &mut Client, input: Value) -> String {
    c.call_ok("scene.createEntity", input)["entity"]
        .as_str()
        .unwrap()
        .to_string()
}

fn only_entity(c: &mut Client) -> Value {
    let all = c.call_ok("scene.queryEntities", json!({}))["entities"].clone();
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    all[0].clone()
}

fn tagged(c: &mut Client, tag: &str) -> Vec<Value> {
    c.call_ok("scene.queryEntities", json!({"tag": tag}))["entities"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn update_component_writes_position_and_unknown_entities_are_not_ok() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({}));
    let out = c.call_ok(
        "ecs.updateComponent",
        json!({"entity": e, "component": "position", "value": [1, 2, 3]}),
    );
    assert_eq!(out, json!({"ok": true}));
    assert_eq!(only_entity(&mut c)["position"], json!([1.0, 2.0, 3.0]));
    for component in ["rotation", "scale"] {
        let out = c.call_ok(
            "ecs.updateComponent",
            json!({"entity": e, "component": component, "value": [0.5, 0.5, 0.5]}),
        );
        assert_eq!(out["ok"], true, "{component}");
    }
    let out = c.call_ok(
        "ecs.updateComponent",
        json!({"entity": "ent_99", "component": "position", "value": [9, 9, 9]}),
    );
    assert_eq!(out, json!({"ok": false}));
    // Unknown keys are ignored in this category.
    let out = c.call_ok(
        "ecs.updateComponent",
        json!({"entity": e, "component": "position", "value": [4, 5, 6], "note": "x"}),
    );
    assert_eq!(out["ok"], true);
}

#[test]
fn rotation_takes_a_quaternion_or_three_numbers_meaning_w_1_and_scale_is_stored() {
    let mut h = Host::with(&["scene", "ecs"]);
    let e = h.call_ok("scene.createEntity", json!({}))["entity"]
        .as_str()
        .unwrap()
        .to_string();
    let update = |h: &mut Host, component: &str, value: Value| {
        h.call_ok(
            "ecs.updateComponent",
            json!({"entity": e, "component": component, "value": value}),
        )
    };
    let s = std::f64::consts::FRAC_1_SQRT_2;
    update(&mut h, "rotation", json!([0, 0, s, s]));
    let r = h.world().get_entity(&e).unwrap().transform.rotation;
    assert!((r[2] - s).abs() < 1e-9 && (r[3] - s).abs() < 1e-9, "{r:?}");
    update(&mut h, "rotation", json!([1, 0, 0]));
    let r = h.world().get_entity(&e).unwrap().transform.rotation;
    assert!(
        (r[0] - s).abs() < 1e-9 && (r[3] - s).abs() < 1e-9,
        "w = 1, normalized: {r:?}"
    );
    update(&mut h, "scale", json!([2, 3, 4]));
    assert_eq!(
        h.world().get_entity(&e).unwrap().transform.scale,
        [2.0, 3.0, 4.0]
    );
}

#[test]
fn a_dynamic_body_follows_an_updated_position() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({"dynamic": true, "position": [0, 10, 0]}));
    c.call_ok(
        "ecs.updateComponent",
        json!({"entity": e, "component": "position", "value": [7, 10, 0]}),
    );
    c.call_ok("world.step", json!({"ticks": 5}));
    let p = only_entity(&mut c)["position"].clone();
    assert!((p[0].as_f64().unwrap() - 7.0).abs() < 1e-3, "{p}");
    assert!(
        p[1].as_f64().unwrap() < 10.0,
        "the body still falls from there: {p}"
    );
}

#[test]
fn bad_values_are_invalid_input_naming_the_field_and_change_nothing() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({"position": [1, 1, 1]}));
    for (args, field) in [
        (
            json!({"entity": e, "component": "position", "value": [1, 2]}),
            "value",
        ),
        (
            json!({"entity": e, "component": "position", "value": [1, 2, 3, 4, 5]}),
            "value",
        ),
        (
            json!({"entity": e, "component": "color", "value": [1, 2, 3]}),
            "component",
        ),
        (
            json!({"component": "position", "value": [1, 2, 3]}),
            "entity",
        ),
        // Four numbers are only a rotation: the world refuses them for a position.
        (
            json!({"entity": e, "component": "position", "value": [1, 2, 3, 4]}),
            "value",
        ),
    ] {
        let (code, message) = error_of(&c.call("ecs.updateComponent", args.clone()));
        assert_eq!(code, "invalid_input", "{args}");
        assert!(
            message.contains(&format!("`{field}`")) || message.contains(&format!("\"{field}\"")),
            "{args}: {message}"
        );
    }
    for args in [json!({"entity": e, "component": ""}), json!({"entity": e})] {
        let (code, message) = error_of(&c.call("ecs.addComponent", args.clone()));
        assert_eq!(code, "invalid_input", "{args}");
        assert!(message.contains("component"), "{args}: {message}");
    }
    let only = only_entity(&mut c);
    assert_eq!(only["position"], json!([1.0, 1.0, 1.0]));
    assert!(tagged(&mut c, "").is_empty());
}

#[test]
fn tags_are_added_and_removed_and_only_a_real_removal_is_traced() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({}));
    let out = c.call_ok(
        "ecs.addComponent",
        json!({"entity": e, "component": "crate"}),
    );
    assert_eq!(out, json!({"ok": true}));
    assert_eq!(tagged(&mut c, "crate").len(), 1);
    assert_eq!(
        c.call_ok(
            "ecs.addComponent",
            json!({"entity": "ent_9", "component": "crate"})
        ),
        json!({"ok": false})
    );

    let out = c.call_ok(
        "ecs.removeComponent",
        json!({"entity": e, "component": "crate"}),
    );
    assert_eq!(out, json!({"ok": true}));
    assert!(tagged(&mut c, "crate").is_empty());
    let again = c.call_ok(
        "ecs.removeComponent",
        json!({"entity": e, "component": "crate"}),
    );
    assert_eq!(again, json!({"ok": false}));
    let unknown = c.call_ok(
        "ecs.removeComponent",
        json!({"entity": "ent_9", "component": "crate"}),
    );
    assert_eq!(unknown, json!({"ok": false}));

    let removed =
        c.call_ok("trace.tail", json!({"type": "ecs.component.removed"}))["events"].clone();
    assert_eq!(removed.as_array().unwrap().len(), 1, "{removed}");
    assert_eq!(
        removed[0]["payload"],
        json!({"entity": e, "component": "crate"})
    );
    let added = c.call_ok("trace.tail", json!({"type": "ecs.component.added"}))["events"].clone();
    assert_eq!(added.as_array().unwrap().len(), 1, "{added}");
}

#[test]
fn a_player_limited_session_is_refused_and_nothing_changes() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({"position": [1, 2, 3]}));
    c.call_ok(
        "ecs.addComponent",
        json!({"entity": e, "component": "keep"}),
    );
    c.rebind("player.limited", "player");
    for (skill, args) in [
        (
            "ecs.updateComponent",
            json!({"entity": e, "component": "position", "value": [9, 9, 9]}),
        ),
        (
            "ecs.addComponent",
            json!({"entity": e, "component": "stolen"}),
        ),
        (
            "ecs.removeComponent",
            json!({"entity": e, "component": "keep"}),
        ),
    ] {
        let (code, message) = error_of(&c.call(skill, args));
        assert_eq!(code, "forbidden", "{skill}");
        assert_eq!(message, "missing permission: ecs.modify", "{skill}");
    }
    let only = only_entity(&mut c);
    assert_eq!(only["position"], json!([1.0, 2.0, 3.0]));
    assert_eq!(tagged(&mut c, "keep").len(), 1);
    assert!(tagged(&mut c, "stolen").is_empty());
}
