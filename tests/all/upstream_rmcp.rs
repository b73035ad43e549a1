//! A third peer: the bare `rmcp` echo server (`peers/rmcp-echo`, rmcp 3.11, its own workspace)
//! mounted over stdio. Built on first use into `target/peers`, as `cargo xtask bench stdio`
//! builds it.

use crate::support::{Client, error_of, repo};
use serde_json::json;
use std::path::PathBuf;

/// The rmcp echo server, built (debug) into `target/peers`.
fn rmcp_echo() -> PathBuf {
    let target = repo().join("target/peers");
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(repo().join("peers/rmcp-echo/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("running cargo");
    assert!(status.success(), "building peers/rmcp-echo failed");
    target.join("debug/rmcp-echo")
}

#[test]
fn an_rmcp_server_is_mounted_called_and_refused_like_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("limina.toml");
    std::fs::write(
        &path,
        format!(
            "[profiles.agent]\npermissions = [\"scene.read\", \"upstream.rs\"]\n\n[[upstream]]\nname = \"rs\"\ntransport = \"stdio\"\ncommand = \"{}\"\n",
            rmcp_echo().display()
        ),
    )
    .unwrap();
    let mut c = Client::session("agent", &["--config", path.to_str().unwrap()]);
    let listed = c.request("tools/list", json!({}));
    let echo = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "rs.echo")
        .cloned()
        .expect("rs.echo listed");
    assert_eq!(echo["_meta"]["upstream"], "rs");
    // No output schema: the output is the server's content blocks.
    assert_eq!(
        c.call_ok("rs.echo", json!({"message": "hi"})),
        json!({"content": [{"type": "text", "text": "hi"}]})
    );
    let (code, message) = error_of(&c.call("rs.echo", json!({})));
    assert_eq!(code, "invalid_input");
    assert!(
        message.contains("\"message\" is a required property"),
        "{message}"
    );
    let executed = c.call_ok("trace.tail", json!({"type": "skill.executed", "limit": 5}));
    let events = executed["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "only the valid call ran: {events:?}");
    assert_eq!(events[0]["payload"]["upstream"], "rs");
}
