//! The index under a pipelined burst (`cargo bench -p limina --bench trace -- burst`): a fresh
//! release host takes `BURST_CALLS` pipelined `scene.queryEntities` (two events each: the
//! policy decision and `skill.executed`) while a sampler reads, every few milliseconds, how far
//! the segments and the index reach. It reports the writer's and the indexer's events/s during
//! the burst, the indexer's lag when the last reply arrives, `audit.query` p50/p95 asked right
//! then, and again right after the host is killed and started on the same folder, with the
//! CPU time the `trace-index` thread spent per event. It runs once on a quiet machine and once
//! with two threads of the bench spinning (other processes sharing both cores, as in the
//! issue's measurement), where it also runs this build with its indexer reniced to 10 (the
//! priority earlier versions gave it). With `LIMINA_BASELINE` the same rounds run against that
//! binary too, and `LIMINA_BENCH_THIS` measures another binary as this build. Rounds alternate
//! which goes first; figures are medians, with ratios of this build to each other one. No
//! timing is asserted (the machine is shared).

use super::spawn;
use serde_json::{Value, json};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Rounds per binary, alternating which goes first.
const ROUNDS: usize = 3;
/// Queries timed right after the burst and right after the restart.
const QUERIES: usize = 40;

/// What one round measured.
#[derive(Default, Clone)]
struct Round {
    writer_per_s: f64,
    indexer_per_s: f64,
    lag_at_end: f64,
    after_burst: (f64, f64, f64),
    after_restart: (f64, f64, f64),
    indexer_cpu_us: f64,
    first_list_ms: f64,
    catch_up_s: f64,
}

/// How far the segments reach: the sequence number of the newest complete line.
fn written_seq(traces: &Path) -> u64 {
    let Some(newest) = std::fs::read_dir(traces.join("segments"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| {
            p.file_stem()
                .is_some_and(|s| s.as_encoded_bytes()[0].is_ascii_digit())
        })
        .max()
    else {
        return 0;
    };
    let Ok(mut file) = std::fs::File::open(&newest) else {
        return 0;
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let from = len.saturating_sub(64 * 1024);
    let mut tail = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut tail).is_err() {
        return 0;
    }
    // The last line that ends with its break is complete.
    let end = match tail.iter().rposition(|&b| b == b'\n') {
        Some(end) => end,
        None => return 0,
    };
    let start = tail[..end]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let Ok(line) = serde_json::from_slice::<Value>(&tail[start..end]) else {
        return 0;
    };
    line["id"]
        .as_str()
        .and_then(limina::trace::seq_of_id)
        .unwrap_or(0)
}

/// How far the index reaches, read from its database as another process would.
fn indexed_seq(db: &Option<rusqlite::Connection>) -> u64 {
    db.as_ref()
        .and_then(|db| {
            db.query_row("SELECT value FROM meta WHERE key = 'last_seq'", [], |r| {
                r.get::<_, i64>(0)
            })
            .ok()
        })
        .unwrap_or(0) as u64
}

fn open_index(traces: &Path) -> Option<rusqlite::Connection> {
    rusqlite::Connection::open_with_flags(
        traces.join("index.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .ok()
}

/// CPU seconds the host's `trace-index` thread has used so far.
fn indexer_cpu_s(pid: u32) -> f64 {
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() == "trace-index" {
            let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
            // Fields after the `(comm)`: state is the 3rd field, utime the 14th, stime the 15th.
            let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let (utime, stime): (f64, f64) = (
                fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0.0),
                fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0.0),
            );
            return (utime + stime) / ticks;
        }
    }
    0.0
}

/// Sets the nice value of the host's `trace-index` thread (waiting for it to start), as
/// earlier versions did themselves (nice 10).
fn renice_indexer(pid: u32, nice: i32) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if comm.trim() == "trace-index" {
                let tid: libc::id_t = task.file_name().to_string_lossy().parse().unwrap();
                // SAFETY: a plain syscall on a thread of our own child.
                unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, nice) };
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// (written, indexed) samples with their time since the sampler started.
type Samples = Arc<Mutex<Vec<(Instant, u64, u64)>>>;

fn sample(traces: PathBuf, stop: Arc<AtomicBool>, into: Samples) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut db = None;
        while !stop.load(Ordering::Relaxed) {
            if db.is_none() {
                db = open_index(&traces);
            }
            let (written, indexed) = (written_seq(&traces), indexed_seq(&db));
            into.lock()
                .unwrap()
                .push((Instant::now(), written, indexed));
            std::thread::sleep(Duration::from_millis(5));
        }
    })
}

