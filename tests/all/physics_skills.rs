//! The core `physics` skills over MCP with a manual clock: impulses that move bodies over
//! the following ticks, nearest ray hits, contact events from a box dropped on a floor, the
//! `world.step` built-in, documented errors, and refusals that change nothing.

use crate::support::{Client, error_of};
use serde_json::{Value, json};

fn entity(c: &mut Client, input: Value) -> String {
    c.call_ok("scene.createEntity", input)["entity"]
        .as_str()
        .unwrap()
        .to_string()
}

fn position(c: &mut Client, id: &str) -> [f64; 3] {
    let all = c.call_ok("scene.queryEntities", json!({}))["entities"].clone();
    let found = all
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["entity"] == id)
        .unwrap_or_else(|| panic!("no {id} in {all}"))
        .clone();
    serde_json::from_value(found["position"].clone()).unwrap()
}

fn step(c: &mut Client, ticks: u64) -> u64 {
    c.call_ok("world.step", json!({"ticks": ticks}))["tick"]
        .as_u64()
        .unwrap()
}

#[test]
fn world_step_advances_the_tick_and_checks_its_range() {
    let mut c = Client::session("player.limited", &[]);
    assert_eq!(c.call_ok("world.step", json!({})), json!({"tick": 1}));
    assert_eq!(step(&mut c, 1000), 1001);
    for ticks in [json!(0), json!(1001), json!(1.5)] {
        let (code, message) = error_of(&c.call("world.step", json!({"ticks": ticks})));
        assert_eq!(code, "invalid_input", "{ticks}");
        assert!(message.contains("`ticks`"), "{message}");
    }
    assert_eq!(step(&mut c, 1), 1002, "refused steps took no ticks");
}

#[test]
fn a_session_without_physics_write_cannot_advance_time() {
    let mut c = Client::session("builder.readWrite", &[]);
    let ball = entity(&mut c, json!({"dynamic": true, "position": [0, 5, 0]}));
    for profile in ["system.readonly", "social.actor"] {
        c.rebind(profile, "watcher");
        let (code, message) = error_of(&c.call("world.step", json!({"ticks": 1000})));
        assert_eq!(code, "forbidden", "{profile}");
        assert_eq!(message, "missing permission: physics.write");
        assert_eq!(
            position(&mut c, &ball),
            [0.0, 5.0, 0.0],
            "{profile}: nothing fell"
        );
    }
    c.rebind("player.limited", "player");
    assert_eq!(step(&mut c, 1), 1, "the refused steps took no ticks");
}

#[test]
fn an_impulse_moves_a_dynamic_body_over_the_following_ticks() {
    let mut c = Client::session("builder.readWrite", &[]);
    let ball = entity(
        &mut c,
        json!({"shape": "sphere", "dynamic": true, "position": [0, 5, 0]}),
    );
    let out = c.call_ok(
        "physics.applyImpulse",
        json!({"entity": ball, "impulse": [4, 0, 0]}),
    );
    assert_eq!(out, json!({"ok": true}));
    assert_eq!(
        position(&mut c, &ball)[0],
        0.0,
        "nothing moves until the world steps"
    );
    step(&mut c, 10);
    let x1 = position(&mut c, &ball)[0];
    step(&mut c, 10);
    let x2 = position(&mut c, &ball)[0];
    assert!(
        x1 > 0.05 && x2 > x1 + 0.05,
        "keeps moving along +x: {x1} then {x2}"
    );
}

#[test]
fn an_impulse_on_an_entity_without_a_dynamic_body_is_not_ok() {
    let mut c = Client::session("builder.readWrite", &[]);
    let wall = entity(&mut c, json!({"static": true, "position": [3, 0, 0]}));
    let ghost = entity(&mut c, json!({"position": [6, 0, 0]}));
    for target in [wall.as_str(), ghost.as_str(), "ent_99", "nonsense"] {
        let out = c.call_ok(
            "physics.applyImpulse",
            json!({"entity": target, "impulse": [50, 0, 0]}),
        );
        assert_eq!(out, json!({"ok": false}), "{target}");
    }
    step(&mut c, 10);
    assert_eq!(position(&mut c, &wall), [3.0, 0.0, 0.0]);
    assert_eq!(position(&mut c, &ghost), [6.0, 0.0, 0.0]);
    let (code, message) = error_of(&c.call(
        "physics.applyImpulse",
        json!({"entity": wall, "impulse": [1, 2]}),
    ));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("`impulse`"), "{message}");
}

#[test]
fn a_session_without_physics_write_cannot_push_and_the_body_does_not_move_sideways() {
    let mut c = Client::session("builder.readWrite", &[]);
    let ball = entity(&mut c, json!({"dynamic": true, "position": [0, 5, 0]}));
    c.rebind("system.readonly", "watcher");
    let (code, message) = error_of(&c.call(
        "physics.applyImpulse",
        json!({"entity": ball, "impulse": [40, 0, 0]}),
    ));
    assert_eq!(code, "forbidden");
    assert_eq!(message, "missing permission: physics.write");
    // player.limited holds physics.write: time passes, and nothing pushed the ball sideways.
    c.rebind("player.limited", "player");
    step(&mut c, 20);
    assert_eq!(position(&mut c, &ball)[0], 0.0);
    let out = c.call_ok(
        "physics.applyImpulse",
        json!({"entity": ball, "impulse": [40, 0, 0]}),
    );
    assert_eq!(out["ok"], true);
}

