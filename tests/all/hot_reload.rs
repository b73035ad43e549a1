//! Hot reload: a package replaced on disk is swapped in while the host runs, clients are
//! told, a broken build keeps the old version serving, and `dev.reload` does the same on
//! demand.

use crate::support::{Client, repo};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// A packages folder holding `counter` at version 1.
pub(crate) fn counter_v1() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("counter");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::copy(
        repo().join("tests/guests/counter-v1/limina.toml"),
        pkg.join("limina.toml"),
    )
    .unwrap();
    install(&pkg, 1);
    dir
}

/// Puts build `v` of the counter component in place atomically, as a build tool would.
pub(crate) fn install(pkg: &Path, v: u32) {
    let built = repo().join(format!("target/components/counter_v{v}.wasm"));
    assert!(
        built.exists(),
        "build the guests first: cargo xtask build-guests"
    );
    let tmp = pkg.join(".counter.wasm.tmp");
    std::fs::copy(built, &tmp).unwrap();
    std::fs::rename(tmp, pkg.join("counter.wasm")).unwrap();
}

fn version(c: &mut Client) -> u64 {
    c.call_ok("counter.version", json!({}))["version"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_replaced_component_answers_the_next_call_and_clients_are_told() {
    let pkgs = counter_v1();
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap(), "--watch"],
    );
    assert_eq!(version(&mut c), 1);
    install(&pkgs.path().join("counter"), 2);
    let note = c.wait_notification("notifications/tools/list_changed", Duration::from_secs(10));
    assert!(note.is_some(), "no tools/list_changed after the reload");
    assert_eq!(version(&mut c), 2);
    let tail = c.call_ok("trace.tail", json!({"type": "dev.skill.reload.completed"}));
    assert_eq!(tail["events"][0]["payload"]["package"], "counter");
}

#[test]
fn a_broken_build_keeps_the_old_version_serving_and_says_why() {
    let pkgs = counter_v1();
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap(), "--watch"],
    );
    assert_eq!(version(&mut c), 1);
    std::fs::write(
        pkgs.path().join("counter/counter.wasm"),
        b"\0asm not really",
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let failed = loop {
        let tail = c.call_ok("trace.tail", json!({"type": "dev.skill.reload.failed"}));
        if let Some(e) = tail["events"].as_array().unwrap().first() {
            break e.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no dev.skill.reload.failed event"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        failed["payload"]["reason"]
            .as_str()
            .unwrap()
            .contains("counter"),
        "{failed}"
    );
    assert_eq!(version(&mut c), 1);
}

#[test]
fn calls_in_a_tight_loop_never_fail_while_the_package_is_replaced() {
    let pkgs = counter_v1();
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap(), "--watch"],
    );
    assert_eq!(version(&mut c), 1);
    let swapped_at = Instant::now();
    install(&pkgs.path().join("counter"), 2);
    let mut calls = 0;
    loop {
        let result = c.call("counter.version", json!({}));
        assert_eq!(
            result["isError"], false,
            "a call failed during the swap: {result}"
        );
        calls += 1;
        if result["structuredContent"]["version"] == 2 {
            break;
        }
        assert!(
            swapped_at.elapsed() < Duration::from_secs(10),
            "still the old version after {calls} calls"
        );
    }
}

