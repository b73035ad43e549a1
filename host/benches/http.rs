//! `cargo bench -p limina --bench http`: many clients at once over WebSocket and over
//! Streamable HTTP, against one client over stdio, in the same run.
//!
//! Each round starts a fresh release host serving stdio, WebSocket and HTTP on one world, and
//! measures every row — stdio with 1 client; WebSocket and HTTP with 1, 16 and 64 — in an
//! order that turns each round, for two calls: a world call (`scene.queryEntities`, run on the
//! engine) and an off-engine call (`dice.roll`, a guest with no world capability, run on the
//! workers). Each client is its own connection and session and sends one call at a time; a row
//! is the aggregate calls/s of all its clients from the moment they start together until the
//! last is done, with the p50/p99 of every call. The table holds medians over rounds and each
//! row's ratio to stdio, round by round, since ratios are what compare across machines.
//!
//! Flags (after `--`): `--rounds N` (3), `--calls N` per row (6,000), `--only ws:64` to run a
//! single row (with `--call world|off`), e.g. under `perf record`, printing where the CPU went
//! thread by thread; with `LIMINA_BASELINE=/path/to/an/older/limina` that row also runs
//! against the older binary, alternating, with the ratio.

mod spawn;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, Message, WebSocket, stream::MaybeTlsStream};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Transport {
    Stdio,
    Ws,
    Http,
}

/// A line of the table: a transport and how many clients use it at once.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Row {
    transport: Transport,
    clients: usize,
}

const ROWS: [Row; 7] = [
    row(Transport::Stdio, 1),
    row(Transport::Ws, 1),
    row(Transport::Ws, 16),
    row(Transport::Ws, 64),
    row(Transport::Http, 1),
    row(Transport::Http, 16),
    row(Transport::Http, 64),
];

const fn row(transport: Transport, clients: usize) -> Row {
    Row { transport, clients }
}

impl Row {
    fn label(&self) -> String {
        let t = match self.transport {
            Transport::Stdio => "stdio",
            Transport::Ws => "WebSocket",
            Transport::Http => "HTTP",
        };
        format!(
            "{t}, {} client{}",
            self.clients,
            if self.clients == 1 { "" } else { "s" }
        )
    }

    fn parse(text: &str) -> Row {
        let (t, n) = text
            .split_once(':')
            .expect("--only TRANSPORT:CLIENTS, e.g. ws:64");
        let transport = match t {
            "stdio" => Transport::Stdio,
            "ws" => Transport::Ws,
            "http" => Transport::Http,
            other => panic!("unknown transport `{other}`: stdio, ws or http"),
        };
        row(transport, n.parse().expect("a number of clients"))
    }
}

/// The calls measured: a label and the `tools/call` params.
fn calls() -> [(&'static str, Value); 2] {
    [
        (
            "world: scene.queryEntities",
            json!({"name": "scene.queryEntities", "arguments": {"near": [0, 0, 0], "radius": 1}}),
        ),
        (
            "off-engine: dice.roll",
            json!({"name": "dice.roll", "arguments": {"expression": "2d6+3"}}),
        ),
    ]
}

struct Options {
    rounds: usize,
    calls: usize,
    only: Option<Row>,
    call: Option<String>,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    Options {
        rounds: value("--rounds").map_or(3, |v| v.parse().expect("--rounds N")),
        calls: value("--calls").map_or(6_000, |v| v.parse().expect("--calls N")),
        only: value("--only").map(|v| Row::parse(&v)),
        call: value("--call"),
    }
}

/// A packages folder holding only the example `dice` package (built by `build-guests`).
fn dice_only() -> tempfile::TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../packages/dice");
    let component = source.join("dice.wasm");
    assert!(
        component.is_file(),
        "{} is missing: build the guests first with `cargo xtask build-guests`",
        component.display()
    );
    let packages = tempfile::tempdir().unwrap();
    let dest = packages.path().join("dice");
    std::fs::create_dir_all(&dest).unwrap();
    std::fs::copy(source.join("limina.toml"), dest.join("limina.toml")).unwrap();
    std::fs::copy(component, dest.join("dice.wasm")).unwrap();
    packages
}

/// A fresh release host serving stdio, WebSocket and HTTP; its WebSocket URL and HTTP address.
struct Host {
    process: spawn::Spawned,
    ws: String,
    http: String,
}

