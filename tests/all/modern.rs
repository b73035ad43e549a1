//! MCP 2026-07-28 beside 2025-11-25: stateless requests (`_meta` protocol version and client
//! capabilities) and `initialize` sessions served by one dispatcher, over stdio and HTTP, on
//! one world; the new revision's errors, result fields, removed methods, listen streams and
//! HTTP header rules.

use crate::hot_reload::{counter_v1, install};
use crate::http_client::{HttpHost, Reply, sse_messages};
use crate::support::Client;
use serde_json::{Value, json};
use std::time::Duration;

const VERSION: &str = "2026-07-28";

/// `_meta` for a 2026-07-28 request.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    })
}

/// `params` with the 2026-07-28 `_meta` added.
fn modern(mut params: Value) -> Value {
    params["_meta"] = meta();
    params
}

fn created_entity(reply: &Value) -> String {
    reply["result"]["structuredContent"]["entity"]
        .as_str()
        .unwrap_or_else(|| panic!("no entity: {reply}"))
        .to_string()
}

#[test]
fn stdio_serves_stateless_requests_and_an_initialize_session_on_one_world() {
    let mut c = Client::spawn(&["--profile", "builder.readWrite"]);
    let discovered = c.request("server/discover", modern(json!({})));
    let result = &discovered["result"];
    assert_eq!(result["resultType"], "complete", "{discovered}");
    assert_eq!(result["supportedVersions"][0], VERSION);
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25"))
    );
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
    assert!(
        result["instructions"]
            .as_str()
            .unwrap()
            .contains("tools/list")
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "limina"
    );

    let listed = c.request("tools/list", modern(json!({})));
    let result = &listed["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "private");
    assert!(result["ttlMs"].as_u64().is_some(), "{result}");
    assert!(result["tools"].as_array().unwrap().len() > 40);

    // Stateless, then a session, then stateless again: one world, one sequence of entities.
    let first = c.request(
        "tools/call",
        modern(json!({"name": "scene.createEntity", "arguments": {"position": [0, 0, 0]}})),
    );
    assert_eq!(first["result"]["resultType"], "complete", "{first}");
    assert_eq!(created_entity(&first), "ent_1");
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}, "agentId": "old"}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let second = c.request(
        "tools/call",
        json!({"name": "scene.createEntity", "arguments": {"position": [1, 0, 0]}}),
    );
    assert_eq!(created_entity(&second), "ent_2");
    assert!(
        second["result"].get("resultType").is_none(),
        "older sessions get the older shape: {second}"
    );
    let third = c.request(
        "tools/call",
        modern(json!({"name": "scene.createEntity", "arguments": {"position": [2, 0, 0]}})),
    );
    assert_eq!(created_entity(&third), "ent_3");
    // The session's requests still work after a stateless one borrowed the connection.
    let pinged = c.request("ping", json!({}));
    assert_eq!(pinged["result"], json!({}));

    // The trace names who called: the process's identity for stateless calls, the session's
    // agent for the session's.
    let tail = c.call_ok("trace.tail", json!({"type": "skill.executed"}));
    let agents: Vec<String> = tail["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["skill"] == "scene.createEntity")
        .map(|e| e.to_string())
        .collect();
    assert_eq!(agents.len(), 3, "{tail}");
    assert!(
        agents[0].contains("stdio") && agents[2].contains("stdio"),
        "{agents:?}"
    );
    assert!(agents[1].contains("old"), "{agents:?}");
}

