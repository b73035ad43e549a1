//! `cargo bench -p limina --bench engine_waits [-- state checkpoint scheduled hostile]`: how
//! long one client waits for the engine while others make it do durable or long work — a
//! release host over real WebSockets, each client its own session. In every scenario the
//! pinging client first pings alone for two seconds (`idle ping`: the baseline, same host,
//! same run), then while the load runs:
//!
//! - `state`: 8 agents call `memory.remember` back to back (each reply durable) while another
//!   client pings every millisecond: durable writes a second, and the pings;
//! - `checkpoint`: a world of `ENGINE_WAITS_ENTITIES` entities (100,000) checkpointed on demand
//!   (`world.checkpoint`) five times while another client pings: the worst ping;
//! - `scheduled`: the same world checkpointed every second by the schedule while one client
//!   steps it a tick at a time (`world.step`) and another pings: the worst step and ping;
//! - `hostile`: a world-capable third-party package that spins until cut (`spin.forever`)
//!   called back to back from one session, and 16 at a time from another, while a third pings.
//!
//! `LIMINA_BASELINE=/path/to/older/limina` runs every scenario on that binary too, in turns in
//! the same run, and prints the ratios (`LIMINA_HOST` replaces this build's binary;
//! `ENGINE_WAITS_ROUNDS` repeats each, medians printed). `ENGINE_WAITS_ENGINE_CALL_MS` sets
//! `[limits] engineCallMs` for `hostile` on both, `ENGINE_WAITS_BASELINE_ENGINE_CALL_MS` on the
//! baseline alone (the same binary given as `LIMINA_BASELINE` with another slice compares the
//! slices in one run). `ENGINE_WAITS_SECONDS` sets how long each
//! load runs (10 s). Needs the guests (`cargo xtask build-guests`).

#[path = "ws_agent.rs"]
mod ws_agent;

use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use ws_agent::{Agent, Host, Times, load, pinger};

const PING_EVERY: Duration = Duration::from_millis(1);

/// One scenario's figures, by name (lower is better unless the name says `/s`).
type Figures = BTreeMap<&'static str, f64>;

