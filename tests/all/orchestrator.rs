//! The orchestrator's contract, on a real host over HTTP: `/healthz` follows the engine loop
//! itself (a call holding the engine past the stall limit turns it 503, and it recovers);
//! `/readyz` turns 503 while draining. SIGTERM stops admitting (a new call gets -32000), lets
//! the call in flight finish, checkpoints and exits 0; a second SIGTERM or the end of
//! `--drain-ms` cuts the drain short, saying how many calls were abandoned, and still exits 0
//! with a checkpoint. The trace folder's lock names its holder's process and host name, and a
//! second host is refused naming a holder on another machine (one on this machine is joined).

use crate::http_client::{HttpHost, Reply};
use crate::support::{package_dir, repo};
use limina::limits::ENGINE_STALL_MS;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A host over HTTP with its log kept for the test.
struct Host {
    child: Child,
    http: HttpHost,
    log: Arc<Mutex<Vec<String>>>,
    traces: tempfile::TempDir,
    _packages: tempfile::TempDir,
    _config: tempfile::TempDir,
}

impl Host {
    /// Serves the `spin` guest from `manifest` with `config`, and `args`.
    fn start(manifest: &Path, config: &str, args: &[&str]) -> Host {
        let packages = package_dir(manifest, &repo().join("target/components/spin.wasm"));
        let config_dir = tempfile::tempdir().unwrap();
        let config_file = config_dir.path().join("host.toml");
        std::fs::write(&config_file, config).unwrap();
        let traces = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
            .args([
                "--mcp-http",
                "--port",
                "0",
                "--profile",
                "builder.readWrite",
            ])
            .arg("--packages")
            .arg(packages.path())
            .arg("--config")
            .arg(&config_file)
            .arg("--trace-dir")
            .arg(traces.path())
            .args(args)
            .env("LIMINA_NET_LOOPBACK_ONLY", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{line}");
                if let Some(at) = line.find("http://") {
                    let _ = tx.send(line[at + 7..].trim().trim_end_matches("/mcp").to_string());
                }
                kept.lock().unwrap().push(line);
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(180))
            .expect("the host's address");
        let host = Host {
            child,
            http: HttpHost::attach(addr),
            log,
            traces,
            _packages: packages,
            _config: config_dir,
        };
        // The listener is bound a moment before the engine's first turn; until that turn
        // `/readyz` rightly says "starting" (what an orchestrator's readiness probe waits out).
        let started = Instant::now();
        while host.get("/readyz").status != 200 {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "/readyz never turned 200: {}",
                host.get("/readyz").body
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        host
    }

    fn signal(&self, signal: i32) {
        // SAFETY: signals our own child, still running.
        assert_eq!(
            unsafe { libc::kill(self.child.id() as libc::pid_t, signal) },
            0
        );
    }

    fn get(&self, path: &str) -> Reply {
        self.http.send("GET", path, &[], "")
    }

    /// Waits for the host to exit; its exit code and how long that took.
    fn exit(&mut self, limit: Duration) -> (Option<i32>, Duration) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status.code(), started.elapsed());
            }
            assert!(
                started.elapsed() < limit,
                "the host did not exit within {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn logged(&self, text: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(text))
    }

    fn checkpoints(&self) -> usize {
        std::fs::read_dir(self.traces.path().join("world"))
            .map(|d| {
                d.filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_string_lossy()
                        .starts_with("checkpoint-")
                })
                .count()
            })
            .unwrap_or(0)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        // Our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// `spin.forever` running for `ms` off the engine (its own manifest declares nothing that
/// reaches the world), stopped by its time limit.
fn off_engine(ms: u64) -> Host {
    Host::start(
        &repo().join("tests/guests/spin"),
        &format!("[packages.spin]\nfuelPerCall = 400_000_000_000\ntimeoutMs = {ms}\n"),
        &[],
    )
}

/// Starts `spin.forever` in a thread: its reply when it comes back.
fn forever(host: &Host, session: &str) -> std::thread::JoinHandle<Reply> {
    let http = HttpHost::attach(host.http.addr.clone());
    let session = session.to_string();
    std::thread::spawn(move || http.post(Some(&session), &call(2, "spin.forever", json!({}))))
}