fn start(binary: &str, packages: &Path) -> Host {
    let packages = packages.to_str().unwrap();
    let args = [
        "--mcp-stdio",
        "--mcp-ws",
        "--port",
        "0",
        "--mcp-http",
        "--http-port",
        "0",
        "--manual-clock",
        "--log-level",
        "info",
        "--profile",
        "builder.readWrite",
        "--packages",
        packages,
    ];
    let (mut process, found) = spawn::limina_serving(binary, &args, &["ws://", "http://"]);
    process.exchange(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"profile": "builder.readWrite"}}));
    Host {
        process,
        ws: format!("ws://{}", found[0]),
        http: found[1].trim_end_matches("/mcp").to_string(),
    }
}

/// A reply that is a successful tool result, or a panic saying what came instead.
fn check(reply: &Value) {
    assert!(
        reply.get("result").is_some() && reply["result"]["isError"] != json!(true),
        "the call failed: {reply}"
    );
}

/// One MCP client of a socket transport, one call at a time.
trait Client: Send {
    fn call(&mut self, message: &str) -> Value;
    /// Ends its session (HTTP sessions outlive their connection otherwise).
    fn end(&mut self) {}
}

type Ws = WebSocket<MaybeTlsStream<TcpStream>>;

struct WsClient(Ws);

impl WsClient {
    fn connect(url: &str) -> WsClient {
        let (ws, _) = tungstenite::connect(url).unwrap();
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_nodelay(true).unwrap();
        }
        let mut c = WsClient(ws);
        let reply = c.call(&initialize());
        assert!(reply.get("result").is_some(), "initialize: {reply}");
        c
    }
}

impl Client for WsClient {
    fn call(&mut self, message: &str) -> Value {
        self.0.send(Message::Text(message.into())).unwrap();
        loop {
            if let Message::Text(t) = self.0.read().unwrap() {
                let reply: Value = serde_json::from_str(&t).unwrap();
                // Replies only: a notification (none is expected here) is skipped.
                if reply.get("id").is_some() {
                    return reply;
                }
            }
        }
    }

    fn end(&mut self) {
        let _ = self.0.close(None);
        let _ = self.0.flush();
    }
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
        let reply = c.call(&initialize());
        assert!(reply.get("result").is_some(), "initialize: {reply}");
        c
    }

    fn request(&mut self, method: &str, body: &str) -> (u16, Vec<u8>) {
        let session = self
            .session
            .as_ref()
            .map(|s| format!("mcp-session-id: {s}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "{method} /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{session}content-length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        self.stream.get_mut().write_all(request.as_bytes()).unwrap();
        let mut status = 0;
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(code) = lower.strip_prefix("http/1.1 ") {
                status = code[..3].parse().unwrap();
            }
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if let Some(v) = lower.strip_prefix("mcp-session-id:") {
                self.session = Some(v.trim().to_string());
            }
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).unwrap();
        (status, body)
    }
}

impl Client for HttpClient {
    fn call(&mut self, message: &str) -> Value {
        let (status, body) = self.request("POST", message);
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    }

    fn end(&mut self) {
        let (status, _) = self.request("DELETE", "");
        assert_eq!(status, 204, "DELETE /mcp ends the session");
    }
}

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "profile": "builder.readWrite"}}).to_string()
}

/// What one row measured.
#[derive(Clone, Copy)]
struct Measured {
    rate: f64,
    p50: f64,
    p99: f64,
}

fn measured(mut times: Vec<Duration>, total: Duration) -> Measured {
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
    Measured {
        rate: times.len() as f64 / total.as_secs_f64(),
        p50: p(0.5),
        p99: p(0.99),
    }
}

