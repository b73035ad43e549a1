//! The trace under faults it cannot write through: the real binary held to a file-size limit
//! (`RLIMIT_FSIZE`, so writes fail with EFBIG as on a full disk, no root needed) and an
//! in-process registry whose trace sits on a disk that fills up. A call that cannot be
//! recorded is refused with `capacity_exceeded` and changes nothing — world, budgets, quotas,
//! the chain; reads go on; writing resumes by itself when room returns; every event a success
//! reply named is on disk and the folder verifies, also after a restart.

use crate::http_client::HttpHost;
use crate::support::{Client, admitted_builder, error_of, in_process_registry, limina, text};
use crate::ws_client::WsHost;
use limina::registry::{Caller, Response};
use limina::trace::disk::faulty::{Faults, FaultyDisk};
use limina::trace::{Durability, Event, Retention, Tracer};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The ids of every event in the segments of `dir`.
fn ids_on_disk(dir: &Path) -> HashSet<String> {
    let mut ids = HashSet::new();
    for entry in std::fs::read_dir(dir.join("segments")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let event: Event = serde_json::from_str(line).unwrap();
            ids.insert(event.id);
        }
    }
    ids
}

/// `limina trace verify dir` passes, and every id in `acked` is on disk.
fn assert_durable(dir: &Path, acked: &[String]) {
    let out = limina(&["trace", "verify", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let on_disk = ids_on_disk(dir);
    for id in acked {
        assert!(
            on_disk.contains(id),
            "acknowledged event {id} is not on disk"
        );
    }
}

fn events_of(result: &Value) -> Vec<String> {
    result["_meta"]["eventsEmitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

fn initialize(c: &mut Client) {
    let reply = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}, "profile": "builder.readWrite", "agentId": "tester"}),
    );
    assert!(reply.get("result").is_some(), "{reply}");
}

/// The soft `RLIMIT_FSIZE` of process `pid` set to `bytes` (the hard limit stays unlimited).
fn set_file_size_limit(pid: u32, bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: a plain syscall on our own child, with a live rlimit.
    let done =
        unsafe { libc::prlimit(pid as i32, libc::RLIMIT_FSIZE, &limit, std::ptr::null_mut()) };
    assert_eq!(done, 0, "prlimit: {}", std::io::Error::last_os_error());
}

fn entity_count(c: &mut Client) -> u64 {
    let snapshot = c.call_ok("inspector.snapshot", json!({}));
    snapshot["resources"]["counts"]["entities"]
        .as_u64()
        .unwrap()
}

/// The host's stderr, kept in a file of its own and printed if the test fails: the file-size
/// limit holds for every file the host writes, its log included, so the log must not be the
/// test runner's (which may already be past the limit).
struct HostLog(tempfile::NamedTempFile);

impl HostLog {
    fn new() -> HostLog {
        HostLog(tempfile::NamedTempFile::new().unwrap())
    }

    fn attach(&self, command: &mut std::process::Command) {
        command.stderr(self.0.reopen().unwrap());
    }
}

impl Drop for HostLog {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.0.path()).unwrap_or_default();
            eprintln!("--- the host's stderr ---\n{log}--- end ---");
        }
    }
}

/// A host with its trace in `dir`, initialized, every file it grows from now on held to 40 KiB.
fn host_on_a_small_disk(dir: &Path) -> (Client, HostLog) {
    let args = ["--trace-dir", dir.to_str().unwrap()];
    let log = HostLog::new();
    // The host ignores SIGXFSZ itself: past the limit its writes fail with EFBIG.
    let mut c = Client::spawn_with(&args, |command| log.attach(command));
    initialize(&mut c);
    // Start-up has written what it writes (the index, the compile cache).
    c.request("ping", json!({}));
    set_file_size_limit(c.pid(), 40 << 10);
    (c, log)
}