#[test]
fn healthz_turns_unhealthy_while_a_call_holds_the_engine_and_recovers_after() {
    // The hostile manifest declares a world capability, so its calls run on the engine; the
    // configuration lets one hold it for 5 s.
    let host = Host::start(
        &repo().join("tests/all/engine_stall/spin"),
        "[limits]\nengineCallMs = 6000\n",
        &[],
    );
    assert_eq!(host.get("/healthz").status, 200);
    assert_eq!(host.get("/readyz").status, 200);
    let session = host.http.session("builder.readWrite");
    let started = Instant::now();
    let holding = forever(&host, &session);
    let mut unhealthy = None;
    while started.elapsed() < Duration::from_millis(4_800) {
        let reply = host.get("/healthz");
        if reply.status == 503 {
            unhealthy = Some((started.elapsed(), reply.body));
            break;
        }
        assert_eq!(reply.status, 200, "{}", reply.body);
        std::thread::sleep(Duration::from_millis(50));
    }
    let (after, body) = unhealthy.expect("/healthz turned 503 while the engine was held");
    // The clock starts before the call is sent, after the engine's last turn; that turn may be
    // a little older than `started`, so the stall shows up to one idle wait early.
    assert!(
        after >= Duration::from_millis(ENGINE_STALL_MS - 250),
        "{after:?}"
    );
    assert!(
        body.contains("the engine loop has not turned for"),
        "{body}"
    );
    assert_eq!(host.get("/readyz").status, 503);
    let reply = holding.join().unwrap();
    assert!(reply.body.contains("isError"), "{}", reply.body);
    let recovered = Instant::now();
    while host.get("/healthz").status != 200 {
        assert!(
            recovered.elapsed() < Duration::from_secs(5),
            "/healthz did not recover"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(host.get("/readyz").status, 200);
}

#[test]
fn sigterm_refuses_new_calls_lets_the_one_in_flight_finish_checkpoints_and_exits_zero() {
    let mut host = off_engine(1_500);
    let session = host.http.session("builder.readWrite");
    let in_flight = forever(&host, &session);
    std::thread::sleep(Duration::from_millis(300));
    host.signal(libc::SIGTERM);
    let started = Instant::now();
    while !host.logged("stopping: admitting no new calls") {
        assert!(started.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(host.logged("1 calls in flight get up to 10000 ms"));
    let ready = host.get("/readyz");
    assert_eq!(ready.status, 503);
    assert!(ready.body.contains("draining"), "{}", ready.body);
    assert_eq!(
        host.get("/healthz").status,
        200,
        "draining is not unhealthy"
    );
    let refused = host
        .http
        .post(
            Some(&session),
            &call(
                3,
                "scene.queryEntities",
                json!({"near": [0, 0, 0], "radius": 5}),
            ),
        )
        .json();
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("shutting down")
    );
    // The call in flight comes back (cut by its own time limit), then the host stops cleanly.
    let finished = in_flight.join().unwrap();
    assert_eq!(finished.status, 200, "{}", finished.body);
    let (code, _) = host.exit(Duration::from_secs(20));
    assert_eq!(code, Some(0));
    assert!(host.logged("drained in"));
    assert_eq!(host.checkpoints(), 1);
}

#[test]
fn a_second_sigterm_cuts_the_drain_short_saying_so_and_still_checkpoints() {
    let mut host = off_engine(30_000);
    let session = host.http.session("builder.readWrite");
    let _in_flight = forever(&host, &session);
    std::thread::sleep(Duration::from_millis(300));
    host.signal(libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(300));
    host.signal(libc::SIGTERM);
    let (code, took) = host.exit(Duration::from_secs(20));
    assert_eq!(code, Some(0));
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(host.logged("a second termination signal cut the drain short"));
    assert!(host.logged("1 calls in flight are abandoned"));
    assert_eq!(host.checkpoints(), 1);
}

#[test]
fn the_end_of_the_drain_period_cuts_the_drain_short_saying_so() {
    let mut host = Host::start(
        &repo().join("tests/guests/spin"),
        "[packages.spin]\nfuelPerCall = 400_000_000_000\ntimeoutMs = 30000\n",
        &["--drain-ms", "400"],
    );
    let session = host.http.session("builder.readWrite");
    let _in_flight = forever(&host, &session);
    std::thread::sleep(Duration::from_millis(300));
    host.signal(libc::SIGTERM);
    let (code, took) = host.exit(Duration::from_secs(20));
    assert_eq!(code, Some(0));
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        host.logged("the drain period (--drain-ms, 400 ms) ended with 1 calls in flight"),
        "{:?}",
        host.log.lock().unwrap()
    );
    assert_eq!(host.checkpoints(), 1);
}

#[test]
fn a_second_host_on_the_same_trace_folder_is_told_the_holders_process_and_host_name() {
    // The lock names its holder: its process and this machine.
    let host = off_engine(1_000);
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let lock = std::fs::read_to_string(host.traces.path().join("segments/lock")).unwrap();
    assert_eq!(lock.trim(), format!("{} {}", host.child.id(), name.trim()));
    // On this machine a second host joins that world (tests/all/join.rs); a holder on
    // another machine sharing the volume (a pod's) cannot be joined, and is named.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(elsewhere.path().join("segments")).unwrap();
    let mut held = std::fs::File::create(elsewhere.path().join("segments/lock")).unwrap();
    held.lock().unwrap();
    std::io::Write::write_all(&mut held, b"4242 another-node").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(["--mcp-stdio", "--trace-dir"])
        .arg(elsewhere.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("process 4242 on host another-node"), "{log}");
}
