//! The provider's tokens beside everything else the edge knows: configured tokens keep working,
//! opaque tokens are introspected (RFC 7662), budgets and the trace key on the identity a
//! token gives, and a provider that cannot be reached refuses (503) rather than holds a client.

use crate::identity::{BUILDER, IdHost, Idp, OPAQUE, READER, free_port};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// A 2026-07-28 stateless `tools/call` with `token`; the reply.
fn stateless_call(host: &IdHost, token: &str, name: &str, arguments: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
    "name": name, "arguments": arguments,
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    }}});
    let bearer = format!("Bearer {token}");
    let reply = crate::http_client::send(
        &host.http,
        "POST",
        "/mcp",
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
            ("authorization", &bearer),
        ],
        &message.to_string(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

#[test]
fn configured_and_introspected_tokens_work_beside_the_providers_jwts() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let idp = Idp::start(&resource);
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("introspection.secret");
    std::fs::write(&secret, "host-secret-0123456789\n").unwrap();
    let alice = dir.path().join("alice.token");
    std::fs::write(&alice, "alice-token-0123456789\n").unwrap();
    let extra = format!(
        "[identity.introspection]\nclientId = \"limina-host\"\nclientSecretFile = \"{}\"\n\n[[network.tokens]]\nfile = \"{}\"\nagentId = \"alice\"\nprofile = \"builder.readWrite\"\n",
        secret.display(),
        alice.display()
    );
    let host = IdHost::start_with(&IdHost::config(&idp.issuer, port, &extra), port);

    let (_, alice) = host.session("alice-token-0123456789", json!({}));
    assert_eq!(alice["agentId"], "alice");
    assert_eq!(alice["profile"], "builder.readWrite");

    let jwt = idp.token(READER, "mcp", &resource);
    let (_, reader) = host.session(&jwt, json!({}));
    assert_eq!(reader["agentId"], "reader-bot");
    assert_eq!(reader["profile"], "system.readonly");

    // The provider issues this client opaque tokens: the host asks the provider about them.
    let opaque = idp.token(OPAQUE, "mcp", &resource);
    assert_eq!(opaque.split('.').count(), 1, "an opaque token: {opaque}");
    let (_, introspected) = host.session(&opaque, json!({}));
    assert_eq!(introspected["agentId"], "opaque-bot", "{introspected}");
    assert_eq!(introspected["profile"], "system.readonly");
    // One the provider never issued is inactive.
    let reply = host.post(
        Some("made-up-opaque-token-0123456789"),
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert!(reply.body.contains("not active"), "{}", reply.body);
    // An opaque token for another resource is refused like a JWT for one.
    let elsewhere = idp.token(OPAQUE, "mcp", "http://127.0.0.1:1/other");
    let reply = host.post(
        Some(&elsewhere),
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert!(
        reply.body.contains("http://127.0.0.1:1/other"),
        "{}",
        reply.body
    );
}

#[test]
fn budgets_and_the_trace_key_on_the_identity_the_token_gives() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let idp = Idp::start(&resource);
    let host = IdHost::start_with(
        &IdHost::config(&idp.issuer, port, "[budgets]\ncalls = 2\n"),
        port,
    );
    let builder = idp.token(BUILDER, "mcp", &resource);
    // A second token of the same client is the same identity: one budget.
    let builder_again = idp.token(BUILDER, "mcp", &resource);
    assert_ne!(builder, builder_again);
    let reader = idp.token(READER, "mcp", &resource);
    let made = stateless_call(&host, &builder, "scene.createEntity", json!({}));
    assert_eq!(made["result"]["isError"], false, "{made}");
    let queried = stateless_call(&host, &builder_again, "scene.queryEntities", json!({}));
    assert_eq!(queried["result"]["isError"], false, "{queried}");
    let spent = stateless_call(&host, &builder, "scene.queryEntities", json!({}));
    let text = spent["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(spent["result"]["isError"], true, "{spent}");
    assert!(text.contains("budget"), "{spent}");
    // Another identity has its own budget, and its own profile (no `builders` group).
    let read = stateless_call(&host, &reader, "scene.queryEntities", json!({}));
    assert_eq!(read["result"]["isError"], false, "{read}");
    let refused = stateless_call(&host, &reader, "scene.createEntity", json!({}));
    let text = refused["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("forbidden"), "{refused}");

    let (sid, _) = host.session(&reader, json!({}));
    let tail = host.call(
        &reader,
        &sid,
        "trace.tail",
        json!({"type": "skill.executed"}),
    );
    let sessions: Vec<String> = tail["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["skill"] != "trace.tail")
        .map(|e| format!("{} {}", e["actorId"], e["threadId"]))
        .collect();
    assert!(
        sessions.contains(&"\"builder-bot\" \"stateless.builder-bot.builder.readWrite\"".into()),
        "{sessions:?}"
    );
    assert!(
        sessions.contains(&"\"reader-bot\" \"stateless.reader-bot.system.readonly\"".into()),
        "{sessions:?}"
    );
}

#[test]
fn a_provider_that_cannot_be_reached_refuses_in_time_instead_of_holding_the_client() {
    // A port nothing listens on.
    let idp_port = free_port();
    let issuer = format!("http://127.0.0.1:{idp_port}");
    let port = free_port();
    let host = IdHost::start_with(&IdHost::config(&issuer, port, ""), port);
    // A well-formed token (its signature cannot be checked without the provider's keys).
    let token = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhIn0.c2lnbmF0dXJl";
    let started = Instant::now();
    let reply = host.post(
        Some(token),
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.header("retry-after"), Some("5"));
    assert!(
        reply.body.contains("could not be fetched"),
        "{}",
        reply.body
    );
    assert!(host.logged("could not be reached"), "{}", host.log());
    // The rest of the host keeps serving.
    let health = crate::http_client::send(&host.http, "GET", "/healthz", &[], "");
    assert_eq!(health.status, 200);
}
