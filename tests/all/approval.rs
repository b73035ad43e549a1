//! The `approve` rule: a guarded call waits for a person — asked with `elicitation/create` on
//! 2025-11-25 sessions (stdio, WebSocket, HTTP's SSE response), with an `input_required`
//! result on 2026-07-28 — and runs only when allowed; otherwise it is `forbidden` with
//! `approval.declined` or `approval.unavailable`, traced with who answered, and nothing changes.

use crate::http_client::HttpHost;
use crate::support::{Client, error_of};
use crate::ws_client::{WsClient, WsHost};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::time::Duration;

const VERSION: &str = "2026-07-28";

/// A configuration holding `scene.createEntity` for approval, waiting `timeout_ms`.
fn approve_config(timeout_ms: u64) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    write!(
        file,
        "[[approve]]\nskill = \"scene.create*\"\nprofiles = [\"builder.readWrite\"]\nmessage = \"Add an entity to the shared world?\"\ntimeoutMs = {timeout_ms}\n"
    )
    .unwrap();
    file
}

fn host_args(config: &tempfile::NamedTempFile) -> Vec<String> {
    vec![
        "--profile".into(),
        "builder.readWrite".into(),
        "--config".into(),
        config.path().to_str().unwrap().into(),
    ]
}

fn initialize(elicitation: bool, agent: &str) -> Value {
    let capabilities = if elicitation {
        json!({"elicitation": {}})
    } else {
        json!({})
    };
    json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
           "clientInfo": {"name": "approval-test", "version": "0"}, "agentId": agent,
           "profile": "builder.readWrite"})
}

