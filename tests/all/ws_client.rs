//! WebSocket test support: a `limina --mcp-ws` on a free port, and clients speaking MCP to it
//! over real sockets (tungstenite, blocking, with a read timeout so no test can hang).

use serde_json::{Value, json};
use std::net::TcpStream;
use std::process::Child;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, Message, WebSocket, stream::MaybeTlsStream};

/// How long any single wait may take before the test fails instead of hanging.
pub const WAIT: Duration = Duration::from_secs(30);

/// A running `limina --mcp-ws --port 0 --manual-clock …`.
pub struct WsHost {
    child: Child,
    /// `ws://127.0.0.1:<port>`.
    pub url: String,
    _traces: tempfile::TempDir,
    /// The host it joined (`through_a_joined_listener` tests).
    _server: Option<crate::support::Server>,
}

impl WsHost {
    /// Starts a host with extra arguments and waits for its address.
    pub fn start(args: &[&str]) -> WsHost {
        Self::start_with(&["--mcp-ws"], args).0
    }

    /// Starts with the given transport flags; also returns the child's stdin for stdio.
    pub fn start_with(
        transports: &[&str],
        args: &[&str],
    ) -> (
        WsHost,
        Option<std::process::ChildStdin>,
        Option<std::process::ChildStdout>,
    ) {
        let (mut child, url, traces, server) =
            crate::support::serving_host(transports, args, "ws://");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        (
            WsHost {
                child,
                url,
                _traces: traces,
                _server: server,
            },
            stdin,
            stdout,
        )
    }

    /// A connected client that has initialized a session under `profile`.
    pub fn client(&self, profile: &str, agent: &str) -> WsClient {
        let mut c = WsClient::connect(&self.url);
        let reply = c.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ws-test", "version": "0"}, "profile": profile, "agentId": agent}),
        );
        assert!(reply.get("result").is_some(), "initialize failed: {reply}");
        c.notify("notifications/initialized", json!({}));
        c
    }

    /// A connected client that has initialized naming no profile; the initialize reply.
    pub fn client_default(&self, agent: &str) -> (WsClient, Value) {
        let mut c = WsClient::connect(&self.url);
        let reply = c.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ws-test", "version": "0"}, "agentId": agent}),
        );
        assert!(reply.get("result").is_some(), "initialize failed: {reply}");
        (c, reply)
    }

    /// The host's resident memory, in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }
}

impl Drop for WsHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One WebSocket client.
pub struct WsClient {
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Notifications that arrived while waiting for replies, oldest first.
    pub notifications: Vec<Value>,
    /// Replies that arrived while waiting for another.
    replies: std::collections::HashMap<u64, Value>,
}

impl WsClient {
    pub fn connect(url: &str) -> WsClient {
        let (ws, _) = tungstenite::connect(url).expect("connecting");
        Self::wrap(ws)
    }

    pub fn wrap(ws: WebSocket<MaybeTlsStream<TcpStream>>) -> WsClient {
        if let MaybeTlsStream::Plain(stream) = ws.get_ref() {
            stream
                .set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
        }
        WsClient {
            ws,
            next_id: 1,
            notifications: Vec::new(),
            replies: Default::default(),
        }
    }

    pub fn send_text(&mut self, text: &str) {
        self.ws.send(Message::Text(text.into())).expect("sending");
    }

    pub fn send(&mut self, message: &Value) {
        self.send_text(&message.to_string());
    }

    /// The next message, or `None` after `wait`; panics if the connection closed.
    pub fn read_for(&mut self, wait: Duration) -> Option<Value> {
        let deadline = Instant::now() + wait;
        loop {
            match self.ws.read() {
                Ok(Message::Text(text)) => return Some(serde_json::from_str(&text).unwrap()),
                Ok(Message::Close(frame)) => panic!("the host closed the connection: {frame:?}"),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if Instant::now() >= deadline {
                        return None;
                    }
                }
                Err(e) => panic!("reading: {e}"),
            }
        }
    }

    /// Reads until the host closes; the close code and reason.
    pub fn read_close(&mut self) -> (u16, String) {
        let deadline = Instant::now() + WAIT;
        loop {
            match self.ws.read() {
                Ok(Message::Close(Some(frame))) => {
                    return (frame.code.into(), frame.reason.to_string());
                }
                Ok(Message::Close(None)) => return (1005, String::new()),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    assert!(Instant::now() < deadline, "no close frame within {WAIT:?}");
                }
                Err(e) => panic!("reading before a close frame: {e}"),
            }
        }
    }

    /// Sends a request with a fresh id; returns the id.
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for the reply to `id`, keeping notifications that arrive meanwhile.
    pub fn reply_to(&mut self, id: u64) -> Value {
        if let Some(reply) = self.replies.remove(&id) {
            return reply;
        }
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            let Some(message) = self.read_for(Duration::from_millis(200)) else {
                continue;
            };
            match message.get("id").and_then(Value::as_u64) {
                Some(got) if got == id => return message,
                Some(other) => {
                    self.replies.insert(other, message);
                }
                None => self.notifications.push(message),
            }
        }
        panic!("no reply to request {id} within {WAIT:?}");
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.reply_to(id)
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// `tools/call`; the result object.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        reply["result"].clone()
    }

    /// A successful call's structured result and the events it emitted.
    pub fn call_ok(&mut self, name: &str, arguments: Value) -> (Value, Value) {
        let result = self.call(name, arguments.clone());
        assert_eq!(
            result["isError"], false,
            "{name} {arguments} failed: {result}"
        );
        (
            result["structuredContent"].clone(),
            result["_meta"]["eventsEmitted"].clone(),
        )
    }

    /// The next notification named `method` (kept ones first), within `wait`.
    pub fn wait_notification(&mut self, method: &str, wait: Duration) -> Option<Value> {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)
        {
            return Some(self.notifications.remove(i));
        }
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if let Some(message) = self.read_for(Duration::from_millis(100)) {
                if message["method"] == method {
                    return Some(message);
                }
                self.notifications.push(message);
            }
        }
        None
    }

    /// `state/subscribe`: the snapshot and the reply.
    pub fn subscribe(&mut self, aoi: Option<Value>) -> (Value, Value) {
        let params = match aoi {
            Some(aoi) => json!({"aoi": aoi}),
            None => json!({}),
        };
        let id = self.send_request("state/subscribe", params);
        let snapshot = self.read_for(WAIT).expect("a snapshot");
        assert_eq!(
            snapshot["method"], "state/snapshot",
            "the snapshot comes first: {snapshot}"
        );
        let reply = self.reply_to(id);
        (snapshot["params"].clone(), reply["result"].clone())
    }

    /// The underlying socket (to stop reading, or to send raw frames).
    pub fn socket(&mut self) -> &mut WebSocket<MaybeTlsStream<TcpStream>> {
        &mut self.ws
    }
}

/// The ids in a delta's `changes`.
pub fn changed_ids(delta: &Value) -> Vec<String> {
    delta["params"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// The ids in a delta's `removed`.
pub fn removed_ids(delta: &Value) -> Vec<String> {
    delta["params"]["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}
