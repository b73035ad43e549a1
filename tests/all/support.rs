//! Test support: spawn the real `limina` binary and speak JSON-RPC over its stdio.
// Shared by several test binaries, each of which uses only part of it.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// How long any single reply may take before the test fails instead of hanging. Generous:
/// a first call may wait for an 18 MB Python component to compile, which takes over a minute
/// on a loaded two-core machine with a cold cache.
const REPLY_TIMEOUT: Duration = Duration::from_secs(180);

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A running `limina --mcp-stdio`.
pub struct Client {
    /// This host's own trace folder (unless the test chose one).
    pub traces: Option<tempfile::TempDir>,
    /// The serving host this client's process joined (`through_a_joined_process` tests).
    server: Option<Server>,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// The host's stderr lines, when kept.
    stderr: Option<Receiver<String>>,
    next_id: u64,
    /// Notifications that arrived while waiting for replies, oldest first.
    pub notifications: Vec<Value>,
}

impl Client {
    /// Spawns `limina --mcp-stdio --manual-clock` with extra arguments.
    pub fn spawn(args: &[&str]) -> Client {
        Client::spawn_with(args, |_| {})
    }

    /// [`Client::spawn`], with the command prepared further by `prepare` (limits, environment).
    /// A test of the `join::through_a_joined_process` module (the stdio tests run again) gets
    /// its client behind a joined process: a serving host is started on the same folder with
    /// the same flags first, and this client's process joins it.
    pub fn spawn_with(args: &[&str], prepare: impl FnOnce(&mut Command)) -> Client {
        let own_trace = !args.contains(&"--trace-dir") && !args.contains(&"--ephemeral-trace");
        let traces = own_trace.then(|| tempfile::tempdir().unwrap());
        let joined = std::thread::current()
            .name()
            .is_some_and(|n| n.contains("through_a_joined_process"))
            && !args.contains(&"--ephemeral-trace");
        let mut trace_args: Vec<String> = Vec::new();
        if let Some(dir) = &traces {
            trace_args = vec!["--trace-dir".into(), dir.path().display().to_string()];
        }
        let server = joined.then(|| {
            let dir = match &traces {
                Some(dir) => dir.path().to_path_buf(),
                None => {
                    let at = args.iter().position(|a| *a == "--trace-dir").unwrap();
                    PathBuf::from(args[at + 1])
                }
            };
            let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            all.extend(trace_args.iter().cloned());
            Server::start(&dir, &all)
        });
        let mut command = Command::new(env!("CARGO_BIN_EXE_limina"));
        command.arg("--mcp-stdio").arg("--manual-clock").args(args);
        // A host under test that tries to connect anywhere but loopback aborts (net/connect.rs).
        command.env("LIMINA_NET_LOOPBACK_ONLY", "1");
        command.args(&trace_args);
        command.args(own_calibration(args));
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        prepare(&mut command);
        let mut client = Client::start(command);
        client.traces = traces;
        client.server = server;
        client
    }

