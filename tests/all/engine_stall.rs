//! No package stalls the world. A package that can touch the world runs on the engine, where
//! every client and the physics tick wait for it; the host gives such a call a short deadline of
//! its own (`[limits] engineCallMs`) whatever the manifest asks, and caps what any manifest may
//! ask for. The hostile packages are existing guests with manifests (beside this file, in
//! `engine_stall/`) that declare a world capability and ask for seconds: one sleeps in WASI,
//! one spins, one allocates. Another client's `ping` stays fast meanwhile, over WebSocket and
//! HTTP, judged against pings measured before the attack in the same test.

use crate::http_client::HttpHost;
use crate::support::{in_process_registry, repo};
use crate::ws_client::WsHost;
use limina::call::RUNNING_CAP_FACTOR;
use limina::limits::ENGINE_CALL_MS;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// A packages folder holding the hostile manifest `engine_stall/<name>` with the guest's
/// component from the guest build.
fn hostile(name: &str) -> tempfile::TempDir {
    crate::support::package_dir(
        &repo().join("tests/all/engine_stall").join(name),
        &repo()
            .join("target/components")
            .join(format!("{name}.wasm")),
    )
}

/// A WebSocket host (sessions `builder.readWrite`) serving `packages` with the configuration
/// `config`, and the folder holding that configuration.
fn ws_host(packages: &tempfile::TempDir, config: &str) -> (WsHost, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("limina.toml");
    std::fs::write(&file, config).unwrap();
    let host = WsHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        file.to_str().unwrap(),
    ]);
    (host, dir)
}

/// The 99th percentile of `times`, in milliseconds.
fn p99(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[(times.len() - 1) * 99 / 100].as_secs_f64() * 1000.0
}

/// How slow a ping may get under attack: well under the attacker's seconds (0.8 s a call,
/// or 5 s of spinning, without the engine's deadline), above what a ping measured before the
/// attack plus a few engine deadlines could take on a busy machine (each at most
/// `RUNNING_CAP_FACTOR` times the deadline in wall time when the engine thread waits for a
/// core).
fn bound_ms(baseline_p99: f64) -> f64 {
    10.0 * baseline_p99 + 10.0 * f64::from(RUNNING_CAP_FACTOR) * ENGINE_CALL_MS as f64
}

/// Pings (through `ping`) before and while `attack` runs on another thread; returns the p99
/// of each, and what the attack gave.
fn under_attack<T: Send>(
    mut ping: impl FnMut() -> Duration,
    attack: impl FnOnce() -> T + Send,
) -> (f64, f64, T) {
    let before: Vec<Duration> = (0..60).map(|_| ping()).collect();
    std::thread::scope(|s| {
        let attacker = s.spawn(attack);
        let mut during = Vec::new();
        // Pings for as long as the attack lasts (and at least 60).
        while during.len() < 60 || !attacker.is_finished() {
            during.push(ping());
            assert!(during.len() < 100_000, "the attack never ended");
        }
        (p99(before), p99(during), attacker.join().unwrap())
    })
}

fn error(result: &Value) -> (String, String) {
    assert_eq!(result["isError"], json!(true), "{result}");
    let e = &result["_meta"]["error"];
    (
        e["code"].as_str().unwrap().to_string(),
        e["message"].as_str().unwrap().to_string(),
    )
}

/// Over WebSocket: `calls` calls of `skill` by an attacker, pings by another client.
fn ws_attack(name: &str, skill: &str, arguments: Value, calls: usize) -> Vec<Value> {
    let packages = hostile(name);
    let host = WsHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
    ]);
    let mut pinger = host.client("builder.readWrite", "pinger");
    let mut attacker = host.client("builder.readWrite", "attacker");
    let (before, during, results) = under_attack(
        || {
            let t = Instant::now();
            assert_eq!(pinger.request("ping", json!({}))["result"], json!({}));
            t.elapsed()
        },
        move || {
            (0..calls)
                .map(|_| attacker.call(skill, arguments.clone()))
                .collect::<Vec<_>>()
        },
    );
    eprintln!("{skill} over WebSocket: ping p99 {before:.2} ms before, {during:.2} ms during");
    assert!(
        during <= bound_ms(before),
        "{skill} stalled the engine: ping p99 {during:.1} ms under attack, {before:.2} ms before"
    );
    results
}