#[test]
fn the_new_revision_refuses_what_it_removed_and_versions_it_does_not_speak() {
    let mut c = Client::spawn(&["--profile", "builder.readWrite"]);
    for (method, says) in [
        ("ping", "server/discover"),
        ("logging/setLevel", "io.modelcontextprotocol/logLevel"),
        ("initialize", "server/discover"),
    ] {
        let reply = c.request(method, modern(json!({"level": "debug"})));
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(method) && message.contains(says),
            "{message}"
        );
    }

    let mut unsupported = modern(json!({"name": "scene.createEntity", "arguments": {}}));
    unsupported["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let reply = c.request("tools/call", unsupported);
    assert_eq!(reply["error"]["code"], -32022, "{reply}");
    assert_eq!(reply["error"]["data"]["requested"], "1900-01-01");
    assert_eq!(reply["error"]["data"]["supported"][0], VERSION);

    let reply = c.request(
        "tools/call",
        json!({"name": "scene.createEntity", "arguments": {},
               "_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("io.modelcontextprotocol/clientCapabilities")
    );
    let mut loud = modern(json!({"name": "scene.createEntity", "arguments": {}}));
    loud["_meta"]["io.modelcontextprotocol/logLevel"] = json!("loud");
    let reply = c.request("tools/call", loud);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");

    // None of the refused calls touched the world or the trace.
    let made = c.request(
        "tools/call",
        modern(json!({"name": "scene.createEntity", "arguments": {}})),
    );
    assert_eq!(created_entity(&made), "ent_1");
    let tail = c.request(
        "tools/call",
        modern(json!({"name": "trace.tail", "arguments": {"type": "skill.executed"}})),
    );
    let events = tail["result"]["structuredContent"]["events"].clone();
    assert_eq!(events.as_array().unwrap().len(), 1, "{tail}");
}

#[test]
fn a_listen_stream_hears_tools_list_changed_after_a_hot_reload() {
    let pkgs = counter_v1();
    let mut c = Client::spawn(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        pkgs.path().to_str().unwrap(),
        "--watch",
    ]);
    let listed = c.request("tools/list", modern(json!({})));
    assert_eq!(
        listed["result"]["ttlMs"], 0,
        "watched packages may change any moment"
    );
    let generation = listed["result"]["_meta"]["io.limina/registryGeneration"].clone();
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
                "params": modern(json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}}))})
        .to_string(),
    );
    let ack = c
        .wait_notification(
            "notifications/subscriptions/acknowledged",
            Duration::from_secs(10),
        )
        .expect("the listen stream is acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    install(&pkgs.path().join("counter"), 2);
    let note = c
        .wait_notification("notifications/tools/list_changed", Duration::from_secs(10))
        .expect("tools/list_changed on the listen stream");
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    let relisted = c.request("tools/list", modern(json!({})));
    assert_ne!(
        relisted["result"]["_meta"]["io.limina/registryGeneration"],
        generation
    );
    // Cancelling the listen ends it: no reply, nothing more on it.
    c.notify("notifications/cancelled", json!({"requestId": "listen-1"}));
    install(&pkgs.path().join("counter"), 1);
    assert!(
        c.wait_notification("notifications/tools/list_changed", Duration::from_secs(3))
            .is_none(),
        "a cancelled listen hears nothing"
    );
}

/// POSTs a 2026-07-28 message with the headers the revision requires (plus `extra`).
pub(crate) fn post_modern(host: &HttpHost, message: &Value, extra: &[(&str, &str)]) -> Reply {
    let method = message["method"].as_str().unwrap().to_string();
    let name = message["params"]["name"].as_str().map(str::to_string);
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", VERSION),
        ("mcp-method", method.as_str()),
    ];
    if let Some(name) = &name {
        headers.push(("mcp-name", name.as_str()));
    }
    for (k, v) in extra {
        headers.retain(|(h, _)| h != k);
        headers.push((k, v));
    }
    host.send("POST", "/mcp", &headers, &message.to_string())
}

