//! `cargo bench -p limina --bench stdio`: the host as an MCP client sees it over stdio. Spawns
//! the release binary and reports, per kind of call, sequential throughput with p50/p99
//! latency and pipelined throughput, each against `ping` (transport and JSON-RPC only) measured
//! in the same run; plus start-up to the first `tools/list` and resident memory. With
//! `LIMINA_BASELINE=/path/to/an/older/limina`, the same calls also run against that binary,
//! alternating, and each line gains the ratio to it. Then `[trace] fsync` (`never`,
//! `interval`, `always`): `scene.createEntity` sequential and pipelined under each, alternating
//! rounds, medians and ratios to `never` — and to the baseline binary (today's behaviour, run
//! with its defaults) when one is given.

mod spawn;

use serde_json::{Value, json};
use std::io::Write;
use std::time::{Duration, Instant};

const SEQUENTIAL: usize = 5_000;
const PIPELINED: usize = 20_000;
const STARTS: usize = 9;
/// Rounds per case when comparing with `LIMINA_BASELINE`.
const ROUNDS: usize = 5;

type Host = spawn::Spawned;

/// The release binary (or `binary`) serving stdio, with room for many entities.
fn start_at(binary: &str) -> Host {
    start_with(binary, &[])
}

/// [`start_at`] with more arguments.
fn start_with(binary: &str, more: &[&str]) -> Host {
    let mut args = vec![
        "--mcp-stdio",
        "--manual-clock",
        "--log-level",
        "warn",
        "--max-entities",
        "1000000",
    ];
    args.extend_from_slice(more);
    spawn::limina_at(binary, &args, None, None)
}

fn initialized_with(binary: &str, more: &[&str]) -> Host {
    let mut host = start_with(binary, more);
    host.send(&request(
        0,
        "initialize",
        &json!({"profile": "builder.readWrite", "agentId": "bench"}),
    ));
    host.recv();
    host
}