#[test]
fn a_ray_reports_the_nearest_hit_with_its_entity() {
    let mut c = Client::session("builder.readWrite", &[]);
    let far = entity(
        &mut c,
        json!({"static": true, "size": 2, "position": [10, 0, 0]}),
    );
    let near = entity(
        &mut c,
        json!({"static": true, "size": 2, "position": [5, 0, 0]}),
    );
    entity(&mut c, json!({"size": 2, "position": [2, 0, 0]}));
    let out = c.call_ok(
        "physics.raycast",
        json!({"origin": [0, 0, 0], "direction": [3, 0, 0]}),
    );
    assert_eq!(out["hit"], true, "{out}");
    assert_eq!(
        out["entity"],
        json!(near),
        "render-only entities have nothing to hit"
    );
    assert!(
        (out["distance"].as_f64().unwrap() - 4.0).abs() < 1e-4,
        "{out}"
    );
    let p = &out["point"];
    assert!(
        (p[0].as_f64().unwrap() - 4.0).abs() < 1e-4 && p[1] == 0.0,
        "{out}"
    );

    let from_behind = c.call_ok(
        "physics.raycast",
        json!({"origin": [20, 0, 0], "direction": [-1, 0, 0]}),
    );
    assert_eq!(from_behind["entity"], json!(far));
    let short = c.call_ok(
        "physics.raycast",
        json!({"origin": [0, 0, 0], "direction": [1, 0, 0], "maxDistance": 3.5}),
    );
    assert_eq!(short, json!({"hit": false}));
    let away = c.call_ok(
        "physics.raycast",
        json!({"origin": [0, 0, 0], "direction": [0, 1, 0]}),
    );
    assert_eq!(away, json!({"hit": false}));
}

#[test]
fn raycast_errors_name_the_field() {
    let mut c = Client::session("system.readonly", &[]);
    for (args, field) in [
        (
            json!({"origin": [0, 0, 0], "direction": [1, 0, 0], "maxDistance": 0}),
            "maxDistance",
        ),
        (
            json!({"origin": [0, 0, 0], "direction": [1, 0, 0], "maxDistance": -1}),
            "maxDistance",
        ),
        (
            json!({"origin": [0, 0, 0], "direction": [0, 0, 0]}),
            "direction",
        ),
        (json!({"origin": [0, 0], "direction": [1, 0, 0]}), "origin"),
    ] {
        let (code, message) = error_of(&c.call("physics.raycast", args.clone()));
        assert_eq!(code, "invalid_input", "{args}");
        assert!(message.contains(&format!("`{field}`")), "{args}: {message}");
    }
}

#[test]
fn a_box_dropped_on_a_floor_reports_a_contact_start_with_both_entities_once() {
    let mut c = Client::session("builder.readWrite", &[]);
    let floor = entity(
        &mut c,
        json!({"static": true, "size": 10, "position": [0, -5, 0]}),
    );
    let box_ = entity(&mut c, json!({"dynamic": true, "position": [0, 2, 0]}));
    c.rebind("player.limited", "watcher");
    assert_eq!(
        c.call_ok("physics.collisionEvents", json!({})),
        json!({"events": []})
    );
    step(&mut c, 120);
    let out = c.call_ok("physics.collisionEvents", json!({"ignored": true}));
    let events = out["events"].as_array().unwrap();
    let start = events
        .iter()
        .find(|e| e["started"] == true)
        .unwrap_or_else(|| panic!("no start event in {out}"));
    let mut ids = [
        start["entityA"].as_str().unwrap().to_string(),
        start["entityB"].as_str().unwrap().to_string(),
    ];
    ids.sort();
    let mut want = [floor.clone(), box_.clone()];
    want.sort();
    assert_eq!(ids, want);
    assert!(start["bodyA"].is_u64() && start["bodyB"].is_u64() && start["bodyA"] != start["bodyB"]);
    assert!(
        start["point"][1].as_f64().unwrap().abs() < 0.2,
        "on the floor's top: {start}"
    );
    assert!(
        start["normal"][1].as_f64().unwrap().abs() > 0.9,
        "vertical: {start}"
    );
    assert!(position(&mut c, &box_)[1] < 1.0, "the box came down");
    // Drained: nothing new while the box rests.
    step(&mut c, 10);
    assert_eq!(
        c.call_ok("physics.collisionEvents", json!({})),
        json!({"events": []})
    );

    // Taking the box away stops the contact; a stop has no point or normal.
    c.rebind("builder.readWrite", "builder");
    c.call_ok("scene.destroyEntity", json!({"entity": box_}));
    step(&mut c, 1);
    let out = c.call_ok("physics.collisionEvents", json!({}));
    let events = out["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{out}");
    assert_eq!(events[0]["started"], false);
    assert_eq!(
        (&events[0]["point"], &events[0]["normal"]),
        (&Value::Null, &Value::Null)
    );
}
