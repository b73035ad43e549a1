//! Python guests (componentize-py, WASI preview 2) in the same sandbox: the example `rules`
//! package over MCP, and a hostile guest (`tests/guests-python/snoop`) that finds no files,
//! environment or network, is refused a host import it did not declare, and whose stdout
//! reaches the client as log lines. The components come from `cargo xtask build-guests`.

use crate::support::{Client, error_of, package_host as host_with, repo};
use serde_json::{Value, json};
use std::time::Duration;

fn rules_host() -> (tempfile::TempDir, Client) {
    let dir = repo().join("packages/rules");
    host_with(&dir, &dir.join("rules.wasm"))
}

fn snoop_host() -> (tempfile::TempDir, Client) {
    host_with(
        &repo().join("tests/guests-python/snoop"),
        &repo().join("target/components/snoop.wasm"),
    )
}

#[test]
fn rules_search_finds_entries_by_keyword_and_system() {
    let (_dir, mut c) = rules_host();
    let out = c.call_ok("rules.search", json!({"query": "cover"}));
    assert_eq!(out["results"][0]["id"], "skirmish.cover", "{out}");
    assert!(out["total"].as_u64().unwrap() >= 1);

    let out = c.call_ok(
        "rules.search",
        json!({"query": "bane", "system": "limina-core", "limit": 2}),
    );
    let results = out["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 2, "{out}");
    assert!(
        results.iter().all(|r| r["system"] == "limina-core"),
        "{out}"
    );

    let out = c.call_ok("rules.search", json!({"query": "spaceship"}));
    assert_eq!(out, json!({"results": [], "total": 0}));
}

#[test]
fn rules_get_returns_an_entry_and_an_unknown_id_is_invalid_input() {
    let (_dir, mut c) = rules_host();
    let rule = c.call_ok("rules.get", json!({"id": "core.checks"}));
    assert_eq!(rule["title"], "Checks");
    assert!(rule["text"].as_str().unwrap().contains("d20"), "{rule}");

    let (code, message) = error_of(&c.call("rules.get", json!({"id": "core.nope"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("core.nope"), "{message}");

    // The host's own schema check comes first.
    let (code, message) = error_of(&c.call("rules.search", json!({"system": "chess"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("system"), "{message}");
}

/// The hostile guest's report of each probe.
fn probe(c: &mut Client) -> Value {
    c.call_ok("snoop.probe", json!({}))
}

#[test]
fn a_wasi_guest_finds_no_files_environment_arguments_or_network() {
    let (_dir, mut c) = snoop_host();
    let report = probe(&mut c);
    let failed = |key: &str| {
        assert_eq!(report[key]["ok"], false, "{key} must fail: {report}");
        report[key]["error"].as_str().unwrap().to_string()
    };
    assert!(failed("file").contains("No such file"), "{report}");
    assert!(failed("listdir").contains("No such file"), "{report}");
    failed("cwd_listdir");
    // componentize-py's Python has no socket module, so a guest cannot even try; that the
    // host's context refuses creating sockets is checked in `sandbox::wasi`'s unit tests.
    failed("socket");
    failed("resolve");
    assert_eq!(report["environ"], json!({"ok": true, "value": "{}"}));
    assert_eq!(report["home"], json!({"ok": true, "value": "None"}));
    assert_eq!(report["argv"], json!({"ok": true, "value": "[]"}));
    // Clocks and randomness are granted.
    assert_eq!(report["clock"], json!({"ok": true, "value": "True"}));
    assert_eq!(report["random"], json!({"ok": true, "value": "16"}));
    let text = report.to_string();
    for secret in ["root:", "PATH", "HOME=", "/usr/bin"] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}

#[test]
fn a_wasi_guest_is_refused_a_host_import_it_did_not_declare() {
    let (_dir, mut c) = snoop_host();
    let report = probe(&mut c);
    let error = report["create_entity"]["error"].as_str().unwrap();
    assert!(
        error.contains("Forbidden") && error.contains("scene.write"),
        "{report}"
    );
    let world = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(world["entities"], json!([]), "nothing was created");
    let denied = c.call_ok(
        "trace.tail",
        json!({"type": "security.permission.denied", "limit": 10}),
    );
    let events = denied["events"].as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["payload"]["package"] == "snoop" && e["payload"]["missing"] == "scene.write"),
        "{denied}"
    );
}

#[test]
fn what_a_wasi_guest_prints_arrives_as_log_lines() {
    let (_dir, mut c) = snoop_host();
    let r = c.request("logging/setLevel", json!({"level": "info"}));
    assert!(r.get("result").is_some(), "{r}");
    probe(&mut c);
    let mut seen = Vec::new();
    while let Some(n) = c.wait_notification("notifications/message", Duration::from_secs(5)) {
        seen.push(n["params"].clone());
        if seen.len() >= 2 {
            break;
        }
    }
    assert!(
        seen.iter().any(|p| p["level"] == "info"
            && p["logger"] == "snoop"
            && p["data"] == "snoop: probing the sandbox"),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|p| p["level"] == "warning" && p["data"] == "snoop: this goes to stderr"),
        "{seen:?}"
    );
}

#[test]
fn the_rules_package_passes_its_own_unit_tests_natively() {
    // `limina pkg test` puts the SDK's modules (`bindings/`) on the module path.
    let dir = repo().join("packages/rules");
    let text = crate::support::limina_ok(&["pkg", "test", dir.to_str().unwrap()]);
    assert!(text.contains("tests passed"), "{text}");
}