#[test]
fn http_serves_stateless_posts_without_a_session_beside_a_session() {
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": modern(json!({}))});
    let reply = post_modern(&host, &discover, &[]);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        reply.header("mcp-session-id").is_none(),
        "no session is minted"
    );
    assert_eq!(reply.json()["result"]["supportedVersions"][0], VERSION);

    let create = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": modern(json!({"name": "scene.createEntity", "arguments": {}}))})
    };
    let made = post_modern(&host, &create(2), &[]);
    assert_eq!(made.status, 200, "{}", made.body);
    assert_eq!(made.json()["result"]["resultType"], "complete");
    assert_eq!(created_entity(&made.json()), "ent_1");

    let session = host.session("builder.readWrite");
    let old = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "scene.createEntity", "arguments": {}}}),
    );
    assert_eq!(created_entity(&old.json()), "ent_2");
    let made = post_modern(&host, &create(4), &[]);
    assert_eq!(created_entity(&made.json()), "ent_3");

    // A method this server does not have is 404 with -32601, so clients know it is modern.
    let unknown = json!({"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage", "params": modern(json!({}))});
    let reply = post_modern(&host, &unknown, &[]);
    assert_eq!(reply.status, 404, "{}", reply.body);
    assert_eq!(reply.json()["error"]["code"], -32601);
    // The world's resources, private to the caller; a file is no resource of it.
    let listed =
        json!({"jsonrpc": "2.0", "id": 6, "method": "resources/list", "params": modern(json!({}))});
    let reply = post_modern(&host, &listed, &[]).json();
    assert_eq!(
        reply["result"]["resources"][0]["uri"], "limina://world",
        "{reply}"
    );
    assert_eq!(reply["result"]["cacheScope"], "private");
    let read = json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read",
                      "params": modern(json!({"uri": "file:///etc/passwd"}))});
    let reply = post_modern(&host, &read, &[("mcp-name", "file:///etc/passwd")]);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let error = &reply.json()["error"];
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["data"]["uri"], "file:///etc/passwd");
}

#[test]
fn http_refuses_missing_or_mismatched_headers_and_unsupported_versions_with_400() {
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": modern(json!({"name": "scene.createEntity", "arguments": {}}))});
    // (headers changed, the error code, what its message must name)
    type Case<'a> = (&'a [(&'a str, &'a str)], i64, &'a str);
    let cases: [Case; 5] = [
        (&[("mcp-method", "tools/list")], -32020, "Mcp-Method"),
        (&[("mcp-name", "scene.deleteEntity")], -32020, "Mcp-Name"),
        (
            &[("mcp-protocol-version", "2025-11-25")],
            -32020,
            "MCP-Protocol-Version",
        ),
        (
            &[("mcp-name", "=?base64?c2NlbmUuZGVsZXRlRW50aXR5?=")],
            -32020,
            "scene.deleteEntity",
        ),
        (
            &[("mcp-protocol-version", "1900-01-01")],
            -32020,
            "'1900-01-01' does not match body value '2026-07-28'",
        ),
    ];
    for (extra, code, says) in cases {
        let reply = post_modern(&host, &call, extra);
        assert_eq!(reply.status, 400, "{extra:?}: {}", reply.body);
        let error = &reply.json()["error"];
        assert_eq!(error["code"], code, "{extra:?}: {error}");
        assert!(error["message"].as_str().unwrap().contains(says), "{error}");
    }
    // Without the headers at all.
    let bare = host.post(None, &call);
    assert_eq!(bare.status, 400, "{}", bare.body);
    assert_eq!(bare.json()["error"]["code"], -32020);
    // A body naming an unknown version is -32022 with the list, even when the header agrees.
    let mut old = call.clone();
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2030-01-01");
    let reply = post_modern(&host, &old, &[("mcp-protocol-version", "2030-01-01")]);
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["data"]["supported"][0], VERSION);
    // The base64 form of the right name passes; nothing refused touched the world.
    let encoded = post_modern(
        &host,
        &call,
        &[("mcp-name", "=?base64?c2NlbmUuY3JlYXRlRW50aXR5?=")],
    );
    assert_eq!(encoded.status, 200, "{}", encoded.body);
    assert_eq!(created_entity(&encoded.json()), "ent_1");
}

#[test]
fn http_listen_streams_acknowledge_and_carry_tools_list_changed() {
    let pkgs = counter_v1();
    let host = HttpHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        pkgs.path().to_str().unwrap(),
        "--watch",
    ]);
    let addr = host.addr.clone();
    let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                        "params": modern(json!({"notifications": {"toolsListChanged": true}}))});
    let body = listen.to_string();
    let (acknowledged, heard) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: {VERSION}\r\nmcp-method: subscriptions/listen\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut seen = String::new();
        let mut buf = [0u8; 4096];
        while !seen.contains("list_changed") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.push_str(&String::from_utf8_lossy(&buf[..n])),
            }
            if seen.contains("acknowledged") {
                let _ = acknowledged.send(());
            }
        }
        seen
    });
    heard
        .recv_timeout(Duration::from_secs(20))
        .expect("the listen stream is acknowledged");
    install(&pkgs.path().join("counter"), 2);
    let seen = reader.join().unwrap();
    assert!(seen.contains("text/event-stream"), "{seen}");
    let messages = sse_messages(&seen);
    assert!(
        messages
            .iter()
            .any(|m| m["method"] == "notifications/subscriptions/acknowledged"),
        "{seen}"
    );
    let note = messages
        .iter()
        .find(|m| m["method"] == "notifications/tools/list_changed")
        .unwrap_or_else(|| panic!("{seen}"));
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
}

