//! The verifier against a small provider on a loopback socket: tokens signed with a test RSA
//! key (`testdata/rsa2048.der`, made for these tests and trusted by nothing else), the key set
//! served and its fetches counted.

use super::config::IdentityConfig;
use super::mapping::ProfileRule;
use super::refusal::Refusal;
use super::verifier::Verifier;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair, RsaPublicKeyComponents};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEY: &[u8] = include_bytes!("testdata/rsa2048.der");
const RESOURCE: &str = "http://127.0.0.1:1/mcp";
const NOW: u64 = 2_000_000_000;

/// A provider serving its metadata and a key set the test changes, counting key set fetches.
struct Idp {
    issuer: String,
    keys: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
}

impl Idp {
    fn start() -> Idp {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let keys = Arc::new(Mutex::new(json!({"keys": [jwk("k1")]})));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (k, f, iss) = (keys.clone(), fetches.clone(), issuer.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut s) = stream else { return };
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let body = if head.starts_with("GET /.well-known/oauth-authorization-server ") {
                    json!({"issuer": iss, "jwks_uri": format!("{iss}/jwks")}).to_string()
                } else if head.starts_with("GET /jwks ") {
                    f.fetch_add(1, Ordering::SeqCst);
                    k.lock().unwrap().to_string()
                } else {
                    let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
                    continue;
                };
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Idp {
            issuer,
            keys,
            fetches,
        }
    }

    fn verifier(&self, min_interval: u64) -> Arc<Verifier> {
        let config = IdentityConfig {
            issuer: self.issuer.clone(),
            resource: RESOURCE.into(),
            algorithms: super::jws::Alg::ALL.to_vec(),
            scopes: vec!["mcp".into()],
            clock_skew: 30,
            jwks_uri: None,
            keys_max_age: Duration::from_secs(3600),
            keys_min_interval: Duration::from_secs(min_interval),
            fetch_timeout: Duration::from_millis(1_000),
            resource_name: None,
            documentation: None,
            claims: Default::default(),
            rules: vec![ProfileRule {
                profile: "system.readonly".into(),
                ..Default::default()
            }],
            introspection: None,
        };
        Verifier::new(
            config,
            crate::net::TlsRoots::default(),
            vec!["system.readonly".into()],
        )
        .unwrap()
    }

    fn claims(&self) -> Value {
        json!({"iss": self.issuer, "aud": RESOURCE, "sub": "alice", "scope": "mcp", "exp": NOW + 300, "iat": NOW})
    }
}

fn pair() -> RsaKeyPair {
    RsaKeyPair::from_der(KEY).unwrap()
}

/// The test key as a JWK with `kid`.
fn jwk(kid: &str) -> Value {
    let public = RsaPublicKeyComponents::<Vec<u8>>::from(pair().public());
    json!({"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
           "n": URL_SAFE_NO_PAD.encode(&public.n), "e": URL_SAFE_NO_PAD.encode(&public.e)})
}

