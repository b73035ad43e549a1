//! `cargo bench -p limina --bench sync` (or `cargo xtask bench -- --bench sync`): the shared
//! world as its clients see it.
//!
//! - **Sync latency, measured by outside clients**: the release host serving WebSocket, one
//!   Python builder process moving an entity (`sync_clients.py build`: the `websockets`
//!   library's protocol over plain sockets, from the pinned MCP SDK environment the project's
//!   tool cache installs), and the subscribers held by two Rust watcher processes (this bench
//!   re-run as `--watch`, `sync_watch.rs`: epoll and one `recv` per wake-up, 8 µs of CPU per
//!   delta read) or, with `--python-watchers`, five Python ones (`sync_clients.py watch`,
//!   21-28 µs per delta read: at 500 subscribers they took more CPU than the host on two
//!   cores). For each move, each subscriber's delta arrival minus the moment the builder had
//!   its reply (one system-wide monotonic clock, read as the bytes arrive). Rows: 1
//!   subscriber (the baseline), 10 and 50 (`--subscribers`), a fresh host each, in an order
//!   that turns each round; medians of the rounds' percentiles. Baseline in the same run: the
//!   builder's `ping` round trip. With `LIMINA_BASELINE=/path/to/an/older/limina`, each row
//!   runs on that binary too. The CPU columns: the engine thread, and the WebSocket listener
//!   with its writer threads (`limina-ws*`), per move.
//!
//!   2026-11-28, 2 cores, load 1.7-1.9, `-- --latency-only --subscribers 500 --period-ms 50
//!   --moves 200 --rounds 1`, Rust watchers, against the build before the fan-out threads
//!   (`LIMINA_BASELINE`): 500 subscribers reply→delta p50/p95/p99 1,815/4,482/5,611 µs
//!   (before: 2,956/6,546/7,625); WebSocket CPU per move 5,317 µs (before 6,269), 10.6 µs a
//!   delta, of which `perf` puts over 90 % in the kernel's loopback TCP send (`writev` →
//!   `tcp_v4_rcv` → waking the reader, conntrack): the fan-out's own code is under 10 %.
//!   Writer threads, 1 vs 2 in one run: p50 2,153 vs 1,155, p95 5,513 vs 5,485 µs. The
//!   goal of p95 ≤ 2 ms is out of reach here: a move's delta to 500 sockets costs about 5.3 ms
//!   of kernel CPU in the host, 1 ms in the engine and 4 ms in the watchers (8 µs × 500), over
//!   two cores.
//! - **World tick** in process, the engine's per-tick work: a physics step with 256 dynamic
//!   bodies, 200 walking agents and 2,000 entities, then the change set sync reads; with a
//!   client's call between ticks. Baseline in the same run: the tick of an empty world.
//!
//! Flags (after `--`): `--rounds N` (3), `--moves N` per run (400), `--period-ms N` between
//! moves (5), `--subscribers N` for the last row (50), `--latency-only`.

mod spawn;
mod sync_watch;
#[allow(dead_code)] // the watcher's client, not the host starter or the pinger
#[path = "ws_agent.rs"]
mod ws_agent;

use limina::world::{ApproachTarget, BodyKind, EntitySpec, Shape, World, WorldSettings};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Instant;

const TICKS: usize = 600;
/// Processes the subscribers are spread over: Python's, and the Rust watcher's (one a core).
const PYTHON_WATCHERS: usize = 5;
const RUST_WATCHERS: usize = 2;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

