//! Identity from an identity provider, tried as an operator would: a real OpenID provider
//! (`oidc-provider`, `tests/identity/provider.mjs`, on Node.js 22) issues JWT access tokens for
//! this host's canonical URI; the official TypeScript and Python SDKs discover it from the
//! host's protected resource metadata, get a token by client credentials and call tools, on
//! both protocol revisions; WebSocket clients bring the same tokens; configured tokens keep
//! working beside them; an opaque token is introspected; and the identity a token gives is
//! what budgets and the trace key on. Hostile tokens are in `identity_hostile.rs`.

use crate::http_client::{Reply, send};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The provider's clients (`provider.mjs`): who they are and their secrets.
pub const BUILDER: (&str, &str) = ("builder-bot", "builder-secret-0123456789");
pub const READER: (&str, &str) = ("reader-bot", "reader-secret-0123456789");
pub const NO_MCP: (&str, &str) = ("no-mcp-bot", "no-mcp-secret-0123456789");
pub const OPAQUE: (&str, &str) = ("opaque-bot", "opaque-secret-0123456789");

/// A running OpenID provider.
pub struct Idp {
    child: Child,
    pub issuer: String,
    admin: String,
    dir: tempfile::TempDir,
}

/// The provider's signing key, as it wrote it out.
pub struct SigningKey {
    pub kid: String,
    /// PKCS#8 DER of the private key.
    pub pkcs8: Vec<u8>,
    /// The public key as PEM (what an HMAC confusion attack keys with).
    pub spki_pem: String,
}

