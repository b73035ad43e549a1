//! `cargo bench -p limina --bench identity`: what an access token from an identity provider
//! adds to a request, against a `[[network.tokens]]` token, in one run.
//!
//! 1. The edge's admission alone, in process (`Admission::admit`), per request: a configured
//!    token; the provider's JWT a client sends again and again (remembered after its first
//!    check); and a fresh JWT every request (its key cached, its signature verified each time),
//!    beside the RS256 signature check alone (ring), the floor a new token cannot go under.
//! 2. A whole call over HTTP against the release host (`tools/call scene.queryEntities`, a
//!    2026-07-28 request on a kept-alive connection), rounds alternating the two tokens.
//!
//! The provider is a loopback server handing out the key set of a test RSA key
//! (`src/identity/testdata/rsa2048.der`), which signs the tokens (RS256). Prints p50s, the
//! difference and the ratio to the configured token. Flags (after `--`): `--requests N` (10,000
//! in part 1, a tenth of that per round in part 2), `--rounds N` (5). CI runs it as a smoke test
//! in the dev profile (`cargo test -p limina --bench identity -- --requests 200 --rounds 1`):
//! every admission and every reply checked, no timing judged.

#[path = "spawn.rs"]
mod spawn;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use limina::identity::{IdentityConfig, Verifier};
use limina::mcp::transport::edge::admission::TokenIdentity;
use limina::mcp::transport::edge::{Admission, Transport};
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair, RsaPublicKeyComponents};
use serde_json::{Value, json};
use sha2::Digest;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const KEY: &[u8] = include_bytes!("../src/identity/testdata/rsa2048.der");
const STATIC: &str = "bench-static-token-0123456789";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map_or(default, |v| v.parse().expect("a number"))
    };
    let requests = flag("--requests", 10_000);
    let rounds = flag("--rounds", 5);
    eprintln!("bench identity: load {}", load());
    let issuer = serve_keys();
    in_process(&issuer, "http://127.0.0.1:9/mcp", requests);
    // Chosen only now: part 1 runs for a minute, long enough for another process to take it.
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    over_http(&issuer, port, &resource, requests / 10, rounds);
    eprintln!("bench identity: load {}", load());
}

