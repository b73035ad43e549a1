//! `cargo bench -p limina --bench trace`: the trace at scale. Writes a synthetic history of a
//! million events (`limina::trace::synthetic`), lets the release host build its index, then
//! reports for each audit and trace query its p50/p95 latency over stdio against `ping`
//! measured in the same run, and start-up time and resident memory against an empty host.
//! `-- burst` runs instead the index under a pipelined burst and a restart (see
//! `trace_burst.rs`; `LIMINA_BENCH_BURST_CALLS` sets the burst's size, 150,000 by default).

mod spawn;
mod trace_burst;

use limina::trace::{Retention, synthetic};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

const EVENTS: u64 = 1_000_000;
const CALLS: usize = 300;
const STARTS: usize = 5;

/// The release binary serving stdio on the trace folder `traces`, with its request counter.
struct Host {
    spawned: spawn::Spawned,
    next: u64,
}

impl Host {
    fn start(traces: &Path) -> Host {
        let args = ["--mcp-stdio", "--manual-clock", "--log-level", "warn"];
        Host {
            spawned: spawn::limina_at(env!("CARGO_BIN_EXE_limina"), &args, Some(traces), None),
            next: 0,
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        self.spawned.exchange(
            &json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}),
        )
    }

    fn call(&mut self, name: &str, args: &Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": args}))["result"].clone()
    }

    fn rss_kib(&self) -> u64 {
        self.spawned.rss_kib()
    }
}

/// The newest event the index holds, read from its database as another process would.
fn indexed_seq(traces: &Path) -> i64 {
    rusqlite::Connection::open_with_flags(
        traces.join("index.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .and_then(|db| {
        db.query_row("SELECT value FROM meta WHERE key = 'last_seq'", [], |r| {
            r.get(0)
        })
    })
    .unwrap_or(0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

/// (p50, p95) in ms of `CALLS` calls made one at a time.
fn latency(host: &mut Host, name: &str, args: &Value) -> (f64, f64) {
    let mut times: Vec<f64> = (0..CALLS)
        .map(|_| {
            let t = Instant::now();
            let result = if name == "ping" {
                host.request("ping", json!({}))
            } else {
                let r = host.call(name, args);
                assert_eq!(r["isError"], json!(false), "{name}: {r}");
                r
            };
            std::hint::black_box(result);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (percentile(&times, 0.5), percentile(&times, 0.95))
}

fn initialize(host: &mut Host) {
    host.request(
        "initialize",
        json!({"profile": "builder.readWrite", "agentId": "bench"}),
    );
}

/// Median ms from spawn to the first `tools/list` reply.
fn start_up(traces: &Path) -> f64 {
    let mut times: Vec<f64> = (0..STARTS)
        .map(|_| {
            let t = Instant::now();
            let mut host = Host::start(traces);
            host.request("tools/list", json!({}));
            let ms = t.elapsed().as_secs_f64() * 1e3;
            drop(host);
            ms
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[STARTS / 2]
}

fn main() {
    if std::env::args().any(|a| a == "burst") {
        let calls = std::env::var("LIMINA_BENCH_BURST_CALLS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(150_000);
        trace_burst::run(calls);
        return;
    }
    let big = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let calls = synthetic::write_history(big.path(), EVENTS, Retention::default()).unwrap();
    let bytes: u64 = std::fs::read_dir(big.path().join("segments"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    println!(
        "history: {EVENTS} events ({calls} calls, {:.0} MiB of segments) written in {:.1} s",
        bytes as f64 / (1 << 20) as f64,
        t.elapsed().as_secs_f64()
    );

    // The first host builds the index from the segments, off the request path.
    let t = Instant::now();
    let mut host = Host::start(big.path());
    initialize(&mut host);
    let mut pings = Vec::new();
    let mut first_query = None;
    while indexed_seq(big.path()) < EVENTS as i64 {
        let p = Instant::now();
        host.request("ping", json!({}));
        pings.push(p.elapsed().as_secs_f64() * 1e3);
        if first_query.is_none() {
            // Asked while the index is being built: answered whole, from the segments.
            let q = Instant::now();
            let r = host.call("audit.query", &json!({"decision": "deny", "limit": 5}));
            assert_eq!(r["isError"], json!(false), "{r}");
            first_query = Some(q.elapsed().as_secs_f64() * 1e3);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    pings.sort_by(f64::total_cmp);
    println!(
        "index built from the segments in {:.1} s; pings meanwhile: p50 {:.2} ms, max {:.2} ms; \
         an audit.query asked at the start (answered from the segments): {:.0} ms",
        t.elapsed().as_secs_f64(),
        percentile(&pings, 0.5),
        pings.last().unwrap(),
        first_query.unwrap_or(0.0)
    );
    drop(host);

    let mid = EVENTS as i64 / 2;
    let mut host = Host::start(big.path());
    initialize(&mut host);
    let page = host.call(
        "trace.tail",
        &json!({"afterSeq": mid, "limit": 2, "type": "skill.executed"}),
    );
    let executed = page["structuredContent"]["events"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let cases = [
        ("ping", json!({})),
        ("audit.query", json!({"decision": "deny", "limit": 5})),
        (
            "audit.query",
            json!({"cap": "dice.roll", "sessionId": "sess_3", "limit": 200}),
        ),
        ("audit.explain", json!({"eventId": executed})),
        ("audit.usage", json!({})),
        ("trace.tail", json!({"limit": 3})),
        (
            "trace.tail",
            json!({"afterSeq": mid, "limit": 100, "type": "policy.denied"}),
        ),
        ("trace.explainEvent", json!({"eventId": executed})),
    ];
    println!("over stdio, {CALLS} calls each, one at a time, on the {EVENTS}-event history:");
    let mut base = None;
    for (name, args) in &cases {
        let (p50, p95) = latency(&mut host, name, args);
        let base_p50 = *base.get_or_insert(p50);
        println!(
            "  {name:<19} p50 {p50:>7.3} ms  p95 {p95:>7.3} ms  ({:>5.1}x ping)  {}",
            p50 / base_p50,
            if *name == "ping" {
                String::new()
            } else {
                args.to_string()
            }
        );
    }
    let big_rss = host.rss_kib();
    drop(host);

    let mut host = Host::start(empty.path());
    initialize(&mut host);
    for (name, args) in &cases[..2] {
        latency(&mut host, name, args);
    }
    let empty_rss = host.rss_kib();
    drop(host);
    println!(
        "resident memory after the queries: {} KiB with the history, {} KiB empty (+{} KiB)",
        big_rss,
        empty_rss,
        big_rss as i64 - empty_rss as i64
    );
    println!(
        "spawn to first tools/list, median of {STARTS}: {:.1} ms with the history, {:.1} ms empty",
        start_up(big.path()),
        start_up(empty.path())
    );
}
