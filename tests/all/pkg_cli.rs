//! `limina pkg`: scaffold a package, build it into a component with a pinned hash, inspect
//! it, sign it, and see the host accept the signed package and refuse a tampered one.
//!
//! One real guest build serves every test: the first test to need it runs `pkg new` and
//! `pkg build` (into the shared `target/guests`, so dependencies come from the guest build
//! `cargo xtask build-guests` already did); each test then works on its own copy.

use crate::support::{limina, limina_ok, repo, text};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// Runs `limina <args>`, insists it fails with exit code 1; returns stderr.
fn limina_fails(args: &[&str]) -> String {
    let out = limina(args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "limina {args:?} should fail:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `<tmp>/demo`, made by `limina pkg new demo --dir <tmp>` and built by `limina pkg build`,
/// once per test run.
fn built_demo() -> &'static Path {
    static BUILT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_keep, dir) = BUILT.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let created = limina_ok(&["pkg", "new", "demo", "--dir", path(tmp.path())]);
        assert!(created.contains("demo.hello"), "{created}");
        let dir = tmp.path().join("demo");
        let target = repo().join("target").join("guests");
        let built = limina_ok(&["pkg", "build", path(&dir), "--target-dir", path(&target)]);
        assert!(built.contains("content_hash = \"sha256:"), "{built}");
        (tmp, dir)
    });
    dir
}

/// A copy of the built package in `<new tmp>/demo`, for a test to change.
fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["limina.toml", "demo.wasm", "Cargo.toml"] {
        std::fs::copy(built_demo().join(file), dir.join(file)).unwrap();
    }
    (tmp, dir)
}

fn sha256_of(file: &Path) -> String {
    format!(
        "sha256:{}",
        hex::encode(Sha256::digest(std::fs::read(file).unwrap()))
    )
}

fn manifest(dir: &Path) -> toml::Table {
    std::fs::read_to_string(dir.join("limina.toml"))
        .unwrap()
        .parse()
        .unwrap()
}

/// A host serving the packages in `packages`, sent `initialize` and then `calls`, until EOF.
/// Returns the reply messages to the calls, stderr and the exit code.
fn serve(packages: &Path, extra: &[&str], calls: &[(&str, Value)]) -> (Vec<Value>, String, i32) {
    let traces = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args([
            "--mcp-stdio",
            "--manual-clock",
            "--packages",
            path(packages),
        ])
        .args(["--trace-dir", path(traces.path())])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning limina");
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}, "profile": "builder.readWrite"}}),
    ];
    for (i, (name, arguments)) in calls.iter().enumerate() {
        lines.push(json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}));
    }
    let mut stdin = child.stdin.take().unwrap();
    for line in &lines {
        // A host that exited early closes the pipe; what it printed says why.
        let _ = writeln!(stdin, "{line}");
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let replies = text(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["id"].as_u64().is_some_and(|id| id > 0))
        .collect();
    (replies, text(&out.stderr), out.status.code().unwrap_or(-1))
}

#[test]
fn new_scaffolds_a_package_and_build_makes_its_component_with_a_pinned_hash() {
    let dir = built_demo();
    for file in [
        "Cargo.toml",
        "src/lib.rs",
        "README.md",
        "limina.toml",
        ".gitignore",
    ] {
        assert!(dir.join(file).is_file(), "pkg new wrote no {file}");
    }
    let cargo = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(cargo.contains("limina-sdk = { path = "), "{cargo}");
    assert!(cargo.contains("[workspace]"), "{cargo}");
    let component = dir.join("demo.wasm");
    assert!(component.is_file(), "pkg build wrote no demo.wasm");
    let m = manifest(dir);
    assert_eq!(m["name"].as_str(), Some("demo"));
    assert_eq!(m["version"].as_str(), Some("0.1.0"));
    assert_eq!(
        m["content_hash"].as_str(),
        Some(sha256_of(&component).as_str())
    );
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(lib.contains("#[test]"), "the scaffold has a unit test");
}

/// Runs a package's own unit tests natively with the host's cargo, the way an author runs
/// `cargo test` in it. Every package shares one target folder, so dependencies build once.
pub fn native_cargo_test(package: &Path) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Command::new(cargo)
        .arg("test")
        .arg("--manifest-path")
        .arg(package.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(repo().join("target").join("packages-native"))
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET")
        .stdin(Stdio::null())
        .output()
        .expect("running cargo test")
}

#[test]
fn the_scaffold_passes_its_own_unit_tests_natively() {
    let out = native_cargo_test(built_demo());
    assert!(
        out.status.success(),
        "cargo test in the new package failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("hello_greets_by_name ... ok"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn new_refuses_bad_names_and_existing_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let err = limina_fails(&["pkg", "new", "Bad_Name", "--dir", path(tmp.path())]);
    assert!(err.contains("lowercase letters, digits and '-'"), "{err}");
    std::fs::create_dir(tmp.path().join("taken")).unwrap();
    let err = limina_fails(&["pkg", "new", "taken", "--dir", path(tmp.path())]);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(
        std::fs::read_dir(tmp.path().join("taken")).unwrap().count(),
        0
    );
}

#[test]
fn build_and_sign_outside_a_package_name_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let err = limina_fails(&["pkg", "build", path(tmp.path())]);
    assert!(
        err.contains("limina.toml") && err.contains("limina pkg new"),
        "{err}"
    );
    let (_tmp, dir) = demo_copy();
    let err = limina_fails(&[
        "pkg",
        "sign",
        path(&dir),
        "--key",
        path(&tmp.path().join("nokey")),
    ]);
    assert!(err.contains("limina pkg keygen"), "{err}");
    std::fs::write(tmp.path().join("short.key"), "abcd\n").unwrap();
    let err = limina_fails(&[
        "pkg",
        "sign",
        path(&dir),
        "--key",
        path(&tmp.path().join("short.key")),
    ]);
    assert!(err.contains("64 hex digits"), "{err}");
}