#[test]
fn a_host_that_cannot_write_its_trace_refuses_calls_changes_nothing_and_resumes_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--trace-dir", dir.path().to_str().unwrap()];
    let (mut c, _log) = host_on_a_small_disk(dir.path());

    let mut acked = Vec::new();
    let mut made = 0;
    let (code, message) = loop {
        assert!(made < 2_000, "the limit was never reached");
        let result = c.call("scene.createEntity", json!({"position": [made % 50, 0, 0]}));
        if result["isError"] == json!(true) {
            break error_of(&result);
        }
        acked.extend(events_of(&result));
        made += 1;
    };
    assert_eq!(code, "capacity_exceeded");
    assert!(message.contains("the trace cannot be written"), "{message}");
    assert!(message.contains("File too large"), "{message}");
    assert!(message.contains("changed nothing"), "{message}");

    // Reads go on and record nothing; the refused calls changed nothing.
    assert!(c.request("ping", json!({})).get("result").is_some());
    assert!(c.request("tools/list", json!({})).get("result").is_some());
    let usage = c.call_ok("audit.usage", json!({}));
    assert_eq!(entity_count(&mut c), made);
    let refused = c.call("scene.createEntity", json!({"position": [0, 1, 0]}));
    assert_eq!(error_of(&refused).0, "capacity_exceeded");
    assert!(
        events_of(&refused).is_empty(),
        "a refused call names no events"
    );
    assert_eq!(entity_count(&mut c), made, "the world is as it was");
    assert_eq!(
        c.call_ok("audit.usage", json!({})),
        usage,
        "budgets and tallies too"
    );

    // Room returns: the host finds out by itself and takes calls again.
    set_file_size_limit(c.pid(), libc::RLIM_INFINITY);
    let mut tries = 0;
    let result = loop {
        let result = c.call("scene.createEntity", json!({"position": [1, 1, 0]}));
        if result["isError"] == json!(false) {
            break result;
        }
        tries += 1;
        assert!(tries < 200, "never resumed: {result}");
        std::thread::sleep(Duration::from_millis(50));
    };
    acked.extend(events_of(&result));
    assert_eq!(entity_count(&mut c), made + 1);
    assert_eq!(c.close(), Some(0));
    assert_durable(dir.path(), &acked);

    // A restart continues the unbroken chain.
    let mut c = Client::session("builder.readWrite", &args);
    acked.extend(events_of(
        &c.call("scene.createEntity", json!({"position": [2, 2, 0]})),
    ));
    assert_eq!(c.close(), Some(0));
    assert_durable(dir.path(), &acked);
}

/// Reads sent together leave their events for the batch's write; when the disk fills, the
/// replies of those the write dropped are refusals, and every event a success names is on disk.
#[test]
fn pipelined_reads_are_answered_only_once_their_batch_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, _log) = host_on_a_small_disk(dir.path());

    let mut acked = Vec::new();
    let mut refused = 0;
    for burst in 0..400 {
        for i in 0..20 {
            c.send_line(
                &json!({"jsonrpc": "2.0", "id": format!("q{burst}-{i}"), "method": "tools/call",
                    "params": {"name": "scene.queryEntities", "arguments": {}}})
                .to_string(),
            );
        }
        for i in 0..20 {
            let reply = c.read();
            assert_eq!(
                reply["id"],
                json!(format!("q{burst}-{i}")),
                "in order: {reply}"
            );
            let result = &reply["result"];
            if result["isError"] == json!(true) {
                let (code, message) = error_of(result);
                assert_eq!(code, "capacity_exceeded");
                assert!(message.contains("the trace cannot be written"), "{message}");
                assert!(message.contains("changed nothing"), "{message}");
                assert!(
                    events_of(result).is_empty(),
                    "a refused call names no events"
                );
                refused += 1;
            } else {
                assert_eq!(refused, 0, "no success after the trace stopped: {reply}");
                acked.extend(events_of(result));
            }
        }
        if refused > 0 {
            break;
        }
    }
    assert!(refused > 0, "the limit was never reached");
    assert!(!acked.is_empty());
    set_file_size_limit(c.pid(), libc::RLIM_INFINITY);
    assert_eq!(c.close(), Some(0));
    assert_durable(dir.path(), &acked);
}