/// Runs `tests/clients/modern_python.py` with the 2026-07-28 Python SDK; its report, and
/// what it (and over stdio, the host it spawned) wrote on stderr.
fn python_client(args: &[&str]) -> (Value, String) {
    python_script("modern_python.py", args)
}

/// Runs `tests/clients/SCRIPT` with the 2026-07-28 Python SDK; its report and stderr.
pub(crate) fn python_script(script: &str, args: &[&str]) -> (Value, String) {
    use limina_guest_build::clients::PYTHON_SDK_MODERN;
    use limina_guest_build::tools::venv_python;
    let sdk = PYTHON_SDK_MODERN
        .ensure()
        .expect("installing the Python MCP SDK 2.3");
    let out = std::process::Command::new(venv_python(&sdk))
        .arg(crate::support::repo().join("tests/clients").join(script))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "the client failed: {stderr}");
    (crate::support::last_json_line(&out), stderr)
}

/// What every run of the Python SDK must show: it spoke 2026-07-28 from the first request
/// (no `initialize`), and the host ran its calls as the transport's identity.
fn assert_spoke_modern(report: &Value, agent: &str) {
    assert_eq!(report["protocol_version"], VERSION, "{report}");
    // The Python SDK says whether it fell back; the pinned TypeScript client cannot.
    if report.get("initialized").is_some() {
        assert_eq!(report["initialized"], false, "it fell back: {report}");
        assert_eq!(report["discovered"], true);
    }
    assert_eq!(report["server"], "limina");
    assert!(report["tools"].as_u64().unwrap() > 40, "{report}");
    assert_eq!(report["made_error"], false, "{report}");
    let position: Vec<f64> = report["found"]["entities"][0]["position"]
        .as_array()
        .unwrap_or_else(|| panic!("{report}"))
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(position, [1.0, 2.0, 3.0]);
    assert_eq!(report["refused_error"], true);
    assert!(
        report["refused_text"]
            .as_str()
            .unwrap()
            .starts_with("invalid_input"),
        "{report}"
    );
    // Every call the host ran was a stateless one of this identity: no session was bound.
    let events = report["events"].as_array().unwrap();
    assert!(!events.is_empty(), "{report}");
    let session = format!("stateless.{agent}.builder.readWrite");
    for event in events {
        assert!(event.to_string().contains(&session), "{event}");
    }
}

#[test]
fn the_official_python_sdk_speaks_the_new_revision_over_stdio_without_initialize() {
    let traces = tempfile::tempdir().unwrap();
    let binary = env!("CARGO_BIN_EXE_limina");
    let mut args = vec!["stdio", binary, "--mcp-stdio", "--manual-clock"];
    args.extend(["--profile", "builder.readWrite", "--log-level", "debug"]);
    args.extend(["--trace-dir", traces.path().to_str().unwrap()]);
    let own = crate::support::own_calibration(&args[2..]);
    args.extend(own.iter().map(String::as_str));
    let (report, stderr) = python_client(&args);
    assert_spoke_modern(&report, "stdio");
    // The host logs every session it binds at debug level: none was.
    assert!(stderr.contains("serving MCP on stdio"), "{stderr}");
    assert!(
        !stderr.contains(" bound: agent"),
        "an initialize reached the host: {stderr}"
    );
}

#[test]
fn the_official_python_sdk_speaks_the_new_revision_over_http_without_initialize() {
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let (report, _) = python_client(&["http", &host.url()]);
    assert_spoke_modern(&report, "anonymous");
}

/// Runs `tests/clients/modern_typescript.mjs` with the TypeScript client v2 pinned to
/// 2026-07-28; its report and stderr (over stdio, the host's too).
fn typescript_client(args: &[&str]) -> (Value, String) {
    typescript_script("modern_typescript.mjs", args)
}

