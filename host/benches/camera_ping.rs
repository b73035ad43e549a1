//! The `ping` part of `cargo bench -p limina --bench camera`: does a capture hold up others?
//! A release host over real WebSockets with `CAMERA_ENTITIES` entities (2,000, from a scene
//! file). One client pings every millisecond through `CAMERA_PING_ROUNDS` rounds (5), each of
//! four phases of `CAMERA_PING_SECONDS` (3) in turn, so drift on a shared machine falls on all
//! of them alike:
//! - **alone**: nothing else runs;
//! - **control**: `CAMERA_SHOOTERS` (1) threads of this process burn CPU at the idle class, as a
//!   capture worker does (0.1 ms of work, then a yield), without touching the host: what any
//!   use of a core costs the pings on this machine, the floor no host can go under;
//! - **capturing**: as many clients call `camera.capture` at 640 × 480 back to back;
//! - **calling**: the same clients call `physics.raycast` (a cheap call on the engine) at the
//!   rate their captures came that round: what any call at that rate costs the pings.
//!
//! Prints each phase's ping p50 and p99 as medians over the rounds, and the medians of the
//! rounds' ratios (capturing / alone, capturing / control): "unchanged" is a capturing p99 no
//! worse than the control's; the capture's own cost is
//! the capturing p99 over the calling one. The capturing clients stand for clients on other machines: they
//! read their 180 KB replies at the idle class, so their own parsing does not compete with the
//! host on this 2-core machine (`CAMERA_SHOOTERS_CLASS=normal` lets it compete, to see it).
//! `LIMINA_BASELINE=/path/to/older/limina` measures that binary too, after this one, in the
//! same run (`LIMINA_HOST` replaces this build's binary). `CAMERA_PING_LOG=file` writes each
//! ping of the last capturing phase as a line `start_ns duration_ns` on CLOCK_MONOTONIC (the
//! clock `perf record -k CLOCK_MONOTONIC` stamps with), to find the slowest pings in a profile.

use super::ws_agent::{Agent, Host, Times, pinger};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const PING_EVERY: Duration = Duration::from_millis(1);
/// How long the control's threads work before they yield, as a capture worker does.
const BURN: Duration = Duration::from_micros(100);

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
            "  this / baseline: ping while capturing p50 {:.2}x, p99 {:.2}x; p99 ratio to the control {:.2} vs {:.2}; captures/s {:.2}x",
            this.capturing.p50 / base.capturing.p50,
            this.capturing.p99 / base.capturing.p99,
            this.over_control,
            base.over_control,
            this.rate / base.rate,
        );
    }
}

/// One phase's pings, as medians over the rounds.
#[derive(Clone, Copy)]
struct Phase {
    p50: f64,
    p99: f64,
}

/// One binary's figures.
struct Figures {
    capturing: Phase,
    /// The median of the rounds' capturing p99 / control p99.
    over_control: f64,
    /// Captures per second.
    rate: f64,
}

/// The median of the rounds' figures, taken as the pings' quantiles are.
fn median(v: Vec<f64>) -> f64 {
    Times(v).quantile(0.5)
}

/// Puts the calling thread in the idle scheduling class.
fn idle_class() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is valid; pid 0 is the calling thread.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    assert_eq!(
        rc,
        0,
        "sched_setscheduler: {}",
        std::io::Error::last_os_error()
    );
}

/// Whether the capturing clients read at the idle class (the default) or compete.
fn shooters_idle() -> bool {
    match std::env::var("CAMERA_SHOOTERS_CLASS").as_deref() {
        Err(_) | Ok("idle") => true,
        Ok("normal") => false,
        Ok(other) => panic!("CAMERA_SHOOTERS_CLASS is `idle` or `normal`, not `{other}`"),
    }
}

/// Pings through `seconds` while `loads` (threads of scope `s`, told to stop by `stop`) run
/// beside; the pings and what the loads returned.
fn timed<'scope, T>(
    s: &'scope std::thread::Scope<'scope, '_>,
    pinging: &'scope mut Agent,
    stop: &'scope AtomicBool,
    loads: Vec<std::thread::ScopedJoinHandle<'scope, T>>,
    seconds: u64,
    log: Option<&'scope Path>,
) -> (Times, Vec<T>) {
    // Named, to tell it apart in a profile.
    let pings = std::thread::Builder::new()
        .name("pinger".into())
        .spawn_scoped(s, move || match log {
            Some(log) => logged_pinger(pinging, stop, log),
            None => pinger(pinging, PING_EVERY, stop),
        })
        .unwrap();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    let done = loads.into_iter().map(|l| l.join().unwrap()).collect();
    (pings.join().unwrap(), done)
}

