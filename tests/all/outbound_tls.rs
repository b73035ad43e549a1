//! Granted `https` over a loopback TLS server whose CA and certificate the test makes
//! (rcgen): trusted through `[outbound] extraRoots`, the fetch succeeds; a certificate the
//! roots do not vouch for, or one that does not name the host, is refused with
//! `TlsCertificateError`, traced as a `net.request` carrying the reason, and charged nothing.

use crate::support::{Client, package_dir, repo};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

/// What the TLS server answers.
const GREETING: &str = "hello over tls";

/// A CA and a server certificate for `localhost` it signed, in PEM and DER.
struct Pki {
    ca_pem: String,
    server_der: rustls::pki_types::CertificateDer<'static>,
    server_key_der: Vec<u8>,
}

fn pki() -> Pki {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "limina test CA");
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let server_key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&server_key, &ca)
        .unwrap();
    Pki {
        ca_pem: ca.pem(),
        server_der: server.der().clone(),
        server_key_der: server_key.serialize_der(),
    }
}

/// One PKI for the module: key generation is the slow part.
static PKI: LazyLock<Pki> = LazyLock::new(pki);

/// A TLS server on 127.0.0.1 with the `localhost` certificate, answering [`GREETING`] to
/// every request; counts the requests it answered (after a completed handshake).
struct TlsServer {
    port: u16,
    answered: Arc<AtomicUsize>,
}

impl TlsServer {
    fn start() -> TlsServer {
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(PKI.server_key_der.clone().into());
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![PKI.server_der.clone()], key)
        .unwrap();
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let answered = Arc::new(AtomicUsize::new(0));
        let count = answered.clone();
        std::thread::spawn(move || {
            for tcp in listener.incoming() {
                let Ok(tcp) = tcp else { break };
                let config = config.clone();
                let count = count.clone();
                std::thread::spawn(move || {
                    let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(10)));
                    let conn = rustls::ServerConnection::new(config).unwrap();
                    let mut tls = rustls::StreamOwned::new(conn, tcp);
                    let mut reader = BufReader::new(&mut tls);
                    // The request head; a refused handshake ends here with an error.
                    loop {
                        let mut line = String::new();
                        match reader.read_line(&mut line) {
                            Ok(0) | Err(_) => return,
                            Ok(_) if line == "\r\n" => break,
                            Ok(_) => {}
                        }
                    }
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{GREETING}",
                        GREETING.len()
                    );
                    if tls.write_all(reply.as_bytes()).is_ok() {
                        let _ = tls.flush();
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                    tls.conn.send_close_notify();
                    let _ = tls.flush();
                });
            }
        });
        TlsServer { port, answered }
    }
}

struct Host {
    c: Client,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

/// A host serving `rustfetch` granted `network`, `localhost` pinned to 127.0.0.1, with
/// `[outbound] extraRoots` naming the test's CA when `trust_ca`.
fn host(network: &str, trust_ca: bool) -> Host {
    let packages = package_dir(
        &repo().join("tests/guests/rustfetch"),
        &repo().join("target/components/rustfetch.wasm"),
    );
    let manifest = packages.path().join("rustfetch/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        r#"network = ["http://127.0.0.1:9"]"#,
        &format!("network = [\"{network}\"]"),
    );
    std::fs::write(&manifest, text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ca.pem"), &PKI.ca_pem).unwrap();
    let outbound = if trust_ca {
        "[outbound]\nextraRoots = [\"ca.pem\"]\n"
    } else {
        ""
    };
    let config = dir.path().join("limina.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.outbound]\npermissions = [\"scene.read\", \"net.outbound\"]\n\n[packages.rustfetch.grants]\nnetwork = [\"{network}\"]\n\n{outbound}"
        ),
    )
    .unwrap();
    let c = Client::session(
        "outbound",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--resolve",
            "localhost=127.0.0.1",
        ],
    );
    Host {
        c,
        _dirs: (packages, dir),
    }
}

fn requests(c: &mut Client) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": "net.request", "limit": 10}))["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["payload"].clone())
        .collect()
}

fn net_used(c: &mut Client) -> Value {
    c.call_ok("audit.usage", json!({}))["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["budget"]["net"].clone())
        .find(|n| !n.is_null())
        .unwrap_or(Value::Null)
}

#[test]
fn a_granted_https_fetch_succeeds_when_an_extra_root_vouches_for_the_server() {
    let server = TlsServer::start();
    let base = format!("https://localhost:{}", server.port);
    let mut h = host(&base, true);
    let out =
        h.c.call_ok("rustfetch.get", json!({"url": format!("{base}/hello?x=1")}));
    assert_eq!(out["status"], 200, "{out}");
    assert_eq!(out["body"], GREETING);
    assert_eq!(server.answered.load(Ordering::SeqCst), 1);
    let seen = requests(&mut h.c);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["scheme"], "https");
    assert_eq!(seen[0]["host"], "localhost");
    assert_eq!(seen[0]["path"], "/hello");
    assert_eq!(seen[0]["status"], 200);
    assert_eq!(seen[0]["bytesIn"], GREETING.len());
    assert_eq!(net_used(&mut h.c)["requests"]["used"], 1);
}

/// `url` fails the handshake: the guest sees `TlsCertificateError`, the request is traced
/// with the reason holding `why`, nothing reached the server and nothing is charged.
fn assert_certificate_refused(h: &mut Host, server: &TlsServer, url: &str, why: &str) {
    let out = h.c.call_ok("rustfetch.get", json!({"url": url}));
    assert_eq!(out, json!({"error": "TlsCertificateError"}), "{url}");
    let seen = requests(&mut h.c);
    assert_eq!(seen.len(), 1, "{seen:?}");
    let error = seen[0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("the server's certificate is refused") && error.contains(why),
        "{error}"
    );
    assert_eq!(seen[0]["status"], Value::Null);
    assert_eq!(
        server.answered.load(Ordering::SeqCst),
        0,
        "no request was sent"
    );
    assert_eq!(net_used(&mut h.c), Value::Null, "nothing charged");
    assert_eq!(
        h.c.call_ok("scene.queryEntities", json!({}))["entities"],
        json!([]),
        "the world is as it was"
    );
}

#[test]
fn a_certificate_no_trusted_root_vouches_for_is_refused_and_traced() {
    let server = TlsServer::start();
    let base = format!("https://localhost:{}", server.port);
    // The web roots alone: the test's CA is unknown.
    let mut h = host(&base, false);
    assert_certificate_refused(&mut h, &server, &format!("{base}/"), "UnknownIssuer");
}

#[test]
fn a_certificate_for_another_name_is_refused_even_from_a_trusted_root() {
    let server = TlsServer::start();
    // The certificate names `localhost`; the request goes to the address.
    let base = format!("https://127.0.0.1:{}", server.port);
    let mut h = host(&base, true);
    assert_certificate_refused(&mut h, &server, &format!("{base}/"), "NotValidForName");
}
