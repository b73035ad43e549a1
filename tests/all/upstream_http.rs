//! Streamable HTTP upstreams: the Python SDK's server (`mcp` 2.3) served over Streamable HTTP
//! on loopback by the test, reached with a static bearer token or with OAuth client credentials
//! from a token endpoint the test also starts (tokens cached, refreshed before they expire).

use crate::support::{Client, repo};
use limina_guest_build::clients::PYTHON_SDK_MODERN;
use limina_guest_build::tools::venv_python;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The Python server over Streamable HTTP on a loopback port; killed when dropped.
struct HttpServer {
    child: Child,
    port: u16,
    marks: PathBuf,
}

impl HttpServer {
    /// Starts it; with `bearer_prefix`, it refuses requests whose token does not start so.
    fn start(dir: &Path, bearer_prefix: Option<&str>) -> HttpServer {
        let sdk = PYTHON_SDK_MODERN
            .ensure()
            .expect("installing the Python MCP SDK 2.3");
        HttpServer::start_with(&sdk, dir, bearer_prefix)
    }

    /// [`HttpServer::start`] with the SDK installed at `sdk`.
    fn start_with(sdk: &Path, dir: &Path, bearer_prefix: Option<&str>) -> HttpServer {
        let port = free_port();
        let marks = dir.join("marks");
        let mut command = Command::new(venv_python(sdk));
        command
            .arg(repo().join("tests/upstreams/python_server.py"))
            .args(["--http", &port.to_string()])
            .env("UPSTREAM_MARKS", &marks)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if let Some(prefix) = bearer_prefix {
            command.env("UPSTREAM_BEARER_PREFIX", prefix);
        }
        // Killed and waited for when dropped, even if it never listens.
        let server = HttpServer {
            child: command.spawn().expect("starting the Python server"),
            port,
            marks,
        };
        for _ in 0..600 {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the Python server did not listen on {port}");
    }

    fn marks(&self) -> Vec<String> {
        std::fs::read_to_string(&self.marks)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A local OAuth token endpoint: client credentials `limina` / `s3cret` buy `tok-N`, valid for
/// `lifetime_s` seconds; every request's form is kept.
struct TokenEndpoint {
    port: u16,
    forms: Arc<Mutex<Vec<String>>>,
}

impl TokenEndpoint {
    fn start(lifetime_s: f64) -> TokenEndpoint {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let forms = Arc::new(Mutex::new(Vec::new()));
        let kept = forms.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                // A request that cannot be read is dropped; the host's call then fails.
                let _ = answer_token_request(stream, &kept, lifetime_s);
            }
        });
        TokenEndpoint { port, forms }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/token", self.port)
    }

    fn forms(&self) -> Vec<String> {
        self.forms.lock().unwrap().clone()
    }
}

fn answer_token_request(
    stream: TcpStream,
    forms: &Mutex<Vec<String>>,
    lifetime_s: f64,
) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let form = String::from_utf8_lossy(&body).to_string();
    let ok = form.contains("client_id=limina") && form.contains("client_secret=s3cret");
    let answer = {
        let mut forms = forms.lock().unwrap();
        forms.push(form);
        if ok {
            (
                200,
                json!({"access_token": format!("tok-{}", forms.len()), "token_type": "Bearer", "expires_in": lifetime_s}),
            )
        } else {
            (401, json!({"error": "invalid_client"}))
        }
    };
    let text = answer.1.to_string();
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        answer.0,
        text.len()
    )
    .ok()?;
    Some(())
}

/// A host mounting `server` as `web` with `auth` (a TOML inline table, or empty).
fn host(dir: &Path, server: &HttpServer, auth: &str, extra: &str) -> Client {
    let path = dir.join("limina.toml");
    let auth = if auth.is_empty() {
        String::new()
    } else {
        format!("auth = {auth}\n")
    };
    std::fs::write(
        &path,
        format!(
            "[profiles.agent]\npermissions = [\"scene.read\", \"upstream.web\"]\n\n[[upstream]]\nname = \"web\"\ntransport = \"http\"\nurl = \"http://127.0.0.1:{}/mcp\"\n{auth}{extra}\n",
            server.port
        ),
    )
    .unwrap();
    Client::session("agent", &["--config", path.to_str().unwrap()])
}

fn tool_names(c: &mut Client) -> Vec<String> {
    c.request("tools/list", json!({}))["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn tokens(server: &HttpServer) -> Vec<String> {
    server
        .marks()
        .iter()
        .filter_map(|m| m.strip_prefix("token ").map(str::to_string))
        .collect()
}

#[test]
fn an_http_upstream_with_a_bearer_token_is_listed_called_and_traced() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), Some("static-"));
    let mut c = host(dir.path(), &server, "{ token = \"static-1\" }", "");
    let names = tool_names(&mut c);
    assert!(names.contains(&"web.echo".to_string()), "{names:?}");
    assert_eq!(
        c.call_ok("web.add", json!({"a": 20, "b": 22})),
        json!({"result": 42})
    );
    let executed = c.call_ok("trace.tail", json!({"type": "skill.executed", "limit": 20}));
    let add = executed["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["payload"]["skill"] == "web.add")
        .cloned()
        .expect("traced");
    assert_eq!(add["payload"]["upstream"], "web");
    assert!(tokens(&server).iter().all(|t| t == "static-1"));
    assert!(server.marks().contains(&"add 20 22".to_string()));
}