/// Runs `work` on each of `items`, each on a thread of `s` named `{name}-{i}` (to tell them
/// apart in a profile).
fn spawn_each<'scope, I, T, F>(
    s: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    items: I,
    work: F,
) -> Vec<std::thread::ScopedJoinHandle<'scope, T>>
where
    I: IntoIterator,
    I::Item: Send + 'scope,
    T: Send + 'scope,
    F: Fn(I::Item) -> T + Send + Copy + 'scope,
{
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn_scoped(s, move || work(item))
                .unwrap()
        })
        .collect()
}

/// Burns CPU at the idle class in bursts of [`BURN`] until `stop`.
fn burn(stop: &AtomicBool) {
    idle_class();
    while !stop.load(Ordering::Relaxed) {
        let t = Instant::now();
        while t.elapsed() < BURN {
            std::hint::spin_loop();
        }
        std::thread::yield_now();
    }
}

/// Captures `shot` back to back until `stop`; the round trips.
fn shoot(agent: &mut Agent, shot: &Value, stop: &AtomicBool, idle: bool) -> Times {
    if idle {
        idle_class();
    }
    let mut times = Times::default();
    while !stop.load(Ordering::Relaxed) {
        let t = Instant::now();
        let (reply, ok) = agent.call("camera.capture", shot.clone());
        assert!(ok, "camera.capture failed: {reply}");
        times.push(t.elapsed());
    }
    times
}

