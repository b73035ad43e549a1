//! Hostile tokens against a host taking a real provider's tokens, each refused with its reason
//! — a 401 (403 for a missing scope) with the RFC 9728 challenge, a line in the log, a
//! `session.admission.denied` event — never repeating the token, and changing nothing in the
//! world. Forged tokens are signed with the provider's own key (what an attacker holding a
//! stolen or leaked key could still not get past the other checks), or with none.

use crate::identity::{BUILDER, IdHost, Idp, NO_MCP, SigningKey, free_port};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use serde_json::{Value, json};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn encode(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// A token's claims, read without checking it.
fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

/// `claims` signed RS256 with `key`, under `kid`.
fn forge(key: &SigningKey, kid: &str, claims: &Value) -> String {
    let signed = format!(
        "{}.{}",
        encode(&json!({"alg": "RS256", "typ": "at+jwt", "kid": kid})),
        encode(claims)
    );
    let pair = RsaKeyPair::from_pkcs8(&key.pkcs8).unwrap();
    let mut signature = vec![0u8; pair.public().modulus_len()];
    pair.sign(
        &RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        signed.as_bytes(),
        &mut signature,
    )
    .unwrap();
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature))
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
}

#[test]
fn hostile_tokens_are_each_refused_with_their_reason_and_change_nothing() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let idp = Idp::start(&resource);
    let host = IdHost::start_with(&IdHost::config(&idp.issuer, port, ""), port);
    let good = idp.token(BUILDER, "mcp", &resource);
    let (sid, session) = host.session(&good, json!({}));
    assert_eq!(session["agentId"], "builder-bot", "{session}");
    assert_eq!(session["profile"], "builder.readWrite", "{session}");
    let entities = |sid: &str| {
        host.call(&good, sid, "scene.queryEntities", json!({}))["entities"]
            .as_array()
            .map_or(0, Vec::len)
    };
    let before = entities(&sid);

    let key = idp.key();
    let real = claims_of(&good);
    let with = |changes: Value| {
        let mut c = real.clone();
        for (k, v) in changes.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    };
    let none = format!(
        "{}.{}.",
        encode(&json!({"alg": "none", "typ": "at+jwt", "kid": key.kid})),
        encode(&real)
    );
    let hmac = {
        let signed = format!(
            "{}.{}",
            encode(&json!({"alg": "HS256", "typ": "at+jwt", "kid": key.kid})),
            encode(&real)
        );
        let secret = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key.spki_pem.as_bytes());
        let mac = ring::hmac::sign(&secret, signed.as_bytes());
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(mac.as_ref()))
    };
    let tampered = {
        let parts: Vec<&str> = good.split('.').collect();
        let raised = with(json!({"sub": "admin", "groups": ["admins", "builders"]}));
        format!("{}.{}.{}", parts[0], encode(&raised), parts[2])
    };
    let other_resource = idp.token(BUILDER, "mcp", "http://127.0.0.1:1/other");
    let cases: Vec<(&str, String, u16, &str, &str)> = vec![
        ("alg none", none, 401, "algorithm", "unsigned"),
        (
            "HS256 keyed with the public key",
            hmac,
            401,
            "algorithm",
            "HMAC",
        ),
        (
            "wrong issuer",
            forge(&key, &key.kid, &with(json!({"iss": "http://evil.example"}))),
            401,
            "issuer",
            "evil.example",
        ),
        (
            "wrong audience",
            forge(
                &key,
                &key.kid,
                &with(json!({"aud": "http://127.0.0.1:2/mcp"})),
            ),
            401,
            "audience",
            "not for this server",
        ),
        (
            "expired",
            forge(
                &key,
                &key.kid,
                &with(json!({"exp": now() - 3600, "iat": now() - 7200})),
            ),
            401,
            "expired",
            "expired",
        ),
        (
            "not yet valid",
            forge(&key, &key.kid, &with(json!({"nbf": now() + 3600}))),
            401,
            "not_yet_valid",
            "not valid before",
        ),
        (
            "unknown kid",
            forge(&key, "made-up-kid", &real),
            401,
            "unknown_key",
            "`made-up-kid`",
        ),
        (
            "tampered payload",
            tampered,
            401,
            "signature",
            "does not verify",
        ),
        (
            "a token for another resource",
            other_resource,
            401,
            "audience",
            "http://127.0.0.1:1/other",
        ),
        (
            "no `mcp` scope",
            idp.token(NO_MCP, "limina:build", &resource),
            403,
            "insufficient_scope",
            "lacks the scope `mcp`",
        ),
    ];
    let metadata = format!(
        "resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\""
    );
    for (what, token, status, code, words) in &cases {
        let reply = host.post(Some(token), None, &initialize());
        assert_eq!(reply.status, *status, "{what}: {}", reply.body);
        let message = reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(words), "{what}: {message}");
        let challenge = reply.header("www-authenticate").unwrap_or_default();
        assert!(challenge.starts_with("Bearer "), "{what}: {challenge}");
        assert!(challenge.contains(&metadata), "{what}: {challenge}");
        let error = if *status == 403 {
            "error=\"insufficient_scope\""
        } else {
            "error=\"invalid_token\""
        };
        assert!(challenge.contains(error), "{what}: {challenge}");
        assert!(
            challenge.contains("error_description=\""),
            "{what}: {challenge}"
        );
        if *status == 403 {
            assert!(challenge.contains("scope=\"mcp\""), "{what}: {challenge}");
        }
        assert!(
            host.logged(&format!(
                "refused a HTTP client's bearer token: {status} {code}: "
            )),
            "{what}: not logged"
        );
    }
    // Over WebSocket too: the handshake is refused the same way.
    let mut request = host.ws.as_str().into_client_request().unwrap();
    request.headers_mut().insert(
        "authorization",
        format!("Bearer {}", cases[4].1).parse().unwrap(),
    );
    match tungstenite::connect(request) {
        Err(tungstenite::Error::Http(response)) => {
            assert_eq!(response.status().as_u16(), 401);
            let challenge = response.headers()["www-authenticate"].to_str().unwrap();
            assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
            let body =
                String::from_utf8_lossy(response.body().as_deref().unwrap_or_default()).to_string();
            assert!(body.contains("expired"), "{body}");
        }
        other => panic!("an expired token was let in over WebSocket: {other:?}"),
    }

    // Each refusal is in the trace with its reason, as the agent a verified token named, and
    // nothing anywhere repeats a token.
    let denied = host.events(&good, "session.admission.denied");
    assert_eq!(denied.len(), cases.len() + 1, "{denied:#?}");
    for ((what, _, status, code, _), event) in cases.iter().zip(&denied) {
        let reason = event["payload"]["reason"].as_str().unwrap();
        assert!(
            reason.starts_with(&format!("HTTP {status} {code}: ")),
            "{what}: {reason}"
        );
    }
    assert_eq!(denied[9]["actorId"], "no-mcp-bot");
    assert!(
        denied[10]["payload"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("WebSocket 401 expired"),
        "{}",
        denied[10]
    );
    let log = host.log();
    let trace = serde_json::to_string(&denied).unwrap();
    for (what, token, ..) in &cases {
        let signature = token.rsplit('.').next().unwrap();
        let secret = if signature.len() > 16 {
            signature
        } else {
            token.as_str()
        };
        assert!(!log.contains(secret), "{what}: the token is in the log");
        assert!(!trace.contains(secret), "{what}: the token is in the trace");
    }
    // The world is as it was: no refused token ran anything.
    assert_eq!(entities(&sid), before);
    let executed = host.events(&good, "skill.executed");
    assert!(
        executed.iter().all(|e| e["actorId"] == "builder-bot"),
        "{executed:#?}"
    );
}