fn answer(id: &Value, approve: Option<bool>) -> Value {
    let result = match approve {
        Some(yes) => json!({"action": "accept", "content": {"approve": yes}}),
        None => json!({"action": "decline"}),
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The policy events about `scene.createEntity` in the trace, as `trace.tail` returns them.
fn decisions(events: &Value) -> Vec<Value> {
    events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["cap"] == "scene.createEntity")
        .cloned()
        .collect()
}

/// A stdio host whose session declared (or not) elicitation.
fn stdio_session(config: &tempfile::NamedTempFile, elicitation: bool) -> Client {
    let args = host_args(config);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut c = Client::spawn(&args);
    let reply = c.request("initialize", initialize(elicitation, "alice"));
    assert!(reply.get("result").is_some(), "{reply}");
    c.notify("notifications/initialized", json!({}));
    c
}

#[test]
fn a_guarded_call_waits_for_its_answer_without_holding_other_clients() {
    let config = approve_config(60_000);
    let args = host_args(&config);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let host = WsHost::start(&args);
    let mut alice = WsClient::connect(&host.url);
    let reply = alice.request("initialize", initialize(true, "alice"));
    assert!(reply.get("result").is_some(), "{reply}");
    let call = alice.send_request(
        "tools/call",
        json!({"name": "scene.createEntity", "arguments": {"position": [1, 2, 3]}}),
    );
    let question = alice
        .read_for(Duration::from_secs(20))
        .expect("the question");
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let params = &question["params"];
    assert_eq!(params["mode"], "form");
    let message = params["message"].as_str().unwrap();
    assert!(
        message.starts_with("Add an entity to the shared world?")
            && message.contains("scene.createEntity"),
        "{message}"
    );
    assert_eq!(params["requestedSchema"]["required"], json!(["approve"]));
    assert_eq!(params["_meta"]["io.limina/relatedRequestId"], json!(call));

    // Meanwhile another client is served, and the world does not hold the call's entity.
    let mut bob = host.client("builder.readWrite", "bob");
    let (found, _) = bob.call_ok("scene.queryEntities", json!({}));
    assert_eq!(
        found["entities"],
        json!([]),
        "nothing runs before the answer"
    );

    alice.send(&answer(&question["id"], Some(true)));
    let done = alice.reply_to(call);
    assert_eq!(done["result"]["isError"], false, "{done}");
    let (found, _) = bob.call_ok("scene.queryEntities", json!({}));
    assert_eq!(found["entities"].as_array().unwrap().len(), 1, "{found}");
    let (trace, _) = bob.call_ok("trace.tail", json!({"type": "policy.decision"}));
    let allowed = decisions(&trace);
    assert_eq!(allowed.len(), 1, "{trace}");
    let approval = &allowed[0]["payload"]["approval"];
    assert_eq!(approval["outcome"], "accepted", "{approval}");
    assert_eq!(approval["answeredBy"]["agentId"], "alice");
    assert_eq!(approval["answeredBy"]["via"], "elicitation/create");
    assert_eq!(approval["answeredBy"]["action"], "accept");
    assert_eq!(allowed[0]["payload"]["rule"], "profile.grant");
}

#[test]
fn a_declined_call_is_forbidden_changes_nothing_and_later_requests_wait_their_turn() {
    let config = approve_config(60_000);
    let mut c = stdio_session(&config, true);
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": "held", "method": "tools/call",
                "params": {"name": "scene.createEntity", "arguments": {}}})
        .to_string(),
    );
    let question = c.read();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    // A request sent while the call waits is answered after it, in order.
    c.send_line(&json!({"jsonrpc": "2.0", "id": "after", "method": "tools/list"}).to_string());
    assert!(
        c.quiet_for(Duration::from_millis(300)),
        "nothing answered yet"
    );
    c.send_line(&answer(&question["id"], None).to_string());
    let refused = c.read();
    assert_eq!(refused["id"], "held", "{refused}");
    let (code, message) = error_of(&refused["result"]);
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("`scene.createEntity` needs a person's approval and it was declined"),
        "{message}"
    );
    let listed = c.read();
    assert_eq!(listed["id"], "after", "{listed}");

    let found = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(found["entities"], json!([]));
    let denied = c.call_ok("trace.tail", json!({"type": "policy.denied"}));
    let denied = decisions(&denied);
    assert_eq!(denied.len(), 1);
    let payload = &denied[0]["payload"];
    assert_eq!(payload["rule"], "approval.declined");
    assert_eq!(payload["approval"]["outcome"], "declined");
    assert_eq!(payload["approval"]["answeredBy"]["agentId"], "alice");
    assert_eq!(payload["approval"]["answeredBy"]["action"], "decline");
    let executed = c.call_ok("trace.tail", json!({"type": "skill.executed"}));
    assert!(
        decisions(&executed).is_empty()
            && executed["events"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["payload"]["skill"] != "scene.createEntity")
    );
    let allowed = c.call_ok(
        "audit.query",
        json!({"decision": "allow", "cap": "scene.createEntity"}),
    );
    assert_eq!(allowed["summary"]["total"], 0, "{allowed}");
    // Accepted with `approve: false` is a no as well.
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": "again", "method": "tools/call",
                "params": {"name": "scene.createEntity", "arguments": {}}})
        .to_string(),
    );
    let question = c.read();
    c.send_line(&answer(&question["id"], Some(false)).to_string());
    let (code, message) = error_of(&c.read()["result"]);
    assert_eq!(code, "forbidden");
    assert!(message.contains("`approve: false`"), "{message}");
}

#[test]
fn a_client_that_cannot_be_asked_is_refused_as_unavailable() {
    let config = approve_config(60_000);
    let mut c = stdio_session(&config, false);
    let (code, message) = error_of(&c.call("scene.createEntity", json!({})));
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("did not declare the `elicitation` capability"),
        "{message}"
    );
    // The Limina alias cannot ask either.
    let alias = c.request(
        "callTool",
        json!({"name": "scene.createEntity", "arguments": {}}),
    );
    assert_eq!(alias["error"]["code"], -32001, "{alias}");
    assert!(
        alias["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot ask for"),
        "{alias}"
    );
    // Other skills are not held; other profiles are not held by this rule.
    c.call_ok("scene.queryEntities", json!({}));
    let denied = c.call_ok("trace.tail", json!({"type": "policy.denied"}));
    let denied = decisions(&denied);
    assert_eq!(denied.len(), 2);
    assert!(
        denied
            .iter()
            .all(|e| e["payload"]["rule"] == "approval.unavailable")
    );
    assert_eq!(
        denied[0]["payload"]["approval"]["answeredBy"]["action"],
        Value::Null
    );
    let found = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(found["entities"], json!([]));
}