/// Calls `physics.raycast` with `ray` once every `period` until `stop`: a cheap call on the
/// engine at the rate the captures came.
fn call_paced(
    agent: &mut Agent,
    ray: &Value,
    period: Duration,
    stop: &AtomicBool,
    idle: bool,
) -> usize {
    if idle {
        idle_class();
    }
    let mut next = Instant::now();
    let mut calls = 0;
    while !stop.load(Ordering::Relaxed) {
        let (reply, ok) = agent.call("physics.raycast", ray.clone());
        assert!(ok, "physics.raycast failed: {reply}");
        calls += 1;
        next += period;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    calls
}

/// The CPU time the host's engine (its main thread) has run, in nanoseconds.
fn engine_ns(host: &Host) -> u64 {
    let pid = host.child.id();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/schedstat"))
        .expect("reading the engine's schedstat");
    stat.split_whitespace().next().unwrap().parse().unwrap()
}

/// One binary's run.
fn measure(binary: &Path, label: &str) -> Figures {
    let n = super::env("CAMERA_ENTITIES", 2_000);
    let shooters = super::env("CAMERA_SHOOTERS", 1);
    let seconds = super::env("CAMERA_PING_SECONDS", 3) as u64;
    let rounds = super::env("CAMERA_PING_ROUNDS", 5);
    let idle = shooters_idle();
    let log = std::env::var_os("CAMERA_PING_LOG").map(PathBuf::from);
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
    let mut agents: Vec<Agent> = (0..shooters)
        .map(|i| host.agent("builder.readWrite", &format!("shooter-{i}")))
        .collect();
    let shot = json!({"position": [45, 35, 45], "lookAt": [0, 0, 0], "width": 640, "height": 480});
    let ray = json!({"origin": [0, 50, 0], "direction": [0, -1, 0]});
    let (mut alone, mut control, mut capturing, mut calling) = (vec![], vec![], vec![], vec![]);
    let mut captures = Times::default();
    // The engine's CPU in each phase of each round, in ms per s; and the calls made.
    let mut busy: [Vec<f64>; 4] = Default::default();
    let (mut shots, mut rays) = (vec![], vec![]);
    let mut engine_at;
    let lap = |at: &mut u64, into: &mut Vec<f64>| {
        let now = engine_ns(&host);
        into.push((now - *at) as f64 / 1e6 / seconds as f64);
        *at = now;
    };
    for round in 0..rounds {
        let stop = AtomicBool::new(false);
        let none: Vec<std::thread::ScopedJoinHandle<'_, ()>> = vec![];
        engine_at = engine_ns(&host);
        alone.push(std::thread::scope(|s| timed(s, &mut pinging, &stop, none, seconds, None)).0);
        lap(&mut engine_at, &mut busy[0]);
        let stop = AtomicBool::new(false);
        control.push(
            std::thread::scope(|s| {
                let stop = &stop;
                let burners = spawn_each(s, "burner", 0..shooters, move |_| burn(stop));
                timed(s, &mut pinging, stop, burners, seconds, None)
            })
            .0,
        );
        lap(&mut engine_at, &mut busy[1]);
        let last = (round + 1 == rounds).then_some(log.as_deref()).flatten();
        let stop = AtomicBool::new(false);
        let (pings, shot_times) = std::thread::scope(|s| {
            let (stop, shot) = (&stop, &shot);
            let shooting = spawn_each(s, "shooter", agents.iter_mut(), move |agent| {
                shoot(agent, shot, stop, idle)
            });
            timed(s, &mut pinging, stop, shooting, seconds, last)
        });
        lap(&mut engine_at, &mut busy[2]);
        capturing.push(pings);
        let before = captures.0.len();
        for t in shot_times {
            captures.0.extend(t.0);
        }
        shots.push(captures.0.len() - before);
        // Each client's period between captures in this round, kept for cheap calls.
        let period = Duration::from_secs_f64(
            (seconds * shooters as u64) as f64 / (captures.0.len() - before).max(1) as f64,
        );
        let stop = AtomicBool::new(false);
        let (pings, made) = std::thread::scope(|s| {
            let (stop, ray) = (&stop, &ray);
            let paced = spawn_each(s, "caller", agents.iter_mut(), move |agent| {
                call_paced(agent, ray, period, stop, idle)
            });
            timed(s, &mut pinging, stop, paced, seconds, None)
        });
        lap(&mut engine_at, &mut busy[3]);
        calling.push(pings);
        rays.push(made.into_iter().sum::<usize>());
    }
    let summary = |phases: &[Times]| Phase {
        p50: median(phases.iter().map(|t| t.quantile(0.5)).collect()),
        p99: median(phases.iter().map(|t| t.quantile(0.99)).collect()),
    };
    let ratio = |a: &[Times], b: &[Times]| {
        median(
            a.iter()
                .zip(b)
                .map(|(a, b)| a.quantile(0.99) / b.quantile(0.99))
                .collect(),
        )
    };
    println!(
        "ping ({label}): {n} entities, {shooters} clients capturing 640 × 480 back to back (reading at the {} class), {rounds} rounds of 4 × {seconds} s, load {}",
        if idle { "idle" } else { "normal" },
        super::ws_agent::load()
    );
    for (what, phases) in [
        ("alone", &alone),
        ("control (idle burners)", &control),
        ("while capturing", &capturing),
        ("calling at that rate", &calling),
    ] {
        let p = summary(phases);
        let p99s: Vec<String> = phases
            .iter()
            .map(|t| format!("{:.3}", t.quantile(0.99)))
            .collect();
        println!(
            "  ping {what:<24} p50 {:>7.3} ms   p99 {:>7.3} ms   (medians; p99 by round {})",
            p.p50,
            p.p99,
            p99s.join(" ")
        );
    }
    let over_control = ratio(&capturing, &control);
    println!(
        "  p99 ratios, medians of the rounds: capturing / alone {:.2}x, capturing / control {over_control:.2}x, control / alone {:.2}x, capturing / calling {:.2}x, calling / alone {:.2}x",
        ratio(&capturing, &alone),
        ratio(&control, &alone),
        ratio(&capturing, &calling),
        ratio(&calling, &alone),
    );
    // The engine's extra CPU per call over the round's alone phase, in µs.
    let per_call = |phase: usize, calls: &[usize]| {
        median(
            (0..rounds)
                .map(|r| {
                    (busy[phase][r] - busy[0][r]) * seconds as f64 * 1000.0 / calls[r].max(1) as f64
                })
                .collect(),
        )
    };
    println!(
        "  engine CPU, ms per s (medians): alone {:.1}, control {:.1}, capturing {:.1}, calling {:.1}; over alone, per capture {:.0} µs, per cheap call {:.0} µs",
        median(busy[0].clone()),
        median(busy[1].clone()),
        median(busy[2].clone()),
        median(busy[3].clone()),
        per_call(2, &shots),
        per_call(3, &rays),
    );
    let rate = captures.0.len() as f64 / (rounds as u64 * seconds) as f64;
    println!(
        "  captures: {} ({rate:.1}/s), round trip median {:.2} ms, p99 {:.2} ms",
        captures.0.len(),
        captures.quantile(0.5),
        captures.quantile(0.99)
    );
    Figures {
        capturing: summary(&capturing),
        over_control,
        rate,
    }
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
fn logged_pinger(agent: &mut Agent, stop: &AtomicBool, log: &Path) -> Times {
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