#[test]
fn inspect_lists_skills_schemas_imports_exports_and_limits() {
    let dir = built_demo();
    let report = limina_ok(&["pkg", "inspect", path(dir)]);
    for expected in [
        "package demo 0.1.0",
        "demo.hello 0.1.0",
        "Greet someone by name.",
        "\"greeting\"",
        "\"name\"",
        "limina:skill/types@0.2.0",
        "limina:skill/skill@0.2.0: describe, invoke, run-hook",
        "limina:skill/resources@0.2.0: list-resources, read-resource, complete-variable",
        "limina:skill/prompts@0.2.0: list-prompts, get-prompt, complete-argument",
        "fuel_per_call 5000000, memory_bytes 8388608, timeout_ms 1000",
        "(matches the component)",
        "signature     none",
    ] {
        assert!(report.contains(expected), "no `{expected}` in:\n{report}");
    }
    let component = limina_ok(&["pkg", "inspect", path(&dir.join("demo.wasm"))]);
    assert!(component.contains("demo.hello 0.1.0"), "{component}");
}

#[test]
fn a_signed_package_is_accepted_by_a_host_that_trusts_its_key() {
    let (tmp, dir) = demo_copy();
    let key = tmp.path().join("keys").join("signing.key");
    let made = limina_ok(&["pkg", "keygen", "--out", path(&key)]);
    let public_key = made
        .lines()
        .find_map(|l| l.strip_prefix("public key: "))
        .expect("keygen prints the public key")
        .to_string();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the key is private to its owner");
    }
    let err = limina_fails(&["pkg", "keygen", "--out", path(&key)]);
    assert!(err.contains("already exists"), "{err}");

    limina_ok(&["pkg", "sign", path(&dir), "--key", path(&key)]);
    let m = manifest(&dir);
    assert_eq!(
        m["attestation"]["public_key"].as_str(),
        Some(public_key.as_str())
    );
    assert_eq!(
        m["content_hash"].as_str(),
        Some(sha256_of(&dir.join("demo.wasm")).as_str())
    );
    assert!(limina_ok(&["pkg", "inspect", path(&dir)]).contains("signature     valid"));

    let config = tmp.path().join("limina.config.toml");
    std::fs::write(&config, format!("trustedKeys = [\"{public_key}\"]\n")).unwrap();
    let (replies, stderr, _) = serve(
        tmp.path(),
        &["--config", path(&config)],
        &[("demo.hello", json!({"name": "Ada"}))],
    );
    assert_eq!(replies.len(), 1, "{stderr}");
    let result = &replies[0]["result"];
    assert_eq!(result["isError"], false, "{}\n{stderr}", replies[0]);
    assert_eq!(result["structuredContent"]["greeting"], "Hello, Ada!");
}

#[test]
fn a_component_changed_after_signing_is_refused_at_start_up() {
    let (tmp, dir) = demo_copy();
    let key = tmp.path().join("signing.key");
    limina_ok(&["pkg", "keygen", "--out", path(&key)]);
    limina_ok(&["pkg", "sign", path(&dir), "--key", path(&key)]);
    // A custom section appended: still a valid component, but not the one that was signed.
    let mut component = std::fs::read(dir.join("demo.wasm")).unwrap();
    component.extend_from_slice(&[0x00, 0x04, 0x03, b'e', b'v', b'l']);
    std::fs::write(dir.join("demo.wasm"), component).unwrap();

    let report = limina(&["pkg", "inspect", path(&dir)]);
    assert_eq!(report.status.code(), Some(1));
    let report = text(&report.stdout);
    assert!(report.contains("content_hash  MISMATCH"), "{report}");
    assert!(report.contains("signature     INVALID"), "{report}");

    let (replies, stderr, _) = serve(
        tmp.path(),
        &[],
        &[
            ("demo.hello", json!({"name": "Ada"})),
            ("scene.queryEntities", json!({})),
        ],
    );
    assert!(stderr.contains("refused the package"), "{stderr}");
    assert!(stderr.contains("package.signature"), "{stderr}");
    assert!(stderr.contains("content_hash"), "{stderr}");
    assert_eq!(replies.len(), 2, "{stderr}");
    let unknown = replies[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        unknown.contains("Unknown tool: demo.hello"),
        "the refused package must not answer: {}",
        replies[0]
    );
    assert_eq!(
        replies[1]["result"]["isError"], false,
        "the host serves the rest normally: {}",
        replies[1]
    );
}