impl Idp {
    /// Starts the provider; `resource` is the default resource of its tokens.
    pub fn start(resource: &str) -> Idp {
        use limina_guest_build::clients::{NODE_22, OIDC_PROVIDER, node_binary};
        let node = node_binary(&NODE_22.ensure().expect("installing Node.js 22")).unwrap();
        let modules = OIDC_PROVIDER
            .ensure()
            .expect("installing oidc-provider")
            .join("node_modules");
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(modules, dir.path().join("node_modules")).unwrap();
        let script = dir.path().join("provider.mjs");
        std::fs::copy(
            crate::support::repo().join("tests/identity/provider.mjs"),
            &script,
        )
        .unwrap();
        let mut child = Command::new(node)
            .arg(&script)
            .arg(resource)
            .arg(dir.path().join("keys.json"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the OpenID provider");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let started: Value = serde_json::from_str(&first)
            .unwrap_or_else(|e| panic!("the provider did not start ({e}): {first}"));
        Idp {
            child,
            issuer: started["issuer"].as_str().unwrap().to_string(),
            admin: started["admin"].as_str().unwrap().to_string(),
            dir,
        }
    }

    /// An access token for `resource` by the client credentials grant (the token response).
    pub fn token_response(&self, client: (&str, &str), scope: &str, resource: &str) -> Value {
        use base64::Engine as _;
        let basic =
            base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", client.0, client.1));
        let body = format!(
            "grant_type=client_credentials&scope={}&resource={}",
            scope.replace(' ', "+").replace(':', "%3A"),
            resource.replace(':', "%3A").replace('/', "%2F")
        );
        let reply = send(
            self.issuer.trim_start_matches("http://"),
            "POST",
            "/token",
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("authorization", &format!("Basic {basic}")),
            ],
            &body,
        );
        reply.json()
    }

    /// An access token for `resource`, which the provider must grant.
    pub fn token(&self, client: (&str, &str), scope: &str, resource: &str) -> String {
        let answer = self.token_response(client, scope, resource);
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token for {}: {answer}", client.0))
            .to_string()
    }

    /// Rotates the provider's signing key: a fresh one signs from now on, the old one leaves
    /// its key set.
    pub fn rotate(&self) {
        let reply = send(
            self.admin.trim_start_matches("http://"),
            "POST",
            "/rotate",
            &[],
            "",
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
    }

    /// The key it signs with now.
    pub fn key(&self) -> SigningKey {
        use base64::Engine as _;
        let text = std::fs::read_to_string(self.dir.path().join("keys.json")).unwrap();
        let keys: Value = serde_json::from_str(&text).unwrap();
        let pem = keys["pkcs8"].as_str().unwrap();
        let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        SigningKey {
            kid: keys["kid"].as_str().unwrap().to_string(),
            pkcs8: base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap(),
            spki_pem: keys["spki"].as_str().unwrap().to_string(),
        }
    }
}

impl Drop for Idp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port free now (for a host whose canonical URI must be known before it starts).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `limina --mcp-http --mcp-ws` accepting the provider's tokens for `http://127.0.0.1:P/mcp`.
pub struct IdHost {
    child: Child,
    /// `127.0.0.1:P`.
    pub http: String,
    /// `ws://127.0.0.1:Q`.
    pub ws: String,
    log: Arc<Mutex<String>>,
    _dir: tempfile::TempDir,
}

impl IdHost {
    /// The `[identity]` section for `issuer` and a host on `port`, plus `extra` configuration:
    /// the provider's group `builders` gives `builder.readWrite`, every other valid token
    /// `system.readonly`; every token needs the scope `mcp`.
    pub fn config(issuer: &str, port: u16, extra: &str) -> String {
        format!(
            "[network]\nprofiles = [\"builder.readWrite\"]\n\n[identity]\nissuer = \"{issuer}\"\nresource = \"http://127.0.0.1:{port}/mcp\"\nscopes = [\"mcp\"]\nalgorithms = [\"RS256\"]\nkeysMinIntervalSeconds = 0\nfetchTimeoutMs = 2000\nresourceName = \"Limina test world\"\n\n[[identity.profiles]]\nprofile = \"builder.readWrite\"\ngroup = \"builders\"\n\n[[identity.profiles]]\nprofile = \"system.readonly\"\n\n{extra}"
        )
    }

    /// Starts a host with configuration `text`, serving HTTP on `port`.
    pub fn start_with(text: &str, port: u16) -> IdHost {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("limina.toml");
        std::fs::write(&config, text).unwrap();
        let port = port.to_string();
        let traces = dir.path().join("traces");
        let args = [
            "--mcp-http",
            "--mcp-ws",
            "--port",
            "0",
            "--http-port",
            &port,
            "--manual-clock",
            "--profile",
            "system.readonly",
            "--config",
            config.to_str().unwrap(),
            "--trace-dir",
            traces.to_str().unwrap(),
        ];
        let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
            .args(args)
            .args(crate::support::own_calibration(&args))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawning limina");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                eprintln!("{line}");
                for prefix in ["ws://", "http://"] {
                    if line.contains("serving MCP")
                        && let Some(at) = line.find(prefix)
                    {
                        let _ = tx.send(line[at..].trim().to_string());
                    }
                }
                let mut log = kept.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let (mut ws, mut http) = (String::new(), String::new());
        for _ in 0..2 {
            let address = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the host logs its addresses");
            if address.starts_with("ws://") {
                ws = address;
            } else {
                http = address["http://".len()..]
                    .trim_end_matches("/mcp")
                    .to_string();
            }
        }
        IdHost {
            child,
            http,
            ws,
            log,
            _dir: dir,
        }
    }

    /// What the host logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Whether the host logs a line containing `needle` within 10 s: its stderr is read on a
    /// thread of its own, so a line written before a reply may arrive here after it.
    pub fn logged(&self, needle: &str) -> bool {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if self.log().contains(needle) {
                return true;
            }
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Its canonical URI.
    pub fn resource(&self) -> String {
        format!("http://{}/mcp", self.http)
    }

    /// POSTs `message` to `/mcp` with `token` (and `session`, if given).
    pub fn post(&self, token: Option<&str>, session: Option<&str>, message: &Value) -> Reply {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let mut headers = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        if let Some(b) = &bearer {
            headers.push(("authorization", b));
        }
        if let Some(s) = session {
            headers.push(("mcp-session-id", s));
        }
        send(&self.http, "POST", "/mcp", &headers, &message.to_string())
    }

    /// Initializes a 2025-11-25 session with `token`; its id and the session's description.
    pub fn session(&self, token: &str, params: Value) -> (String, Value) {
        let mut p = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
        for (k, v) in params.as_object().unwrap() {
            p[k] = v.clone();
        }
        let reply = self.post(
            Some(token),
            None,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": p}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        let sid = reply
            .header("mcp-session-id")
            .expect("a session")
            .to_string();
        (sid, reply.json()["result"]["session"].clone())
    }

    /// Calls a tool in `session`; its structured result (or the error).
    pub fn call(&self, token: &str, session: &str, name: &str, arguments: Value) -> Value {
        let reply = self.post(
            Some(token),
            Some(session),
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        let answer = reply.json();
        answer["result"]["structuredContent"].clone()
    }

    /// Events of `kind` in the trace, read with `token`.
    pub fn events(&self, token: &str, kind: &str) -> Vec<Value> {
        let (sid, _) = self.session(token, json!({}));
        let tail = self.call(
            token,
            &sid,
            "trace.tail",
            json!({"type": kind, "limit": 200}),
        );
        tail["events"].as_array().cloned().unwrap_or_default()
    }
}

impl Drop for IdHost {
    fn drop(&mut self) {
        let _ = self.child.stdin.take().map(|mut s| s.flush());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a client script from `tests/identity` with its SDK; its report.
fn client(script: &str, args: &[&str]) -> Value {
    let out = if script.ends_with(".py") {
        use limina_guest_build::clients::PYTHON_SDK_MODERN;
        use limina_guest_build::tools::venv_python;
        let sdk = PYTHON_SDK_MODERN
            .ensure()
            .expect("installing the Python MCP SDK 2.3");
        Command::new(venv_python(&sdk))
            .arg(crate::support::repo().join("tests/identity").join(script))
            .args(args)
            .output()
            .unwrap()
    } else {
        use limina_guest_build::clients::TYPESCRIPT_CLIENT;
        let sdk = TYPESCRIPT_CLIENT
            .ensure()
            .expect("installing the TypeScript MCP client 2.4");
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(sdk.join("node_modules"), dir.path().join("node_modules"))
            .unwrap();
        let copy = dir.path().join(script);
        std::fs::copy(
            crate::support::repo().join("tests/identity").join(script),
            &copy,
        )
        .unwrap();
        Command::new("node").arg(&copy).args(args).output().unwrap()
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the client failed: {stderr}");
    crate::support::last_json_line(&out)
}

/// What every SDK run must show: it found the provider through the host's metadata, got a
/// token for this host, and its calls ran as the provider's client under the profile its
/// group gives.
fn assert_completed_the_flow(report: &Value, host: &IdHost, idp: &Idp, revision: &str) {
    assert_eq!(report["protocol_version"], revision, "{report}");
    let fetched: Vec<&str> = report["fetched"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let metadata = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        host.http
    );
    assert!(
        fetched.iter().any(|f| f.ends_with(&metadata)),
        "no metadata read: {fetched:?}"
    );
    assert!(
        fetched
            .iter()
            .any(|f| f == &format!("POST {}/token", idp.issuer)),
        "no token asked for: {fetched:?}"
    );
    assert_eq!(report["token_scope"], "mcp", "{report}");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(tools.contains(&"scene.createEntity"), "{tools:?}");
    assert_eq!(report["made_error"], false, "{report}");
    assert!(report["made"]["entity"].is_string(), "{report}");
    let created: Vec<&Value> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["skill"] == "scene.createEntity")
        .collect();
    assert!(!created.is_empty(), "{report}");
    for event in created {
        assert_eq!(event["actorId"], "builder-bot", "{event}");
    }
}

#[test]
fn the_official_typescript_client_completes_the_authorization_flow_on_both_revisions() {
    let port = free_port();
    let idp = Idp::start(&format!("http://127.0.0.1:{port}/mcp"));
    let host = IdHost::start_with(&IdHost::config(&idp.issuer, port, ""), port);
    let url = host.resource();
    for (mode, revision) in [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")] {
        let report = client(
            "client_typescript.mjs",
            &[&url, &idp.issuer, BUILDER.0, BUILDER.1, mode],
        );
        assert_completed_the_flow(&report, &host, &idp, revision);
    }
}

#[test]
fn the_official_python_sdk_completes_the_authorization_flow_on_both_revisions() {
    let port = free_port();
    let idp = Idp::start(&format!("http://127.0.0.1:{port}/mcp"));
    let host = IdHost::start_with(&IdHost::config(&idp.issuer, port, ""), port);
    let url = host.resource();
    for (mode, revision) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let report = client(
            "client_python.py",
            &[&url, &idp.issuer, BUILDER.0, BUILDER.1, mode],
        );
        assert_completed_the_flow(&report, &host, &idp, revision);
    }
}
