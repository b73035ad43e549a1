//! State over a serving host: a reply saying a write succeeded leaves only once the write is
//! on disk (a writer thread syncs many calls' writes at once while the engine serves others),
//! a failed call's write is not kept, and a store that cannot be written refuses — the reply
//! says its state was not saved — rather than acknowledging what a restart would not find.

use crate::support::guest_packages;
use crate::ws_client::{WsClient, WsHost};
use serde_json::{Value, json};
use std::path::Path;

/// A host serving `stash` (state granted) to `keeper` sessions, its trace and state in `traces`.
fn host(traces: &Path) -> (WsHost, tempfile::TempDir) {
    let packages = guest_packages(&["stash"]);
    let config = packages.path().join("limina.toml");
    std::fs::write(
        &config,
        "[profiles.keeper]\npermissions = [\"scene.read\", \"state.read\", \"state.write\"]\n\n\
         [network]\nprofiles = [\"keeper\"]\n\n\
         [packages.stash.grants]\nstate = { keys = 4, bytes = 256 }\n",
    )
    .unwrap();
    let host = WsHost::start(&[
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--trace-dir",
        traces.to_str().unwrap(),
        "--profile",
        "keeper",
    ]);
    (host, packages)
}

/// What `state.sqlite` in `traces` holds for stash's shared key `key`, read by a connection
/// of its own (what a restarted host would find).
fn on_disk(traces: &Path, key: &str) -> Option<String> {
    let mut store = limina::state::StateStore::open(&traces.join("state.sqlite")).unwrap();
    store
        .get("stash", None, key)
        .unwrap()
        .map(|v| String::from_utf8(v).unwrap())
}

fn put(c: &mut WsClient, key: &str, value: &str, then: &str) -> u64 {
    c.send_request(
        "tools/call",
        json!({"name": "stash.put", "arguments": {"key": key, "value": value, "then": then}}),
    )
}

fn ok(reply: &Value) -> bool {
    reply["result"]["isError"] == json!(false)
}

#[test]
fn a_state_write_is_durable_before_its_reply_and_rolled_back_with_a_failed_call() {
    let traces = tempfile::tempdir().unwrap();
    let (host, _packages) = host(traces.path());
    let mut c = host.client("keeper", "keeper");
    let id = put(&mut c, "k", "first", "ok");
    assert!(ok(&c.reply_to(id)));
    assert_eq!(on_disk(traces.path(), "k").as_deref(), Some("first"));

    // Pipelined from two connections at once: each reply finds its own write (or a later
    // one of the same key) on disk when it arrives.
    let mut other = host.client("keeper", "other");
    let ids: Vec<(u64, u64)> = (0..40)
        .map(|i| {
            let mine = put(&mut c, "k", &format!("v{i:03}"), "ok");
            let theirs = put(&mut other, "o", &format!("w{i:03}"), "ok");
            (mine, theirs)
        })
        .collect();
    for (i, (mine, theirs)) in ids.into_iter().enumerate() {
        assert!(ok(&c.reply_to(mine)));
        let stored = on_disk(traces.path(), "k").unwrap();
        assert!(
            stored >= format!("v{i:03}"),
            "reply {i} left before its write: {stored}"
        );
        assert!(ok(&other.reply_to(theirs)));
        let stored = on_disk(traces.path(), "o").unwrap();
        assert!(
            stored >= format!("w{i:03}"),
            "reply {i} left before its write: {stored}"
        );
    }

    // A call that fails after writing keeps nothing, on disk or in the host's own view.
    for then in ["fail", "trap"] {
        let id = put(&mut c, "k", "lost", then);
        let reply = c.reply_to(id);
        assert_eq!(reply["result"]["isError"], json!(true), "{reply}");
        assert_eq!(on_disk(traces.path(), "k").as_deref(), Some("v039"));
    }
    let got = c.call("stash.get", json!({"key": "k"}));
    assert_eq!(got["structuredContent"]["value"], json!("v039"), "{got}");
}

#[test]
fn a_store_that_cannot_be_written_refuses_instead_of_acknowledging_and_resumes_by_itself() {
    let traces = tempfile::tempdir().unwrap();
    let (host, _packages) = host(traces.path());
    let mut c = host.client("keeper", "keeper");
    let id = put(&mut c, "k", "kept", "ok");
    assert!(ok(&c.reply_to(id)));

    // Another process holds the database's write lock: the writer cannot write.
    let blocker = rusqlite::Connection::open(traces.path().join("state.sqlite")).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let id = put(&mut c, "k", "lost", "ok");
    let reply = c.reply_to(id);
    let error = &reply["error"];
    assert_eq!(error["code"], json!(-32002), "{reply}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("capacity_exceeded:")
            && message.contains("could not be written")
            && message.contains("not acknowledged"),
        "{message}"
    );
    // While it is out, writes are refused before they run (or, once the pause is over and the
    // lock still held, tried and refused again): none is acknowledged.
    let id = put(&mut c, "k", "also lost", "ok");
    let reply = c.reply_to(id);
    let refused_before = reply["result"]["isError"] == json!(true)
        && reply["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("refused until it can be written again"));
    assert!(
        refused_before || reply["error"]["code"] == json!(-32002),
        "{reply}"
    );
    blocker.execute_batch("ROLLBACK").unwrap();
    drop(blocker);
    assert_eq!(on_disk(traces.path(), "k").as_deref(), Some("kept"));
    let got = c.call("stash.get", json!({"key": "k"}));
    assert_eq!(got["structuredContent"]["value"], json!("kept"), "{got}");

    // Once the pause is over the next write goes through and is kept.
    std::thread::sleep(std::time::Duration::from_millis(
        limina::limits::STATE_RETRY_MS + 50,
    ));
    let id = put(&mut c, "k", "again", "ok");
    assert!(ok(&c.reply_to(id)), "writes resume");
    assert_eq!(on_disk(traces.path(), "k").as_deref(), Some("again"));
}

#[test]
fn acknowledged_writes_survive_a_kill_and_the_restarted_host_serves_what_the_disk_holds() {
    let traces = tempfile::tempdir().unwrap();
    {
        let (host, _packages) = host(traces.path());
        let mut c = host.client("keeper", "keeper");
        let ids: Vec<u64> = (0..100)
            .map(|i| put(&mut c, "k", &format!("v{i:03}"), "ok"))
            .collect();
        for id in &ids[..60] {
            assert!(ok(&c.reply_to(*id)));
        }
        // Killed (SIGKILL, as the host drops) while the other forty may be anywhere between
        // the engine, the state writer and the socket.
    }
    let on_disk = on_disk(traces.path(), "k").unwrap();
    assert!(
        on_disk.as_str() >= "v059",
        "an acknowledged write was lost: {on_disk}"
    );
    let (host, _packages) = host(traces.path());
    let mut c = host.client("keeper", "keeper");
    let got = c.call("stash.get", json!({"key": "k"}));
    assert_eq!(got["structuredContent"]["value"], json!(on_disk), "{got}");
    // And it goes on from there.
    let id = put(&mut c, "k", "after", "ok");
    assert!(ok(&c.reply_to(id)));
    assert_eq!(
        c.call("stash.get", json!({"key": "k"}))["structuredContent"]["value"],
        json!("after")
    );
}
