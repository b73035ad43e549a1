//! A joined process's own WebSocket and HTTP ports: a `limina --mcp-ws --mcp-http` whose trace
//! folder another host serves runs its listeners in front of that host. Its network clients
//! get sessions of their own on the one world, admitted by its own network edge (a client
//! without the token is refused there, the world untouched); when the serving host is killed,
//! the joined process takes the world over and its listeners keep serving the same sessions.

use crate::http_client::{HttpHost, Reply};
use crate::support::{Client, own_calibration, text};
use crate::ws_client::WsClient;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

#[allow(clippy::duplicate_mod)]
#[path = "http.rs"]
mod through_a_joined_listener_http;
/// The WebSocket and HTTP protocol tests again, each host's listener a joined process's, in
/// front of a stdio host serving the same folder (`support::serving_host` sees these modules'
/// names on the test's thread).
#[allow(clippy::duplicate_mod)] // on purpose: the same tests, through another way in
#[path = "ws.rs"]
mod through_a_joined_listener_ws;

const TOKEN: &str = "joined-edge-token-0123456789";
const WAIT: Duration = Duration::from_secs(60);

/// A joined `limina --mcp-ws --mcp-http` on `dir`, its clients needing the token in
/// `token_file`: the process, its WebSocket URL, its HTTP address, and its further log.
fn joined_listener(dir: &Path, token_file: &Path) -> (Child, String, String, Receiver<String>) {
    let args = [
        "--mcp-ws",
        "--mcp-http",
        "--port",
        "0",
        "--http-port",
        "0",
        "--manual-clock",
        "--network-profile",
        "builder.readWrite",
        "--trace-dir",
        dir.to_str().unwrap(),
        "--auth-token-file",
        token_file.to_str().unwrap(),
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(args)
        .args(own_calibration(&args))
        .env("LIMINA_NET_LOOPBACK_ONLY", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            eprintln!("[joined] {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let (mut ws, mut http) = (None, None);
    while ws.is_none() || http.is_none() {
        let line = lines
            .recv_timeout(WAIT)
            .expect("the joined process logs its ports");
        if !line.contains("in front of the host serving") {
            continue;
        }
        if let Some(at) = line.find("ws://") {
            ws = Some(line[at..].trim().to_string());
        }
        if let Some(at) = line.find("http://") {
            let url = line[at + "http://".len()..].trim();
            http = Some(url.trim_end_matches("/mcp").to_string());
        }
    }
    (child, ws.unwrap(), http.unwrap(), lines)
}

/// A WebSocket connection with `authorization`, or the HTTP status it was refused with.
fn ws_connect(url: &str, authorization: Option<&str>) -> Result<WsClient, u16> {
    let mut request = url.into_client_request().unwrap();
    request
        .headers_mut()
        .insert("sec-websocket-protocol", "mcp".parse().unwrap());
    if let Some(a) = authorization {
        request
            .headers_mut()
            .insert("authorization", a.parse().unwrap());
    }
    match tungstenite::connect(request) {
        Ok((ws, _)) => Ok(WsClient::wrap(ws)),
        Err(tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
        Err(e) => panic!("unexpected error {e}"),
    }
}

fn http_post(host: &HttpHost, session: Option<&str>, auth: Option<&str>, body: &Value) -> Reply {
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json"),
    ];
    let bearer = auth.map(|t| format!("Bearer {t}"));
    if let Some(b) = &bearer {
        headers.push(("authorization", b.as_str()));
    }
    if let Some(s) = session {
        headers.push(("mcp-session-id", s));
    }
    host.send("POST", "/mcp", &headers, &body.to_string())
}

fn initialize_params(agent: &str) -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "joined-net", "version": "0"}, "profile": "builder.readWrite", "agentId": agent})
}