/// A log line that cannot be written is dropped, not fatal: a host whose stderr is on a full
/// disk (here `/dev/full`, where every write fails with ENOSPC) starts, serves, records and
/// exits cleanly. Before, the first such line panicked the host, which is how the outage test
/// above lost its host whenever the test runner's stderr was a file past the size limit.
#[test]
fn a_host_whose_log_cannot_be_written_keeps_serving() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut c = Client::spawn_with(&["--log-level", "debug"], |command| {
        command.stderr(full);
    });
    initialize(&mut c);
    assert!(c.request("ping", json!({})).get("result").is_some());
    let made = c.call("scene.createEntity", json!({"position": [0, 0, 0]}));
    assert_eq!(made["isError"], json!(false), "{made}");
    let acked = events_of(&made);
    assert!(!acked.is_empty(), "{made}");
    assert_eq!(entity_count(&mut c), 1);
    let traces = c.traces.take().unwrap();
    assert_eq!(c.close(), Some(0));
    assert_durable(traces.path(), &acked);
}

/// A second host that would open its own listener on a served trace folder joins it (its
/// listener in front of the first, `tests/all/join_network.rs`) and says whom it joined; one
/// that cannot (`--fresh-world`) exits naming the folder and the first host, and how to get a
/// world of its own.
#[test]
fn a_second_host_that_would_listen_on_a_served_trace_folder_joins_it_naming_the_folder_and_the_first_host()
 {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--trace-dir", dir.path().to_str().unwrap()];
    let first = Client::session("builder.readWrite", &args);
    let mut second = std::process::Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(["--mcp-ws", "--port", "0", "--manual-clock"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(second.stderr.take().unwrap());
    let joined = std::io::BufRead::lines(stderr)
        .map_while(Result::ok)
        .find(|l| l.contains("joined the limina host serving"))
        .expect("the second host says whom it joined");
    assert!(
        joined.contains(&dir.path().display().to_string()),
        "{joined}"
    );
    assert!(joined.contains(&format!("pid {}", first.pid())), "{joined}");
    let _ = second.kill();
    let _ = second.wait();

    let out = limina(&[
        "--mcp-ws",
        "--port",
        "0",
        "--fresh-world",
        "--trace-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains(&dir.path().display().to_string()), "{err}");
    assert!(err.contains(&format!("pid {}", first.pid())), "{err}");
    assert!(err.contains("--trace-dir"), "{err}");
    assert!(out.stdout.is_empty());

    // Told to, it runs beside the first with its trace in memory only.
    let mut other = Client::session("builder.readWrite", &["--ephemeral-trace"]);
    other.call_ok("scene.createEntity", json!({"position": [0, 0, 0]}));
    assert_eq!(other.close(), Some(0));
    assert_eq!(first.close(), Some(0));
}

/// A registry with the scene package, a quota on `scene.createEntity`, and its trace in
/// `dir` on a disk with `faults`.
fn faulty_host(dir: &Path, faults: &Arc<Faults>) -> (limina::registry::Registry, Caller) {
    let mut registry = in_process_registry(&["scene"]);
    registry.realm_mut().tracer = Tracer::open_on(
        dir,
        64,
        Retention::default(),
        Durability::default(),
        Arc::new(FaultyDisk(faults.clone())),
        false,
    )
    .unwrap();
    let caller = admitted_builder(&mut registry);
    (registry, caller)
}

fn tallies_of(
    registry: &limina::registry::Registry,
) -> Vec<(String, String, limina::policy::Tally)> {
    registry
        .policy()
        .tallies(Some("s1"))
        .into_iter()
        .map(|(s, c, t)| (s.to_string(), c.to_string(), t))
        .collect()
}

/// What a refused call must leave as it found it: world, tallies, budget and chain.
#[derive(Debug, PartialEq)]
struct Untouched {
    entities: usize,
    tallies: Vec<(String, String, limina::policy::Tally)>,
    used: limina::policy::BudgetUsage,
    events: u64,
}

fn untouched(registry: &limina::registry::Registry) -> Untouched {
    Untouched {
        entities: registry.realm().world.entity_count(),
        tallies: tallies_of(registry),
        used: registry.policy().session_states(Some("s1"))[0].2.used,
        events: registry.realm().tracer.count(),
    }
}

fn ok(response: &Response) -> Vec<String> {
    assert!(response.success, "{:?}", response.error);
    response.metadata.events_emitted.clone()
}

#[test]
fn a_call_whose_record_fails_mid_write_is_undone_world_budget_and_chain() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 20);
    let (mut registry, caller) = faulty_host(dir.path(), &faults);
    let mut acked = ok(&registry.invoke(
        &caller,
        "scene.createEntity",
        json!({"position": [0, 0, 0]}),
    ));
    let before = untouched(&registry);

    // Room for part of the call's first line: the write tears, and is cut off.
    faults.set_room(100);
    let refused = registry.invoke(
        &caller,
        "scene.createEntity",
        json!({"position": [1, 0, 0]}),
    );
    let failure = refused.error.expect("refused");
    assert_eq!(failure.code.as_str(), "capacity_exceeded");
    assert!(
        failure.message.contains("No space left on device"),
        "{}",
        failure.message
    );
    assert!(refused.metadata.events_emitted.is_empty());
    assert_eq!(untouched(&registry), before);

    // Space returns: the next try goes through.
    faults.set_room(1 << 20);
    registry.realm_mut().tracer.retry_now();
    acked.extend(ok(&registry.invoke(
        &caller,
        "scene.createEntity",
        json!({"position": [2, 0, 0]}),
    )));
    assert_eq!(registry.realm().world.entity_count(), before.entities + 1);
    drop(registry);
    assert_durable(dir.path(), &acked);
}

/// Reads a transport lets leave their events for the batch's write (`deferral.rs`): answered
/// once a later write takes them; when that write fails they are refused after all, with
/// their budget and tallies put back behind those of the call whose write failed.
#[test]
fn reads_whose_events_wait_for_the_batch_are_refused_with_it_and_cost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 20);
    let (mut registry, caller) = faulty_host(dir.path(), &faults);
    let read = |registry: &mut limina::registry::Registry| {
        registry.allow_deferral(true);
        let response = registry.invoke(&caller, "scene.queryEntities", json!({}));
        (ok(&response), registry.take_deferred())
    };
    let mut acked = ok(&registry.invoke(
        &caller,
        "scene.createEntity",
        json!({"position": [0, 0, 0]}),
    ));

    // Two reads wait; a flush (the end of the batch) writes them and refuses none.
    let (events, first) = read(&mut registry);
    let (more, second) = read(&mut registry);
    assert!(first.is_some() && second.is_some(), "reads are deferred");
    assert!(ids_on_disk(dir.path()).is_disjoint(&events.iter().cloned().collect()));
    registry.realm_mut().tracer.flush().unwrap();
    registry.settle_deferred();
    assert!(registry.take_refused().0.is_empty());
    acked.extend(events);
    acked.extend(more);
    assert_durable(dir.path(), &acked);

    // Not asked for, or a call that changes the world: written at once, as before.
    let plain = ok(&registry.invoke(&caller, "scene.queryEntities", json!({})));
    assert_eq!(registry.take_deferred(), None);
    assert!(ids_on_disk(dir.path()).is_superset(&plain.iter().cloned().collect()));
    registry.allow_deferral(true);
    acked.extend(ok(&registry.invoke(
        &caller,
        "scene.createEntity",
        json!({"position": [1, 0, 0]}),
    )));
    assert_eq!(
        registry.take_deferred(),
        None,
        "a world change is never deferred"
    );
    acked.extend(plain);
    assert_durable(dir.path(), &acked);

    // Two reads wait, then a world call's write fails: all three are refused and cost nothing.
    let before = untouched(&registry);
    let (_, first) = read(&mut registry);
    let (_, second) = read(&mut registry);
    assert_ne!(
        tallies_of(&registry),
        before.tallies,
        "the reads were counted"
    );
    faults.set_room(100);
    let refused = registry.invoke(
        &caller,
        "scene.createEntity",
        json!({"position": [2, 0, 0]}),
    );
    assert_eq!(
        refused.error.expect("refused").code.as_str(),
        "capacity_exceeded"
    );
    let (lost, failure) = registry.take_refused();
    assert_eq!(lost, vec![second.unwrap(), first.unwrap()]);
    assert_eq!(failure.code.as_str(), "capacity_exceeded");
    assert!(
        failure.message.contains("No space left on device")
            && failure.message.contains("changed nothing"),
        "{}",
        failure.message
    );
    assert_eq!(untouched(&registry), before);

    // A read left waiting when the batch's own write fails is refused the same way.
    faults.set_room(1 << 20);
    registry.realm_mut().tracer.retry_now();
    let (_, third) = read(&mut registry);
    faults.set_room(10);
    assert!(registry.realm_mut().tracer.flush().is_err());
    registry.settle_deferred();
    assert_eq!(registry.take_refused().0, vec![third.unwrap()]);
    assert_eq!(
        untouched(&registry),
        before,
        "after the batch's own write failed"
    );
    drop(registry);
    assert_durable(dir.path(), &acked);
}