fn assert_cut_by_the_engine_deadline(results: &[Value]) {
    for result in results {
        let (code, message) = error(result);
        assert_eq!(code, "capacity_exceeded", "{message}");
        assert!(
            message.contains(&format!(
                "{ENGINE_CALL_MS} ms the host gives a call that can touch the world"
            )) && message.contains("engineCallMs"),
            "{message}"
        );
    }
}

#[test]
fn a_world_capable_guest_sleeping_in_wasi_does_not_stall_another_websocket_client() {
    let results = ws_attack("sleepy", "sleepy.nap", json!({"seconds": 0.8}), 10);
    assert_cut_by_the_engine_deadline(&results);
}

#[test]
fn a_world_capable_guest_spinning_does_not_stall_another_websocket_client() {
    let results = ws_attack("spin", "spin.forever", json!({}), 10);
    assert_cut_by_the_engine_deadline(&results);
}

#[test]
fn a_world_capable_guest_allocating_does_not_stall_another_websocket_client() {
    // Cut by the deadline or by its memory limit, whichever comes first: either way an error.
    for result in ws_attack("memhog", "memhog.grow", json!({}), 10) {
        assert_eq!(error(&result).0, "capacity_exceeded", "{result}");
    }
}

#[test]
fn a_world_capable_guest_sleeping_does_not_stall_another_http_client() {
    let packages = hostile("sleepy");
    let host = HttpHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
    ]);
    let pinger = host.session("builder.readWrite");
    let attacker = host.session("builder.readWrite");
    let (before, during, results) = under_attack(
        || {
            let t = Instant::now();
            let reply = host.post(
                Some(&pinger),
                &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            );
            assert!(reply.json().get("result").is_some(), "{}", reply.body);
            t.elapsed()
        },
        || {
            (0..10)
                .map(|i| {
                    let call = json!({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                        "params": {"name": "sleepy.nap", "arguments": {"seconds": 0.8}}});
                    host.post(Some(&attacker), &call).json()["result"].clone()
                })
                .collect::<Vec<_>>()
        },
    );
    eprintln!("sleepy.nap over HTTP: ping p99 {before:.2} ms before, {during:.2} ms during");
    assert!(
        during <= bound_ms(before),
        "the sleeper stalled the engine: ping p99 {during:.1} ms under attack, {before:.2} ms before"
    );
    assert_cut_by_the_engine_deadline(&results);
}

#[test]
fn a_manifest_asking_for_more_than_a_host_ceiling_is_refused_at_load_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("sleepy");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        repo().join("target/components/sleepy.wasm"),
        package.join("sleepy.wasm"),
    )
    .unwrap();
    // What the attacker wrote: a world capability and 100 s per call.
    std::fs::write(
        package.join("limina.toml"),
        "name = \"sleepy\"\nversion = \"0.1.0\"\ncomponent = \"sleepy.wasm\"\n\
         capabilities = [\"scene.read\"]\n\n[limits]\ntimeout_ms = 100000\n",
    )
    .unwrap();
    let mut registry = in_process_registry(&[]);
    let source = limina::packages::PackageSource::read(&package).unwrap();
    let e = format!("{:#}", registry.load(source).unwrap_err());
    assert!(e.contains("`limits.timeout_ms` = 100000"), "{e}");
    assert!(
        e.contains(&format!(
            "ceiling of {}",
            limina::limits::CEILING_TIMEOUT_MS
        )),
        "{e}"
    );
    assert!(e.contains("`[limits] timeoutMs`"), "{e}");
    assert!(
        registry.skill("sleepy.nap").is_none(),
        "nothing was registered"
    );
}

#[test]
fn a_configuration_may_raise_the_ceilings_and_the_engine_deadline() {
    let packages = hostile("sleepy");
    let (host, _config) = ws_host(&packages, "[limits]\nengineCallMs = 3000\n");
    let mut c = host.client("builder.readWrite", "patient");
    let result = c.call("sleepy.nap", json!({"seconds": 0.05}));
    assert_eq!(result["isError"], json!(false), "{result}");
}