#[test]
fn an_unanswered_question_expires_and_a_cancelled_call_is_withdrawn() {
    let config = approve_config(400);
    let mut c = stdio_session(&config, true);
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
                "params": {"name": "scene.createEntity", "arguments": {}}})
        .to_string(),
    );
    let question = c.read();
    assert_eq!(question["method"], "elicitation/create");
    // Nobody answers: the client is told to drop the question, the call is refused.
    let dropped = c.read();
    assert_eq!(dropped["method"], "notifications/cancelled", "{dropped}");
    assert_eq!(dropped["params"]["requestId"], question["id"]);
    let refused = c.read();
    assert_eq!(refused["id"], 10);
    let (code, message) = error_of(&refused["result"]);
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("nobody answered within 400 ms"),
        "{message}"
    );
    // A late answer changes nothing.
    c.send_line(&answer(&question["id"], Some(true)).to_string());

    // A call cancelled while it waits gets no reply and does not run.
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
                "params": {"name": "scene.createEntity", "arguments": {}}})
        .to_string(),
    );
    let question = c.read();
    assert_eq!(question["method"], "elicitation/create");
    c.notify("notifications/cancelled", json!({"requestId": 11}));
    let found = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(found["entities"], json!([]), "neither call ran");
    let denied = c.call_ok("trace.tail", json!({"type": "policy.denied"}));
    let reasons: Vec<String> = decisions(&denied)
        .iter()
        .map(|e| e["payload"]["reason"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons[1].contains("cancelled the call while it waited"),
        "{reasons:?}"
    );
}

#[test]
fn over_http_the_question_travels_on_the_calls_event_stream() {
    let config = approve_config(60_000);
    let args = host_args(&config);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let host = HttpHost::start(&args);
    let opened = host.post(
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize(true, "carol")}),
    );
    assert_eq!(opened.status, 200, "{}", opened.body);
    let session = opened.header("mcp-session-id").unwrap().to_string();
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "scene.createEntity", "arguments": {}}})
    .to_string();
    let mut stream = std::net::TcpStream::connect(&host.addr).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n{body}",
        host.addr,
        body.len()
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut seen = String::new();
    let read_until = |stream: &mut std::net::TcpStream, seen: &mut String, needle: &str| {
        let mut buffer = [0u8; 4096];
        while !seen.contains(needle) {
            let n = stream.read(&mut buffer).unwrap();
            assert!(n > 0, "the stream ended early: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
    };
    read_until(&mut stream, &mut seen, "elicitation/create");
    assert!(seen.contains("text/event-stream"), "{seen}");
    let question: Value = seen
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .find(|m: &Value| m["method"] == "elicitation/create")
        .unwrap();
    let posted = host.post(Some(&session), &answer(&question["id"], Some(true)));
    assert_eq!(posted.status, 202, "{}", posted.body);
    read_until(&mut stream, &mut seen, "\"isError\":false");
    let listed = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "scene.queryEntities", "arguments": {}}}),
    );
    // Calls of a session that can be asked answer on an event stream.
    let messages = crate::http_client::sse_messages(&listed.body);
    let found = messages.last().unwrap()["result"]["structuredContent"]["entities"].clone();
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
}

/// `_meta` for a 2026-07-28 request whose client declares `capabilities`.
fn modern_call(id: u64, arguments: Value, capabilities: Value, extra: Value) -> String {
    let mut params = json!({
        "name": "scene.createEntity",
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }
    });
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

