//! The stdio transport and the MCP / Limina method surface.

use crate::support::Client;
use serde_json::{Value, json};
use std::time::Duration;

#[test]
fn initialize_list_call_round_trip() {
    let mut c = Client::spawn(&[]);
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}, "profile": "builder.readWrite", "agentId": "alice", "sessionId": "s-1"}),
    );
    let r = &init["result"];
    assert_eq!(r["protocolVersion"], "2025-06-18");
    assert_eq!(r["serverInfo"]["name"], "limina");
    assert_eq!(r["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(r["session"]["agentId"], "alice");
    assert_eq!(r["session"]["sessionId"], "s-1");
    assert_eq!(r["session"]["profile"], "builder.readWrite");
    assert!(
        r["session"]["permissions"]
            .as_array()
            .unwrap()
            .contains(&json!("scene.write"))
    );

    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<_> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in [
        "scene.createEntity",
        "scene.destroyEntity",
        "scene.queryEntities",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().unwrap().len() > 20);
    }
    let create = tools
        .iter()
        .find(|t| t["name"] == "scene.createEntity")
        .unwrap();
    assert_eq!(create["annotations"]["readOnlyHint"], false);
    assert_eq!(create["_meta"]["permissions"], json!(["scene.write"]));
    let query = tools
        .iter()
        .find(|t| t["name"] == "scene.queryEntities")
        .unwrap();
    assert_eq!(query["annotations"]["readOnlyHint"], true);

    let made = c.call("scene.createEntity", json!({}));
    assert_eq!(made["isError"], false);
    assert_eq!(made["structuredContent"]["entity"], "ent_1");
    assert_eq!(made["content"][0]["type"], "text");
    assert_eq!(made["content"][0]["text"], r#"{"entity":"ent_1"}"#);
    assert!(made["_meta"]["executionTimeMs"].as_f64().unwrap() >= 0.0);
    assert!(
        !made["_meta"]["eventsEmitted"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn protocol_version_is_echoed_when_supported_and_latest_otherwise() {
    let mut c = Client::spawn(&[]);
    let r = c.request("initialize", json!({"protocolVersion": "2025-11-25"}));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    let r = c.request("initialize", json!({"protocolVersion": "1999-01-01"}));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn a_session_without_profile_gets_the_servers_profile_least_privilege_by_default() {
    let mut c = Client::spawn(&[]);
    let r = c.request("initialize", json!({}));
    assert_eq!(r["result"]["session"]["profile"], "system.readonly");
    let mut c = Client::spawn(&["--profile", "builder.readWrite"]);
    let r = c.request("initialize", json!({}));
    assert_eq!(r["result"]["session"]["profile"], "builder.readWrite");
}

#[test]
fn unknown_profile_is_an_error_naming_the_known_ones() {
    let mut c = Client::spawn(&[]);
    let r = c.request("initialize", json!({"profile": "root"}));
    let msg = r["error"]["message"].as_str().unwrap();
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        msg.contains("root") && msg.contains("builder.readWrite") && msg.contains("player.limited"),
        "{msg}"
    );
    // Still usable afterwards.
    let r = c.request("initialize", json!({"profile": "player.limited"}));
    assert_eq!(r["result"]["session"]["profile"], "player.limited");
}

#[test]
fn unknown_server_profile_flag_exits_with_a_clear_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(["--mcp-stdio", "--profile", "nope"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nope") && err.contains("system.readonly"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn tools_call_before_initialize_is_refused() {
    let mut c = Client::spawn(&[]);
    let r = c.request(
        "tools/call",
        json!({"name": "scene.createEntity", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32001);
    assert_eq!(r["error"]["message"], "MCP session is not initialized");
}

#[test]
fn unknown_methods_answer_method_not_found_even_before_initialize() {
    let mut c = Client::spawn(&[]);
    let r = c.request("server/discover", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    let mut c = Client::session("builder.readWrite", &[]);
    let r = c.request("resources/frobnicate", json!({}));
    assert_eq!(r["error"]["code"], -32601);
}

#[test]
fn malformed_json_is_a_parse_error_with_null_id_and_the_server_keeps_going() {
    let mut c = Client::spawn(&[]);
    c.send_line("{not json");
    let r = c.read();
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], serde_json::Value::Null);
    c.send_line("[1,2]");
    assert_eq!(c.read()["error"]["code"], -32600);
    c.send_line(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#);
    let r = c.read();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(9), json!(-32600))
    );
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn notifications_get_no_reply() {
    let mut c = Client::spawn(&[]);
    c.notify("notifications/initialized", json!({}));
    c.notify("no/such/method", json!({}));
    assert!(c.quiet_for(Duration::from_millis(300)));
    assert_eq!(c.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn unknown_tool_is_invalid_params() {
    let mut c = Client::session("builder.readWrite", &[]);
    let r = c.request(
        "tools/call",
        json!({"name": "scene.teleport", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["message"], "Unknown tool: scene.teleport");
}

#[test]
fn limina_aliases_keep_the_engine_shapes_and_error_codes() {
    let mut c = Client::session("builder.readWrite", &[]);
    let list = c.request("listTools", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .any(|t| t["name"] == "scene.createEntity" && t["input_schema"]["type"] == "object")
    );

    let ok = c.request(
        "callTool",
        json!({"tool": "scene.createEntity", "input": {"position": [1, 2, 3]}}),
    );
    assert_eq!(ok["result"]["success"], true);
    assert_eq!(ok["result"]["result"]["entity"], "ent_1");
    assert!(ok["result"]["metadata"]["executionTimeMs"].is_number());

    let bad = c.request(
        "callTool",
        json!({"name": "scene.createEntity", "arguments": {"size": 0}}),
    );
    assert_eq!(bad["error"]["code"], -32602);
    assert_eq!(bad["error"]["data"]["success"], false);
    assert_eq!(bad["error"]["data"]["error"]["code"], "invalid_input");

    let missing = c.request("callTool", json!({"name": "scene.nothing"}));
    assert_eq!(missing["error"]["code"], -32601);
    assert_eq!(missing["error"]["data"]["error"]["code"], "not_found");
}

#[test]
fn a_context_in_the_request_never_overrides_the_bound_identity() {
    let mut c = Client::session("player.limited", &[]);
    let r = c.request(
        "callTool",
        json!({"name": "scene.createEntity", "input": {}, "context": {"agentId": "admin", "profile": "builder.readWrite"}}),
    );
    assert_eq!(r["error"]["code"], -32001);
    assert_eq!(r["error"]["data"]["error"]["code"], "forbidden");
}

#[test]
fn shutdown_clears_the_session() {
    let mut c = Client::session("builder.readWrite", &[]);
    assert_eq!(
        c.request("shutdown", json!({}))["result"],
        json!({"ok": true})
    );
    let r = c.request(
        "tools/call",
        json!({"name": "scene.queryEntities", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32001);
}

#[test]
fn the_host_exits_cleanly_on_stdin_eof() {
    let c = Client::session("builder.readWrite", &[]);
    assert_eq!(c.close(), Some(0));
}

#[test]
fn progress_and_cancellation_work_over_stdio_too() {
    let packages = crate::support::guest_packages(&["slow"]);
    let config = crate::support::long_calls_config();
    let mut c = Client::session(
        "builder.readWrite",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            &config,
        ],
    );
    let reply = c.request(
        "tools/call",
        json!({"name": "slow.steps", "arguments": {"steps": 2}, "_meta": {"progressToken": 9}}),
    );
    assert_eq!(reply["result"]["structuredContent"], json!({"steps": 2}));
    let tokens: Vec<Value> = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"]["progressToken"].clone())
        .collect();
    assert_eq!(tokens, [json!(9), json!(9)]);

    // A cancel sent behind a running call reaches it: the engine thread reads stdin while
    // the guest runs.
    c.send_line(r#"{"jsonrpc":"2.0","id":"spin","method":"tools/call","params":{"name":"slow.buildThenSpin","arguments":{}}}"#);
    std::thread::sleep(std::time::Duration::from_millis(300));
    c.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"spin"}}"#,
    );
    let ping = c.request("ping", json!({}));
    assert_eq!(
        ping["result"],
        json!({}),
        "the next request is answered, not the cancelled one"
    );
    let count = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(
        count["entities"],
        json!([]),
        "the cancelled call's entity was rolled back"
    );
}

/// A pipelined client reads replies while it is still sending: the host writes them out as
/// they accumulate rather than when its input runs dry (which, against a client that keeps
/// writing, was never: every reply waited for the last request).
#[test]
fn a_pipelined_burst_is_answered_while_it_is_still_being_sent() {
    answered_while_sent(&["--ephemeral-trace"]);
}

/// The same with a durable trace, where the replies of reads wait for their batch's write
/// (`deferral.rs`): they still go out as the batch grows, not when the client stops.
#[test]
fn a_pipelined_burst_of_reads_on_a_durable_trace_is_answered_while_it_is_still_being_sent() {
    let dir = tempfile::tempdir().unwrap();
    answered_while_sent(&["--trace-dir", dir.path().to_str().unwrap()]);
}

fn answered_while_sent(trace: &[&str]) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    // Far more than the host reads ahead and than the first replies need.
    const CAP: usize = 50_000;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_limina"))
        .args([
            "--mcp-stdio",
            "--manual-clock",
            "--profile",
            "builder.readWrite",
        ])
        .args(trace)
        .args(crate::support::own_calibration(&[]))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (seen, written) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let writer = {
        let (seen, written) = (seen.clone(), written.clone());
        std::thread::spawn(move || {
            writeln!(stdin, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18"}}}}"#).unwrap();
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
            )
            .unwrap();
            let mut n = 0;
            while n < CAP && !seen.load(Ordering::Acquire) {
                // A hundred calls per write: the host never finds its input dry.
                let chunk: String = (n + 1..=n + 100)
                    .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"scene.queryEntities\",\"arguments\":{{}}}}}}\n"))
                    .collect();
                stdin.write_all(chunk.as_bytes()).unwrap();
                n += 100;
                written.store(n, Ordering::Release);
            }
            // stdin closes: the host answers the rest and exits.
        })
    };
    let mut lines = stdout.lines();
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 0);
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let sent_by_then = written.load(Ordering::Acquire);
    seen.store(true, Ordering::Release);
    assert_eq!(first["id"], 1);
    assert!(
        sent_by_then < CAP,
        "the first reply came only after the client had sent all {CAP} calls"
    );
    writer.join().unwrap();
    // Nothing lost or reordered: every call answered once, in order.
    let total = written.load(Ordering::Acquire);
    let mut next = 2;
    for line in lines {
        let reply: Value = serde_json::from_str(&line.unwrap()).unwrap();
        assert_eq!(reply["id"], next, "{reply}");
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        next += 1;
    }
    assert_eq!(next - 1, total as u64);
    assert!(child.wait().unwrap().success());
}
