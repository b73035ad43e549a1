//! What crosses the boundary: stack, output size and encoding, output shape, capabilities.

use crate::support::{Client, error_of, guest_packages};
use serde_json::json;

fn host(names: &[&str], profile: &str) -> (Client, tempfile::TempDir) {
    let pkgs = guest_packages(names);
    let c = Client::session(profile, &["--packages", pkgs.path().to_str().unwrap()]);
    (c, pkgs)
}

fn still_answers(c: &mut Client) {
    assert_eq!(c.call_ok("abuse.whoami", json!({}))["agent"], "tester");
    c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn a_loop_over_a_cheap_host_import_is_stopped_by_the_deadline() {
    let (mut c, _p) = host(&["abuse"], "builder.readWrite");
    let (code, message) = error_of(&c.call("abuse.importLoop", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(message.contains("300 ms deadline"), "{message}");
    still_answers(&mut c);
}

#[test]
fn deep_recursion_traps_cleanly() {
    let (mut c, _p) = host(&["abuse"], "builder.readWrite");
    let (code, message) = error_of(&c.call("abuse.recurse", json!({})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("trapped"), "{message}");
    still_answers(&mut c);
}

#[test]
fn oversized_output_is_refused() {
    let (mut c, _p) = host(&["abuse"], "builder.readWrite");
    let (code, message) = error_of(&c.call("abuse.bigOutput", json!({})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("byte cap"), "{message}");
    still_answers(&mut c);
}

#[test]
fn non_utf8_output_is_refused_at_the_boundary() {
    let (mut c, _p) = host(&["abuse"], "builder.readWrite");
    let (code, message) = error_of(&c.call("abuse.badUtf8", json!({})));
    assert_eq!(code, "handler_error");
    assert!(message.to_lowercase().contains("utf-8"), "{message}");
    still_answers(&mut c);
}

#[test]
fn output_that_breaks_its_schema_is_a_handler_error() {
    let (mut c, _p) = host(&["abuse"], "builder.readWrite");
    let (code, message) = error_of(&c.call("abuse.wrongShape", json!({})));
    assert_eq!(code, "handler_error");
    assert!(
        message.contains("output schema") && message.contains("`value`"),
        "{message}"
    );
    still_answers(&mut c);
}

#[test]
fn a_world_import_without_the_declared_capability_is_forbidden_traced_and_changes_nothing() {
    let (mut c, _p) = host(&["abuse"], "builder.readWrite");
    let r = c.call("abuse.sneakyCreate", json!({}));
    let (code, message) = error_of(&r);
    assert_eq!(code, "forbidden");
    assert_eq!(message, "missing permission: scene.write");
    let denied = r["_meta"]["eventsEmitted"]
        .as_array()
        .unwrap()
        .iter()
        .any(|id| {
            let e = c.call_ok("trace.explainEvent", json!({"eventId": id}));
            e["event"]["type"] == "security.permission.denied"
                && e["event"]["payload"]["boundary"] == "host-import"
        });
    assert!(denied, "the denial was not traced: {r}");
    assert_eq!(
        c.call_ok("scene.queryEntities", json!({}))["entities"],
        json!([])
    );
    still_answers(&mut c);
}

#[test]
fn a_session_narrower_than_the_package_is_denied_at_the_import() {
    let (mut c, _p) = host(&["narrow", "abuse"], "player.limited");
    let (code, message) = error_of(&c.call("narrow.create", json!({})));
    assert_eq!(code, "forbidden");
    assert_eq!(message, "missing permission: scene.write");
    assert_eq!(
        c.call_ok("scene.queryEntities", json!({}))["entities"],
        json!([])
    );
    still_answers(&mut c);
    // The same package acting for a session that holds the permission works.
    let (mut c, _p) = host(&["narrow"], "builder.readWrite");
    c.call_ok("narrow.create", json!({}));
}

#[test]
fn guest_logs_reach_the_client_by_level_and_are_bounded_per_call() {
    let (mut c, _p) = host(&["abuse"], "builder.readWrite");
    c.call_ok("abuse.chatty", json!({"lines": 5}));
    let messages: Vec<_> = c
        .notifications
        .drain(..)
        .filter(|n| n["method"] == "notifications/message")
        .collect();
    assert_eq!(
        messages.len(),
        1,
        "only warnings and worse by default: {messages:?}"
    );
    assert_eq!(messages[0]["params"]["level"], "error");
    assert_eq!(messages[0]["params"]["logger"], "abuse");

    assert_eq!(
        c.request("logging/setLevel", json!({"level": "info"}))["result"],
        json!({})
    );
    c.call_ok("abuse.chatty", json!({"lines": 500}));
    c.call_ok("scene.queryEntities", json!({}));
    let count = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .count();
    assert_eq!(count, 100, "at most 100 lines per call reach the client");
    let bad = c.request("logging/setLevel", json!({"level": "loud"}));
    assert_eq!(bad["error"]["code"], -32602);
    still_answers(&mut c);
}
