//! Getting out of a granted volume. `tests/guests-python/burglar` holds `read:rules` and
//! `write:notes`; the test maps both to fresh folders beside a folder `outside` holding a
//! secret, and the guest tries every way out: `..`, absolute paths, a symlink and a hard link
//! pointing outside, writing to the read-only volume, writing past the package's quota. Each
//! is refused, nothing outside changes, refusals the host makes are traced with their rule,
//! and the host answers the next call.

use crate::support::{Client, package_dir, repo};
use serde_json::{Value, json};
use std::path::PathBuf;

const SECRET: &str = "the host's secret";

/// A profile whose sessions may use files, and one whose sessions may not.
const PROFILES: &str = r#"
[profiles.keeper]
# scene.write: for `dev.reload`.
permissions = ["scene.read", "scene.write", "files.read", "files.write"]

[profiles.visitor]
permissions = ["scene.read"]
"#;

struct Vault {
    root: tempfile::TempDir,
    _packages: tempfile::TempDir,
    c: Client,
}

impl Vault {
    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// One operation by the guest: its report.
    fn attempt(&mut self, args: Value) -> Value {
        self.c.call_ok("burglar.try", args)
    }

    /// Denials the host traced with `rule`.
    fn denials(&mut self, rule: &str) -> Vec<Value> {
        let tail = self.c.call_ok(
            "trace.tail",
            json!({"type": "security.permission.denied", "limit": 1000}),
        );
        tail["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["payload"]["rule"] == rule)
            .map(|e| e["payload"].clone())
            .collect()
    }

    fn writes(&mut self) -> Vec<Value> {
        let tail = self
            .c
            .call_ok("trace.tail", json!({"type": "files.write", "limit": 1000}));
        tail["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["payload"].clone())
            .collect()
    }

    /// The secret outside is as it was, and the host still answers.
    fn intact(&mut self) {
        let secret = std::fs::read_to_string(self.path("outside/secret.txt")).unwrap();
        assert_eq!(secret, SECRET, "the file outside the volumes changed");
        let ok = self.attempt(json!({"op": "read", "path": "/rules/book.txt"}));
        assert_eq!(
            ok,
            json!({"ok": true, "value": "the rules"}),
            "the next call"
        );
    }
}

/// A host whose `burglar` package may write `write_bytes` into its volumes.
fn vault(write_bytes: u64) -> Vault {
    let root = tempfile::tempdir().unwrap();
    for dir in ["rules", "notes", "outside"] {
        std::fs::create_dir(root.path().join(dir)).unwrap();
    }
    std::fs::write(root.path().join("rules/book.txt"), "the rules").unwrap();
    std::fs::write(root.path().join("outside/secret.txt"), SECRET).unwrap();
    let config = root.path().join("limina.toml");
    std::fs::write(
        &config,
        format!(
            "{PROFILES}\n[volumes]\nrules = {:?}\nnotes = {:?}\n\n[files]\nwriteBytes = {write_bytes}\n\n\
             [packages.burglar.grants]\nfiles = [\"read:rules\", \"write:notes\"]\n",
            root.path().join("rules"),
            root.path().join("notes"),
        ),
    )
    .unwrap();
    let packages = package_dir(
        &repo().join("tests/guests-python/burglar"),
        &repo().join("target/components/burglar.wasm"),
    );
    let c = Client::session(
        "keeper",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    Vault {
        root,
        _packages: packages,
        c,
    }
}

fn refused(report: &Value) -> String {
    assert_eq!(report["ok"], false, "must be refused: {report}");
    report["error"].as_str().unwrap().to_string()
}

#[test]
fn a_granted_volume_is_read_and_written_and_each_write_is_traced_without_its_content() {
    let mut v = vault(1 << 20);
    let listed = v.attempt(json!({"op": "list", "path": "/rules"}));
    assert_eq!(listed["value"], json!(["book.txt"]), "{listed}");
    let wrote =
        v.attempt(json!({"op": "write", "path": "/notes/./day1.txt", "text": "met the smith"}));
    assert_eq!(wrote, json!({"ok": true, "value": 13}));
    assert_eq!(
        std::fs::read_to_string(v.path("notes/day1.txt")).unwrap(),
        "met the smith"
    );
    let writes = v.writes();
    assert_eq!(
        writes,
        [json!({"package": "burglar", "volume": "notes", "path": "day1.txt", "bytes": 13})],
        "one event per file per call, its path within the volume and its size"
    );
    assert!(
        !writes[0].to_string().contains("smith"),
        "never the content"
    );
    v.intact();
}

#[test]
fn dot_dot_and_absolute_paths_find_nothing_outside_the_volumes() {
    let mut v = vault(1 << 20);
    for path in [
        "/notes/../outside/secret.txt",
        "/notes/../../outside/secret.txt",
        "/rules/../../../../../etc/passwd",
    ] {
        let error = refused(&v.attempt(json!({"op": "read", "path": path})));
        assert!(
            error.contains("Operation not permitted") || error.contains("No such file"),
            "{path}: {error}"
        );
    }
    let absolute = v.path("outside/secret.txt");
    for path in [absolute.to_str().unwrap(), "/etc/passwd", "/"] {
        let report = v.attempt(json!({"op": "read", "path": path}));
        refused(&report);
    }
    let escaped =
        v.attempt(json!({"op": "write", "path": "/notes/../outside/secret.txt", "text": "pwned"}));
    refused(&escaped);
    v.intact();
}

#[test]
fn a_symlink_pointing_out_of_the_volume_is_not_followed() {
    let mut v = vault(1 << 20);
    // Made by the host's side (as a careless operator might) and by the guest itself.
    std::os::unix::fs::symlink(v.path("outside/secret.txt"), v.path("notes/planted")).unwrap();
    let report = v.attempt(json!({"steps": [
        {"op": "read", "path": "/notes/planted"},
        {"op": "write", "path": "/notes/planted", "text": "pwned"},
        {"op": "symlink", "target": "../outside/secret.txt", "path": "/notes/mine"},
        {"op": "read", "path": "/notes/mine"},
        {"op": "symlink", "target": "/etc/passwd", "path": "/notes/abs"},
        {"op": "read", "path": "/notes/abs"},
    ]}));
    let steps = report["steps"].as_array().unwrap();
    for i in [0, 1, 3, 5] {
        refused(&steps[i]);
    }
    v.intact();
}

#[test]
fn a_hard_link_to_a_file_outside_is_never_written_through() {
    let mut v = vault(1 << 20);
    std::fs::hard_link(v.path("outside/secret.txt"), v.path("notes/linked")).unwrap();
    for args in [
        json!({"op": "write", "path": "/notes/linked", "text": "pwned"}),
        json!({"op": "write", "path": "/notes/linked", "text": "pwned", "append": true}),
    ] {
        let error = refused(&v.attempt(args));
        assert!(error.contains("Operation not permitted"), "{error}");
    }
    let denied = v.denials("files.hardLink");
    assert_eq!(denied.len(), 2, "{denied:?}");
    assert_eq!(denied[0]["volume"], "notes");
    assert_eq!(denied[0]["path"], "linked");
    assert_eq!(denied[0]["package"], "burglar");
    assert!(v.writes().is_empty(), "nothing was written");
    // Linking a read-only volume's file into the writable one does not make it writable.
    let report = v.attempt(json!({"steps": [
        {"op": "link", "target": "/rules/book.txt", "path": "/notes/book"},
        {"op": "write", "path": "/notes/book", "text": "rewritten"},
    ]}));
    // Either the link is refused (the volume it comes from is read-only) or the write
    // through it is; the book is unchanged whichever.
    if report["steps"][0]["ok"] == true {
        refused(&report["steps"][1]);
    }
    assert_eq!(
        std::fs::read_to_string(v.path("rules/book.txt")).unwrap(),
        "the rules"
    );
    v.intact();
}

#[test]
fn a_read_only_volume_refuses_every_write_and_the_refusal_is_traced() {
    let mut v = vault(1 << 20);
    for args in [
        json!({"op": "write", "path": "/rules/book.txt", "text": "rewritten"}),
        json!({"op": "write", "path": "/rules/new.txt", "text": "new"}),
        json!({"op": "write", "path": "/rules/book.txt", "text": "more", "append": true}),
    ] {
        let error = refused(&v.attempt(args.clone()));
        assert!(error.contains("Operation not permitted"), "{args}: {error}");
    }
    for args in [
        json!({"op": "remove", "path": "/rules/book.txt"}),
        json!({"op": "mkdir", "path": "/rules/sub"}),
    ] {
        refused(&v.attempt(args));
    }
    assert_eq!(
        std::fs::read_to_string(v.path("rules/book.txt")).unwrap(),
        "the rules"
    );
    assert!(!v.path("rules/new.txt").exists());
    let denied = v.denials("files.readOnly");
    assert_eq!(denied.len(), 3, "{denied:?}");
    assert_eq!(denied[1]["path"], "new.txt");
    v.intact();
}

#[test]
fn writing_past_the_quota_fails_with_no_space_and_is_traced() {
    let mut v = vault(100);
    let first = v.attempt(json!({"op": "write", "path": "/notes/a.txt", "bytes": 60}));
    assert_eq!(first, json!({"ok": true, "value": 60}));
    let over = v.attempt(json!({"op": "write", "path": "/notes/b.txt", "bytes": 60}));
    let error = refused(&over);
    // ENOSPC from a direct write; wasi-libc reports a failed stream write as EIO.
    assert!(
        error.contains("No space left") || error.contains("I/O error"),
        "{error}"
    );
    let size = std::fs::metadata(v.path("notes/b.txt")).map_or(0, |m| m.len());
    assert_eq!(size, 0, "nothing past the quota reached the disk");
    let denied = v.denials("files.quota");
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(denied[0]["quotaBytes"], 100);
    assert_eq!(denied[0]["usedBytes"], 60);
    assert_eq!(denied[0]["path"], "b.txt");
    // What is left still fits.
    let rest = v.attempt(json!({"op": "write", "path": "/notes/c.txt", "bytes": 40}));
    assert_eq!(rest, json!({"ok": true, "value": 40}));
    v.intact();
}

#[test]
fn a_session_without_files_read_sees_no_volume() {
    let mut v = vault(1 << 20);
    v.c.rebind("visitor", "visitor");
    let listed = v.attempt(json!({"op": "list", "path": "/rules"}));
    refused(&listed);
    let denied = v.denials("files.permission");
    assert!(
        denied
            .iter()
            .any(|d| d["missing"] == "files.read" && d["agentId"] == "visitor"),
        "{denied:?}"
    );
}

#[test]
fn a_reloaded_configuration_that_takes_writing_away_holds_from_the_next_call() {
    let mut v = vault(1 << 20);
    let wrote = v.attempt(json!({"op": "write", "path": "/notes/a.txt", "text": "one"}));
    assert_eq!(wrote, json!({"ok": true, "value": 3}));
    std::fs::write(
        v.path("limina.toml"),
        format!(
            "{PROFILES}\n[volumes]\nrules = {:?}\nnotes = {:?}\n\n\
             [packages.burglar.grants]\nfiles = [\"read:rules\", \"read:notes\"]\n",
            v.path("rules"),
            v.path("notes"),
        ),
    )
    .unwrap();
    let reloaded = v.c.call_ok("dev.reload", json!({"target": "data"}));
    assert_eq!(reloaded["ok"], true, "{reloaded}");
    let error = refused(&v.attempt(json!({"op": "write", "path": "/notes/a.txt", "text": "two"})));
    assert!(error.contains("Operation not permitted"), "{error}");
    assert_eq!(
        std::fs::read_to_string(v.path("notes/a.txt")).unwrap(),
        "one"
    );
    let read = v.attempt(json!({"op": "read", "path": "/notes/a.txt"}));
    assert_eq!(read, json!({"ok": true, "value": "one"}), "still readable");
    v.intact();
}
