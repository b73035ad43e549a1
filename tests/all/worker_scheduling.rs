//! `[limits] workerScheduling`: the scheduling class of the threads that run calls off the
//! engine (the idle class unless told otherwise), read from the running host's own threads;
//! a class the host does not know is refused at start, naming the key and the values allowed.

use crate::support::{Client, limina, text};
use serde_json::json;
use std::time::{Duration, Instant};

/// The scheduling policy of each of host `pid`'s worker threads.
fn worker_policies(pid: u32) -> Vec<i32> {
    let mut policies = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let task = task.unwrap().path();
        let comm = std::fs::read_to_string(task.join("comm")).unwrap_or_default();
        if !comm.starts_with("limina-worker-") {
            continue;
        }
        let tid: i32 = task.file_name().unwrap().to_str().unwrap().parse().unwrap();
        // SAFETY: reads another thread's policy; no memory is passed.
        policies.push(unsafe { libc::sched_getscheduler(tid) });
    }
    policies
}

/// A host started with `limits` as its `[limits]` section, once a picture (a call off the
/// engine) has been taken: the worker that drew it has entered its class.
fn host_after_a_capture(dir: &std::path::Path, limits: &str) -> Client {
    let config = dir.join("limina.toml");
    std::fs::write(&config, format!("[limits]\n{limits}")).unwrap();
    let mut c = Client::session("builder.readWrite", &["--config", config.to_str().unwrap()]);
    c.call_ok(
        "camera.capture",
        json!({"position": [0, 0, 10], "lookAt": [0, 0, 0], "width": 16, "height": 16}),
    );
    c
}

#[test]
fn the_workers_run_in_the_configured_class_and_idle_is_the_default() {
    let dir = tempfile::tempdir().unwrap();
    for (limits, want) in [
        ("", libc::SCHED_IDLE),
        ("workerScheduling = \"normal\"\n", libc::SCHED_OTHER),
        ("workerScheduling = \"idle\"\n", libc::SCHED_IDLE),
    ] {
        let c = host_after_a_capture(dir.path(), limits);
        // Every worker enters its class as it starts; give the ones that have not run yet
        // a moment on a loaded machine.
        let until = Instant::now() + Duration::from_secs(20);
        let mut policies = worker_policies(c.pid());
        while policies.iter().any(|&p| p != want) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
            policies = worker_policies(c.pid());
        }
        assert!(policies.len() >= 2, "{limits:?}: workers {policies:?}");
        assert!(
            policies.iter().all(|&p| p == want),
            "{limits:?}: worker policies {policies:?}, wanted {want}"
        );
        c.close();
    }
}

#[test]
fn an_unknown_worker_class_is_refused_at_start_naming_the_key_and_the_values() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[limits]\nworkerScheduling = \"fifo\"\n").unwrap();
    let out = limina(&["--mcp-stdio", "--config", config.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.toml:")
            && err
                .contains("`limits.workerScheduling` must be \"idle\" or \"normal\", got \"fifo\""),
        "{err}"
    );
}
