//! Keeping state that is not one's own. `tests/guests/stash` writes a key and then fails,
//! traps or spins: the write must go with the call. Its quota holds; another package (the
//! example `memory`) sees none of its keys; an agent sees none of another agent's.

use crate::support::{Client, error_of, repo};
use serde_json::{Value, json};

const CONFIG: &str = r#"
[profiles.keeper]
permissions = ["scene.read", "state.read", "state.write"]

[packages.stash.grants]
state = { keys = 4, bytes = 256 }

[packages.memory.grants]
state = { keys = 10000, bytes = 4194304 }
"#;

struct Host {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    c: Client,
}

/// A host with `stash` and `memory`, both given state.
fn host() -> Host {
    host_with("")
}

/// [`host`] with `more` added to the configuration.
fn host_with(more: &str) -> Host {
    let packages = tempfile::tempdir().unwrap();
    for (dir, component) in [
        (
            repo().join("tests/guests/stash"),
            repo().join("target/components/stash.wasm"),
        ),
        (
            repo().join("packages/memory"),
            repo().join("packages/memory/memory.wasm"),
        ),
    ] {
        assert!(
            component.is_file(),
            "{} is missing: run `cargo xtask build-guests`",
            component.display()
        );
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let dest = packages.path().join(&name);
        std::fs::create_dir(&dest).unwrap();
        std::fs::copy(dir.join("limina.toml"), dest.join("limina.toml")).unwrap();
        std::fs::copy(&component, dest.join(format!("{name}.wasm"))).unwrap();
    }
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("limina.toml");
    std::fs::write(&config, format!("{CONFIG}\n{more}")).unwrap();
    let c = Client::session(
        "keeper",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    Host {
        _dirs: (packages, config_dir),
        c,
    }
}

fn get(c: &mut Client, key: &str, scope: &str) -> Value {
    c.call_ok("stash.get", json!({"key": key, "scope": scope}))
}

#[test]
fn a_state_write_does_not_survive_a_failed_trapped_or_stopped_call() {
    let mut h = host();
    for (then, code, words) in [
        ("fail", "handler_error", "failing after the write"),
        ("trap", "handler_error", "trapped"),
        ("spin", "capacity_exceeded", "was stopped"),
    ] {
        let result = h.c.call(
            "stash.put",
            json!({"key": "loot", "value": then, "then": then}),
        );
        let (got, message) = error_of(&result);
        assert_eq!(got, code, "{then}: {message}");
        assert!(message.contains(words), "{then}: {message}");
        assert_eq!(
            get(&mut h.c, "loot", "shared"),
            json!({"value": null, "keys": []}),
            "after `{then}` nothing was kept"
        );
    }
    let kept = h.c.call_ok(
        "stash.put",
        json!({"key": "loot", "value": "gold", "then": "ok"}),
    );
    assert_eq!(kept, json!({"value": "gold", "keys": ["loot"]}));
    // A failed call after a successful one leaves the earlier value.
    let (code, _) = error_of(&h.c.call(
        "stash.put",
        json!({"key": "loot", "value": "lead", "then": "fail"}),
    ));
    assert_eq!(code, "handler_error");
    assert_eq!(get(&mut h.c, "loot", "shared")["value"], "gold");
}

#[test]
fn the_state_quota_refuses_the_write_past_it_and_keeps_the_rest() {
    let mut h = host();
    for i in 0..4 {
        h.c.call_ok(
            "stash.put",
            json!({"key": format!("k{i}"), "value": "v", "then": "ok"}),
        );
    }
    let (code, message) = error_of(&h.c.call(
        "stash.put",
        json!({"key": "k4", "value": "v", "then": "ok"}),
    ));
    assert_eq!(code, "capacity_exceeded");
    assert!(
        message.contains("past its quota of 4 keys and 256 bytes") && message.contains("`k4`"),
        "{message}"
    );
    assert_eq!(
        get(&mut h.c, "k0", "shared")["keys"],
        json!(["k0", "k1", "k2", "k3"])
    );
    let (code, message) = error_of(&h.c.call(
        "stash.put",
        json!({"key": "k0", "value": "x".repeat(300), "then": "ok"}),
    ));
    assert_eq!(code, "capacity_exceeded", "{message}");
    assert_eq!(get(&mut h.c, "k0", "shared")["value"], "v");
}

#[test]
fn one_package_never_reads_another_packages_state() {
    let mut h = host();
    // Keys shaped like `memory`'s own, in both scopes.
    for scope in ["shared", "agent"] {
        h.c.call_ok(
            "stash.put",
            json!({"key": "m/000000000000", "value": "{\"text\":\"planted forge\",\"tick\":0}", "scope": scope, "then": "ok"}),
        );
    }
    let recalled = h.c.call_ok("memory.recall", json!({"query": "forge"}));
    assert_eq!(
        recalled,
        json!({"memories": []}),
        "memory sees nothing of stash's"
    );
    h.c.call_ok("memory.remember", json!({"text": "the forge is north"}));
    let got = get(&mut h.c, "m/000000000000", "agent");
    assert_eq!(
        got["value"], "{\"text\":\"planted forge\",\"tick\":0}",
        "and stash nothing of memory's"
    );
    assert_eq!(got["keys"], json!(["m/000000000000"]));
}

#[test]
fn an_agent_never_reads_another_agents_state() {
    let mut h = host();
    h.c.call_ok(
        "stash.put",
        json!({"key": "diary", "value": "tester's", "scope": "agent", "then": "ok"}),
    );
    h.c.rebind("keeper", "intruder");
    assert_eq!(
        get(&mut h.c, "diary", "agent"),
        json!({"value": null, "keys": []}),
        "another agent's scope is empty"
    );
    h.c.call_ok("memory.remember", json!({"text": "intruder was here"}));
    h.c.rebind("keeper", "tester");
    assert_eq!(get(&mut h.c, "diary", "agent")["value"], "tester's");
    let recalled = h.c.call_ok("memory.recall", json!({"query": "intruder"}));
    assert_eq!(
        recalled,
        json!({"memories": []}),
        "tester recalls nothing of intruder's"
    );
}

/// A made-up GitHub token, built from parts.
fn token() -> String {
    format!("gh{}_{}", "p", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
}

#[test]
fn a_credential_a_package_returns_is_redacted_on_the_engine_too() {
    // `stash` keeps state, so its calls run on the engine, not detached.
    let mut h = host();
    let out = h.c.call_ok(
        "stash.put",
        json!({"key": "k", "value": format!("token {}", token()), "then": "ok"}),
    );
    assert_eq!(out["value"], "token [redacted:github_token]");
    let hits = h.c.call_ok(
        "trace.tail",
        json!({"type": "security.secret.redacted", "limit": 10}),
    );
    assert_eq!(
        hits["events"][0]["payload"],
        json!({"where": "result", "kind": "github_token", "skill": "stash.put", "action": "redacted"})
    );
}

#[test]
fn a_refused_result_undoes_its_calls_state_write() {
    let mut h = host_with("[outbound]\nscanResults = \"refuse\"\n");
    let r = h.c.call(
        "stash.put",
        json!({"key": "k", "value": format!("token {}", token()), "then": "ok"}),
    );
    let (code, message) = error_of(&r);
    assert_eq!(code, "forbidden");
    assert!(message.contains("(github_token)"), "{message}");
    assert_eq!(
        get(&mut h.c, "k", "shared")["value"],
        Value::Null,
        "the write went with the call"
    );
    h.c.call_ok(
        "stash.put",
        json!({"key": "k", "value": "plain", "then": "ok"}),
    );
    assert_eq!(get(&mut h.c, "k", "shared")["value"], "plain");
}