#[test]
fn a_2026_request_gets_input_required_and_runs_when_the_retry_carries_the_answer() {
    let config = approve_config(60_000);
    let args = host_args(&config);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut c = Client::spawn(&args);
    let asks = json!({"elicitation": {}});
    let send = |c: &mut Client, id: u64, arguments: Value, caps: &Value, extra: Value| {
        c.send_line(&modern_call(id, arguments, caps.clone(), extra));
        c.read()
    };
    let first = send(&mut c, 1, json!({"position": [1, 1, 1]}), &asks, json!({}));
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let request = &result["inputRequests"]["approval"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    let state = result["requestState"].as_str().unwrap().to_string();
    let yes = json!({"approval": {"action": "accept", "content": {"approve": true}}});

    // Tampered state, state for other arguments, a malformed answer: protocol errors.
    let tampered = send(
        &mut c,
        2,
        json!({"position": [1, 1, 1]}),
        &asks,
        json!({"inputResponses": yes, "requestState": format!("{state}-TAMPERED")}),
    );
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");
    assert!(
        tampered["error"]["message"]
            .as_str()
            .unwrap()
            .contains("integrity")
    );
    let other = send(
        &mut c,
        3,
        json!({"position": [9, 9, 9]}),
        &asks,
        json!({"inputResponses": yes, "requestState": state}),
    );
    assert!(
        other["error"]["message"]
            .as_str()
            .unwrap()
            .contains("issued for another call"),
        "{other}"
    );
    let null = send(
        &mut c,
        4,
        json!({"position": [1, 1, 1]}),
        &asks,
        json!({"inputResponses": null, "requestState": state}),
    );
    assert_eq!(null["error"]["code"], -32602, "{null}");
    let number = send(
        &mut c,
        5,
        json!({"position": [1, 1, 1]}),
        &asks,
        json!({"inputResponses": {"approval": 12345}, "requestState": state}),
    );
    assert_eq!(number["error"]["code"], -32602, "{number}");
    // Answers under other keys are ignored: the question is asked again.
    let wrong_key = send(
        &mut c,
        6,
        json!({"position": [1, 1, 1]}),
        &asks,
        json!({"inputResponses": {"user_name": {"action": "accept", "content": {"name": "x"}}}}),
    );
    assert_eq!(
        wrong_key["result"]["resultType"], "input_required",
        "{wrong_key}"
    );
    // The real answer, with extra keys beside it: the call runs.
    let mut responses = yes.clone();
    responses["unknown_extra_key"] = json!({"action": "accept", "content": {"foo": "bar"}});
    let ran = send(
        &mut c,
        8,
        json!({"position": [1, 1, 1]}),
        &asks,
        json!({"inputResponses": responses, "requestState": state}),
    );
    assert_eq!(ran["result"]["resultType"], "complete", "{ran}");
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    // The same state again: answered already.
    let replay = send(
        &mut c,
        9,
        json!({"position": [1, 1, 1]}),
        &asks,
        json!({"inputResponses": yes, "requestState": state}),
    );
    assert!(
        replay["error"]["message"]
            .as_str()
            .unwrap()
            .contains("answered already"),
        "{replay}"
    );
    // A decline refuses; a client without elicitation cannot be asked.
    let asked = send(&mut c, 10, json!({}), &asks, json!({}));
    let state = asked["result"]["requestState"].as_str().unwrap();
    let declined = send(
        &mut c,
        11,
        json!({}),
        &asks,
        json!({"inputResponses": {"approval": {"action": "decline"}}, "requestState": state}),
    );
    let (code, message) = error_of(&declined["result"]);
    assert_eq!(code, "forbidden");
    assert!(message.contains("declined"), "{message}");
    let unasked = send(&mut c, 12, json!({}), &json!({"sampling": {}}), json!({}));
    let (code, message) = error_of(&unasked["result"]);
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("does not declare `elicitation`"),
        "{message}"
    );

    // One entity (the accepted call), and the trace names who answered each.
    let mut legacy = |method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": VERSION,
                                 "io.modelcontextprotocol/clientCapabilities": {}});
        c.request(method, params)
    };
    let found = legacy(
        "tools/call",
        json!({"name": "scene.queryEntities", "arguments": {}}),
    );
    assert_eq!(
        found["result"]["structuredContent"]["entities"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "{found}"
    );
    let trace = legacy(
        "tools/call",
        json!({"name": "trace.tail", "arguments": {"limit": 1000}}),
    );
    let rules: Vec<(String, Value)> = decisions(&trace["result"]["structuredContent"])
        .iter()
        .map(|e| {
            (
                e["payload"]["rule"].as_str().unwrap().to_string(),
                e["payload"]["approval"]["answeredBy"].clone(),
            )
        })
        .collect();
    let names: Vec<&str> = rules.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        names,
        ["profile.grant", "approval.declined", "approval.unavailable"],
        "{rules:?}"
    );
    assert_eq!(rules[0].1["agentId"], "stdio");
    assert_eq!(rules[0].1["via"], "input_required");
}