    /// Spawns `limina --mcp-stdio --manual-clock <args>` with `HOME` at `home` (and no
    /// `XDG_STATE_HOME`), so it takes the default trace folder there as a user's assistant
    /// would; the compiled cache stays the usual one. Its stderr is kept ([`Client::stderr`]).
    pub fn spawn_at_home(home: &Path, args: &[&str]) -> Client {
        let cache = limina::sandbox::CompileCache::default_dir()
            .and_then(|d| d.parent().map(Path::to_path_buf));
        let mut command = Command::new(env!("CARGO_BIN_EXE_limina"));
        command
            .arg("--mcp-stdio")
            .arg("--manual-clock")
            .args(args)
            .args(own_calibration(args))
            .env("LIMINA_NET_LOOPBACK_ONLY", "1")
            .env("HOME", home)
            .env_remove("XDG_STATE_HOME")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cache) = cache {
            command.env("LIMINA_CACHE_DIR", cache);
        }
        let mut client = Client::start(command);
        let stderr = client.child.stderr.take().unwrap();
        let (tx, rx) = channel();
        let pid = client.pid();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                eprintln!("[{pid}] {line}");
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        client.stderr = Some(rx);
        client
    }

    fn start(mut command: Command) -> Client {
        let mut child = command.spawn().expect("spawning limina");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            traces: None,
            server: None,
            stdin: child.stdin.take(),
            child,
            lines: rx,
            stderr: None,
            next_id: 1,
            notifications: Vec::new(),
        }
    }

    /// Waits up to `wait` for a line of the host's stderr holding `text` (clients started
    /// with [`Client::spawn_at_home`]); the lines before it are passed over.
    pub fn stderr_line(&mut self, text: &str, wait: Duration) -> Option<String> {
        let lines = self.stderr.as_ref().expect("stderr is kept");
        let deadline = std::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) if line.contains(text) => return Some(line),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }

    /// Every stderr line the host has written so far.
    pub fn stderr_so_far(&mut self) -> Vec<String> {
        let lines = self.stderr.as_ref().expect("stderr is kept");
        lines.try_iter().collect()
    }

    /// Spawns and initializes a session under `profile`.
    pub fn session(profile: &str, args: &[&str]) -> Client {
        let mut client = Client::spawn(args);
        client.initialize(profile);
        client
    }

    /// Initializes a session of `tester` under `profile` on this connection.
    pub fn initialize(&mut self, profile: &str) {
        self.rebind(profile, "tester");
    }

    /// Re-initializes this connection as a new session of `agent_id` under `profile`: the same
    /// host and world, seen by another caller.
    pub fn rebind(&mut self, profile: &str, agent_id: &str) {
        let reply = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}, "profile": profile, "agentId": agent_id}),
        );
        assert!(reply.get("result").is_some(), "initialize failed: {reply}");
        self.notify("notifications/initialized", json!({}));
    }

    /// Writes one raw line.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes raw bytes as they are, no line break added: a line may be cut anywhere.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the host writes, parsed; fails the test after a timeout.
    pub fn read(&mut self) -> Value {
        match self.lines.recv_timeout(REPLY_TIMEOUT) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("host wrote non-JSON `{line}`: {e}")),
            Err(RecvTimeoutError::Timeout) => panic!("no reply within {REPLY_TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the host closed stdout"),
        }
    }

    /// Whether another line arrives within `wait`.
    pub fn quiet_for(&mut self, wait: Duration) -> bool {
        matches!(
            self.lines.recv_timeout(wait),
            Err(RecvTimeoutError::Timeout)
        )
    }

    /// Sends a request and returns the whole reply message.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        loop {
            let message = self.read();
            if message.get("id").is_none() {
                self.notifications.push(message);
                continue;
            }
            assert_eq!(message["id"], json!(id), "reply out of order: {message}");
            return message;
        }
    }

    /// Waits up to `wait` for a notification named `method` (already received or new).
    pub fn wait_notification(&mut self, method: &str, wait: Duration) -> Option<Value> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            if let Some(i) = self
                .notifications
                .iter()
                .position(|n| n["method"] == method)
            {
                return Some(self.notifications.remove(i));
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self
                    .notifications
                    .push(serde_json::from_str(&line).unwrap()),
                Err(_) => return None,
            }
        }
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send_line(&json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string());
    }

    /// `tools/call`, returning the `result` object (which may be an isError result).
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        reply
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {name} got no result: {reply}"))
    }

    /// `tools/call` that must succeed; returns `structuredContent`.
    pub fn call_ok(&mut self, name: &str, arguments: Value) -> Value {
        let result = self.call(name, arguments);
        assert_eq!(result["isError"], json!(false), "{name} failed: {result}");
        result["structuredContent"].clone()
    }

    /// The host's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends the host `signal` (e.g. SIGTERM) and waits for it to exit; returns its exit code.
    pub fn terminate(mut self, signal: i32) -> Option<i32> {
        // SAFETY: sends a signal to our own child process, which is still waited for.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        self.child.wait().unwrap().code()
    }

    /// Closes stdin, as a client that has sent everything does; replies may still come.
    pub fn close_input(&mut self) {
        drop(self.stdin.take());
    }

    /// Closes stdin and waits for the host to exit; returns its exit status code.
    pub fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().unwrap().code()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A serving host kept running, its stdin open and its stdout read and dropped, for a client
/// process to join; killed when dropped.
pub struct Server {
    child: Child,
    _stdin: ChildStdin,
}