#[test]
fn readyz_says_not_ready_with_the_cause_while_the_trace_cannot_be_written() {
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let session = host.session("builder.readWrite");
    assert_eq!(host.send("GET", "/readyz", &[], "").status, 200);
    set_file_size_limit(host.pid(), 40 << 10);
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "scene.createEntity", "arguments": {"position": [1, 0, 0]}}})
    };
    let mut id = 10;
    loop {
        assert!(id < 2_000, "the limit was never reached");
        let reply = host.post(Some(&session), &call(id)).json();
        if reply["result"]["isError"] == json!(true) {
            break;
        }
        id += 1;
    }
    let ready = host.send("GET", "/readyz", &[], "");
    assert_eq!(ready.status, 503);
    assert!(
        ready
            .body
            .contains("not ready: the trace cannot be written"),
        "{}",
        ready.body
    );
    assert!(ready.body.contains("File too large"), "{}", ready.body);
    assert_eq!(
        host.send("GET", "/healthz", &[], "").status,
        200,
        "alive all the same"
    );
    let ping = host.post(
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert!(ping.json().get("result").is_some());

    // Room returns: ready again without a single call.
    set_file_size_limit(host.pid(), libc::RLIM_INFINITY);
    let mut tries = 0;
    while host.send("GET", "/readyz", &[], "").status != 200 {
        tries += 1;
        assert!(tries < 200, "never ready again");
        std::thread::sleep(Duration::from_millis(50));
    }
    let reply = host.post(Some(&session), &call(id + 1)).json();
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
}

