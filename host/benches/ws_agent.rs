//! What the socket benches share: a release `limina --mcp-ws` started on a free port with a
//! trace folder of its own, and blocking WebSocket clients speaking MCP to it, each its own
//! session.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, Message, WebSocket, stream::MaybeTlsStream};

/// A running host.
pub struct Host {
    pub child: Child,
    pub url: String,
    _traces: tempfile::TempDir,
}

impl Host {
    /// `binary --mcp-ws --port 0 --manual-clock --trace-dir <fresh> <args>`, once it serves.
    pub fn start(binary: &Path, args: &[String]) -> Host {
        let traces = tempfile::tempdir().unwrap();
        let mut child = Command::new(binary)
            .args(["--mcp-ws", "--port", "0", "--manual-clock", "--trace-dir"])
            .arg(traces.path())
            .arg("--calibration")
            .arg(traces.path().join("calibration.json"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawning limina");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(at) = line.find("ws://") {
                    let _ = tx.send(line[at..].trim().to_string());
                } else if line.contains("error") || line.contains("warn") {
                    eprintln!("  host: {line}");
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the host logs its address");
        Host {
            child,
            url,
            _traces: traces,
        }
    }

    /// A client with a session of its own under `profile`, as `agent`.
    pub fn agent(&self, profile: &str, agent: &str) -> Agent {
        Agent::connect(&self.url, profile, Some(agent))
    }

    /// The host's resident memory, in MiB.
    pub fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One client connection.
pub struct Agent {
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
}

impl Agent {
    /// A client on `url` (a host this process may not have started) with a session of its
    /// own under `profile`, as `agent` when one is given.
    pub fn connect(url: &str, profile: &str, agent: Option<&str>) -> Agent {
        let (ws, _) = tungstenite::connect(url).expect("connecting");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_nodelay(true).expect("setting TCP_NODELAY");
        }
        let mut c = Agent { ws, next_id: 1 };
        let mut params = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}, "profile": profile});
        if let Some(agent) = agent {
            params["agentId"] = json!(agent);
        }
        let reply = c.request("initialize", params);
        assert!(reply.get("result").is_some(), "initialize failed: {reply}");
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    /// The connection's socket, for a reader of its own (nothing is left buffered once the
    /// last request's reply was read).
    #[allow(dead_code)] // the sync bench's watcher alone reads sockets itself
    pub fn into_socket(self) -> TcpStream {
        match self.ws.into_inner() {
            MaybeTlsStream::Plain(s) => s,
            _ => unreachable!("ws:// only"),
        }
    }

    fn send(&mut self, message: &Value) {
        self.ws
            .send(Message::Text(message.to_string().into()))
            .expect("sending");
    }

    /// Sends a request without waiting; its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next reply (notifications and the host's own requests skipped).
    pub fn next_reply(&mut self) -> Value {
        loop {
            match self.ws.read().expect("reading") {
                Message::Text(text) => {
                    let value: Value = serde_json::from_str(&text).unwrap();
                    if value.get("id").is_some() && value.get("method").is_none() {
                        return value;
                    }
                }
                Message::Close(frame) => panic!("the host closed the connection: {frame:?}"),
                _ => {}
            }
        }
    }

    /// A request and its reply (the only one in flight).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        let reply = self.next_reply();
        assert_eq!(reply["id"], json!(id), "{reply}");
        reply
    }

    /// A tool call; its result, and whether it succeeded.
    pub fn call(&mut self, name: &str, arguments: Value) -> (Value, bool) {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let ok = reply["result"]["isError"] == json!(false);
        (reply, ok)
    }

    /// A timed `ping`.
    pub fn ping(&mut self) -> Duration {
        let t = Instant::now();
        let reply = self.request("ping", json!({}));
        assert!(reply.get("result").is_some(), "{reply}");
        t.elapsed()
    }
}

/// Latencies, in milliseconds.
#[derive(Default, Clone)]
pub struct Times(pub Vec<f64>);

impl Times {
    pub fn push(&mut self, d: Duration) {
        self.0.push(d.as_secs_f64() * 1000.0);
    }

    pub fn quantile(&self, q: f64) -> f64 {
        let mut v = self.0.clone();
        if v.is_empty() {
            return f64::NAN;
        }
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * q).round() as usize]
    }

    pub fn max(&self) -> f64 {
        self.0.iter().copied().fold(f64::NAN, f64::max)
    }
}

/// Pings every `every` until `stop` says so; the times.
pub fn pinger(agent: &mut Agent, every: Duration, stop: &std::sync::atomic::AtomicBool) -> Times {
    let mut times = Times::default();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        times.push(agent.ping());
        std::thread::sleep(every);
    }
    times
}

/// The machine's load averages, as `/proc/loadavg` gives them.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