impl Server {
    /// `limina --mcp-stdio --manual-clock <args>` serving the trace folder `dir` (which `args`
    /// name), once its control socket is there.
    pub fn start(dir: &Path, args: &[String]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
            .arg("--mcp-stdio")
            .arg("--manual-clock")
            .args(args)
            .args(own_calibration(&[]))
            .env("LIMINA_NET_LOOPBACK_ONLY", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawning the serving limina");
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            std::io::copy(&mut BufReader::new(stdout), &mut std::io::sink())
        });
        let socket = dir.join("control.sock");
        let deadline = std::time::Instant::now() + REPLY_TIMEOUT;
        while !socket.exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "the serving host never bound {}",
                socket.display()
            );
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the serving host exited at start: {status}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let stdin = child.stdin.take().unwrap();
        Server {
            child,
            _stdin: stdin,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The error code and message of an isError result.
pub fn error_of(result: &Value) -> (String, String) {
    assert_eq!(
        result["isError"],
        json!(true),
        "expected an error: {result}"
    );
    let err = &result["_meta"]["error"];
    (
        err["code"].as_str().unwrap().to_string(),
        err["message"].as_str().unwrap().to_string(),
    )
}

/// A folder holding the named test guests as packages (manifest + component), for
/// `--packages`. The components come from `cargo xtask build-guests`.
pub fn guest_packages(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        let src = repo().join("tests/guests").join(name);
        let component = repo()
            .join("target/components")
            .join(format!("{name}.wasm"));
        assert!(
            component.exists(),
            "{} is missing: build the guests first with `cargo xtask build-guests` (or run `cargo xtask test`)",
            component.display()
        );
        let dest = dir.path().join(name);
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::copy(src.join("limina.toml"), dest.join("limina.toml")).unwrap();
        std::fs::copy(&component, dest.join(format!("{name}.wasm"))).unwrap();
    }
    dir
}

/// A registry in this process with nothing loaded, compiling into `cache` (none: in memory).
pub fn empty_registry(cache: Option<PathBuf>) -> limina::registry::Registry {
    use limina::sandbox::{CompileCache, Sandbox};
    let sandbox = Sandbox::new(CompileCache::new(cache)).unwrap();
    let realm = limina::realm::Realm {
        world: limina::world::World::new(limina::world::WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: limina::trace::Tracer::new(limina::limits::TRACE_WINDOW),
        rng: limina::realm::Rng::seeded(7),
        state: limina::state::StateStore::in_memory(),
    };
    limina::registry::Registry::new(sandbox, limina::policy::PolicyConfig::default(), realm)
}

/// A `builder.readWrite` session (agent `builder`, session `s1`) admitted to `registry`.
pub fn admitted_builder(registry: &mut limina::registry::Registry) -> limina::registry::Caller {
    let caller = limina::registry::Caller {
        agent_id: "builder".into(),
        session_id: "s1".into(),
        profile: "builder.readWrite".into(),
        permissions: limina::policy::Profiles::default()
            .get("builder.readWrite")
            .unwrap()
            .permissions,
    };
    registry.admit_session(&caller).unwrap();
    caller
}

/// A registry in this process with the named core packages loaded (their skills still run as
/// real wasm guests through the whole pipeline), for reading state the wire does not show.
pub fn in_process_registry(core: &[&str]) -> limina::registry::Registry {
    let mut registry = empty_registry(limina::sandbox::CompileCache::default_dir());
    for name in core {
        let source = limina::packages::PackageSource::read(&repo().join("target/core").join(name))
            .expect("build the guests first: cargo xtask build-guests");
        registry.load(source).unwrap();
    }
    registry
}

/// A session serving only the package folder `dir` with `component` as its component (both
/// copied into a fresh folder, so that no other package is compiled).
pub fn package_host(dir: &Path, component: &Path) -> (tempfile::TempDir, Client) {
    let packages = package_dir(dir, component);
    let client = Client::session(
        "builder.readWrite",
        &["--packages", packages.path().to_str().unwrap()],
    );
    (packages, client)
}

/// A fresh folder holding only the package folder `dir` with `component` as its component.
pub fn package_dir(dir: &Path, component: &Path) -> tempfile::TempDir {
    assert!(
        component.is_file(),
        "{} is missing: build the guests first with `cargo xtask build-guests`",
        component.display()
    );
    let name = dir.file_name().unwrap().to_str().unwrap();
    let packages = tempfile::tempdir().unwrap();
    let dest = packages.path().join(name);
    std::fs::create_dir_all(&dest).unwrap();
    std::fs::copy(dir.join("limina.toml"), dest.join("limina.toml")).unwrap();
    std::fs::copy(component, dest.join(format!("{name}.wasm"))).unwrap();
    packages
}

/// Runs `limina <args>` to completion (without bytecode caches written into Python packages).
pub fn limina(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(args)
        .stdin(Stdio::null())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("running limina")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `limina <args>` and insists it succeeds; returns stdout.
pub fn limina_ok(args: &[&str]) -> String {
    let out = limina(args);
    assert!(
        out.status.success(),
        "limina {args:?} failed ({}):\n{}\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The last line a client program printed, as JSON; fails the test when the program failed.
pub fn last_json_line(out: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the client failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().expect("a line of output")).unwrap()
}

/// `--calibration <fresh file>` unless the test chose a cache or a calibration itself: hosts
/// that share the user's compiled cache must not share its calibration (one test's
/// measurements would show up in another's listings).
pub fn own_calibration(args: &[&str]) -> Vec<String> {
    if args
        .iter()
        .any(|a| *a == "--cache-dir" || *a == "--calibration")
    {
        return Vec::new();
    }
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!(
        "limina-test-calibration-{}-{n}.json",
        std::process::id()
    ));
    vec!["--calibration".into(), file.display().to_string()]
}

/// Whether the test runs in a `through_a_joined_listener` module (the WebSocket and HTTP
/// tests run again behind a joined process's listener).
pub fn through_a_joined_listener() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.contains("through_a_joined_listener"))
}

