//! Grants at load: a package's `[grants]` must be within what the host's configuration gives
//! it (`package.overclaim` otherwise, traced, nothing registered); given grants show in
//! `skills.describe`, `package.list` and `tools/list` (`openWorldHint`).

use crate::support::{Client, guest_packages};
use serde_json::{Value, json};
use std::path::Path;

const GRANTS: &str = r#"
[grants]
network = ["http://127.0.0.1:9/v1", "https://*.example.com/api"]
secrets = ["LOOKUP_KEY"]
"#;

/// The `lookup` test guest with `grants` appended to its manifest.
fn lookup_with(grants: &str) -> tempfile::TempDir {
    let pkgs = guest_packages(&["lookup"]);
    let manifest = pkgs.path().join("lookup/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}{grants}")).unwrap();
    pkgs
}

fn host(pkgs: &Path, config: Option<&str>) -> (Client, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["--packages".to_string(), pkgs.display().to_string()];
    if let Some(config) = config {
        let path = dir.path().join("limina.toml");
        std::fs::write(&path, config).unwrap();
        args.extend(["--config".to_string(), path.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    (Client::session("builder.readWrite", &args), dir)
}

fn events(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind, "limit": 100}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

fn refusal_reason(c: &mut Client) -> String {
    let rejected = events(c, "package.load.rejected");
    let event = rejected
        .iter()
        .find(|e| e["payload"]["package"] == "lookup")
        .unwrap_or_else(|| panic!("lookup was not refused: {rejected:?}"));
    assert_eq!(event["payload"]["rule"], "package.overclaim", "{event}");
    let denied = events(c, "policy.denied");
    assert!(
        denied
            .iter()
            .any(|d| d["payload"]["rule"] == "package.overclaim"
                && d["payload"]["package"] == "lookup"),
        "the admission decision is traced: {denied:?}"
    );
    event["payload"]["reason"].as_str().unwrap().to_string()
}

fn assert_not_registered(c: &mut Client) {
    let r = c.request(
        "tools/call",
        json!({"name": "lookup.find", "arguments": {"key": "a"}}),
    );
    assert_eq!(
        r["error"]["code"], -32602,
        "lookup.find is not registered: {r}"
    );
    assert!(
        events(c, "package.loaded")
            .iter()
            .all(|e| e["payload"]["package"] != "lookup")
    );
}

#[test]
fn grants_the_host_does_not_give_refuse_the_package_at_load_as_overclaim() {
    let pkgs = lookup_with(GRANTS);
    let (mut c, _config) = host(pkgs.path(), None);
    let reason = refusal_reason(&mut c);
    assert!(
        reason.contains("declares the network grant `http://127.0.0.1:9/v1`")
            && reason.contains("[packages.lookup.grants]"),
        "{reason}"
    );
    assert_not_registered(&mut c);
    c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn grants_given_only_in_part_name_the_first_one_missing() {
    let pkgs = lookup_with(GRANTS);
    let config = r#"
[secrets]
OTHER_KEY = { env = "PATH" }

[packages.lookup.grants]
network = ["http://127.0.0.1:9", "https://*.example.com/api"]
secrets = ["OTHER_KEY"]
"#;
    let (mut c, _config) = host(pkgs.path(), Some(config));
    let reason = refusal_reason(&mut c);
    assert!(
        reason.contains("declares the secret `LOOKUP_KEY`"),
        "{reason}"
    );
    assert_not_registered(&mut c);
}

#[test]
fn given_grants_load_and_show_in_describe_package_list_and_open_world_hints() {
    let pkgs = lookup_with(GRANTS);
    let config = r#"
[secrets]
LOOKUP_KEY = { env = "PATH" }

[packages.lookup.grants]
network = ["http://127.0.0.1:9", "https://*.example.com"]
secrets = ["LOOKUP_KEY"]
"#;
    let (mut c, _config) = host(pkgs.path(), Some(config));
    let described = c.call_ok("skills.describe", json!({"name": "lookup.find"}));
    assert_eq!(
        described["grants"],
        json!({
            "network": ["http://127.0.0.1:9/v1", "https://*.example.com/api"],
            "files": [],
            "secrets": ["LOOKUP_KEY"],
            "state": null
        })
    );
    let core = c.call_ok("skills.describe", json!({"name": "skills.list"}));
    assert_eq!(core["grants"], Value::Null);
    let listed = c.call_ok("package.list", json!({"name": "lookup"}));
    assert_eq!(
        listed["packages"][0]["grants"]["secrets"],
        json!(["LOOKUP_KEY"])
    );
    let tools = c.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().unwrap();
    let hint = |name: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["annotations"]["openWorldHint"].clone()
    };
    assert_eq!(
        hint("lookup.find"),
        json!(true),
        "a package with network grants reaches out"
    );
    assert_eq!(hint("scene.createEntity"), json!(false));
}