/// `calls` calls over `row` (shared evenly among its clients), each checked.
/// With `watch`, prints where the CPU went during the timed calls (see [`cpu_report`]).
fn run_row(host: &mut Host, row: Row, message: &str, calls: usize, watch: bool) -> Measured {
    let pid = host.process.child.id();
    // The host's threads only: the bench's own client threads are not the subject.
    let sample = || threads(pid);
    if row.transport == Transport::Stdio {
        let message: Value = serde_json::from_str(message).unwrap();
        // Warm-up, then the timed calls.
        for _ in 0..50 {
            check(&host.process.exchange(&message));
        }
        let mut times = Vec::with_capacity(calls);
        let before = watch.then(sample);
        let start = Instant::now();
        for _ in 0..calls {
            let t = Instant::now();
            let reply = host.process.exchange(&message);
            times.push(t.elapsed());
            check(&reply);
        }
        let wall = start.elapsed();
        if let Some(before) = before {
            cpu_report(&before, &sample(), wall, calls);
        }
        return measured(times, wall);
    }
    let each = (calls / row.clients).max(1);
    let clients: Vec<Box<dyn Client>> = (0..row.clients)
        .map(|_| -> Box<dyn Client> {
            match row.transport {
                Transport::Ws => Box::new(WsClient::connect(&host.ws)),
                Transport::Http => Box::new(HttpClient::connect(&host.http)),
                Transport::Stdio => unreachable!(),
            }
        })
        .collect();
    let go = Arc::new(Barrier::new(row.clients + 1));
    // Clients wait here when done, so their threads can still be read.
    let finished = Arc::new(Barrier::new(row.clients + 1));
    let threads: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, mut client)| {
            let (go, finished, message) = (go.clone(), finished.clone(), message.to_string());
            std::thread::Builder::new()
                .name(format!("client-{i}"))
                .spawn(move || {
                    for _ in 0..5 {
                        check(&client.call(&message));
                    }
                    go.wait();
                    let mut times = Vec::with_capacity(each);
                    for _ in 0..each {
                        let t = Instant::now();
                        let reply = client.call(&message);
                        times.push(t.elapsed());
                        check(&reply);
                    }
                    let ended = Instant::now();
                    finished.wait();
                    (times, ended, client)
                })
                .unwrap()
        })
        .collect();
    let before = watch.then(sample);
    go.wait();
    let start = Instant::now();
    finished.wait();
    let after = watch.then(sample);
    let mut times = Vec::with_capacity(each * row.clients);
    let mut last = start;
    let mut done = Vec::new();
    for t in threads {
        let (mut t, ended, client) = t.join().unwrap();
        times.append(&mut t);
        last = last.max(ended);
        done.push(client);
    }
    if let (Some(before), Some(after)) = (before, after) {
        cpu_report(&before, &after, last - start, times.len());
    }
    for mut client in done {
        client.end();
    }
    measured(times, last - start)
}

/// Each thread of process `pid`, by name: its CPU time and the time it was runnable but
/// waited for a core (`schedstat`, in ns), and how often it slept on something (a futex, a
/// read, `poll`: voluntary context switches).
fn threads(pid: u32) -> Vec<Sample> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| {
            let dir = t.ok()?.path();
            let name = std::fs::read_to_string(dir.join("comm")).ok()?;
            let sched = std::fs::read_to_string(dir.join("schedstat")).ok()?;
            let mut fields = sched.split_whitespace().map(|f| f.parse::<f64>());
            let cpu = fields.next()?.ok()? / 1e3;
            let queued = fields.next()?.ok()? / 1e3;
            let status = std::fs::read_to_string(dir.join("status")).ok()?;
            let waits = status
                .lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))?
                .trim()
                .parse()
                .ok()?;
            Some(Sample {
                name: name.trim().to_string(),
                cpu,
                queued,
                waits,
            })
        })
        .collect()
}

/// One thread's counters at a moment.
#[derive(Clone)]
struct Sample {
    name: String,
    /// µs on a core.
    cpu: f64,
    /// µs runnable, waiting for a core.
    queued: f64,
    waits: u64,
}