/// Runs `tests/clients/SCRIPT` with the TypeScript client v2; its report and stderr.
pub(crate) fn typescript_script(name: &str, args: &[&str]) -> (Value, String) {
    use limina_guest_build::clients::TYPESCRIPT_CLIENT;
    let sdk = TYPESCRIPT_CLIENT
        .ensure()
        .expect("installing the TypeScript MCP client 2.4");
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(sdk.join("node_modules"), dir.path().join("node_modules")).unwrap();
    let script = dir.path().join(name);
    std::fs::copy(
        crate::support::repo().join("tests/clients").join(name),
        &script,
    )
    .unwrap();
    let out = std::process::Command::new("node")
        .arg(&script)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "the client failed: {stderr}");
    (crate::support::last_json_line(&out), stderr)
}

#[test]
fn the_typescript_client_pinned_to_the_new_revision_speaks_it_over_stdio() {
    let traces = tempfile::tempdir().unwrap();
    let binary = env!("CARGO_BIN_EXE_limina");
    let mut args = vec!["stdio", binary, "--mcp-stdio", "--manual-clock"];
    args.extend(["--profile", "builder.readWrite", "--log-level", "debug"]);
    args.extend(["--trace-dir", traces.path().to_str().unwrap()]);
    let own = crate::support::own_calibration(&args[2..]);
    args.extend(own.iter().map(String::as_str));
    let (report, stderr) = typescript_client(&args);
    assert_spoke_modern(&report, "stdio");
    assert!(stderr.contains("serving MCP on stdio"), "{stderr}");
    assert!(
        !stderr.contains(" bound: agent"),
        "an initialize reached the host: {stderr}"
    );
}

#[test]
fn the_typescript_client_pinned_to_the_new_revision_speaks_it_over_http() {
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let (report, _) = typescript_client(&["http", &host.url()]);
    assert_spoke_modern(&report, "anonymous");
}

/// The conformance prerelease's 2026-07-28 scenarios that a tools server can meet: every
/// check passes.
const CONFORMANCE_MODERN_SCENARIOS: [&str; 8] = [
    "caching",
    "sep-2164-resource-not-found",
    "http-header-validation",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "input-required-result-unsupported-methods",
    "input-required-result-ignore-extra-params",
];

/// `server-stateless` checks that call the suite's own fixture tools (`test_missing_capability`,
/// `test_streaming_elicitation`, `test_logging_tool`), which a skill host does not have: the
/// suite itself reports them "not testable".
const NEEDS_FIXTURE_TOOLS: [&str; 4] = [
    "sep-2575-server-rejects-undeclared-capability",
    "sep-2575-missing-capability-http-400",
    "sep-2575-http-server-no-independent-requests-on-stream",
    "sep-2575-server-no-log-without-loglevel",
];