fn summary(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    (
        percentile(&xs, 0.5),
        percentile(&xs, 0.95),
        percentile(&xs, 0.99),
    )
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn flag(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a number"))
}

/// The Python of the pinned MCP SDK environment (it holds `websockets`), installed on first use.
fn python() -> PathBuf {
    let sdk = limina_guest_build::clients::PYTHON_SDK
        .ensure()
        .expect("installing the pinned Python MCP SDK (with websockets)");
    limina_guest_build::tools::venv_python(&sdk)
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/sync_clients.py")
}

/// A client process and its stdout.
struct Py {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Py {
    fn start(python: &Path, args: &[String]) -> Py {
        let mut command = Command::new(python);
        command.arg(script()).args(args);
        Py::spawn(command)
    }

    /// This bench's own Rust watcher (`--watch URL SUBSCRIBERS MOVES`).
    fn rust_watcher(args: &[String]) -> Py {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.arg("--watch").args(&args[1..]);
        Py::spawn(command)
    }

    fn spawn(mut command: Command) -> Py {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting a client process");
        let out = BufReader::new(child.stdout.take().unwrap());
        Py { child, out }
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        assert!(
            !line.is_empty(),
            "a Python client ended early (see its stderr)"
        );
        line
    }

    fn report(mut self) -> Value {
        let report = serde_json::from_str(&self.line()).expect("a JSON report");
        let _ = self.child.wait();
        report
    }
}

/// CPU time (µs) of each thread of process `pid`, by name (`schedstat`); the main thread,
/// which runs the engine, is named `engine` whatever the binary is called.
fn thread_cpu(pid: u32) -> Vec<(String, f64)> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| {
            let dir = t.ok()?.path();
            let main = dir.file_name()? == pid.to_string().as_str();
            let name = std::fs::read_to_string(dir.join("comm")).ok()?;
            let name = if main { "engine" } else { name.trim() };
            // The listener and its writer threads (`limina-ws-out0`, ...) count as one.
            let name = if name.starts_with("limina-ws") {
                "limina-ws"
            } else {
                name
            };
            let sched = std::fs::read_to_string(dir.join("schedstat")).ok()?;
            let ns: f64 = sched.split_whitespace().next()?.parse().ok()?;
            Some((name.to_string(), ns / 1e3))
        })
        .collect()
}

/// CPU per move: the engine thread, the WebSocket thread, and the watchers per delta read.
#[derive(Clone, Copy, Default)]
struct Cost {
    engine: f64,
    ws: f64,
    watcher_per_delta: f64,
}

/// One run: `subscribers` watchers over up to five processes and the builder. Reply→delta
/// latencies in µs (all subscribers, all moves), the builder's ping round trips, and where the
/// CPU went.
fn sync_run(
    binary: &str,
    python: &Path,
    rust_watchers: bool,
    subscribers: usize,
    moves: usize,
    period_ms: usize,
) -> (Vec<f64>, Vec<f64>, Cost) {
    let args = [
        "--mcp-ws",
        "--port",
        "0",
        "--manual-clock",
        "--log-level",
        "info",
        "--network-profile",
        "builder.readWrite",
        "--network-profile",
        "system.readonly",
    ];
    // Every watcher shares 127.0.0.1: seats for all of them (the defaults hold 128 per
    // address, 64 not yet initialized).
    let config = tempfile::NamedTempFile::new().unwrap();
    let seats = subscribers + 16;
    std::fs::write(
        config.path(),
        format!(
            "[network]\nmaxConnections = {seats}\nmaxConnectionsPerAddress = {seats}\nmaxUninitialized = {seats}\n"
        ),
    )
    .unwrap();
    let config_path = config.path().display().to_string();
    let mut args = args.map(String::from).to_vec();
    args.extend(["--config".to_string(), config_path]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (host, found) = spawn::limina_serving(binary, &args, &["ws://"]);
    let url = format!("ws://{}", found[0]);
    let mut builder = Py::start(
        python,
        &[
            "build".into(),
            url.clone(),
            moves.to_string(),
            period_ms.to_string(),
        ],
    );
    assert_eq!(builder.line().trim(), "ready");
    let processes = subscribers.min(if rust_watchers {
        RUST_WATCHERS
    } else {
        PYTHON_WATCHERS
    });
    let mut watchers: Vec<Py> = (0..processes)
        .map(|p| {
            let share = subscribers / processes + usize::from(p < subscribers % processes);
            let args = [
                "watch".into(),
                url.clone(),
                share.to_string(),
                moves.to_string(),
            ];
            if rust_watchers {
                Py::rust_watcher(&args)
            } else {
                Py::start(python, &args)
            }
        })
        .collect();
    for w in &mut watchers {
        assert_eq!(w.line().trim(), "ready");
    }
    let pid = host.child.id();
    let before = thread_cpu(pid);
    builder
        .child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"go\n")
        .unwrap();
    let built = builder.report();
    let replied: Vec<f64> = built["replied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let pings: Vec<f64> = built["pings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() / 1e3)
        .collect();
    let mut latencies = Vec::new();
    let mut watcher_cpu = 0.0;
    let mut after = Vec::new();
    for (i, w) in watchers.into_iter().enumerate() {
        let report = w.report();
        if i == 0 {
            // Every delta is out once the first watcher has all of its own.
            after = thread_cpu(pid);
        }
        watcher_cpu += report["cpu_ns"].as_f64().unwrap() / 1e3;
        for pair in report["arrived"].as_array().unwrap() {
            let (i, at) = (
                pair[0].as_u64().unwrap() as usize,
                pair[1].as_f64().unwrap(),
            );
            // A delta may reach a subscriber before the builder reads its reply: 0, not less.
            latencies.push(((at - replied[i]) / 1e3).max(0.0));
        }
    }
    assert_eq!(
        latencies.len(),
        subscribers * moves,
        "every subscriber saw every move"
    );
    let spent = |thread: &str| {
        let at = |samples: &[(String, f64)]| {
            samples
                .iter()
                .filter(|(n, _)| n == thread)
                .map(|(_, cpu)| *cpu)
                .sum::<f64>()
        };
        (at(&after) - at(&before)) / moves as f64
    };
    let cost = Cost {
        engine: spent("engine"),
        ws: spent("limina-ws"),
        watcher_per_delta: watcher_cpu / latencies.len() as f64,
    };
    (latencies, pings, cost)
}