/// The manifests beside this file parse (a typo would make every test above pass vacuously).
#[test]
fn the_hostile_manifests_declare_a_world_capability() {
    for name in ["sleepy", "spin", "memhog"] {
        let text = std::fs::read_to_string(
            Path::new(&repo())
                .join("tests/all/engine_stall")
                .join(name)
                .join("limina.toml"),
        )
        .unwrap();
        let manifest = limina::packages::Manifest::parse(&text).unwrap();
        assert!(manifest.capabilities.iter().next().is_some(), "{name}");
    }
}

/// A world call past the engine's slice is cut, and atomic for it: what it did to the world
/// is undone, the CPU it used is charged, and the trace holds its decision and nothing it did.
#[test]
fn a_world_call_past_the_slice_is_cut_undone_charged_and_traced() {
    let packages = crate::support::guest_packages(&["slow"]);
    // The guest asks for more fuel than the default ceiling; the slice cuts it anyway.
    let (host, _config) = ws_host(
        &packages,
        "[limits]\nfuelPerCall = 1000000000000\ntimeoutMs = 60000\n\n[budgets]\ncpuMs = 100000\n",
    );
    let mut c = host.client("builder.readWrite", "builder");
    c.call_ok("scene.createEntity", json!({"position": [1, 0, 0]}));
    let world_before = c.call_ok("inspector.snapshot", json!({"limit": 100})).0;
    let cpu_before = cpu_used(&mut c);
    let before = all_events(&mut c);

    // Makes an entity, then spins until the slice cuts it.
    let (code, message) = error(&c.call("slow.buildThenSpin", json!({})));
    let events = since(&before, all_events(&mut c));
    assert_eq!(code, "capacity_exceeded", "{message}");
    assert!(
        message.contains(&format!(
            "{ENGINE_CALL_MS} ms the host gives a call that can touch the world"
        )) && message.contains("nothing it did to the world was kept")
            && message.contains("raise `[limits] engineCallMs`"),
        "{message}"
    );
    let world_after = c.call_ok("inspector.snapshot", json!({"limit": 100})).0;
    assert_eq!(
        world_after["entities"], world_before["entities"],
        "the entity it made was undone"
    );
    let cpu_after = cpu_used(&mut c);
    assert!(
        cpu_after > cpu_before,
        "the CPU it used was charged: {cpu_before} → {cpu_after}"
    );
    // In the trace: its decision, and the journal of what it did without a commit (a replay
    // applies none of it); no outcome, nothing else.
    let decision = &events[0];
    assert_eq!(decision["type"], "policy.decision", "{events:#?}");
    assert_eq!(decision["payload"]["cap"], "slow.buildThenSpin");
    assert_eq!(decision["actorId"], "builder");
    for e in &events[1..] {
        assert_eq!(e["type"], "world.journal", "{events:#?}");
        assert_eq!(e["causedBy"], json!([decision["id"]]), "{events:#?}");
    }
}

/// The CPU-ms its budget says the (only) session used.
fn cpu_used(c: &mut crate::ws_client::WsClient) -> f64 {
    let usage = c.call_ok("audit.usage", json!({})).0;
    usage["budgets"][0]["budget"]["cpuMs"]["used"]
        .as_f64()
        .unwrap_or_else(|| panic!("{usage}"))
}

/// Every event in the trace, oldest first, but those of `trace.tail` itself.
fn all_events(c: &mut crate::ws_client::WsClient) -> Vec<Value> {
    let mut events = Vec::new();
    let mut cursor = -1;
    loop {
        let page = c
            .call_ok("trace.tail", json!({"afterSeq": cursor, "limit": 1000}))
            .0;
        events.extend(page["events"].as_array().unwrap().iter().cloned());
        match page["nextAfterSeq"].as_i64() {
            Some(next) => cursor = next,
            None => break,
        }
    }
    events.retain(|e| e["payload"]["skill"] != "trace.tail" && e["payload"]["cap"] != "trace.tail");
    events
}

/// The events in `after` that are not in `before`.
fn since(before: &[Value], after: Vec<Value>) -> Vec<Value> {
    after.into_iter().filter(|e| !before.contains(e)).collect()
}

