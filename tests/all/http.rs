//! `limina --mcp-http` over real sockets: sessions, the Streamable HTTP rules (status codes,
//! headers, SSE streams with resumption), DNS-rebinding protection and tokens, hostile
//! requests, and the official SDKs' Streamable HTTP clients.

use crate::http_client::{HttpHost, sse_messages};
use crate::support::last_json_line;
use crate::support::{guest_packages, repo};
use limina_guest_build::clients::{PYTHON_SDK, TYPESCRIPT_SDK};
use limina_guest_build::tools::venv_python;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

fn call(name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[test]
fn a_session_is_issued_at_initialize_required_after_and_ended_by_delete() {
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let session = host.session("builder.readWrite");
    let listed = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    assert_eq!(listed.status, 200);
    assert_eq!(listed.header("content-type"), Some("application/json"));
    assert!(listed.json()["result"]["tools"].as_array().unwrap().len() > 40);

    let made = host.post(
        Some(&session),
        &call("scene.createEntity", json!({"position": [1, 2, 3]})),
    );
    assert_eq!(
        made.json()["result"]["structuredContent"]["entity"],
        "ent_1"
    );

    let no_id = host.post(
        None,
        &json!({"jsonrpc": "2.0", "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}),
    );
    assert_eq!(no_id.status, 400);
    assert!(no_id.header("mcp-session-id").is_none());
    let missing = host.post(
        None,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    );
    assert_eq!(missing.status, 400);
    assert!(
        missing.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Mcp-Session-Id")
    );
    let unknown = host.post(
        Some("nope"),
        &json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    );
    assert_eq!(unknown.status, 404);

    let note = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(note.status, 202);
    assert_eq!(note.body, "");

    let ended = host.send("DELETE", "/mcp", &[("mcp-session-id", &session)], "");
    assert_eq!(ended.status, 204);
    let after = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
    );
    assert_eq!(after.status, 404, "an ended session is unknown");
}

#[test]
fn bad_requests_get_a_clear_status_and_json_rpc_error_and_the_host_keeps_serving() {
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
    ]);
    let session = host.session("system.readonly");
    let sid = session.as_str();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    // (headers, body, expected status, what the error message must mention)
    type Case<'a> = (Vec<(&'a str, &'a str)>, String, u16, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("mcp-session-id", sid),
            ],
            "{not json".into(),
            400,
            "Parse error",
        ),
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("mcp-session-id", sid),
            ],
            format!("[{ping}]"),
            400,
            "batches",
        ),
        (
            vec![
                ("content-type", "text/plain"),
                ("accept", "application/json"),
                ("mcp-session-id", sid),
            ],
            ping.clone(),
            415,
            "Content-Type",
        ),
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "text/html"),
                ("mcp-session-id", sid),
            ],
            ping.clone(),
            406,
            "Accept",
        ),
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "application/json"),
                ("mcp-session-id", sid),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            ping.clone(),
            400,
            "MCP-Protocol-Version",
        ),
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "application/json"),
                ("mcp-session-id", sid),
            ],
            format!("{{\"x\":\"{}\"}}", "a".repeat(5 << 20)),
            413,
            "over",
        ),
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "application/json"),
                ("origin", "http://evil.example"),
            ],
            ping.clone(),
            403,
            "Origin",
        ),
        (
            vec![
                ("content-type", "application/json"),
                ("accept", "application/json"),
                ("host", "evil.example"),
            ],
            ping.clone(),
            403,
            "Host",
        ),
    ];
    for (headers, body, status, says) in cases {
        let reply = host.send("POST", "/mcp", &headers, &body);
        assert_eq!(reply.status, status, "{headers:?}: {}", reply.body);
        let message = reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(says), "{status}: {message}");
    }
    assert_eq!(host.send("PUT", "/mcp", &[], "").status, 405);
    assert_eq!(host.send("GET", "/healthz", &[], "").status, 200);
    assert_eq!(host.send("GET", "/readyz", &[], "").status, 200);
    let ok = host.post(
        Some(sid),
        &json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
    );
    assert_eq!(ok.json()["result"], json!({}), "still serving");
}

#[test]
fn a_token_is_required_when_configured() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "http-token-0123456789abcdef\n").unwrap();
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
        "--auth-token-file",
        token.to_str().unwrap(),
    ]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}).to_string();
    let base = [
        ("content-type", "application/json"),
        ("accept", "application/json"),
    ];
    let refused = host.send("POST", "/mcp", &base, &init);
    assert_eq!(refused.status, 401);
    assert!(
        refused
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
    let wrong = host.send(
        "POST",
        "/mcp",
        &[base[0], base[1], ("authorization", "Bearer nope")],
        &init,
    );
    assert_eq!(wrong.status, 401);
    let ok = host.send(
        "POST",
        "/mcp",
        &[
            base[0],
            base[1],
            ("authorization", "Bearer http-token-0123456789abcdef"),
        ],
        &init,
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
}

/// Reads an open SSE response until `done` says so (or the wait runs out); the raw text.
fn read_stream(stream: &mut TcpStream, wait: Duration, done: impl Fn(&str) -> bool) -> String {
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let deadline = Instant::now() + wait;
    let mut text = String::new();
    let mut buf = [0u8; 8192];
    while Instant::now() < deadline && !done(&text) {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(_) => {}
        }
    }
    text
}

