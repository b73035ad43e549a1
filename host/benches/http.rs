//! `cargo bench -p limina --bench http`: MCP over Streamable HTTP as a remote client sees it.
//! One host serves stdio and HTTP on the same world; the same calls are timed over stdio (the
//! baseline, same run) and over HTTP/1.1 with keep-alive, from one client and from 16
//! concurrent clients (each its own session and connection). Prints calls/s with p50/p99.

mod spawn;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const CALLS: usize = 3_000;
const CLIENTS: usize = 16;

/// The release binary serving stdio and HTTP; returns it and the HTTP address (without `/mcp`).
fn start() -> (spawn::Spawned, String) {
    let args = [
        "--mcp-stdio",
        "--mcp-http",
        "--http-port",
        "0",
        "--manual-clock",
        "--log-level",
        "info",
        "--max-entities",
        "1000000",
        "--profile",
        "builder.readWrite",
    ];
    let host = spawn::limina(&args, Some("http://"));
    let addr = host
        .address
        .as_deref()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_string();
    (host, addr)
}

/// A keep-alive HTTP/1.1 client with its session.
struct HttpClient {
    stream: BufReader<TcpStream>,
    addr: String,
    session: Option<String>,
}

impl HttpClient {
    fn connect(addr: &str) -> HttpClient {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        let mut c = HttpClient {
            stream: BufReader::new(stream),
            addr: addr.to_string(),
            session: None,
        };
        c.post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "profile": "builder.readWrite"}}));
        c
    }

    fn post(&mut self, message: &Value) -> Value {
        let body = message.to_string();
        let session = self
            .session
            .as_ref()
            .map(|s| format!("mcp-session-id: {s}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{session}content-length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        self.stream.get_mut().write_all(request.as_bytes()).unwrap();
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if let Some(v) = lower.strip_prefix("mcp-session-id:") {
                self.session = Some(v.trim().to_string());
            }
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }
}

fn stats(mut times: Vec<Duration>, total: Duration) -> (f64, f64, f64) {
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
    (times.len() as f64 / total.as_secs_f64(), p(0.5), p(0.99))
}

fn timed(calls: usize, mut call: impl FnMut(usize)) -> (Vec<Duration>, Duration) {
    let mut times = Vec::with_capacity(calls);
    let start = Instant::now();
    for i in 0..calls {
        let t = Instant::now();
        call(i);
        times.push(t.elapsed());
    }
    (times, start.elapsed())
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (mut host, addr) = start();
    host.exchange(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"profile": "builder.readWrite"}}));
    let cases = [
        ("ping", json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
        (
            "scene.createEntity",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "scene.createEntity", "arguments": {"position": [1, 2, 3]}}}),
        ),
    ];
    println!("{CALLS} sequential calls per row; µs; ratios against stdio in the same run");
    for (label, message) in &cases {
        let (t, total) = timed(CALLS, |_| {
            host.exchange(message);
        });
        let (s_rate, s50, s99) = stats(t, total);
        let mut client = HttpClient::connect(&addr);
        let (t, total) = timed(CALLS, |_| {
            client.post(message);
        });
        let (h_rate, h50, h99) = stats(t, total);
        let per_client = CALLS / CLIENTS;
        let start = Instant::now();
        let workers: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let (addr, message) = (addr.clone(), message.clone());
                std::thread::spawn(move || {
                    let mut c = HttpClient::connect(&addr);
                    timed(per_client, |_| {
                        c.post(&message);
                    })
                    .0
                })
            })
            .collect();
        let all: Vec<Duration> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        let (c_rate, c50, c99) = stats(all, start.elapsed());
        println!("  {label}");
        println!("    stdio              {s_rate:>8.0}/s  p50 {s50:>7.1}  p99 {s99:>8.1}");
        println!(
            "    http, 1 client     {h_rate:>8.0}/s  p50 {h50:>7.1}  p99 {h99:>8.1}  ({:.2}x stdio p50)",
            h50 / s50
        );
        println!(
            "    http, {CLIENTS} clients   {c_rate:>8.0}/s  p50 {c50:>7.1}  p99 {c99:>8.1}  ({:.2}x stdio calls/s)",
            c_rate / s_rate
        );
    }
}