/// Two sessions call a world-capable package that spins to the slice, two calls each sent at
/// once; a third session's call, sent while the first of them runs, goes next: in the trace it
/// follows one of them at most, not the queue.
#[test]
fn another_sessions_call_goes_between_back_to_back_world_calls() {
    let packages = hostile("spin");
    // A slice long enough that the third call surely arrives while the first one runs.
    let (host, _config) = ws_host(&packages, "[limits]\nengineCallMs = 300\n");
    let mut a = host.client("builder.readWrite", "spinner-a");
    let mut b = host.client("builder.readWrite", "spinner-b");
    let mut other = host.client("builder.readWrite", "other");
    // Each has called before: the turns know what each costs.
    for c in [&mut a, &mut b] {
        error(&c.call("spin.forever", json!({})));
    }
    other.call_ok("scene.createEntity", json!({}));
    let before = all_events(&mut other);

    let call = json!({"name": "spin.forever", "arguments": {}});
    let sent: Vec<(usize, u64)> = (0..2)
        .flat_map(|_| {
            [
                (0, a.send_request("tools/call", call.clone())),
                (1, b.send_request("tools/call", call.clone())),
            ]
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(50));
    other.call_ok("scene.createEntity", json!({}));
    for (who, id) in sent {
        let reply = [&mut a, &mut b][who].reply_to(id);
        assert_eq!(error(&reply["result"]).0, "capacity_exceeded", "{reply}");
    }

    // The calls' decisions, in the order the engine took them.
    let events = since(&before, all_events(&mut other));
    let order: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "policy.decision")
        .map(|e| e["actorId"].as_str().unwrap())
        .collect();
    assert_eq!(order.len(), 5, "{order:?}");
    let at = order.iter().position(|a| *a == "other").unwrap();
    assert!(
        at <= 1,
        "the call waited behind {at} world calls: {order:?}"
    );
}

/// A reply the engine queued before a third-party call took its slice leaves while that call
/// still runs, not after it: a client sends a `ping` and, in the same write, a call to a
/// package that spins for its whole (here long) slice. The ping's answer arrives in time for
/// the client to cancel the call, which then stops without a reply; had the answer waited
/// for the slice to end, the call would have been cut at its deadline and answered.
#[test]
fn a_reply_queued_before_a_slice_leaves_while_the_slice_runs() {
    use tokio_tungstenite::tungstenite::Message;
    let packages = hostile("spin");
    let (host, _config) = ws_host(&packages, "[limits]\nengineCallMs = 3000\n");
    let mut c = host.client("builder.readWrite", "pinger");
    let frame = |id: u64, method: &str, params: Value| {
        Message::Text(
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                .to_string()
                .into(),
        )
    };
    // Both frames in one write, so the engine takes them in one batch.
    let ws = c.socket();
    ws.write(frame(9001, "ping", json!({}))).unwrap();
    ws.write(frame(
        9002,
        "tools/call",
        json!({"name": "spin.forever", "arguments": {}}),
    ))
    .unwrap();
    ws.flush().unwrap();
    let first = c.read_for(Duration::from_secs(10)).expect("an answer");
    assert_eq!(first["id"], json!(9001), "{first}");
    c.notify(
        "notifications/cancelled",
        json!({"requestId": 9002, "reason": "the ping came back"}),
    );
    let after = c.read_for(Duration::from_millis(300));
    assert!(
        after.is_none(),
        "the spinning call was answered, so it ran out its slice before the ping's answer \
         left: {after:?}"
    );
    // Cancelled while it ran, and traced so; or, when the cancel overtook it while it still
    // waited for its turn, never begun (nothing of it traced).
    let cancelled = c
        .call_ok("trace.tail", json!({"type": "skill.cancelled"}))
        .0;
    let decided = c
        .call_ok(
            "trace.tail",
            json!({"type": "policy.decision", "limit": 100}),
        )
        .0;
    assert!(
        cancelled["events"][0]["payload"]["skill"] == "spin.forever"
            || !decided.to_string().contains("spin.forever"),
        "{cancelled} {decided}"
    );
}