/// Arguments that make an SDK spawn this host over stdio with the approval configuration.
fn stdio_args<'a>(
    config: &'a tempfile::NamedTempFile,
    traces: &'a tempfile::TempDir,
    own: &'a mut Vec<String>,
) -> Vec<&'a str> {
    let binary = env!("CARGO_BIN_EXE_limina");
    let mut args = vec![
        "stdio",
        binary,
        "--mcp-stdio",
        "--manual-clock",
        "--profile",
        "builder.readWrite",
        "--config",
        config.path().to_str().unwrap(),
        "--trace-dir",
        traces.path().to_str().unwrap(),
    ];
    *own = crate::support::own_calibration(&args[2..]);
    args.extend(own.iter().map(String::as_str));
    args
}

/// What an SDK run must show: one question per guarded call, the first allowed and run, the
/// second declined and refused, one entity in the world.
fn assert_asked_twice(report: &Value, version: &str) {
    assert_eq!(report["protocol_version"], version, "{report}");
    let questions = report["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 2, "{report}");
    assert!(
        questions[0]["message"]
            .as_str()
            .unwrap()
            .contains("scene.createEntity"),
        "{report}"
    );
    assert_eq!(
        questions[0]["schema"]["properties"]["approve"]["type"],
        "boolean"
    );
    assert_eq!(report["allowed_error"], false, "{report}");
    assert_eq!(report["declined_error"], true, "{report}");
    assert!(
        report["declined_text"].as_str().unwrap().starts_with(
            "forbidden: `scene.createEntity` needs a person's approval and it was declined"
        ),
        "{report}"
    );
    let entities = report["found"]["entities"].as_array().unwrap();
    assert_eq!(entities.len(), 1, "{report}");
    let position: Vec<f64> = entities[0]["position"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(position, [4.0, 5.0, 6.0], "{report}");
}

#[test]
fn the_python_sdk_answers_input_required_with_its_elicitation_callback_over_stdio() {
    let config = approve_config(60_000);
    let traces = tempfile::tempdir().unwrap();
    let mut own = Vec::new();
    let mut args = vec!["auto"];
    args.extend(stdio_args(&config, &traces, &mut own));
    let (report, _) = crate::modern::python_script("approval_python.py", &args);
    assert_asked_twice(&report, VERSION);
}

#[test]
fn the_python_sdk_answers_elicitation_requests_in_a_2025_session_over_http() {
    let config = approve_config(60_000);
    let args = host_args(&config);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let host = HttpHost::start(&args);
    let url = host.url();
    let (report, _) = crate::modern::python_script("approval_python.py", &["legacy", "http", &url]);
    assert_asked_twice(&report, "2025-11-25");
}

#[test]
fn the_typescript_client_answers_input_required_over_http_and_stdio() {
    let config = approve_config(60_000);
    let args = host_args(&config);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let host = HttpHost::start(&args);
    let (report, _) =
        crate::modern::typescript_script("approval_typescript.mjs", &["http", &host.url()]);
    assert_asked_twice(&report, VERSION);
    let traces = tempfile::tempdir().unwrap();
    let mut own = Vec::new();
    let args = stdio_args(&config, &traces, &mut own);
    let (report, _) = crate::modern::typescript_script("approval_typescript.mjs", &args);
    assert_asked_twice(&report, VERSION);
}
