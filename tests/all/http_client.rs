//! HTTP test support: a `limina --mcp-http` on a free port, and a small HTTP/1.1 client over
//! a real socket (requests written by hand, as a hostile client would; the host parses them
//! with hyper).

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Child;
use std::time::Duration;

/// A running `limina --mcp-http --port 0 --manual-clock …`.
pub struct HttpHost {
    /// The host process, when this value started it.
    child: Option<Child>,
    /// `127.0.0.1:<port>`.
    pub addr: String,
    _traces: Option<tempfile::TempDir>,
    /// The host it joined (`through_a_joined_listener` tests).
    _server: Option<crate::support::Server>,
}

impl HttpHost {
    pub fn start(args: &[&str]) -> HttpHost {
        let (child, url, traces, server) =
            crate::support::serving_host(&["--mcp-http"], args, "http://");
        let addr = url["http://".len()..].trim_end_matches("/mcp").to_string();
        HttpHost {
            child: Some(child),
            addr,
            _traces: Some(traces),
            _server: server,
        }
    }

    /// A client of a host started elsewhere, at `addr` (`127.0.0.1:<port>`).
    pub fn attach(addr: String) -> HttpHost {
        HttpHost {
            child: None,
            addr,
            _traces: None,
            _server: None,
        }
    }

    /// The host's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("a host this value started").id()
    }

    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Sends one request; the status, headers (lower-case names) and body.
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        send(&self.addr, method, path, headers, body)
    }

    /// POSTs a JSON-RPC message as a well-behaved client would, with `session` if given.
    pub fn post(&self, session: Option<&str>, message: &Value) -> Reply {
        let mut headers = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        if let Some(s) = session {
            headers.push(("mcp-session-id", s));
        }
        self.send("POST", "/mcp", &headers, &message.to_string())
    }

    /// Initializes a session under `profile`; its id.
    pub fn session(&self, profile: &str) -> String {
        let reply = self.post(
            None,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}, "profile": profile}}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply
            .header("mcp-session-id")
            .expect("a session id")
            .to_string()
    }
}

impl Drop for HttpHost {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Sends one request to `addr` (`host:port`) on a fresh connection; the status, headers
/// (lower-case names) and body.
pub fn send(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("host: {}\r\n", addr));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    // A host refusing the request (413 on an oversized body) may answer and close before
    // reading it all; the write then breaks, and its answer is what the test reads.
    let _ = stream.write_all(request.as_bytes());
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    Reply::parse(&String::from_utf8_lossy(&raw))
}

/// One HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    fn parse(raw: &str) -> Reply {
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = if chunked {
            dechunk(body)
        } else {
            body.to_string()
        };
        Reply {
            status,
            headers,
            body,
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// The `data:` payloads of an SSE body, parsed.
pub fn sse_messages(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}