/// A scenario's name and how it runs against a host binary.
/// (Whether it is the baseline: `hostile` may configure it apart.)
type Scenario = (&'static str, fn(&Path, bool) -> Figures);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn seconds() -> Duration {
    let secs = std::env::var("ENGINE_WAITS_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    Duration::from_secs_f64(secs)
}

fn entities() -> usize {
    std::env::var("ENGINE_WAITS_ENTITIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

/// A packages folder holding `manifest` and the guest build's `component`.
fn package(name: &str, manifest: &Path, component: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(name);
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(manifest, folder.join("limina.toml")).unwrap();
    let wasm = repo().join("target/components").join(component);
    assert!(
        wasm.is_file(),
        "build the guests first: cargo xtask build-guests"
    );
    std::fs::copy(&wasm, folder.join(component)).unwrap();
    dir
}

fn config(dir: &Path, text: &str) -> String {
    let path = dir.join("limina.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// How long the pinger pings alone before the load starts: the baseline in the same run.
const IDLE: Duration = Duration::from_secs(2);

/// Pings measured while a load ran, and those of the same client before it, alone.
struct Pings {
    idle: Times,
    loaded: Times,
}

impl Pings {
    /// The figures every scenario gives: the pings under load beside the idle ones.
    fn figures(&self, f: &mut Figures) {
        f.insert("idle ping p50 ms", self.idle.quantile(0.5));
        f.insert("idle ping p99 ms", self.idle.quantile(0.99));
        f.insert("ping p50 ms", self.loaded.quantile(0.5));
        f.insert("ping p99 ms", self.loaded.quantile(0.99));
        f.insert("ping max ms", self.loaded.max());
    }
}

/// Pings alone for `IDLE`, then runs `load` on threads while the same client pings; the
/// pings and what the load gave.
fn with_pinger<T: Send>(host: &Host, load: impl FnOnce(&AtomicBool) -> T + Send) -> (Pings, T) {
    let stop = AtomicBool::new(false);
    let mut pinging = host.agent("builder.readWrite", "pinger");
    let idle = std::thread::scope(|s| {
        let pings = s.spawn(|| pinger(&mut pinging, PING_EVERY, &stop));
        std::thread::sleep(IDLE);
        stop.store(true, Ordering::Relaxed);
        pings.join().unwrap()
    });
    stop.store(false, Ordering::Relaxed);
    std::thread::scope(|s| {
        let pings = s.spawn(|| pinger(&mut pinging, PING_EVERY, &stop));
        let out = load(&stop);
        stop.store(true, Ordering::Relaxed);
        let loaded = pings.join().unwrap();
        (Pings { idle, loaded }, out)
    })
}

fn state(binary: &Path, _baseline: bool) -> Figures {
    let packages = package(
        "memory",
        &repo().join("packages/memory/limina.toml"),
        "memory.wasm",
    );
    let dir = tempfile::tempdir().unwrap();
    let config = config(
        dir.path(),
        "[profiles.keeper]\npermissions = [\"scene.read\", \"state.read\", \"state.write\"]\n\n\
         [network]\nprofiles = [\"keeper\", \"builder.readWrite\"]\n\n\
         [packages.memory.grants]\nstate = { keys = 100000, bytes = 67108864 }\n",
    );
    let host = Host::start(
        binary,
        &[
            "--packages".into(),
            packages.path().display().to_string(),
            "--config".into(),
            config,
            "--profile".into(),
            "builder.readWrite".into(),
        ],
    );
    let agents: Vec<Agent> = (0..8)
        .map(|i| host.agent("keeper", &format!("agent-{i}")))
        .collect();
    let written = AtomicU64::new(0);
    let failed = AtomicU64::new(0);
    let run = seconds();
    let (pings, (took, writes)) = with_pinger(&host, |_| {
        let started = Instant::now();
        let writes = std::thread::scope(|s| {
            let handles: Vec<_> = agents
                .into_iter()
                .map(|mut agent| {
                    let (written, failed) = (&written, &failed);
                    s.spawn(move || {
                        let mut times = Times::default();
                        let mut n = 0;
                        while started.elapsed() < run {
                            let t = Instant::now();
                            let (reply, ok) = agent.call(
                                "memory.remember",
                                json!({"text": format!("the well by the mill, note {n}")}),
                            );
                            times.push(t.elapsed());
                            n += 1;
                            if ok {
                                written.fetch_add(1, Ordering::Relaxed);
                            } else if failed.fetch_add(1, Ordering::Relaxed) == 0 {
                                eprintln!("  a write failed: {reply}");
                            }
                        }
                        times
                    })
                })
                .collect();
            let mut all = Times::default();
            for h in handles {
                all.0.extend(h.join().unwrap().0);
            }
            all
        });
        (started.elapsed(), writes)
    });
    let mut f = Figures::new();
    f.insert(
        "durable writes/s",
        written.load(Ordering::Relaxed) as f64 / took.as_secs_f64(),
    );
    f.insert("failed writes", failed.load(Ordering::Relaxed) as f64);
    f.insert("write p50 ms", writes.quantile(0.5));
    f.insert("write p99 ms", writes.quantile(0.99));
    pings.figures(&mut f);
    f
}

/// A host whose world holds `entities()` entities; `config_text` is its configuration.
fn big_world(binary: &Path, dir: &Path, config_text: &str) -> Host {
    let n = entities();
    let host = Host::start(
        binary,
        &[
            "--profile".into(),
            "builder.readWrite".into(),
            "--max-entities".into(),
            (n + 1000).to_string(),
            "--config".into(),
            config(dir, config_text),
        ],
    );
    // Four clients, each with 32 calls in flight.
    std::thread::scope(|s| {
        for c in 0..4 {
            let host = &host;
            s.spawn(move || {
                let mut agent = host.agent("builder.readWrite", &format!("builder-{c}"));
                let mine: Vec<usize> = (c..n).step_by(4).collect();
                let mut sent = 0;
                let mut done = 0;
                while done < mine.len() {
                    while sent < mine.len() && sent - done < 32 {
                        let i = mine[sent] as f64;
                        agent.send_request(
                            "tools/call",
                            json!({"name": "scene.createEntity", "arguments": {"position": [i % 300.0, 0.0, (i / 300.0).floor()]}}),
                        );
                        sent += 1;
                    }
                    let reply = agent.next_reply();
                    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
                    done += 1;
                }
            });
        }
    });
    host
}

fn checkpoint(binary: &Path, _baseline: bool) -> Figures {
    let dir = tempfile::tempdir().unwrap();
    let host = big_world(binary, dir.path(), "[world]\ncheckpointEverySeconds = 0\n");
    let mut caller = host.agent("builder.readWrite", "checkpointer");
    let (pings, (times, bytes)) = with_pinger(&host, |_| {
        std::thread::sleep(Duration::from_millis(300));
        let mut times = Times::default();
        let mut bytes = 0.0;
        for _ in 0..5 {
            let t = Instant::now();
            let (reply, ok) = caller.call("world.checkpoint", json!({}));
            times.push(t.elapsed());
            assert!(ok, "{reply}");
            bytes = reply["result"]["structuredContent"]["bytes"]
                .as_f64()
                .unwrap_or(0.0);
            std::thread::sleep(Duration::from_millis(300));
        }
        (times, bytes)
    });
    let mut f = Figures::new();
    f.insert("checkpoint MB", bytes / 1e6);
    f.insert("checkpoint reply p50 ms", times.quantile(0.5));
    pings.figures(&mut f);
    f.insert("host RSS MiB", host.rss_mib());
    f
}

fn scheduled(binary: &Path, _baseline: bool) -> Figures {
    let dir = tempfile::tempdir().unwrap();
    let host = big_world(binary, dir.path(), "[world]\ncheckpointEverySeconds = 1\n");
    let mut stepper = host.agent("builder.readWrite", "stepper");
    let run = seconds();
    let (pings, steps) = with_pinger(&host, |_| {
        let started = Instant::now();
        let mut steps = Times::default();
        while started.elapsed() < run {
            let t = Instant::now();
            let (reply, ok) = stepper.call("world.step", json!({"ticks": 1}));
            steps.push(t.elapsed());
            assert!(ok, "{reply}");
            std::thread::sleep(Duration::from_millis(2));
        }
        steps
    });
    let mut f = Figures::new();
    f.insert("step p50 ms", steps.quantile(0.5));
    f.insert("step max ms", steps.max());
    pings.figures(&mut f);
    f
}

fn hostile(binary: &Path, baseline: bool) -> Figures {
    let packages = package(
        "spin",
        &repo().join("tests/all/engine_stall/spin/limina.toml"),
        "spin.wasm",
    );
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "--profile".into(),
        "builder.readWrite".into(),
        "--packages".into(),
        packages.path().display().to_string(),
    ];
    // The engine's deadline for third-party calls, when the run sets one.
    let slice = std::env::var("ENGINE_WAITS_BASELINE_ENGINE_CALL_MS")
        .ok()
        .filter(|_| baseline)
        .or_else(|| std::env::var("ENGINE_WAITS_ENGINE_CALL_MS").ok());
    if let Some(ms) = slice {
        args.push("--config".into());
        args.push(config(
            dir.path(),
            &format!("[limits]\nengineCallMs = {ms}\n"),
        ));
    }
    let host = Host::start(binary, &args);
    let mut attacker = host.agent("builder.readWrite", "attacker");
    let mut flood = host.agent("builder.readWrite", "flood");
    let calls = AtomicU64::new(0);
    let run = seconds();
    let (pings, ()) = with_pinger(&host, |_| {
        let started = Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| {
                while started.elapsed() < run {
                    attacker.call("spin.forever", json!({}));
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            });
            s.spawn(|| {
                while started.elapsed() < run {
                    for _ in 0..16 {
                        flood.send_request(
                            "tools/call",
                            json!({"name": "spin.forever", "arguments": {}}),
                        );
                    }
                    for _ in 0..16 {
                        flood.next_reply();
                        calls.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        });
    });
    let mut f = Figures::new();
    f.insert(
        "hostile calls/s",
        calls.load(Ordering::Relaxed) as f64 / run.as_secs_f64(),
    );
    pings.figures(&mut f);
    f
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let scenarios: [Scenario; 4] = [
        ("state", state),
        ("checkpoint", checkpoint),
        ("scheduled", scheduled),
        ("hostile", hostile),
    ];
    let current = std::env::var_os("LIMINA_HOST").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_limina")),
        PathBuf::from,
    );
    let baseline = std::env::var_os("LIMINA_BASELINE").map(PathBuf::from);
    let rounds: usize = std::env::var("ENGINE_WAITS_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    println!("engine_waits: load before {}", load());
    // Writes refused or lost in any run: the figures are printed, then the run fails.
    let mut failed_writes = 0.0;
    for (name, scenario) in scenarios {
        if !chosen.is_empty() && !chosen.iter().any(|c| c == name) {
            continue;
        }
        let mut runs: BTreeMap<&str, Vec<Figures>> = BTreeMap::new();
        for round in 0..rounds {
            // The order turns every round.
            let mut order = vec![("this", current.as_path())];
            if let Some(base) = &baseline {
                order.push(("baseline", base.as_path()));
            }
            if round % 2 == 1 {
                order.reverse();
            }
            for (label, binary) in order {
                let figures = scenario(binary, label == "baseline");
                eprintln!(
                    "  {name} {label} round {round}: {figures:?} (load {})",
                    load()
                );
                failed_writes += figures.get("failed writes").copied().unwrap_or(0.0);
                runs.entry(label).or_default().push(figures);
            }
        }
        println!("{name} (medians of {rounds} round(s)):");
        let this = &runs["this"];
        for key in this[0].keys() {
            let mine = median(this.iter().map(|f| f[key]).collect());
            match runs.get("baseline") {
                Some(base) => {
                    let theirs = median(base.iter().map(|f| f[key]).collect());
                    println!(
                        "  {key:<26} this {mine:>10.2}   baseline {theirs:>10.2}   ratio {:>6.2}",
                        mine / theirs
                    );
                }
                None => println!("  {key:<26} {mine:>10.2}"),
            }
        }
    }
    println!("engine_waits: load after {}", load());
    if failed_writes > 0.0 {
        eprintln!("engine_waits: {failed_writes} durable writes failed");
        std::process::exit(1);
    }
}