#[test]
fn dev_reload_reloads_a_package_on_demand_and_reports_failures_honestly() {
    let pkgs = counter_v1();
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    install(&pkgs.path().join("counter"), 2);
    assert_eq!(
        version(&mut c),
        1,
        "without --watch nothing changes by itself"
    );
    let r = c.call_ok(
        "dev.reload",
        json!({"target": "skill", "name": "counter.version", "reason": "new build"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["invalidated"], json!(["counter.version"]));
    assert_eq!(version(&mut c), 2);

    std::fs::write(pkgs.path().join("counter/counter.wasm"), b"garbage").unwrap();
    let r = c.call_ok(
        "dev.reload",
        json!({"target": "package", "name": "counter"}),
    );
    assert_eq!(r["ok"], false);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("not a valid component"),
        "{r}"
    );
    assert_eq!(version(&mut c), 2);
    let failed = c.call_ok("trace.tail", json!({"type": "dev.package.reload.failed"}));
    assert_eq!(failed["events"].as_array().unwrap().len(), 1);
    // Under `skill`, naming the package works as well.
    let r = c.call_ok("dev.reload", json!({"target": "skill", "name": "counter"}));
    assert_eq!(r["ok"], false, "still the broken file: {r}");

    let r = c.call(
        "dev.reload",
        json!({"target": "skill", "name": "nope.nothing"}),
    );
    assert_eq!(r["_meta"]["error"]["code"], "invalid_input");
}

#[test]
fn dev_reload_scene_resets_the_world_and_replays_the_scene_file() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.jsonl");
    std::fs::write(
        &scene,
        "{\"skill\": \"scene.createEntity\", \"input\": {\"position\": [1, 0, 0]}}\n\n{\"skill\": \"scene.createEntity\", \"input\": {\"position\": [2, 0, 0]}}\n",
    )
    .unwrap();
    let mut c = Client::session("builder.readWrite", &["--scene", scene.to_str().unwrap()]);
    let count = |c: &mut Client| {
        c.call_ok("scene.queryEntities", json!({}))["entities"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count(&mut c), 2, "the scene was replayed at start-up");
    c.call_ok("scene.createEntity", json!({}));
    assert_eq!(count(&mut c), 3);
    let r = c.call_ok("dev.reload", json!({"target": "scene"}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(count(&mut c), 2);
    let done = c.call_ok("trace.tail", json!({"type": "dev.scene.reload.completed"}));
    assert_eq!(done["events"].as_array().unwrap().len(), 1);
}

#[test]
fn dev_reload_data_applies_a_changed_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(&config, "[budgets]\ncalls = 100\n").unwrap();
    let mut c = Client::session("builder.readWrite", &["--config", config.to_str().unwrap()]);
    c.call_ok("scene.createEntity", json!({}));
    std::fs::write(
        &config,
        "[[quotas]]\ncap = \"scene.createEntity\"\nlimit = 0\nwindowMs = 60000\n",
    )
    .unwrap();
    let r = c.call_ok("dev.reload", json!({"target": "data"}));
    assert_eq!(r["ok"], true, "{r}");
    let denied = c.call("scene.createEntity", json!({}));
    assert_eq!(denied["_meta"]["error"]["code"], "forbidden", "{denied}");
    std::fs::write(&config, "maxSessions = nope").unwrap();
    let r = c.call_ok("dev.reload", json!({"target": "data"}));
    assert_eq!(r["ok"], false);
    assert!(
        r["reason"].as_str().unwrap().contains(":1:"),
        "the line is named: {r}"
    );
}

/// Rewrites files that belong to no package — a log beside the package, a stray component
/// copy, a trace folder under the root — every 10 ms until dropped.
struct Churn {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Rounds of writes made so far.
    rounds: std::sync::Arc<std::sync::atomic::AtomicU64>,
    thread: Option<std::thread::JoinHandle<u64>>,
}

impl Churn {
    fn start(root: &Path) -> Churn {
        use std::sync::atomic::{AtomicU64, Ordering};
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let files = [
            root.join("counter/notes.log"),
            root.join("counter/backup.wasm"),
            root.join("traces/trace.jsonl"),
        ];
        std::fs::create_dir_all(root.join("traces")).unwrap();
        let (flag, rounds) = (stop.clone(), std::sync::Arc::new(AtomicU64::new(0)));
        let made = rounds.clone();
        let thread = std::thread::spawn(move || {
            let mut writes = 0;
            while !flag.load(Ordering::Relaxed) {
                for file in &files {
                    std::fs::write(file, format!("write {writes}\n")).unwrap();
                }
                writes += 1;
                made.store(writes, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(10));
            }
            writes
        });
        Churn {
            stop,
            rounds,
            thread: Some(thread),
        }
    }

    /// Waits until `n` rounds of writes were made: on a loaded machine 10 ms sleeps stretch,
    /// and the churn must have gone on beside the package, however long that takes.
    fn wait_rounds(&self, n: u64) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while self.rounds.load(std::sync::atomic::Ordering::Relaxed) < n {
            assert!(
                std::time::Instant::now() < deadline,
                "the churn made fewer than {n} rounds in 60 s"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Stops and returns how many rounds of writes were made.
    fn finish(mut self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Churn {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn churn_beside_a_package_neither_triggers_nor_delays_its_reload() {
    let pkgs = counter_v1();
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap(), "--watch"],
    );
    assert_eq!(version(&mut c), 1);
    let churn = Churn::start(pkgs.path());
    std::thread::sleep(Duration::from_millis(600));
    churn.wait_rounds(21);
    for kind in ["dev.skill.reload.completed", "dev.skill.reload.failed"] {
        let tail = c.call_ok("trace.tail", json!({"type": kind}));
        assert_eq!(tail["events"], json!([]), "churn alone reloaded: {tail}");
    }
    install(&pkgs.path().join("counter"), 2);
    let note = c.wait_notification("notifications/tools/list_changed", Duration::from_secs(10));
    assert!(
        note.is_some(),
        "no reload while files churned beside the package"
    );
    assert_eq!(version(&mut c), 2);
    let rounds = churn.finish();
    assert!(rounds > 20, "the churn kept going ({rounds} rounds)");
    let done = c.call_ok("trace.tail", json!({"type": "dev.skill.reload.completed"}));
    assert_eq!(
        done["events"].as_array().unwrap().len(),
        1,
        "one reload: {done}"
    );
}