#[test]
fn the_conformance_prerelease_passes_its_2026_scenarios_that_apply_to_a_tools_server() {
    use limina_guest_build::clients::{CONFORMANCE_NEXT, NODE_22, conformance_cli, node_binary};
    let node = node_binary(&NODE_22.ensure().expect("installing Node.js 22")).unwrap();
    let suite = conformance_cli(
        &CONFORMANCE_NEXT
            .ensure()
            .expect("installing the conformance prerelease"),
    );
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let run = |scenario: &str| {
        let out = std::process::Command::new(&node)
            .arg(&suite)
            .args(["server", "--url", &host.url(), "--scenario", scenario])
            .args(["--spec-version", VERSION])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for scenario in CONFORMANCE_MODERN_SCENARIOS {
        let text = run(scenario);
        assert!(text.contains(" 0 failed"), "{scenario}:\n{text}");
    }
    let text = run("server-stateless");
    let plain = without_colours(&text);
    let failed: Vec<&str> = plain
        .lines()
        .filter(|l| l.contains("] FAILURE"))
        .filter_map(|l| l.split('[').nth(1)?.split_whitespace().next())
        .collect();
    // The summary's count agrees with the failures read, so none was missed.
    let summary = plain
        .lines()
        .find_map(|l| l.split_once("Passed: "))
        .unwrap_or_else(|| panic!("no summary:\n{text}"))
        .1;
    let count: usize = summary
        .split(", ")
        .nth(1)
        .and_then(|f| f.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(count, failed.len(), "{summary}: {failed:?}");
    for check in &failed {
        assert!(
            NEEDS_FIXTURE_TOOLS.contains(check),
            "server-stateless failed {check}:\n{text}"
        );
    }
}

/// `text` without its ANSI colour sequences (`ESC [ … m`).
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn log_lines_travel_only_with_requests_that_ask_for_them_in_meta() {
    let packages = crate::support::guest_packages(&["abuse"]);
    let mut c = Client::spawn(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
    ]);
    // `abuse.chatty` logs `lines` info lines and one error.
    let chatty = |level: Option<&str>| {
        let mut params = modern(json!({"name": "abuse.chatty", "arguments": {"lines": 1}}));
        if let Some(level) = level {
            params["_meta"]["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        params
    };
    let quiet = c.request("tools/call", chatty(None));
    assert_eq!(quiet["result"]["isError"], false, "{quiet}");
    assert!(
        c.wait_notification("notifications/message", Duration::from_secs(2))
            .is_none(),
        "no log lines without `_meta.io.modelcontextprotocol/logLevel`"
    );
    let told = c.request("tools/call", chatty(Some("info")));
    assert_eq!(told["result"]["isError"], false, "{told}");
    let mut levels = Vec::new();
    while let Some(line) = c.wait_notification("notifications/message", Duration::from_secs(2)) {
        assert_eq!(line["params"]["logger"], "abuse", "{line}");
        levels.push(line["params"]["level"].as_str().unwrap().to_string());
    }
    assert_eq!(levels, ["info", "error"]);
    // At `error`, only the error line.
    c.request("tools/call", chatty(Some("error")));
    let line = c
        .wait_notification("notifications/message", Duration::from_secs(2))
        .expect("the error line");
    assert_eq!(line["params"]["data"], "something went wrong");
    assert!(
        c.wait_notification("notifications/message", Duration::from_secs(1))
            .is_none()
    );
}

#[test]
fn closing_a_stateless_response_stream_cancels_its_call_and_undoes_it() {
    use std::io::{Read, Write};
    let packages = crate::support::guest_packages(&["slow"]);
    let config = crate::support::long_calls_config();
    let host = HttpHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        &config,
    ]);
    // A call that builds, then spins until stopped, asked with a progress token: its response
    // is an SSE stream, which the client then closes.
    let mut params = modern(json!({"name": "slow.buildThenSpin", "arguments": {}}));
    params["_meta"]["progressToken"] = json!("p");
    let body = json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": params})
        .to_string();
    let mut stream = std::net::TcpStream::connect(&host.addr).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: {VERSION}\r\nmcp-method: tools/call\r\nmcp-name: slow.buildThenSpin\r\ncontent-length: {}\r\n\r\n{body}",
        host.addr,
        body.len()
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut head = [0u8; 512];
    let n = stream.read(&mut head).unwrap();
    let head = String::from_utf8_lossy(&head[..n]);
    assert!(head.contains("text/event-stream"), "{head}");
    // Give the engine time to start the call (as the session-era cancel test does), so that
    // closing cancels a running call rather than one not yet begun.
    std::thread::sleep(Duration::from_millis(500));
    stream.shutdown(std::net::Shutdown::Both).unwrap();
    drop(stream);

    // The next request waits for the engine: by then the call was cancelled and undone.
    let ask = |id: u64, name: &str, arguments: Value| {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                             "params": modern(json!({"name": name, "arguments": arguments}))});
        post_modern(&host, &message, &[]).json()["result"]["structuredContent"].clone()
    };
    let found = ask(1, "scene.queryEntities", json!({}));
    assert_eq!(found["entities"], json!([]), "rolled back: {found}");
    let cancelled = ask(2, "trace.tail", json!({"type": "skill.cancelled"}));
    let events = cancelled["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{cancelled}");
    assert_eq!(
        events[0]["payload"]["skill"], "slow.buildThenSpin",
        "{cancelled}"
    );
}