#[test]
fn with_fsync_always_every_event_a_reply_names_is_in_its_segment_when_the_reply_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(&config, "[trace]\nfsync = \"always\"\n").unwrap();
    let traces = dir.path().join("traces");
    let host = WsHost::start(&[
        "--profile",
        "builder.readWrite",
        "--config",
        config.to_str().unwrap(),
        "--trace-dir",
        traces.to_str().unwrap(),
    ]);
    let mut c = host.client("builder.readWrite", "writer");
    // Sent together: one batch, one sync, then every reply.
    let ids: Vec<u64> = (0..20)
        .map(|i| {
            c.send_request(
                "tools/call",
                json!({"name": "scene.createEntity", "arguments": {"position": [i, 0, 0]}}),
            )
        })
        .collect();
    let mut acked = Vec::new();
    for id in ids {
        let reply = c.reply_to(id);
        let named = events_of(&reply["result"]);
        assert!(!named.is_empty(), "{reply}");
        let on_disk = ids_on_disk(&traces);
        for event in &named {
            assert!(
                on_disk.contains(event),
                "{event} was named before it was written"
            );
        }
        acked.extend(named);
    }
    drop(c);
    drop(host);
    assert_durable(&traces, &acked);
}

/// A registry serving `tests/guests/stash` (state granted) to a `keeper`, its state in
/// `state_dir/state.sqlite` and its trace in `dir` on a disk with `faults`.
fn stash_host(
    dir: &Path,
    state_dir: &Path,
    faults: &Arc<Faults>,
) -> (limina::registry::Registry, Caller, tempfile::TempDir) {
    use limina::sandbox::{CompileCache, Sandbox};
    let config = limina::config::Config::parse(
        r#"
[profiles.keeper]
permissions = ["scene.read", "state.read", "state.write"]

[packages.stash.grants]
state = { keys = 4, bytes = 256 }
"#,
    )
    .unwrap();
    let permissions = config.policy.profiles.get("keeper").unwrap().permissions;
    let realm = limina::realm::Realm {
        world: limina::world::World::new(limina::world::WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: Tracer::open_on(
            dir,
            64,
            Retention::default(),
            Durability::default(),
            Arc::new(FaultyDisk(faults.clone())),
            false,
        )
        .unwrap(),
        rng: limina::realm::Rng::seeded(7),
        state: limina::state::StateStore::open(&state_dir.join("state.sqlite")).unwrap(),
    };
    let sandbox = Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap();
    let mut registry = limina::registry::Registry::new(sandbox, config.policy, realm);
    registry.set_host_grants(config.grants);
    let packages = crate::support::package_dir(
        &crate::support::repo().join("tests/guests/stash"),
        &crate::support::repo().join("target/components/stash.wasm"),
    );
    let source = limina::packages::PackageSource::read(&packages.path().join("stash")).unwrap();
    registry.load(source).unwrap();
    let caller = Caller {
        agent_id: "keeper".into(),
        session_id: "s1".into(),
        profile: "keeper".into(),
        permissions,
    };
    registry.admit_session(&caller).unwrap();
    (registry, caller, packages)
}

/// What `state.sqlite` in `state_dir` holds for stash's key `k`, read by a store of its own
/// (what a restarted host would find).
fn stored(state_dir: &Path) -> Option<String> {
    let mut store = limina::state::StateStore::open(&state_dir.join("state.sqlite")).unwrap();
    store
        .get("stash", None, "k")
        .unwrap()
        .map(|v| String::from_utf8(v).unwrap())
}

#[test]
fn a_call_whose_record_fails_leaves_its_state_write_undone() {
    let dir = tempfile::tempdir().unwrap();
    let state_dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 20);
    let (mut registry, caller, _packages) = stash_host(dir.path(), state_dir.path(), &faults);
    let put = |value: &str| json!({"key": "k", "value": value, "then": "ok"});
    let mut acked = ok(&registry.invoke(&caller, "stash.put", put("one")));
    assert_eq!(stored(state_dir.path()).as_deref(), Some("one"));
    let events = registry.realm().tracer.count();
    let used = registry.policy().session_states(Some("s1"))[0].2.used;

    // The trace's disk fills while the call's record is written: the call wrote its state
    // (every SQLite write done), yet it is refused, so that write must not stay.
    faults.set_room(100);
    let refused = registry.invoke(&caller, "stash.put", put("two"));
    let failure = refused.error.expect("refused");
    assert_eq!(failure.code.as_str(), "capacity_exceeded");
    assert!(
        failure.message.contains("changed nothing"),
        "{}",
        failure.message
    );
    assert!(refused.metadata.events_emitted.is_empty());
    assert_eq!(stored(state_dir.path()).as_deref(), Some("one"), "on disk");
    assert_eq!(registry.realm().tracer.count(), events, "chain");
    assert_eq!(
        registry.policy().session_states(Some("s1"))[0].2.used,
        used,
        "budget"
    );
    let usage = registry
        .realm_mut()
        .state
        .usage("stash")
        .expect("usage reads");
    assert_eq!(usage.keys, 1, "{usage:?}");
    assert_eq!(usage.bytes, 4, "`k` and `one`: {usage:?}");

    // Room returns: the host's own view agrees, and the next write is kept.
    faults.set_room(1 << 20);
    registry.realm_mut().tracer.retry_now();
    let got = registry.invoke(&caller, "stash.get", json!({"key": "k"}));
    assert_eq!(got.result.as_ref().unwrap()["value"], json!("one"));
    acked.extend(ok(&got));
    acked.extend(ok(&registry.invoke(&caller, "stash.put", put("three"))));
    assert_eq!(stored(state_dir.path()).as_deref(), Some("three"));
    drop(registry);
    assert_durable(dir.path(), &acked);
}