#[test]
fn a_key_removed_from_the_key_set_after_rotation_is_refused() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let idp = Idp::start(&resource);
    let host = IdHost::start_with(&IdHost::config(&idp.issuer, port, ""), port);
    let old = idp.token(BUILDER, "mcp", &resource);
    host.session(&old, json!({}));
    idp.rotate();
    let new = idp.token(BUILDER, "mcp", &resource);
    assert_ne!(claims_of(&new)["jti"], claims_of(&old)["jti"]);
    // The new key's first token makes the host fetch the key set again: the old key is gone.
    host.session(&new, json!({}));
    let reply = host.post(Some(&old), None, &initialize());
    assert_eq!(reply.status, 401, "{}", reply.body);
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("is not in the provider's key set"),
        "{message}"
    );
}

#[test]
fn the_metadata_is_served_and_named_by_every_challenge_and_websocket_clients_use_the_same_tokens() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let idp = Idp::start(&resource);
    let host = IdHost::start_with(&IdHost::config(&idp.issuer, port, ""), port);
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let reply = crate::http_client::send(&host.http, "GET", path, &[], "");
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
        let doc = reply.json();
        assert_eq!(doc["resource"], resource.as_str());
        assert_eq!(doc["authorization_servers"], json!([idp.issuer]));
        assert_eq!(doc["scopes_supported"], json!(["mcp"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert_eq!(doc["resource_name"], "Limina test world");
    }
    let other = crate::http_client::send(
        &host.http,
        "GET",
        "/.well-known/oauth-protected-resource/other",
        &[],
        "",
    );
    assert_eq!(other.status, 404);
    let expected = format!(
        "Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\""
    );
    let missing = host.post(None, None, &initialize());
    assert_eq!(missing.status, 401);
    assert_eq!(missing.header("www-authenticate"), Some(expected.as_str()));
    let handshake = tungstenite::connect(host.ws.as_str());
    match handshake {
        Err(tungstenite::Error::Http(response)) => {
            assert_eq!(response.status().as_u16(), 401);
            assert_eq!(response.headers()["www-authenticate"], expected.as_str());
        }
        other => panic!("a WebSocket client without a token was let in: {other:?}"),
    }
    // A provider's token opens a WebSocket session as the token says.
    let token = idp.token(BUILDER, "mcp", &resource);
    let mut request = host.ws.as_str().into_client_request().unwrap();
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    let (ws, _) = tungstenite::connect(request).expect("the token opens a WebSocket");
    let mut client = crate::ws_client::WsClient::wrap(ws);
    let reply = client.request("initialize", json!({"protocolVersion": "2025-11-25"}));
    assert_eq!(
        reply["result"]["session"]["agentId"], "builder-bot",
        "{reply}"
    );
    assert_eq!(reply["result"]["session"]["profile"], "builder.readWrite");
    let reply = client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "agentId": "someone-else"}),
    );
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not the agent this token names (`builder-bot`)"),
        "{reply}"
    );
}