/// `header.claims` signed RS256 with the test key.
fn sign(header: Value, claims: &Value) -> String {
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let pair = pair();
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

fn token(kid: &str, claims: &Value) -> String {
    sign(json!({"alg": "RS256", "typ": "at+jwt", "kid": kid}), claims)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_good_token_is_verified_once_and_remembered() {
    let idp = Idp::start();
    let v = idp.verifier(30);
    let rt = runtime();
    let t = token("k1", &idp.claims());
    let id = rt.block_on(v.verify_at(&t, NOW)).unwrap();
    assert_eq!(id.agent_id, "alice");
    assert_eq!(id.profiles, ["system.readonly"]);
    assert_eq!(id.expires_at, NOW + 300);
    assert_eq!(idp.fetches.load(Ordering::SeqCst), 1);
    for _ in 0..3 {
        assert_eq!(rt.block_on(v.verify_at(&t, NOW + 1)).unwrap(), id);
    }
    assert_eq!(idp.fetches.load(Ordering::SeqCst), 1, "keys fetched once");
    // A remembered token still expires.
    let late = rt.block_on(v.verify_at(&t, NOW + 400)).unwrap_err();
    assert_eq!(late.code(), "expired");
}

#[test]
fn an_unknown_kid_fetches_the_keys_at_most_once_per_interval() {
    let idp = Idp::start();
    let v = idp.verifier(30);
    let rt = runtime();
    let stranger = token("nobody", &idp.claims());
    let first = rt.block_on(v.verify_at(&stranger, NOW)).unwrap_err();
    assert_eq!(first.code(), "unknown_key", "{first:?}");
    assert!(first.reason().contains("`nobody`"), "{}", first.reason());
    assert!(
        first.reason().contains("fetched just now"),
        "{}",
        first.reason()
    );
    assert_eq!(
        idp.fetches.load(Ordering::SeqCst),
        1,
        "one fetch for the unknown kid"
    );
    for _ in 0..20 {
        let again = rt.block_on(v.verify_at(&stranger, NOW)).unwrap_err();
        assert_eq!(again.code(), "unknown_key");
        assert!(
            again.reason().contains("at most every 30 s"),
            "{}",
            again.reason()
        );
    }
    assert_eq!(
        idp.fetches.load(Ordering::SeqCst),
        1,
        "no fetch per bad token"
    );
    // The key set fetched serves good tokens meanwhile.
    rt.block_on(v.verify_at(&token("k1", &idp.claims()), NOW))
        .unwrap();
    assert_eq!(idp.fetches.load(Ordering::SeqCst), 1);
}

#[test]
fn a_key_removed_in_a_rotation_takes_its_remembered_tokens_with_it() {
    let idp = Idp::start();
    let v = idp.verifier(0);
    let rt = runtime();
    let old = token("k1", &idp.claims());
    rt.block_on(v.verify_at(&old, NOW)).unwrap();
    // The provider rotates: the same key material now under `k2`, `k1` gone.
    *idp.keys.lock().unwrap() = json!({"keys": [jwk("k2")]});
    let new = token("k2", &idp.claims());
    rt.block_on(v.verify_at(&new, NOW)).unwrap();
    let refused = rt.block_on(v.verify_at(&old, NOW)).unwrap_err();
    assert_eq!(refused.code(), "unknown_key", "{refused:?}");
}

#[test]
fn a_provider_that_cannot_be_reached_refuses_with_503_in_time() {
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let idp = Idp {
        issuer: format!("http://{}", closed.local_addr().unwrap()),
        keys: Arc::new(Mutex::new(Value::Null)),
        fetches: Arc::new(AtomicUsize::new(0)),
    };
    drop(closed);
    let verifier = idp.verifier(30);
    let started = std::time::Instant::now();
    let refused = runtime()
        .block_on(verifier.verify_at(&token("k1", &idp.claims()), NOW))
        .unwrap_err();
    assert_eq!(refused.status(), 503, "{refused:?}");
    assert!(
        refused.reason().contains("could not be fetched"),
        "{}",
        refused.reason()
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn unsigned_and_hmac_tokens_never_reach_a_key() {
    let idp = Idp::start();
    let v = idp.verifier(30);
    let rt = runtime();
    let claims = idp.claims();
    let none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","kid":"k1"}"#),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let refused = rt.block_on(v.verify_at(&none, NOW)).unwrap_err();
    assert_eq!(refused.code(), "algorithm");
    // HS256 keyed with the public key's bytes: the classic confusion.
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","kid":"k1"}"#),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let public = RsaPublicKeyComponents::<Vec<u8>>::from(pair().public());
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &public.n);
    let mac = ring::hmac::sign(&key, signed.as_bytes());
    let hmac = format!("{signed}.{}", URL_SAFE_NO_PAD.encode(mac.as_ref()));
    let refused = rt.block_on(v.verify_at(&hmac, NOW)).unwrap_err();
    assert_eq!(refused.code(), "algorithm");
    assert!(refused.reason().contains("HMAC"), "{}", refused.reason());
    assert_eq!(
        idp.fetches.load(Ordering::SeqCst),
        0,
        "no key was even fetched"
    );
}

#[test]
fn a_tampered_payload_fails_the_signature() {
    let idp = Idp::start();
    let v = idp.verifier(30);
    let good = token("k1", &idp.claims());
    let mut parts: Vec<String> = good.split('.').map(str::to_string).collect();
    let mut claims = idp.claims();
    claims["sub"] = json!("admin");
    parts[1] = URL_SAFE_NO_PAD.encode(claims.to_string());
    let refused = runtime()
        .block_on(v.verify_at(&parts.join("."), NOW))
        .unwrap_err();
    assert_eq!(refused.code(), "signature", "{refused:?}");
}

#[test]
fn a_token_without_the_required_scope_is_403_and_an_opaque_one_without_introspection_401() {
    let idp = Idp::start();
    let v = idp.verifier(30);
    let rt = runtime();
    let mut claims = idp.claims();
    claims["scope"] = json!("other");
    let refused = rt
        .block_on(v.verify_at(&token("k1", &claims), NOW))
        .unwrap_err();
    assert!(matches!(refused, Refusal::Scope { .. }), "{refused:?}");
    assert!(
        v.challenge(&refused)
            .contains("error=\"insufficient_scope\"")
    );
    let opaque = rt
        .block_on(v.verify_at("not-a-jwt-0123456789", NOW))
        .unwrap_err();
    assert_eq!(opaque.code(), "unknown_token");
    let long = "a.b.".to_string() + &"c".repeat(20_000);
    assert_eq!(
        rt.block_on(v.verify_at(&long, NOW)).unwrap_err().code(),
        "malformed"
    );
}