/// `scene.createEntity` under each `[trace] fsync` mode (and the baseline binary, if any):
/// sequential and pipelined rates, medians of alternating rounds.
fn fsync_modes(baseline: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let mut hosts: Vec<(String, Host)> = Vec::new();
    if let Some(binary) = baseline {
        hosts.push(("baseline (today)".into(), initialized(binary)));
    }
    for mode in ["never", "interval", "always"] {
        let config = dir.path().join(format!("{mode}.toml"));
        std::fs::write(&config, format!("[trace]\nfsync = \"{mode}\"\n")).unwrap();
        let config = config.to_str().unwrap().to_string();
        let host = initialized_with(env!("CARGO_BIN_EXE_limina"), &["--config", &config]);
        hosts.push((format!("fsync = {mode}"), host));
    }
    let params = json!({"name": "scene.createEntity", "arguments": {"position": [1, 2, 3]}});
    let mut seq: Vec<Vec<f64>> = vec![Vec::new(); hosts.len()];
    let mut piped: Vec<Vec<f64>> = vec![Vec::new(); hosts.len()];
    for round in 0..ROUNDS {
        for k in 0..hosts.len() {
            // Each round starts with another host, so no mode always goes first.
            let i = (k + round) % hosts.len();
            seq[i].push(sequential(&mut hosts[i].1, "tools/call", &params).0);
            piped[i].push(pipelined(&mut hosts[i].1, "tools/call", &params));
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let rates: Vec<(f64, f64)> = (0..hosts.len())
        .map(|i| (median(&mut seq[i]), median(&mut piped[i])))
        .collect();
    // Ratios to the baseline when there is one, else to `never`.
    let reference = rates[0];
    println!(
        "scene.createEntity by [trace] fsync, medians of {ROUNDS} alternating rounds ({SEQUENTIAL} sequential, {PIPELINED} pipelined), ratios to {}:",
        hosts[0].0
    );
    for ((label, _), (s, p)) in hosts.iter().zip(&rates) {
        println!(
            "  {label:<18} sequential {s:>7.0}/s ({:.2}x)   pipelined {p:>7.0}/s ({:.2}x)",
            s / reference.0,
            p / reference.1
        );
    }
}

fn request(id: usize, method: &str, params: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e6
}

/// (calls/s, p50 µs, p99 µs) for one call at a time.
fn sequential(host: &mut Host, method: &str, params: &Value) -> (f64, f64, f64) {
    let lines: Vec<String> = (0..SEQUENTIAL)
        .map(|i| request(i, method, params))
        .collect();
    let mut times = Vec::with_capacity(SEQUENTIAL);
    let start = Instant::now();
    for line in &lines {
        let t = Instant::now();
        host.send(line);
        let reply = host.recv();
        times.push(t.elapsed());
        debug_assert!(reply.get("result").is_some());
    }
    let total = start.elapsed().as_secs_f64();
    times.sort();
    (
        SEQUENTIAL as f64 / total,
        percentile(&times, 0.5),
        percentile(&times, 0.99),
    )
}

/// Calls/s with every request written before the replies are read (a writer thread keeps
/// the pipe full while this thread reads).
fn pipelined(host: &mut Host, method: &str, params: &Value) -> f64 {
    let payload: String = (0..PIPELINED)
        .map(|i| request(i, method, params) + "\n")
        .collect();
    let mut stdin = host.stdin.take().unwrap();
    let start = Instant::now();
    let writer = std::thread::spawn(move || {
        stdin.write_all(payload.as_bytes()).unwrap();
        stdin.flush().unwrap();
        stdin
    });
    for _ in 0..PIPELINED {
        host.recv();
    }
    let rate = PIPELINED as f64 / start.elapsed().as_secs_f64();
    host.stdin = Some(writer.join().unwrap());
    rate
}

fn initialized(binary: &str) -> Host {
    let mut host = start_at(binary);
    host.send(&request(
        0,
        "initialize",
        &json!({"profile": "builder.readWrite", "agentId": "bench"}),
    ));
    host.recv();
    host
}

fn main() {
    let baseline_bin = std::env::var("LIMINA_BASELINE").ok();
    if std::env::var_os("LIMINA_BENCH_FSYNC_ONLY").is_some() {
        fsync_modes(baseline_bin.as_deref());
        return;
    }
    let mut host = initialized(env!("CARGO_BIN_EXE_limina"));
    let mut old = baseline_bin.as_deref().map(initialized);
    let cases = [
        ("ping", "ping", json!({})),
        (
            "scene.queryEntities",
            "tools/call",
            json!({"name": "scene.queryEntities", "arguments": {"near": [0, 0, 0], "radius": 1}}),
        ),
        (
            "scene.createEntity",
            "tools/call",
            json!({"name": "scene.createEntity", "arguments": {"position": [1, 2, 3]}}),
        ),
    ];
    let mut baseline = None;
    println!(
        "over stdio, {SEQUENTIAL} sequential calls (one in flight) and {PIPELINED} pipelined, per kind"
    );
    for (label, method, params) in &cases {
        let (rate, p50, p99) = sequential(&mut host, method, params);
        let piped = pipelined(&mut host, method, params);
        let (base_p50, base_piped) = *baseline.get_or_insert((p50, piped));
        println!(
            "  {label:<20} {rate:>7.0}/s  p50 {p50:>6.1} µs  p99 {p99:>7.1} µs  ({:.2}x ping)   pipelined {piped:>7.0}/s ({:.2}x ping)",
            p50 / base_p50,
            base_piped / piped
        );
        if let Some(old) = &mut old {
            // Rounds alternate which build goes first, on the same machine state; the median
            // of the per-round ratios is what compares.
            let (mut p50_ratios, mut piped_ratios) = (Vec::new(), Vec::new());
            for round in 0..ROUNDS {
                let measure = |h: &mut Host| {
                    let (_, p50, _) = sequential(h, method, params);
                    (p50, pipelined(h, method, params))
                };
                let (new, base) = if round % 2 == 0 {
                    let new = measure(&mut host);
                    (new, measure(old))
                } else {
                    let base = measure(old);
                    (measure(&mut host), base)
                };
                p50_ratios.push(new.0 / base.0);
                piped_ratios.push(new.1 / base.1);
            }
            p50_ratios.sort_by(f64::total_cmp);
            piped_ratios.sort_by(f64::total_cmp);
            println!(
                "  {:<20} against the baseline, median of {ROUNDS} alternating rounds: p50 {:.2}x, pipelined rate {:.2}x",
                "",
                p50_ratios[ROUNDS / 2],
                piped_ratios[ROUNDS / 2]
            );
        }
    }
    drop(old);
    println!("resident memory after the run: {} KiB", host.rss_kib());
    drop(host);
    fsync_modes(baseline_bin.as_deref());

    let mut starts: Vec<f64> = (0..STARTS)
        .map(|_| {
            let t = Instant::now();
            let mut h = start_at(env!("CARGO_BIN_EXE_limina"));
            h.send(&request(0, "tools/list", &json!({})));
            h.recv();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    starts.sort_by(f64::total_cmp);
    println!(
        "spawn to first tools/list (warm compile cache): median {:.1} ms of {STARTS}",
        starts[STARTS / 2]
    );
}
