//! Identity is host-bound: whatever a payload or request context claims.

use crate::support::{Client, guest_packages};
use serde_json::json;

#[test]
fn agent_and_session_ids_in_the_payload_are_ignored() {
    let pkgs = guest_packages(&["abuse"]);
    let mut c = Client::spawn(&["--packages", pkgs.path().to_str().unwrap()]);
    c.request(
        "initialize",
        json!({"profile": "builder.readWrite", "agentId": "alice", "sessionId": "s-alice"}),
    );
    let me = c.call_ok(
        "abuse.whoami",
        json!({"agentId": "admin", "sessionId": "s-root"}),
    );
    assert_eq!(me["agent"], "alice");
    assert_eq!(me["session"], "s-alice");
    assert_eq!(
        me["claimed_agent"], "admin",
        "the claim reaches the guest only as data"
    );
    let via_alias = c.request(
        "callTool",
        json!({"name": "abuse.whoami", "input": {}, "context": {"agentId": "admin", "sessionId": "s-root"}}),
    );
    assert_eq!(via_alias["result"]["result"]["agent"], "alice");
    // The trace attributes the call to the session's agent.
    let tail = c.call_ok("trace.tail", json!({"type": "skill.executed"}));
    assert!(
        tail["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["actorId"] == "alice")
    );
}
