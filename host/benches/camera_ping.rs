//! The `ping` part of `cargo bench -p limina --bench camera`: does a capture hold up others?
//! A release host over real WebSockets with `CAMERA_ENTITIES` entities (2,000, from a scene
//! file); one client pings every millisecond alone for three seconds (the baseline, same host,
//! same run), then again while `CAMERA_SHOOTERS` clients (2) call `camera.capture` at
//! 640 × 480 back to back for `CAMERA_PING_SECONDS` (10). Prints the pings' p50, p99 and max
//! in both phases and their ratios, and the captures' round trips and rate.
//! `LIMINA_BASELINE=/path/to/older/limina` measures that binary too, after this one, in the
//! same run (`LIMINA_HOST` replaces this build's binary). `CAMERA_PING_LOG=file` writes each
//! ping while capturing as a line `start_ns duration_ns` on CLOCK_MONOTONIC (the clock
//! `perf record -k CLOCK_MONOTONIC` stamps with), to find the slowest pings in a profile.

use super::ws_agent::{Agent, Host, Times, pinger};
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const PING_EVERY: Duration = Duration::from_millis(1);
const IDLE: Duration = Duration::from_secs(3);

/// A scene file of `n` entities like the bench scene's: boxes and spheres over a 60 m square.
fn scene(n: usize) -> tempfile::NamedTempFile {
    let snapshot = super::camera_scene::snapshot(n);
    let mut text = String::new();
    for e in &snapshot.entities {
        let shape = match e.shape {
            limina::world::Shape::Box => "box",
            limina::world::Shape::Sphere => "sphere",
        };
        let line = json!({"skill": "scene.createEntity", "input": {
            "shape": shape, "size": e.size, "color": e.color, "position": e.position}});
        text.push_str(&format!("{line}\n"));
    }
    let file = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), text).unwrap();
    file
}

pub fn run() {
    let binary = std::env::var_os("LIMINA_HOST").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_limina")),
        PathBuf::from,
    );
    let this = measure(&binary, "this build");
    if let Some(base) = std::env::var_os("LIMINA_BASELINE") {
        let base = measure(&PathBuf::from(base), "baseline");
        println!(
            "  this / baseline: ping while capturing p50 {:.2}x, p99 {:.2}x, max {:.2}x; captures/s {:.2}x",
            this.0.quantile(0.5) / base.0.quantile(0.5),
            this.0.quantile(0.99) / base.0.quantile(0.99),
            this.0.max() / base.0.max(),
            this.1.0.len() as f64 / base.1.0.len() as f64,
        );
    }
}

/// One binary's run: the pings while capturing, and the captures.
fn measure(binary: &std::path::Path, label: &str) -> (Times, Times) {
    let n = super::env("CAMERA_ENTITIES", 2_000);
    let shooters = super::env("CAMERA_SHOOTERS", 2);
    let seconds = super::env("CAMERA_PING_SECONDS", 10);
    let scene = scene(n);
    let host = Host::start(
        binary,
        &[
            "--scene".into(),
            scene.path().display().to_string(),
            "--profile".into(),
            "builder.readWrite".into(),
        ],
    );
    let mut pinging = host.agent("builder.readWrite", "pinger");
    let stop = AtomicBool::new(false);
    let idle = std::thread::scope(|s| {
        let pings = s.spawn(|| pinger(&mut pinging, PING_EVERY, &stop));
        std::thread::sleep(IDLE);
        stop.store(true, Ordering::Relaxed);
        pings.join().unwrap()
    });
    stop.store(false, Ordering::Relaxed);
    let shot = json!({"position": [45, 35, 45], "lookAt": [0, 0, 0], "width": 640, "height": 480});
    let (loaded, captures) = std::thread::scope(|s| {
        // Named threads, to tell them apart in a profile.
        let pings = std::thread::Builder::new()
            .name("pinger".into())
            .spawn_scoped(s, || match std::env::var_os("CAMERA_PING_LOG") {
                Some(log) => logged_pinger(&mut pinging, &stop, &PathBuf::from(log)),
                None => pinger(&mut pinging, PING_EVERY, &stop),
            })
            .unwrap();
        let workers: Vec<_> = (0..shooters)
            .map(|i| {
                let mut agent = host.agent("builder.readWrite", &format!("shooter-{i}"));
                let (shot, stop) = (&shot, &stop);
                let name = format!("shooter-{i}");
                std::thread::Builder::new()
                    .name(name)
                    .spawn_scoped(s, move || {
                        let mut times = Times::default();
                        while !stop.load(Ordering::Relaxed) {
                            let t = Instant::now();
                            let (reply, ok) = agent.call("camera.capture", shot.clone());
                            assert!(ok, "camera.capture failed: {reply}");
                            times.push(t.elapsed());
                        }
                        times
                    })
                    .unwrap()
            })
            .collect();
        std::thread::sleep(Duration::from_secs(seconds as u64));
        stop.store(true, Ordering::Relaxed);
        let mut captures = Times::default();
        for w in workers {
            captures.0.extend(w.join().unwrap().0);
        }
        (pings.join().unwrap(), captures)
    });
    println!(
        "ping ({label}): {n} entities, {shooters} clients capturing 640 × 480 back to back for {seconds} s, load {}",
        super::ws_agent::load()
    );
    let line = |what: &str, t: &Times| {
        println!(
            "  {what:<22} p50 {:>7.3} ms   p99 {:>7.3} ms   max {:>7.3} ms   ({} pings)",
            t.quantile(0.5),
            t.quantile(0.99),
            t.max(),
            t.0.len()
        )
    };
    line("ping alone", &idle);
    line("ping while capturing", &loaded);
    println!(
        "  ratios (capturing / alone): p50 {:.2}x, p99 {:.2}x",
        loaded.quantile(0.5) / idle.quantile(0.5),
        loaded.quantile(0.99) / idle.quantile(0.99)
    );
    println!(
        "  captures: {} ({:.1}/s), round trip median {:.2} ms, p99 {:.2} ms",
        captures.0.len(),
        captures.0.len() as f64 / seconds as f64,
        captures.quantile(0.5),
        captures.quantile(0.99)
    );
    (loaded, captures)
}

/// CLOCK_MONOTONIC now, in nanoseconds.
fn monotonic_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write to.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// [`pinger`], writing each ping's start and duration to `log`.
fn logged_pinger(agent: &mut Agent, stop: &AtomicBool, log: &std::path::Path) -> Times {
    let mut times = Times::default();
    let mut lines = String::new();
    while !stop.load(Ordering::Relaxed) {
        let start = monotonic_ns();
        let took = agent.ping();
        times.push(took);
        lines.push_str(&format!("{start} {}\n", took.as_nanos()));
        std::thread::sleep(PING_EVERY);
    }
    std::fs::write(log, lines).expect("writing CAMERA_PING_LOG");
    times
}
