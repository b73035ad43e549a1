//! The example packages that reach past the world through grants: `memory` (Rust, over
//! state: an agent's notes, ranked, kept across restarts) and `lore` (C, reading a rules book
//! from a read-only volume), each loaded with a configuration giving what it declares.

use crate::support::{Client, error_of, package_dir, repo};
use serde_json::{Value, json};
use std::path::Path;

/// A configuration giving `memory` state and `lore` the book in `book`, and a profile that may
/// use them.
fn config(dir: &Path, book: &Path) -> std::path::PathBuf {
    let path = dir.join("limina.toml");
    std::fs::write(
        &path,
        format!(
            r#"
[profiles.keeper]
permissions = ["scene.read", "files.read", "state.read", "state.write"]

[profiles.outsider]
permissions = ["scene.read"]

# Generous: counted, so a test can see what a refusal charged.
[budgets]
calls = 100000
cpuMs = 600000

[volumes]
book = {:?}

[packages.memory.grants]
state = {{ keys = 10000, bytes = 4194304 }}

[packages.lore.grants]
files = ["read:book"]
"#,
            book
        ),
    )
    .unwrap();
    path
}

/// A host serving `package` (from `packages/`), with its trace (and state) in `traces`.
pub(crate) fn host(package: &str, traces: &Path, agent: &str) -> (tempfile::TempDir, Client) {
    host_with_book(package, traces, agent, &repo().join("packages/lore/book"))
}

/// [`host`], the book's volume at `book`.
pub(crate) fn host_with_book(
    package: &str,
    traces: &Path,
    agent: &str,
    book: &Path,
) -> (tempfile::TempDir, Client) {
    let dir = repo().join("packages").join(package);
    let packages = package_dir(&dir, &dir.join(format!("{package}.wasm")));
    let config = config(traces, book);
    let mut c = Client::session(
        "keeper",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--trace-dir",
            traces.to_str().unwrap(),
        ],
    );
    c.rebind("keeper", agent);
    (packages, c)
}

fn texts(recalled: &Value) -> Vec<String> {
    recalled["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn memory_recalls_an_agents_notes_best_first() {
    let traces = tempfile::tempdir().unwrap();
    let (_p, mut c) = host("memory", traces.path(), "mara");
    for text in [
        "The forge is north of the mill.",
        "Bread is sold at the mill.",
        "The smith at the forge sells swords.",
    ] {
        c.call_ok("memory.remember", json!({"text": text}));
    }
    let out = c.call_ok("memory.recall", json!({"query": "Where is the forge?"}));
    assert_eq!(
        texts(&out),
        [
            "The smith at the forge sells swords.",
            "The forge is north of the mill."
        ],
        "both share `forge`; the newer first: {out}"
    );
    let out = c.call_ok("memory.recall", json!({"query": "forge north"}));
    assert_eq!(
        texts(&out)[0],
        "The forge is north of the mill.",
        "more overlap wins"
    );
    let out = c.call_ok("memory.recall", json!({"query": "", "limit": 1}));
    assert_eq!(
        texts(&out),
        ["The smith at the forge sells swords."],
        "newest"
    );
    let id = out["memories"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        c.call_ok("memory.forget", json!({"id": id})),
        json!({"forgotten": true})
    );
    let out = c.call_ok("memory.recall", json!({"query": "swords"}));
    assert_eq!(out, json!({"memories": []}));
    let (code, message) = error_of(&c.call("memory.forget", json!({"id": "../x"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("`id`"), "{message}");
}

#[test]
fn memories_survive_a_restart_of_the_host() {
    let traces = tempfile::tempdir().unwrap();
    let (_p, mut c) = host("memory", traces.path(), "mara");
    c.call_ok("memory.remember", json!({"text": "The well is poisoned."}));
    drop(c);
    let (_p2, mut c) = host("memory", traces.path(), "mara");
    let out = c.call_ok("memory.recall", json!({"query": "well"}));
    assert_eq!(texts(&out), ["The well is poisoned."], "{out}");
    assert!(traces.path().join("state.sqlite").is_file());
}

#[test]
fn a_session_without_state_permissions_is_refused_and_nothing_is_kept() {
    let traces = tempfile::tempdir().unwrap();
    let (_p, mut c) = host("memory", traces.path(), "mara");
    c.rebind("outsider", "mara");
    let (code, message) = error_of(&c.call("memory.remember", json!({"text": "secret"})));
    assert_eq!(code, "forbidden", "{message}");
    assert!(message.contains("state.write"), "{message}");
    c.rebind("keeper", "mara");
    let out = c.call_ok("memory.recall", json!({"query": "secret"}));
    assert_eq!(out, json!({"memories": []}));
}

#[test]
fn lore_reads_its_book_from_a_read_only_volume() {
    let traces = tempfile::tempdir().unwrap();
    let (_p, mut c) = host("lore", traces.path(), "reader");
    let pages = c.call_ok("lore.pages", json!({}));
    assert_eq!(pages, json!({"pages": ["combat", "magic"]}));
    let page = c.call_ok("lore.read", json!({"page": "magic"}));
    assert_eq!(page["title"], "Magic");
    assert!(
        page["text"].as_str().unwrap().contains("Concentration"),
        "{page}"
    );
    let (code, message) = error_of(&c.call("lore.read", json!({"page": "dragons"})));
    assert_eq!(code, "not_found");
    assert!(message.contains("dragons"), "{message}");
    let (code, _) = error_of(&c.call("lore.read", json!({"page": "../../etc/passwd"})));
    assert_eq!(code, "invalid_input");
}

#[test]
fn lore_without_files_read_finds_no_book() {
    let traces = tempfile::tempdir().unwrap();
    let (_p, mut c) = host("lore", traces.path(), "reader");
    c.rebind("outsider", "reader");
    let (code, message) = error_of(&c.call("lore.pages", json!({})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("not mounted"), "{message}");
}