fn entity_ids(result: &Value) -> Vec<String> {
    let mut ids: Vec<String> = result["entities"]
        .as_array()
        .unwrap_or_else(|| panic!("no entities in {result}"))
        .iter()
        .map(|e| e["entity"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

/// A WebSocket call, asked again while the world is being taken over (a call in flight when
/// the server died is answered `-32003`, "may or may not have run").
fn ws_call_through_takeover(c: &mut WsClient, name: &str, arguments: Value) -> Value {
    loop {
        let reply = c.request("tools/call", json!({"name": name, "arguments": arguments}));
        if let Some(result) = reply.get("result") {
            assert_eq!(result["isError"], json!(false), "{reply}");
            return result["structuredContent"].clone();
        }
        assert_eq!(reply["error"]["code"], -32003, "{reply}");
    }
}

fn http_call(host: &HttpHost, session: &str, id: u64, name: &str, arguments: Value) -> Value {
    let reply = http_post(
        host,
        Some(session),
        Some(TOKEN),
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let message = reply.json();
    assert_eq!(message["result"]["isError"], json!(false), "{message}");
    message["result"]["structuredContent"].clone()
}

/// The `session.admission.denied` events in the world's trace, once `n` are (a joined
/// process reports its edge's refusals as they happen, each on a connection of its own).
fn denials(c: &mut Client, n: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let tail = c.call_ok("trace.tail", json!({"type": "session.admission.denied"}));
        let events = tail["events"].as_array().unwrap().clone();
        if events.len() >= n || std::time::Instant::now() > deadline {
            assert_eq!(events.len(), n, "{events:#?}");
            return events;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn status_json(dir: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(["status", "--json", "--trace-dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no status ({e}): {}", text(&out.stderr)))
}

#[test]
fn a_joined_process_serves_its_own_ports_on_the_one_world_and_keeps_them_through_a_takeover() {
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let traces = dir.path().join("traces");
    let trace_arg = traces.to_str().unwrap();
    let mut first = Client::session("builder.readWrite", &["--trace-dir", trace_arg]);
    first.call_ok("scene.createEntity", json!({"position": [1, 0, 0]}));
    let (mut joined, ws_url, http_addr, log) = joined_listener(&traces, &token_file);
    let said = loop {
        let line = log
            .recv_timeout(WAIT)
            .expect("the joined process says whom it joined");
        if line.contains("joined the limina host serving") {
            break line;
        }
    };
    assert!(said.contains(&format!("(pid {}", first.pid())), "{said}");
    assert!(said.contains(trace_arg), "{said}");

    // Without the token, or with another, the joined listener refuses; the world is untouched.
    let before = first.call_ok("world.hash", json!({}));
    assert_eq!(ws_connect(&ws_url, None).err(), Some(401));
    assert_eq!(
        ws_connect(&ws_url, Some("Bearer wrong-7f3a")).err(),
        Some(401)
    );
    let http = HttpHost::attach(http_addr);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params("http-agent")});
    let refused = http_post(&http, None, None, &init);
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert!(
        refused
            .header("www-authenticate")
            .is_some_and(|h| h.starts_with("Bearer")),
        "{:?}",
        refused.headers
    );
    assert_eq!(http_post(&http, None, Some("nope-5d1c"), &init).status, 401);
    assert_eq!(first.call_ok("world.hash", json!({})), before);
    // Each refusal is in the world's trace as the serving host's own are, naming the joined
    // process whose edge refused it, and never the token; nothing else came of them.
    let denied = denials(&mut first, 4);
    let reasons: Vec<&str> = denied
        .iter()
        .map(|e| e["payload"]["reason"].as_str().unwrap())
        .collect();
    for reason in &reasons {
        assert!(
            reason.contains(" 401 ")
                && reason.ends_with(&format!(
                    "(at the listener of joined process pid {})",
                    joined.id()
                )),
            "{reason}"
        );
        assert!(
            !reason.contains("7f3a") && !reason.contains("5d1c"),
            "{reason}"
        );
    }
    let over = |transport: &str| reasons.iter().filter(|r| r.starts_with(transport)).count();
    assert_eq!((over("WebSocket "), over("HTTP ")), (2, 2), "{reasons:?}");
    assert!(
        denied.iter().all(|e| e["actorId"] == "anonymous"),
        "{denied:?}"
    );
    assert_eq!(first.call_ok("world.hash", json!({})), before);

    // With it, each client has a session of its own on the one world.
    let mut ws = ws_connect(&ws_url, Some(&format!("Bearer {TOKEN}"))).expect("admitted");
    let bound = ws.request("initialize", initialize_params("ws-agent"));
    assert_eq!(bound["result"]["session"]["agentId"], "ws-agent", "{bound}");
    let ws_session = bound["result"]["session"]["sessionId"].clone();
    ws.notify("notifications/initialized", json!({}));
    let seen = ws_call_through_takeover(&mut ws, "scene.queryEntities", json!({}));
    let from_stdio = entity_ids(&seen);
    assert_eq!(from_stdio.len(), 1, "{seen}");
    ws_call_through_takeover(
        &mut ws,
        "scene.createEntity",
        json!({"position": [2, 0, 0]}),
    );
    let opened = http_post(&http, None, Some(TOKEN), &init);
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert_eq!(opened.json()["result"]["session"]["agentId"], "http-agent");
    let http_session = opened.header("mcp-session-id").unwrap().to_string();
    http_post(
        &http,
        Some(&http_session),
        Some(TOKEN),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let all = entity_ids(&http_call(
        &http,
        &http_session,
        2,
        "scene.queryEntities",
        json!({}),
    ));
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(
        entity_ids(&first.call_ok("scene.queryEntities", json!({}))),
        all
    );

    // The serving host lists the joined process by its listeners, with their sessions.
    let status = status_json(&traces);
    assert_eq!(status["serving"]["pid"], first.pid(), "{status}");
    let entry = status["joined"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["pid"] == joined.id())
        .unwrap_or_else(|| panic!("the joined process is not listed: {status}"))
        .clone();
    assert!(
        entry["transport"].as_str().unwrap().contains(&ws_url),
        "{entry}"
    );
    assert_eq!(entry["sessions"].as_array().unwrap().len(), 2, "{entry}");

    // kill -9 of the serving host: the joined process takes the world over, and its
    // listeners' clients carry on with the same sessions.
    first.terminate(libc::SIGKILL);
    let after = entity_ids(&ws_call_through_takeover(
        &mut ws,
        "scene.queryEntities",
        json!({}),
    ));
    assert_eq!(after, all);
    ws_call_through_takeover(
        &mut ws,
        "scene.createEntity",
        json!({"position": [3, 0, 0]}),
    );
    let three = entity_ids(&http_call(
        &http,
        &http_session,
        3,
        "scene.queryEntities",
        json!({}),
    ));
    assert_eq!(three.len(), 3, "{three:?}");
    let status = status_json(&traces);
    assert_eq!(status["serving"]["pid"], joined.id(), "{status}");
    let sessions = status["serving"]["sessions"].as_array().unwrap();
    let ws_now = sessions
        .iter()
        .find(|s| s["agentId"] == "ws-agent")
        .unwrap_or_else(|| panic!("the WebSocket client's session: {status}"));
    assert_eq!(
        ws_now["sessionId"], ws_session,
        "the same session: {status}"
    );
    assert!(
        sessions.iter().any(|s| s["agentId"] == "http-agent"),
        "{status}"
    );
    // Still refusing what it refused.
    assert_eq!(ws_connect(&ws_url, None).err(), Some(401));

    unsafe { libc::kill(joined.id() as i32, libc::SIGTERM) };
    let code = joined.wait().unwrap();
    assert!(
        code.success() || code.code() == Some(128 + libc::SIGTERM),
        "{code:?}"
    );
}
