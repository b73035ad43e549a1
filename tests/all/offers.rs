//! What the tests of packages' resources and prompts share: an example package served with
//! a configuration, and the listings, traces, prompts and completions they read.

use crate::support::{Client, package_dir, repo};
use serde_json::{Value, json};

/// A host serving the example package `packages/NAME` (its built component) with `config`.
pub fn example_host(
    name: &str,
    config: &str,
) -> (tempfile::TempDir, tempfile::NamedTempFile, Client) {
    let dir = repo().join("packages").join(name);
    let pkgs = package_dir(&dir, &dir.join(format!("{name}.wasm")));
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), config).unwrap();
    let c = Client::session(
        "builder.readWrite",
        &[
            "--packages",
            pkgs.path().to_str().unwrap(),
            "--config",
            file.path().to_str().unwrap(),
        ],
    );
    (pkgs, file, c)
}

/// The `field` of each entry of a listing reply's `key` (`resources` / `uri`, …).
pub fn listed(reply: &Value, key: &str, field: &str) -> Vec<String> {
    reply["result"][key]
        .as_array()
        .unwrap_or_else(|| panic!("{reply}"))
        .iter()
        .map(|r| r[field].as_str().unwrap().to_string())
        .collect()
}

/// The trace's newest events of `kind` (up to 100).
pub fn traced(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind, "limit": 100}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

/// The prompt `name` as `prompts/list` shows it.
pub fn prompt_named(c: &mut Client, name: &str) -> Value {
    let prompts = c.request("prompts/list", json!({}));
    prompts["result"]["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("{prompts}"))
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no prompt {name}: {prompts}"))
        .clone()
}

/// The messages `prompts/get` of `name` with `arguments` renders (the reply in the panic when
/// there are none).
pub fn prompt_messages(c: &mut Client, name: &str, arguments: Value) -> Vec<Value> {
    let got = c.request("prompts/get", json!({"name": name, "arguments": arguments}));
    got["result"]["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("{got}"))
        .clone()
}

/// The whole `completion/complete` reply for `argument` = `value` of `reference`.
pub fn complete(c: &mut Client, reference: &Value, argument: &str, value: &str) -> Value {
    c.request(
        "completion/complete",
        json!({"ref": reference, "argument": {"name": argument, "value": value}}),
    )
}