fn open_stream(host: &HttpHost, session: &str, last_event: Option<u64>) -> TcpStream {
    let mut stream = TcpStream::connect(&host.addr).unwrap();
    let mut request = format!(
        "GET /mcp HTTP/1.1\r\nhost: {}\r\naccept: text/event-stream\r\nmcp-session-id: {session}\r\n",
        host.addr
    );
    if let Some(n) = last_event {
        request.push_str(&format!("last-event-id: {n}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    stream
}

#[test]
fn the_session_stream_carries_notifications_with_ids_and_resumes_after_a_drop() {
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
    ]);
    let watcher = host.session("system.readonly");
    let builder = host.session("builder.readWrite");
    let mut stream = open_stream(&host, &watcher, None);
    let primed = read_stream(&mut stream, Duration::from_secs(10), |t| {
        t.contains("retry:")
    });
    assert!(primed.contains("text/event-stream"), "{primed}");
    assert!(primed.contains("retry: "), "a retry hint: {primed}");

    let subscribed = host.post(
        Some(&watcher),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "state/subscribe"}),
    );
    assert_eq!(subscribed.json()["result"]["ok"], true);
    host.post(
        Some(&builder),
        &call("scene.createEntity", json!({"position": [5, 0, 0]})),
    );
    let text = read_stream(&mut stream, Duration::from_secs(10), |t| {
        t.contains("state/delta")
    });
    let events: Vec<(u64, Value)> = text
        .split("id: ")
        .skip(1)
        .filter_map(|chunk| {
            let (n, rest) = chunk.split_once('\n')?;
            let data = rest.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((n.trim().parse().ok()?, serde_json::from_str(data).ok()?))
        })
        .collect();
    let methods: Vec<&str> = events
        .iter()
        .map(|(_, m)| m["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["state/snapshot", "state/delta"], "{text}");
    let (snapshot_id, _) = events[0];
    drop(stream);

    // The client reconnects with the last id it saw: what followed is replayed.
    let mut resumed = open_stream(&host, &watcher, Some(snapshot_id));
    let again = read_stream(&mut resumed, Duration::from_secs(10), |t| {
        t.contains("state/delta")
    });
    assert!(
        again.contains("state/delta") && !again.contains("state/snapshot"),
        "{again}"
    );
}

#[test]
fn a_long_call_streams_its_progress_then_its_reply() {
    let packages = guest_packages(&["slow"]);
    let config = crate::support::long_calls_config();
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        &config,
    ]);
    let session = host.session("builder.readWrite");
    let reply = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "slow.steps", "arguments": {"steps": 2}, "_meta": {"progressToken": "p"}}}),
    );
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let messages = sse_messages(&reply.body);
    let methods: Vec<Value> = messages.iter().map(|m| m["method"].clone()).collect();
    assert_eq!(
        methods,
        [
            json!("notifications/progress"),
            json!("notifications/progress"),
            Value::Null
        ]
    );
    assert_eq!(
        messages[2]["result"]["structuredContent"],
        json!({"steps": 2})
    );
}

#[test]
fn a_slow_loris_client_is_cut_off_and_others_are_served() {
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
    ]);
    let mut slow = TcpStream::connect(&host.addr).unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        .unwrap();
    let session = host.session("system.readonly");
    assert_eq!(
        host.post(
            Some(&session),
            &json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        )
        .json()["result"],
        json!({})
    );
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut buf = Vec::new();
    let started = Instant::now();
    let _ = slow.read_to_end(&mut buf);
    assert!(
        started.elapsed() < Duration::from_secs(29),
        "the half-sent request was closed"
    );
}

#[test]
fn the_official_python_sdk_speaks_streamable_http_with_progress() {
    let sdk = PYTHON_SDK.ensure().expect("installing the Python MCP SDK");
    let packages = guest_packages(&["slow"]);
    let config = crate::support::long_calls_config();
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        &config,
    ]);
    let out = Command::new(venv_python(&sdk))
        .arg(repo().join("tests/clients/http_python.py"))
        .arg(host.url())
        .output()
        .unwrap();
    let report = last_json_line(&out);
    assert_eq!(report["server"], "limina");
    assert_eq!(report["made_error"], false, "{report}");
    assert_eq!(report["steps"], json!({"steps": 3}));
    assert_eq!(report["progress"].as_array().unwrap().len(), 3, "{report}");
    assert_eq!(report["list_changed"], true, "{report}");
    assert_eq!(
        report["found"]["entities"][0]["position"],
        json!([1.0, 2.0, 3.0])
    );
}