#[test]
fn a_refused_token_mounts_nothing_and_reaches_no_tool() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), Some("static-"));
    let mut c = host(dir.path(), &server, "{ token = \"wrong\" }", "");
    let names = tool_names(&mut c);
    assert!(!names.iter().any(|n| n.starts_with("web.")), "{names:?}");
    let reply = c.request(
        "tools/call",
        json!({"name": "web.echo", "arguments": {"text": "x"}}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        server.marks().iter().all(|m| m.starts_with("refused")),
        "{:?}",
        server.marks()
    );
}

#[test]
fn oauth_client_credentials_are_fetched_cached_and_refreshed_before_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), Some("tok-"));
    let endpoint = TokenEndpoint::start(1.0);
    std::fs::write(dir.path().join("secret"), "s3cret\n").unwrap();
    let auth = format!(
        "{{ oauth = {{ tokenUrl = \"{}\", clientId = \"limina\", secretFile = \"secret\", scopes = [\"tools\", \"read\"] }} }}",
        endpoint.url()
    );
    let mut c = host(dir.path(), &server, &auth, "");
    assert!(tool_names(&mut c).contains(&"web.echo".to_string()));
    // Two calls in quick succession share the kept token.
    c.call_ok("web.echo", json!({"text": "a"}));
    c.call_ok("web.echo", json!({"text": "b"}));
    let first = endpoint.forms().len();
    let form = &endpoint.forms()[0];
    assert!(
        form.contains("grant_type=client_credentials") && form.contains("scope=tools+read"),
        "{form}"
    );
    // Past its lifetime the next call fetches a new one before sending.
    std::thread::sleep(Duration::from_millis(1200));
    c.call_ok("web.echo", json!({"text": "c"}));
    assert_eq!(endpoint.forms().len(), first + 1);
    let seen = tokens(&server);
    assert_eq!(
        seen.last().unwrap(),
        &format!("tok-{}", first + 1),
        "{seen:?}"
    );
    assert!(server.marks().iter().all(|m| !m.starts_with("refused")));
}

#[test]
fn over_http_progress_is_relayed_cancellation_reaches_the_server_and_list_changed_passes() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), None);
    // Under `warn` the added tool is mounted at once (`hold` is `upstream_pins.rs`).
    let mut c = host(dir.path(), &server, "", "pinning = \"warn\"");
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": 700, "method": "tools/call", "params": {
            "name": "web.slow", "arguments": {"ms": 20000}, "_meta": {"progressToken": 5}
        }})
        .to_string(),
    );
    let progress = c
        .wait_notification("notifications/progress", Duration::from_secs(30))
        .expect("progress relayed");
    assert_eq!(progress["params"]["progressToken"], 5);
    c.notify("notifications/cancelled", json!({"requestId": 700}));
    let mut cancelled = false;
    for _ in 0..300 {
        if server.marks().iter().any(|m| m == "cancelled") {
            cancelled = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(cancelled, "marks: {:?}", server.marks());
    c.call_ok("web.grow", json!({}));
    assert!(
        c.wait_notification("notifications/tools/list_changed", Duration::from_secs(30))
            .is_some()
    );
    assert!(tool_names(&mut c).contains(&"web.grown".to_string()));
}

#[test]
fn a_2025_11_25_server_over_http_keeps_its_session_and_its_changes_are_heard() {
    // The 1.x SDK's server: no `server/discover`, sessions by `Mcp-Session-Id`, and its
    // notifications on the stream a GET opens.
    use limina_guest_build::clients::PYTHON_SDK;
    let sdk = PYTHON_SDK
        .ensure()
        .expect("installing the Python MCP SDK 1.x");
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start_with(&sdk, dir.path(), Some("static-"));
    let mut c = host(
        dir.path(),
        &server,
        "{ token = \"static-2\" }",
        "pinning = \"warn\"",
    );
    assert!(tool_names(&mut c).contains(&"web.add".to_string()));
    assert_eq!(
        c.call_ok("web.add", json!({"a": 1, "b": 2})),
        json!({"result": 3})
    );
    c.call_ok("web.grow", json!({}));
    assert!(
        c.wait_notification("notifications/tools/list_changed", Duration::from_secs(30))
            .is_some()
    );
    assert_eq!(
        c.call_ok("web.grown", json!({"text": "hi"})),
        json!({"result": "HI"})
    );
}