/// Where the CPU went during a row: each thread group's share of the wall time on a core and
/// waiting for one, its CPU per call, and how often per call it slept on something.
fn cpu_report(before: &[Sample], after: &[Sample], wall: Duration, calls: usize) {
    let group = |name: &str| -> String {
        if name.starts_with("limina-worker") {
            "limina-worker-*".into()
        } else if name == "limina" {
            "limina (engine)".into()
        } else {
            name.to_string()
        }
    };
    let mut groups: Vec<Sample> = Vec::new();
    for a in after {
        let b = before.iter().find(|b| b.name == a.name);
        let delta = Sample {
            name: group(&a.name),
            cpu: a.cpu - b.map_or(0.0, |b| b.cpu),
            queued: a.queued - b.map_or(0.0, |b| b.queued),
            waits: a.waits - b.map_or(0, |b| b.waits),
        };
        match groups.iter_mut().find(|g| g.name == delta.name) {
            Some(g) => {
                g.cpu += delta.cpu;
                g.queued += delta.queued;
                g.waits += delta.waits;
            }
            None => groups.push(delta),
        }
    }
    groups.retain(|g| g.cpu > 0.0);
    groups.sort_by(|a, b| b.cpu.total_cmp(&a.cpu));
    let wall_us = wall.as_secs_f64() * 1e6;
    let per_call = |x: f64| x / calls as f64;
    for g in &groups {
        println!(
            "    {:<18} on a core {:>5.1}%  waiting for one {:>5.1}%  {:>6.1} µs CPU/call  sleeps {:>5.2}/call",
            g.name,
            g.cpu / wall_us * 100.0,
            g.queued / wall_us * 100.0,
            per_call(g.cpu),
            per_call(g.waits as f64)
        );
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let options = options();
    let packages = dice_only();
    let calls: Vec<(&str, Value)> = calls()
        .into_iter()
        .filter(|(label, _)| match options.call.as_deref() {
            None => true,
            Some(kind) => label.starts_with(kind),
        })
        .collect();
    if let Some(only) = options.only {
        // One row, e.g. under `perf record`: where the CPU went; with `LIMINA_BASELINE`, the
        // same row against that binary too, alternating rounds, and the ratio.
        let baseline = std::env::var("LIMINA_BASELINE").ok();
        for (label, params) in &calls {
            let message =
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
                    .to_string();
            let mut ratios = Vec::new();
            for round in 0..options.rounds {
                let mut binaries = vec![("this build", env!("CARGO_BIN_EXE_limina"))];
                if let Some(b) = &baseline {
                    binaries.push(("baseline", b.as_str()));
                }
                if round % 2 == 1 {
                    binaries.reverse();
                }
                let mut rates = Vec::new();
                for (name, binary) in binaries {
                    let mut host = start(binary, packages.path());
                    println!("  {label}, {} ({name}, round {}):", only.label(), round + 1);
                    let m = run_row(&mut host, only, &message, options.calls, true);
                    println!(
                        "    {:.0} calls/s  p50 {:.0} µs  p99 {:.0} µs",
                        m.rate, m.p50, m.p99
                    );
                    rates.push((name, m.rate));
                }
                if let [(a, x), (_, y)] = rates[..] {
                    ratios.push(if a == "this build" { x / y } else { y / x });
                }
            }
            if !ratios.is_empty() {
                println!(
                    "  {label}: this build / baseline calls/s, median of {} rounds: {:.2}x  ({})",
                    ratios.len(),
                    median(ratios.clone()),
                    two_places(&ratios)
                );
            }
        }
        return;
    }
    let rounds = options.rounds;
    println!(
        "{} calls a row, medians of {rounds} rounds (a fresh host each, rows in turning order); \
         each client sends one call at a time; ratios to stdio in the same round",
        options.calls
    );
    // results[call][row][round]
    let mut results: Vec<Vec<Vec<Measured>>> = vec![vec![Vec::new(); ROWS.len()]; calls.len()];
    for round in 0..rounds {
        let mut host = start(env!("CARGO_BIN_EXE_limina"), packages.path());
        for (c, (_, params)) in calls.iter().enumerate() {
            let message =
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
                    .to_string();
            for k in 0..ROWS.len() {
                let r = (k + round) % ROWS.len();
                let m = run_row(&mut host, ROWS[r], &message, options.calls, false);
                results[c][r].push(m);
            }
        }
    }
    for (c, (label, _)) in calls.iter().enumerate() {
        println!("  {label}");
        println!(
            "    {:<22} {:>10} {:>9} {:>9} {:>10}   per round",
            "", "calls/s", "p50 µs", "p99 µs", "vs stdio"
        );
        let stdio = &results[c][0];
        for (r, row) in ROWS.iter().enumerate() {
            let rounds = &results[c][r];
            let ratios: Vec<f64> = rounds
                .iter()
                .zip(stdio)
                .map(|(m, s)| m.rate / s.rate)
                .collect();
            println!(
                "    {:<22} {:>10.0} {:>9.0} {:>9.0} {:>9.2}x   {}",
                row.label(),
                median(rounds.iter().map(|m| m.rate).collect()),
                median(rounds.iter().map(|m| m.p50).collect()),
                median(rounds.iter().map(|m| m.p99).collect()),
                median(ratios.clone()),
                two_places(&ratios)
            );
        }
    }
}

/// Per-round ratios as `0.95 1.02 …`.
fn two_places(values: &[f64]) -> String {
    values
        .iter()
        .map(|x| format!("{x:.2}"))
        .collect::<Vec<_>>()
        .join(" ")
}
