//! Guests that misbehave are stopped by the sandbox, leave the world as it was, and the host
//! answers the next call normally.

use crate::support::{Client, error_of, guest_packages};
use serde_json::json;

#[test]
fn an_infinite_loop_is_stopped_by_fuel_and_the_next_call_is_answered() {
    let pkgs = guest_packages(&["spin"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    let (code, message) = error_of(&c.call("spin.forever", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(message.contains("fuel"), "{message}");
    assert_eq!(c.call_ok("spin.ok", json!({}))["n"], 1);
    assert_eq!(
        c.call_ok("scene.createEntity", json!({}))["entity"],
        "ent_1"
    );
}

#[test]
fn growing_memory_past_the_limit_is_stopped_and_the_next_call_is_answered() {
    let pkgs = guest_packages(&["memhog"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    let (code, message) = error_of(&c.call("memhog.grow", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(
        message.contains("memory") && message.contains("4194304"),
        "{message}"
    );
    assert_eq!(c.call_ok("memhog.ok", json!({}))["bytes"], 0);
    assert_eq!(
        c.call_ok("scene.queryEntities", json!({}))["entities"],
        json!([])
    );
}

#[test]
fn a_guest_that_changes_the_world_then_panics_leaves_it_unchanged() {
    let pkgs = guest_packages(&["crasher"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    c.call_ok("scene.createEntity", json!({"position": [1, 0, 0]}));
    let (code, message) = error_of(&c.call("crasher.buildThenPanic", json!({})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("trapped"), "{message}");
    let all = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(all["entities"].as_array().unwrap().len(), 1, "{all}");
    assert_eq!(
        c.call_ok("scene.createEntity", json!({}))["entity"],
        "ent_3"
    );
}
