//! Packages that must not load: runaway set-up, unknown imports, overclaiming, tampering.
//! The host refuses them (traced) and keeps serving.

use crate::support::{Client, guest_packages};
use serde_json::{Value, json};

fn rejected(c: &mut Client, package: &str) -> Value {
    let tail = c.call_ok(
        "trace.tail",
        json!({"type": "package.load.rejected", "limit": 100}),
    );
    tail["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["payload"]["package"] == package)
        .cloned()
        .unwrap_or_else(|| panic!("no package.load.rejected for {package}: {tail}"))
}

#[test]
fn set_up_that_runs_away_is_stopped_and_the_package_refused() {
    let pkgs = guest_packages(&["describeloop"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    let event = rejected(&mut c, "describeloop");
    assert!(
        event["payload"]["reason"]
            .as_str()
            .unwrap()
            .contains("fuel")
            || event["payload"]["reason"]
                .as_str()
                .unwrap()
                .contains("describe"),
        "{event}"
    );
    let r = c.request(
        "tools/call",
        json!({"name": "describeloop.never", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602, "not registered: {r}");
    c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn an_import_the_host_does_not_provide_is_refused_at_load_naming_it() {
    let pkgs = guest_packages(&["teleport"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    let reason = rejected(&mut c, "teleport")["payload"]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("evil:teleport/jump"), "{reason}");
    c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn an_overclaiming_package_is_refused_for_a_narrower_profile() {
    let pkgs = guest_packages(&["narrow"]);
    // Installed but loaded at start-up with the host's grant; a player re-loading it under its
    // own profile cannot grant scene.write.
    let mut c = Client::session(
        "player.limited",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    let r = c.call_ok(
        "package.load",
        json!({"ref": "narrow", "agentId": "x", "sessionId": "y", "profile": "player.limited"}),
    );
    assert_eq!(r["ok"], false);
    assert_eq!(r["rule"], "package.overclaim");
    assert!(r["reason"].as_str().unwrap().contains("scene.write"), "{r}");
    assert_eq!(
        r["agentId"], "tester",
        "attribution is the session's, not the payload's"
    );
    // Asking for a broader profile than the caller holds does not help.
    let r = c.call_ok(
        "package.load",
        json!({"ref": "narrow", "agentId": "x", "sessionId": "y", "profile": "builder.readWrite"}),
    );
    assert_eq!(r["rule"], "package.overclaim");
    c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn a_tampered_component_is_refused_by_its_pinned_hash() {
    let pkgs = guest_packages(&["narrow"]);
    let manifest = pkgs.path().join("narrow/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    // Pin the hash of something else: the component on disk no longer matches.
    std::fs::write(
        &manifest,
        format!("content_hash = \"sha256:{}\"\n{text}", "ab".repeat(32)),
    )
    .unwrap();
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    let event = rejected(&mut c, "narrow");
    assert_eq!(event["payload"]["rule"], "package.signature");
    assert!(
        event["payload"]["reason"]
            .as_str()
            .unwrap()
            .contains("does not match"),
        "{event}"
    );
    let r = c.request(
        "tools/call",
        json!({"name": "narrow.create", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602);
    c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn a_signature_over_another_component_is_refused() {
    let pkgs = guest_packages(&["narrow"]);
    let manifest = pkgs.path().join("narrow/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let seed = "07".repeat(32);
    let (public_key, signature) =
        limina::packages::sign(&format!("sha256:{}", "cd".repeat(32)), &seed).unwrap();
    std::fs::write(
        &manifest,
        format!(
            "{text}\n[attestation]\npublic_key = \"{public_key}\"\nsignature = \"{signature}\"\n"
        ),
    )
    .unwrap();
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    let event = rejected(&mut c, "narrow");
    assert_eq!(event["payload"]["rule"], "package.signature");
    assert!(
        event["payload"]["reason"]
            .as_str()
            .unwrap()
            .contains("signature does not match"),
        "{event}"
    );
    c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn file_names_cannot_leave_their_folders() {
    let mut c = Client::session("builder.readWrite", &[]);
    for name in [
        "../escape.jsonl",
        "/etc/passwd",
        "a/b",
        ".hidden",
        "..",
        "x\\y",
    ] {
        let r = c.call("trace.export", json!({"name": name}));
        assert_eq!(
            r["_meta"]["error"]["code"], "invalid_input",
            "trace.export {name}: {r}"
        );
        let r = c.call_ok("dev.reload", json!({"target": "scene", "name": name}));
        assert_eq!(r["ok"], false, "dev.reload scene {name}: {r}");
    }
    assert!(!std::path::Path::new("/tmp/escape.jsonl").exists());
    c.call_ok("scene.queryEntities", json!({}));
}