/// A serving host for the socket transports: `limina <transports> --port 0 --manual-clock
/// <args>` with its own trace folder (unless `args` name one) and calibration, stdin and stdout piped. Waits for the
/// log line holding `prefix` (`ws://`, `http://`) and returns the address from it on; the
/// rest of the log is passed through.
///
/// In a `through_a_joined_listener` test the listener is a joined process's: a stdio host
/// serves the trace folder first, with the same flags (returned, to keep), and this process
/// joins it, its listener in front of it.
pub fn serving_host(
    transports: &[&str],
    args: &[&str],
    prefix: &str,
) -> (Child, String, tempfile::TempDir, Option<Server>) {
    let traces = tempfile::tempdir().unwrap();
    let joined = through_a_joined_listener() && !transports.contains(&"--mcp-stdio");
    let server = joined.then(|| {
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let dir = match args.iter().position(|a| *a == "--trace-dir") {
            Some(at) => PathBuf::from(args[at + 1]),
            None => {
                all.extend(["--trace-dir".into(), traces.path().display().to_string()]);
                traces.path().to_path_buf()
            }
        };
        Server::start(&dir, &all)
    });
    let mut command = Command::new(env!("CARGO_BIN_EXE_limina"));
    command
        .args(transports)
        .args(["--port", "0", "--manual-clock"]);
    // Its own trace folder, unless the test gives one.
    if !args.contains(&"--trace-dir") {
        command.arg("--trace-dir").arg(traces.path());
    }
    let mut child = command
        .args(args)
        .args(own_calibration(args))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning limina");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = channel();
    let prefix = prefix.to_string();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            eprintln!("{line}");
            if let Some(at) = line.find(&prefix) {
                let _ = tx.send(line[at..].trim().to_string());
            }
        }
    });
    let address = rx
        .recv_timeout(REPLY_TIMEOUT)
        .expect("the host logs its address");
    (child, address, traces, server)
}

/// A configuration that lets calls run long on the engine (`[limits]` raised), for tests whose
/// guest must still be running when they cancel it or read its progress (the `slow` guest).
pub fn long_calls_config() -> String {
    // Written once per test process: tests run in parallel, and rewriting the file while
    // another test's host reads it handed that host an empty file (so the default limits, and
    // the `slow` package refused at load).
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let path = std::env::temp_dir().join(format!(
            "limina-test-long-calls-{}.toml",
            std::process::id()
        ));
        std::fs::write(
            &path,
            "[limits]\nengineCallMs = 60000\ntimeoutMs = 60000\nfuelPerCall = 1000000000000\n",
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    })
    .clone()
}