/// Part 1: `Admission::admit`, per request.
fn in_process(issuer: &str, resource: &str, requests: usize) {
    let verifier = Verifier::new(
        config(issuer, resource),
        limina::net::TlsRoots::default(),
        vec!["builder.readWrite".into()],
    )
    .unwrap();
    let digest: [u8; 32] = sha2::Sha256::digest(STATIC.as_bytes()).into();
    let admission = Admission::new(
        "builder.readWrite",
        &[],
        None,
        vec![TokenIdentity {
            digest,
            agent_id: "static".into(),
            profile: "builder.readWrite".into(),
        }],
    )
    .with_identity(verifier);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let same = format!("Bearer {}", mint(issuer, resource, 0));
    let fresh: Vec<String> = (0..requests)
        .map(|i| format!("Bearer {}", mint(issuer, resource, i + 1)))
        .collect();
    let statics = format!("Bearer {STATIC}");
    let admit = |header: &str| {
        let granted = rt
            .block_on(admission.admit(Transport::Http, Some(header)))
            .expect("admitted");
        assert!(granted.is_some());
    };
    // Warm-up: the key set is fetched once.
    admit(&same);
    admit(&statics);
    let p50 = |f: &mut dyn FnMut(usize)| {
        let mut times: Vec<f64> = (0..requests)
            .map(|i| {
                let start = Instant::now();
                f(i);
                start.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let s = p50(&mut |_| admit(&statics));
    let r = p50(&mut |_| admit(&same));
    let f = p50(&mut |i| admit(&fresh[i]));
    // The floor under a new token: the RS256 signature check alone, on the same tokens.
    let public =
        RsaPublicKeyComponents::<Vec<u8>>::from(RsaKeyPair::from_der(KEY).unwrap().public());
    let split: Vec<(String, Vec<u8>)> = fresh
        .iter()
        .map(|h| {
            let token = h.trim_start_matches("Bearer ");
            let (signed, signature) = token.rsplit_once('.').unwrap();
            (
                signed.to_string(),
                URL_SAFE_NO_PAD.decode(signature).unwrap(),
            )
        })
        .collect();
    let crypto = p50(&mut |i| {
        let (signed, signature) = &split[i];
        public
            .verify(
                &ring::signature::RSA_PKCS1_2048_8192_SHA256,
                signed.as_bytes(),
                signature,
            )
            .expect("the signature checks");
    });
    println!("\nadmission alone, p50 per request over {requests} requests (in process):");
    println!(
        "  {:<46} {:>9.2} µs",
        "configured token ([[network.tokens]])", s
    );
    for (label, t) in [
        ("provider JWT, sent again (remembered)", r),
        ("provider JWT, new each request (key cached)", f),
    ] {
        println!(
            "  {label:<46} {t:>9.2} µs   +{:.2} µs   {:.2}x",
            t - s,
            t / s
        );
    }
    println!(
        "  {:<46} {crypto:>9.2} µs   (a new token's cost beyond it: {:.2} µs)",
        "  of which the RS256 signature check alone",
        f - s - crypto
    );
}

/// Part 2: a call over HTTP against the release host, rounds alternating the two tokens.
fn over_http(issuer: &str, port: u16, resource: &str, requests: usize, rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    let digest = hex::encode(sha2::Sha256::digest(STATIC.as_bytes()));
    std::fs::write(
        &config,
        format!(
            "[[network.tokens]]\nsha256 = \"{digest}\"\nagentId = \"static\"\nprofile = \"builder.readWrite\"\n\n[identity]\nissuer = \"{issuer}\"\nresource = \"{resource}\"\nscopes = [\"mcp\"]\n\n[[identity.profiles]]\nprofile = \"builder.readWrite\"\n"
        ),
    )
    .unwrap();
    let port_text = port.to_string();
    let host = spawn::limina(
        &[
            "--mcp-http",
            "--http-port",
            &port_text,
            "--profile",
            "builder.readWrite",
            "--config",
            config.to_str().unwrap(),
            // `info`: the address the host serves on is logged at that level.
            "--log-level",
            "info",
        ],
        // The serving line itself: earlier lines name the provider's http:// address.
        Some("serving MCP Streamable HTTP on "),
    );
    let addr = format!("127.0.0.1:{port}");
    let jwt = mint(issuer, resource, 0);
    let (mut statics, mut jwts) = (Vec::new(), Vec::new());
    let mut client = Http::connect(&addr);
    // Warm-up: the key set, the JWT's check, the first calls.
    for _ in 0..200 {
        client.call(STATIC);
        client.call(&jwt);
    }
    for round in 0..rounds {
        let order: [(&str, &mut Vec<f64>); 2] = if round % 2 == 0 {
            [(STATIC, &mut statics), (&jwt, &mut jwts)]
        } else {
            [(&jwt, &mut jwts), (STATIC, &mut statics)]
        };
        for (token, into) in order {
            let mut times: Vec<f64> = (0..requests)
                .map(|_| {
                    let start = Instant::now();
                    client.call(token);
                    start.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            times.sort_by(f64::total_cmp);
            into.push(times[times.len() / 2]);
        }
    }
    statics.sort_by(f64::total_cmp);
    jwts.sort_by(f64::total_cmp);
    let (s, j) = (statics[rounds / 2], jwts[rounds / 2]);
    println!(
        "\na call over HTTP (tools/call scene.queryEntities, 2026-07-28, kept-alive), median over {rounds} rounds of the p50 of {requests} calls:"
    );
    println!("  {:<46} {:>9.1} µs", "configured token", s);
    println!(
        "  {:<46} {:>9.1} µs   +{:.1} µs   {:.3}x",
        "provider JWT (its key cached)",
        j,
        j - s,
        j / s
    );
    drop(host);
}

/// The `[identity]` of both parts.
fn config(issuer: &str, resource: &str) -> IdentityConfig {
    let text = format!(
        "[identity]\nissuer = \"{issuer}\"\nresource = \"{resource}\"\nscopes = [\"mcp\"]\n\n[[identity.profiles]]\nprofile = \"builder.readWrite\"\n"
    );
    limina::config::Config::parse(&text)
        .unwrap()
        .identity
        .unwrap()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token for `resource`, RS256 with the test key (`n` makes each one different).
fn mint(issuer: &str, resource: &str, n: usize) -> String {
    let claims = json!({"iss": issuer, "aud": resource, "sub": "bench-agent", "scope": "mcp",
                        "client_id": "bench", "jti": format!("t{n}"), "iat": now(), "exp": now() + 3600});
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(json!({"alg": "RS256", "typ": "at+jwt", "kid": "k1"}).to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let pair = RsaKeyPair::from_der(KEY).unwrap();
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

/// A loopback provider serving its metadata and the test key's key set; its issuer.
fn serve_keys() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let public =
        RsaPublicKeyComponents::<Vec<u8>>::from(RsaKeyPair::from_der(KEY).unwrap().public());
    let keys = json!({"keys": [{"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig",
        "n": URL_SAFE_NO_PAD.encode(&public.n), "e": URL_SAFE_NO_PAD.encode(&public.e)}]})
    .to_string();
    let metadata = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")}).to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let mut buf = [0u8; 2048];
            let n = s.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]);
            let body = if head.starts_with("GET /jwks ") {
                &keys
            } else {
                &metadata
            };
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    issuer
}

/// A kept-alive HTTP/1.1 connection to the host.
struct Http {
    addr: String,
    reader: BufReader<TcpStream>,
}

impl Http {
    fn connect(addr: &str) -> Http {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Http {
            addr: addr.to_string(),
            reader: BufReader::new(stream),
        }
    }

    /// One stateless `tools/call`, with `token`; checks the reply is a result.
    fn call(&mut self, token: &str) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "scene.queryEntities", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: scene.queryEntities\r\nauthorization: Bearer {token}\r\ncontent-length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        self.reader.get_mut().write_all(request.as_bytes()).unwrap();
        let mut line = String::new();
        let mut length = 0usize;
        let mut status = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            if status.is_empty() {
                status = line.clone();
            }
            if line == "\r\n" {
                break;
            }
            if let Some((k, v)) = line.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().unwrap();
            }
        }
        let mut reply = vec![0u8; length];
        self.reader.read_exact(&mut reply).unwrap();
        assert!(status.contains(" 200 "), "{status}");
        let reply: Value = serde_json::from_slice(&reply).unwrap();
        assert_eq!(reply["result"]["isError"], false, "{reply}");
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The machine's load averages, to print beside the figures.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