#[test]
fn the_official_typescript_sdk_speaks_streamable_http() {
    let sdk = TYPESCRIPT_SDK
        .ensure()
        .expect("installing the TypeScript MCP SDK");
    let packages = guest_packages(&["slow"]);
    let config = crate::support::long_calls_config();
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        &config,
    ]);
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(sdk.join("node_modules"), dir.path().join("node_modules")).unwrap();
    let script = dir.path().join("http_typescript.mjs");
    std::fs::copy(repo().join("tests/clients/http_typescript.mjs"), &script).unwrap();
    let out = Command::new("node")
        .arg(&script)
        .arg(host.url())
        .output()
        .unwrap();
    let report = last_json_line(&out);
    assert_eq!(report["server"], "limina");
    assert_eq!(report["made_error"], false, "{report}");
    assert!(
        report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "scene.createEntity")
    );
    assert_eq!(report["progress"].as_array().unwrap().len(), 3, "{report}");
    assert_eq!(report["list_changed"], true, "{report}");
}

/// The scenarios of the official conformance suite this server passes. The suite's other
/// server scenarios call its own fixture tools (`test_*`) and are listed in the README.
const CONFORMANCE_SCENARIOS: [&str; 6] = [
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
];

#[test]
fn the_official_conformance_suite_passes_its_server_scenarios() {
    use limina_guest_build::clients::{CONFORMANCE, NODE_22, conformance_cli, node_binary};
    let node = node_binary(&NODE_22.ensure().expect("installing Node.js 22")).unwrap();
    let suite = conformance_cli(
        &CONFORMANCE
            .ensure()
            .expect("installing the conformance suite"),
    );
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    for scenario in CONFORMANCE_SCENARIOS {
        let out = Command::new(&node)
            .arg(&suite)
            .args(["server", "--url", &host.url(), "--scenario", scenario])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains(" 0 failed"),
            "{scenario} ({}):\n{text}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn binding_beyond_loopback_needs_a_token_and_an_origin_list() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "http-token-0123456789abcdef\n").unwrap();
    for (args, says) in [
        (
            vec!["--mcp-http", "--bind", "0.0.0.0", "--port", "0"],
            "--auth-token-file",
        ),
        (
            vec![
                "--mcp-http",
                "--bind",
                "0.0.0.0",
                "--port",
                "0",
                "--auth-token-file",
                token.to_str().unwrap(),
            ],
            "--allow-origin",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_limina"))
            .args(&args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn mcp_inspectors_cli_lists_and_calls_over_http() {
    use limina_guest_build::clients::{INSPECTOR, NODE_22, inspector_cli, node_binary};
    let node = node_binary(&NODE_22.ensure().expect("installing Node.js 22")).unwrap();
    let cli = inspector_cli(&INSPECTOR.ensure().expect("installing MCP Inspector"));
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let path = format!(
        "{}:{}",
        node.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        let out = Command::new(&node)
            .arg(&cli)
            .args(["--cli", &host.url(), "--transport", "http"])
            .args(args)
            .env("PATH", &path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{args:?}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    let listed = run(&["--method", "tools/list"]);
    assert!(
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "scene.createEntity")
    );
    let made = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "scene.createEntity",
        "--tool-arg",
        "position=[1,2,3]",
    ]);
    assert_eq!(made["structuredContent"]["entity"], "ent_1", "{made}");
}

#[test]
fn a_cancelled_call_gets_no_reply_changes_nothing_and_a_reload_reaches_the_stream() {
    let packages = guest_packages(&["slow"]);
    let config = crate::support::long_calls_config();
    let host = HttpHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "player.limited",
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        &config,
    ]);
    let session = host.session("builder.readWrite");
    let mut stream = open_stream(&host, &session, None);
    read_stream(&mut stream, Duration::from_secs(10), |t| {
        t.contains("retry:")
    });

    let long = {
        let (addr, session) = (host.addr.clone(), session.clone());
        std::thread::spawn(move || {
            let body = json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": {"name": "slow.buildThenSpin", "arguments": {}}}).to_string();
            let mut s = TcpStream::connect(&addr).unwrap();
            write!(s, "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json\r\nmcp-session-id: {session}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len()).unwrap();
            let mut raw = String::new();
            let _ = s.read_to_string(&mut raw);
            raw
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let cancel = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "long"}}),
    );
    assert_eq!(cancel.status, 202);
    let raw = long.join().unwrap();
    assert!(
        raw.starts_with("HTTP/1.1 202"),
        "the cancelled request gets no reply: {raw}"
    );
    let found = host.post(Some(&session), &call("scene.queryEntities", json!({})));
    assert_eq!(
        found.json()["result"]["structuredContent"]["entities"],
        json!([]),
        "rolled back"
    );

    let reload = host.post(
        Some(&session),
        &call("dev.reload", json!({"target": "package", "name": "slow"})),
    );
    assert_eq!(reload.json()["result"]["isError"], false, "{}", reload.body);
    let text = read_stream(&mut stream, Duration::from_secs(10), |t| {
        t.contains("list_changed")
    });
    assert!(text.contains("notifications/tools/list_changed"), "{text}");
}