/// The sample nearest to `at`.
fn at(samples: &[(Instant, u64, u64)], at: Instant) -> (u64, u64) {
    let s = samples
        .iter()
        .min_by_key(|(t, _, _)| if *t > at { *t - at } else { at - *t })
        .expect("the sampler ran");
    (s.1, s.2)
}

/// The next reply, passing over notifications (`tools/list_changed` when latency tiers move).
fn reply(host: &mut spawn::Spawned) -> Value {
    loop {
        let message = host.recv();
        if message.get("id").is_some() {
            return message;
        }
    }
}

fn request(id: usize, method: &str, params: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn start(binary: &str, traces: &Path) -> spawn::Spawned {
    let args = ["--mcp-stdio", "--manual-clock", "--log-level", "warn"];
    spawn::limina_at(binary, &args, Some(traces), None)
}

/// (first, p50, p95) in ms of `QUERIES` `audit.query` calls, one at a time, alternating a
/// narrow and a broad one.
fn queries(host: &mut spawn::Spawned, id: &mut usize) -> (f64, f64, f64) {
    let cases = [
        json!({"decision": "deny", "limit": 5}),
        json!({"cap": "scene.queryEntities", "limit": 20}),
    ];
    let mut times: Vec<f64> = (0..QUERIES)
        .map(|i| {
            *id += 1;
            let params = json!({"name": "audit.query", "arguments": cases[i % 2]});
            let t = Instant::now();
            host.send(&request(*id, "tools/call", &params));
            let reply = reply(host);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
            ms
        })
        .collect();
    let first = times[0];
    times.sort_by(f64::total_cmp);
    (first, times[QUERIES / 2], times[QUERIES * 95 / 100])
}

/// Threads that keep `n` cores busy at normal priority until dropped: other processes sharing
/// the machine, as the measurements had them.
struct Busy {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start(n: usize) -> Busy {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .map(|i| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = i as u64 + 1;
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..10_000 {
                            x = std::hint::black_box(
                                x.wrapping_mul(6364136223846793005).wrapping_add(1),
                            );
                        }
                    }
                })
            })
            .collect();
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// One round on a fresh trace folder: burst, queries, kill, restart, queries, catch-up; with
/// `busy` cores kept busy from the burst to the last query.
fn round(binary: &str, calls: usize, busy: usize, nice: Option<i32>) -> Round {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path();
    let mut host = start(binary, traces);
    let mut id = 0;
    host.send(&request(
        id,
        "initialize",
        &json!({"profile": "builder.readWrite", "agentId": "bench"}),
    ));
    host.recv();
    let stop = Arc::new(AtomicBool::new(false));
    let samples: Samples = Arc::default();
    let sampler = sample(traces.to_path_buf(), stop.clone(), samples.clone());
    std::thread::sleep(Duration::from_millis(50));

    let params =
        json!({"name": "scene.queryEntities", "arguments": {"near": [0, 0, 0], "radius": 1}});
    let payload: String = (0..calls)
        .map(|i| request(id + 1 + i, "tools/call", &params) + "\n")
        .collect();
    id += calls;
    let mut stdin = host.stdin.take().unwrap();
    if let Some(nice) = nice {
        renice_indexer(host.child.id(), nice);
    }
    let cpu_before = indexer_cpu_s(host.child.id());
    let others = Busy::start(busy);
    let t0 = Instant::now();
    let writer = std::thread::spawn(move || {
        stdin.write_all(payload.as_bytes()).unwrap();
        stdin.flush().unwrap();
        stdin
    });
    for _ in 0..calls {
        reply(&mut host);
    }
    let t1 = Instant::now();
    host.stdin = Some(writer.join().unwrap());
    let after_burst = queries(&mut host, &mut id);
    let cpu = indexer_cpu_s(host.child.id()) - cpu_before;
    std::thread::sleep(Duration::from_millis(10));
    let (written_start, indexed_start) = at(&samples.lock().unwrap(), t0);
    let (written_end, indexed_end) = at(&samples.lock().unwrap(), t1);
    let indexed_kill = indexed_seq(&open_index(traces));
    drop(host); // SIGKILL: the restart finds the index where the burst left it.

    let t = Instant::now();
    let mut host = start(binary, traces);
    host.send(&request(0, "tools/list", &json!({})));
    reply(&mut host);
    let first_list_ms = t.elapsed().as_secs_f64() * 1e3;
    host.send(&request(
        0,
        "initialize",
        &json!({"profile": "builder.readWrite", "agentId": "bench"}),
    ));
    host.recv();
    if let Some(nice) = nice {
        renice_indexer(host.child.id(), nice);
    }
    let after_restart = queries(&mut host, &mut id);
    drop(others);
    let written = written_seq(traces);
    let db = open_index(traces);
    while indexed_seq(&db) < written && t.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let catch_up_s = t.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let burst_s = (t1 - t0).as_secs_f64();
    Round {
        writer_per_s: (written_end - written_start) as f64 / burst_s,
        indexer_per_s: (indexed_end - indexed_start) as f64 / burst_s,
        lag_at_end: written_end.saturating_sub(indexed_end) as f64,
        after_burst,
        after_restart,
        indexer_cpu_us: cpu * 1e6 / indexed_kill.saturating_sub(indexed_start).max(1) as f64,
        first_list_ms,
        catch_up_s,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the burst rounds for this build (and the baseline, if given) on a quiet machine and
/// with both cores kept busy by other threads, and prints the medians.
pub fn run(calls: usize) {
    for busy in [0, 2] {
        run_with(calls, busy);
    }
}

fn run_with(calls: usize, busy: usize) {
    // `LIMINA_BENCH_THIS` names another binary to measure as this build (say, a release build
    // with whole-program LTO, as shipped, beside an LTO baseline).
    let this = std::env::var("LIMINA_BENCH_THIS")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_limina").to_string());
    let mut builds = vec![("this build".to_string(), this.clone(), None)];
    if busy > 0 {
        // The same binary with its indexer at nice 10, as earlier versions ran it.
        builds.push(("indexer at nice 10".into(), this, Some(10)));
    }
    if let Ok(baseline) = std::env::var("LIMINA_BASELINE") {
        builds.push(("baseline".into(), baseline, None));
    }
    let mut rounds: Vec<Vec<Round>> = vec![Vec::new(); builds.len()];
    for n in 0..ROUNDS {
        for k in 0..builds.len() {
            let i = (k + n) % builds.len();
            let r = round(&builds[i].1, calls, busy, builds[i].2);
            eprintln!(
                "  round {r_no} {}: writer {:.0}/s, indexer {:.0}/s, lag {:.0}, query after burst \
                 first {:.1} ms p95 {:.1} ms, after restart first {:.1} ms p95 {:.1} ms",
                builds[i].0,
                r.writer_per_s,
                r.indexer_per_s,
                r.lag_at_end,
                r.after_burst.0,
                r.after_burst.2,
                r.after_restart.0,
                r.after_restart.2,
                r_no = n + 1
            );
            rounds[i].push(r);
        }
    }
    println!(
        "burst: {calls} pipelined scene.queryEntities on a fresh trace, audit.query right after \
         and after a kill and restart ({QUERIES} each), {busy} other threads spinning; medians of \
         {ROUNDS} alternating rounds"
    );
    type Figure = (&'static str, fn(&Round) -> f64, &'static str);
    let figures: [Figure; 11] = [
        ("writer events/s", |r| r.writer_per_s, ""),
        ("indexer events/s during the burst", |r| r.indexer_per_s, ""),
        ("index lag at the last reply (events)", |r| r.lag_at_end, ""),
        ("trace-index CPU per event", |r| r.indexer_cpu_us, "µs"),
        (
            "audit.query after the burst: first",
            |r| r.after_burst.0,
            "ms",
        ),
        (
            "audit.query after the burst: p50",
            |r| r.after_burst.1,
            "ms",
        ),
        (
            "audit.query after the burst: p95",
            |r| r.after_burst.2,
            "ms",
        ),
        (
            "spawn to first tools/list on the history",
            |r| r.first_list_ms,
            "ms",
        ),
        (
            "audit.query after the restart: first",
            |r| r.after_restart.0,
            "ms",
        ),
        (
            "audit.query after the restart: p95",
            |r| r.after_restart.2,
            "ms",
        ),
        ("restart to index caught up", |r| r.catch_up_s, "s"),
    ];
    for (label, get, unit) in figures {
        let values: Vec<f64> = rounds
            .iter()
            .map(|rs| median(rs.iter().map(get).collect()))
            .collect();
        let mut line = format!("  {label:<42} {:>10.2} {unit}", values[0]);
        for ((name, _, _), other) in builds.iter().zip(&values).skip(1) {
            line.push_str(&format!(
                "   {name} {other:.2} {unit} ({:.2}x)",
                values[0] / other
            ));
        }
        println!("{line}");
    }
}
