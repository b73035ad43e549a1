//! `cargo bench -p limina --bench upstream`: what governance costs per call to an upstream MCP
//! server. The same Python SDK echo server (`tests/upstreams/python_server.py`, `mcp` 2.3) is
//! called two ways in one run, in alternating rounds: directly by this client over its stdio,
//! and through `limina --mcp-stdio` as the skill `py.echo` (validation, policy, the upstream
//! call off the engine, output check, trace). Prints the median per-call latency of each, the
//! calls per second, and the ratio.

mod spawn;

use limina_guest_build::clients::PYTHON_SDK_MODERN;
use limina_guest_build::tools::venv_python;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

const CALLS: usize = 300;
const ROUNDS: usize = 5;

/// The echo server, spoken to directly (2026-07-28, as the host speaks to it).
struct Direct {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Direct {
    fn start(python: &str, script: &str) -> Direct {
        let mut child = Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the Python server");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Direct {
            child,
            stdin,
            stdout,
        }
    }

    fn exchange(&mut self, message: &Value) -> Value {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for Direct {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `CALLS` sequential calls through `exchange`; the median per-call latency in microseconds.
fn run(mut exchange: impl FnMut(u64) -> Value) -> f64 {
    let mut each = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let started = Instant::now();
        let reply = exchange(i as u64 + 10);
        each.push(started.elapsed().as_secs_f64() * 1e6);
        assert!(
            reply.get("result").is_some() && reply["result"]["isError"] != json!(true),
            "{reply}"
        );
    }
    median(each)
}

fn main() {
    let sdk = PYTHON_SDK_MODERN
        .ensure()
        .expect("installing the Python SDK");
    let python = venv_python(&sdk).display().to_string();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let script = root.join("tests/upstreams/python_server.py");
    let script = script.to_str().unwrap();

    let mut direct = Direct::start(&python, script);
    direct.exchange(&json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}}));

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.agent]\npermissions = [\"scene.read\", \"upstream.py\"]\n\n[[upstream]]\nname = \"py\"\ntransport = \"stdio\"\ncommand = \"{python}\"\nargs = [\"{script}\"]\ntools = [\"echo\"]\n"
        ),
    )
    .unwrap();
    let mut host = spawn::limina(
        &[
            "--mcp-stdio",
            "--log-level",
            "warn",
            "--config",
            config.to_str().unwrap(),
        ],
        None,
    );
    host.exchange(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"},
        "profile": "agent", "agentId": "bench"}}));
    host.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());

    let (mut through, mut straight, mut pings) = (Vec::new(), Vec::new(), Vec::new());
    let direct_round = |direct: &mut Direct| {
        run(|id| {
            direct.exchange(
                &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "echo", "arguments": {"text": "hi"}, "_meta": meta()}}),
            )
        })
    };
    let host_round = |host: &mut spawn::Spawned| {
        run(|id| {
            host.exchange(
                &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "py.echo", "arguments": {"text": "hi"}}}),
            )
        })
    };
    for round in 0..ROUNDS {
        // The host's own round trip (transport and JSON-RPC, no skill), for scale.
        pings.push(run(|id| {
            host.exchange(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
        }));
        // Alternate which goes first.
        if round % 2 == 0 {
            straight.push(direct_round(&mut direct));
            through.push(host_round(&mut host));
        } else {
            through.push(host_round(&mut host));
            straight.push(direct_round(&mut direct));
        }
    }
    let (d, h, p) = (median(straight), median(through), median(pings));
    println!("upstream echo, {CALLS} sequential calls × {ROUNDS} rounds, medians of per-call p50:");
    println!(
        "  direct to the Python server : {d:>9.1} µs/call ({:>6.0} calls/s)",
        1e6 / d
    );
    println!(
        "  through limina (py.echo)    : {h:>9.1} µs/call ({:>6.0} calls/s)",
        1e6 / h
    );
    println!(
        "  ratio through / direct      : {:.2}×, governance adds {:.1} µs per call",
        h / d,
        h - d
    );
    println!("  the host's own ping         : {p:>9.1} µs (transport and JSON-RPC, for scale)");
}
