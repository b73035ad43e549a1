//! A guest's own errors reach the wire with the code the guest chose: `not_found` is an
//! isError result on `tools/call` and JSON-RPC error -32601 on the `callTool` alias.

use crate::support::{Client, error_of, guest_packages};
use serde_json::json;

fn lookup_host() -> (tempfile::TempDir, Client) {
    let pkgs = guest_packages(&["lookup"]);
    let c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    (pkgs, c)
}

#[test]
fn a_guests_not_found_is_a_not_found_result_on_tools_call() {
    let (_pkgs, mut c) = lookup_host();
    assert_eq!(
        c.call_ok("lookup.find", json!({"key": "answer"})),
        json!({"value": "42"})
    );
    c.call_ok("scene.createEntity", json!({}));
    let r = c.call("lookup.find", json!({"key": "question"}));
    let (code, message) = error_of(&r);
    assert_eq!(code, "not_found");
    assert_eq!(
        message,
        "no entry `question`; the table holds only `answer`"
    );
    assert_eq!(
        r["content"][0]["text"],
        "not_found: no entry `question`; the table holds only `answer`"
    );
    let entities = c.call_ok("scene.queryEntities", json!({}))["entities"].clone();
    assert_eq!(
        entities.as_array().unwrap().len(),
        1,
        "the world is unchanged"
    );
    let executed = c.call_ok("trace.tail", json!({"type": "skill.executed"}))["events"].clone();
    assert!(
        executed
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["payload"]["input"]["key"] != "question"),
        "a failed call is not recorded as executed: {executed}"
    );
}

#[test]
fn a_guests_not_found_is_error_32601_on_the_call_tool_alias() {
    let (_pkgs, mut c) = lookup_host();
    let reply = c.request(
        "callTool",
        json!({"name": "lookup.find", "arguments": {"key": "question"}}),
    );
    let error = &reply["error"];
    assert_eq!(error["code"], -32601, "{reply}");
    assert_eq!(
        error["message"],
        "not_found: no entry `question`; the table holds only `answer`"
    );
    assert_eq!(error["data"]["success"], false);
    assert_eq!(error["data"]["error"]["code"], "not_found");
    let ok = c.request(
        "callTool",
        json!({"name": "lookup.find", "arguments": {"key": "answer"}}),
    );
    assert_eq!(ok["result"]["result"], json!({"value": "42"}), "{ok}");
}