/// The latency table: for each binary (this build, and a baseline when given) and each row,
/// medians over rounds of the run's p50/p95/p99.
fn sync_latency() {
    let rounds = flag("--rounds", 3);
    let moves = flag("--moves", 400);
    let period = flag("--period-ms", 5);
    let python = python();
    let rust_watchers = !std::env::args().any(|a| a == "--python-watchers");
    let mut binaries = vec![(
        "this build".to_string(),
        env!("CARGO_BIN_EXE_limina").to_string(),
    )];
    if let Ok(b) = std::env::var("LIMINA_BASELINE") {
        binaries.push(("baseline".into(), b));
    }
    let rows = [1, 10, flag("--subscribers", 50)];
    // results[binary][row] = per-round (p50, p95, p99, ping p50)
    let mut results = vec![vec![Vec::new(); rows.len()]; binaries.len()];
    let mut costs: Vec<Vec<Vec<Cost>>> = vec![vec![Vec::new(); rows.len()]; binaries.len()];
    for round in 0..rounds {
        for k in 0..rows.len() * binaries.len() {
            let k = (k + round) % (rows.len() * binaries.len());
            let (b, r) = (k % binaries.len(), k / binaries.len());
            let (latencies, pings, cost) = sync_run(
                &binaries[b].1,
                &python,
                rust_watchers,
                rows[r],
                moves,
                period,
            );
            let (p50, p95, p99) = summary(latencies);
            results[b][r].push((p50, p95, p99, summary(pings).0));
            costs[b][r].push(cost);
        }
    }
    let watchers = if rust_watchers {
        format!("{RUST_WATCHERS} Rust watcher processes")
    } else {
        format!("{PYTHON_WATCHERS} Python watcher processes")
    };
    println!(
        "sync latency over WebSocket ({watchers}, 1 Python builder; {moves} moves {period} ms apart; medians of {rounds} rounds; µs):"
    );
    println!(
        "  {:<12} {:>12} {:>26} {:>12} {:>16} {:>34}   p95 per round",
        "binary",
        "subscribers",
        "reply→delta p50/p95/p99",
        "ping p50",
        "p95 vs 1 sub",
        "CPU/move engine, ws; per delta read"
    );
    for (b, (name, _)) in binaries.iter().enumerate() {
        let base95 = median(results[b][0].iter().map(|x| x.1).collect());
        for (r, n) in rows.iter().enumerate() {
            let runs = &results[b][r];
            let m = |f: fn(&(f64, f64, f64, f64)) -> f64| median(runs.iter().map(f).collect());
            let (p50, p95, p99, ping) = (m(|x| x.0), m(|x| x.1), m(|x| x.2), m(|x| x.3));
            let c = &costs[b][r];
            let cost = format!(
                "{:.0}, {:.0}; {:.0}",
                median(c.iter().map(|x| x.engine).collect()),
                median(c.iter().map(|x| x.ws).collect()),
                median(c.iter().map(|x| x.watcher_per_delta).collect())
            );
            println!(
                "  {name:<12} {n:>12} {:>26} {ping:>12.0} {:>15.2}x {cost:>34}   {}",
                format!("{p50:.0}/{p95:.0}/{p99:.0}"),
                p95 / base95,
                runs.iter()
                    .map(|x| format!("{:.0}", x.1))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
}

fn spec(position: [f64; 3], body: BodyKind) -> EntitySpec {
    EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: 0.5,
        color: 0,
        position,
        body,
        friction: 0.5,
        restitution: 0.1,
    }
}

/// Per-tick µs of step + change set, with one client call between ticks.
fn ticks(busy: bool) -> Vec<f64> {
    let mut world = World::new(WorldSettings {
        max_entities: 10_000,
        tick_seconds: 1.0 / 60.0,
    });
    if busy {
        world
            .create_entity(&EntitySpec {
                size: 50.0,
                ..spec([0.0, -25.0, 0.0], BodyKind::Fixed)
            })
            .unwrap();
        for i in 0..256 {
            let (x, z) = ((i % 16) as f64 * 1.2 - 9.0, (i / 16) as f64 * 1.2 - 9.0);
            world
                .create_entity(&spec([x, 2.0 + (i % 3) as f64, z], BodyKind::Dynamic))
                .unwrap();
        }
        for i in 0..200 {
            let id = world
                .create_entity(&spec([i as f64, 0.5, 40.0], BodyKind::None))
                .unwrap();
            world.add_tag(&id, &limina::world::body_tag(&format!("npc{i}")));
            world
                .approach(
                    &format!("npc{i}"),
                    ApproachTarget::Point([i as f64, 0.5, -40.0]),
                    None,
                )
                .unwrap();
        }
        while world.entity_count() < 2_000 {
            let n = world.entity_count() as f64;
            world
                .create_entity(&spec([n % 100.0, 0.0, 100.0 + n / 100.0], BodyKind::None))
                .unwrap();
        }
    }
    world.take_changes();
    let mut out = Vec::with_capacity(TICKS);
    for i in 0..TICKS {
        if busy {
            // A client's call between ticks.
            world.begin();
            let id = world
                .create_entity(&spec([i as f64, 0.0, -100.0], BodyKind::None))
                .unwrap();
            world.commit();
            world.destroy_entity(&id);
        }
        let t = Instant::now();
        world.step();
        let changes = world.take_changes();
        std::hint::black_box(&changes);
        out.push(t.elapsed().as_secs_f64() * 1e6);
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "--watch") {
        let n = |i: usize| args[i].parse().expect("a number");
        sync_watch::watch(&args[2], n(3), n(4));
        return;
    }
    if args.iter().any(|a| a == "--list") {
        return;
    }
    sync_latency();
    if std::env::args().any(|a| a == "--latency-only") {
        return;
    }
    let (e50, e95, _) = summary(ticks(false));
    let (t50, t95, t99) = summary(ticks(true));
    println!("world tick ({TICKS} ticks; µs; step + change set, a call between ticks):");
    println!("  empty world            p50 {e50:.1}  p95 {e95:.1}");
    println!(
        "  256 bodies, 200 agents, 2,000 entities  p50 {t50:.1}  p95 {t95:.1}  p99 {t99:.1}  ({:.1}x empty p50)",
        t50 / e50.max(0.001)
    );
}
