//! `limina precompile` and `--precompiled DIR`: the core compiled ahead of time (as a container
//! image bakes it in) is read, not compiled again, and nothing is written into it; a folder
//! made for another engine (another build, a CPU with other features) is passed over with a
//! warning and the host compiles into its writable cache instead, serving all the same. A
//! folder that is not empty is refused as a target, untouched.

use crate::support::{limina, text};
use serde_json::{Value, json};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Starts the host over stdio with `args`, lists its tools, calls one, and returns the
/// replies and its log.
fn serve(args: &[&str], cache: &Path) -> (Vec<Value>, String) {
    let traces = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args([
            "--mcp-stdio",
            "--manual-clock",
            "--profile",
            "builder.readWrite",
        ])
        .arg("--trace-dir")
        .arg(traces.path())
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .env_remove("LIMINA_PRECOMPILED_DIR")
        .env_remove("LIMINA_CORE_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "scene.createEntity", "arguments": {"position": [1, 2, 3]}}}),
    ];
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let log = text(&out.stderr);
    assert!(out.status.success(), "limina failed: {log}");
    let replies: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), 3, "{replies:?}\n{log}");
    let tools = replies[1]["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "scene.createEntity"));
    assert_eq!(replies[2]["result"]["isError"], false, "{}", replies[2]);
    (replies, log)
}

/// The files in `dir` whose names end with `suffix`, sorted.
fn entries(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.to_string_lossy().ends_with(suffix));
    found.sort();
    found
}

#[test]
fn a_precompiled_core_is_read_not_compiled_and_one_for_another_engine_is_compiled_past() {
    let root = tempfile::tempdir().unwrap();
    let baked = root.path().join("precompiled");
    let made = limina(&["precompile", "--into", baked.to_str().unwrap()]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let compiled = entries(&baked, ".cwasm");
    assert_eq!(compiled.len(), 9, "one per core package: {compiled:?}");
    assert_eq!(entries(&baked, ".describe").len(), 9);
    let before: Vec<(PathBuf, Vec<u8>)> = entries(&baked, "")
        .into_iter()
        .map(|p| (p.clone(), fs::read(&p).unwrap()))
        .collect();

    // Read from the baked folder: nothing compiled, nothing written to either folder.
    let cache = root.path().join("cache");
    let (_, log) = serve(&["--precompiled", baked.to_str().unwrap()], &cache);
    assert!(!log.contains("compiling "), "{log}");
    assert!(entries(&cache, ".cwasm").is_empty(), "{log}");
    let after: Vec<(PathBuf, Vec<u8>)> = entries(&baked, "")
        .into_iter()
        .map(|p| (p.clone(), fs::read(&p).unwrap()))
        .collect();
    assert_eq!(before, after, "the precompiled folder is only read");

    // The same entries under another engine's key: passed over, said once, compiled into the
    // writable cache, served the same.
    let foreign = root.path().join("foreign");
    fs::create_dir_all(&foreign).unwrap();
    for (path, bytes) in &before {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (hash, rest) = name.split_once('-').unwrap();
        let (_, tail) = rest.split_at(16);
        fs::write(
            foreign.join(format!("{hash}-00000000deadbeef{tail}")),
            bytes,
        )
        .unwrap();
    }
    let other_cache = root.path().join("other-cache");
    let (_, log) = serve(&["--precompiled", foreign.to_str().unwrap()], &other_cache);
    assert!(
        log.contains("were made by another build of limina or for a CPU with other features"),
        "{log}"
    );
    assert_eq!(
        log.matches("were made by another build").count(),
        1,
        "{log}"
    );
    assert!(log.contains("compiling "), "{log}");
    assert_eq!(entries(&other_cache, ".cwasm").len(), 9, "{log}");

    // Entries under this engine's key that are not what they claim: ignored, compiled.
    let damaged = root.path().join("damaged");
    fs::create_dir_all(&damaged).unwrap();
    for (path, bytes) in &before {
        let name = path.file_name().unwrap();
        let garbage = if name.to_string_lossy().ends_with(".cwasm") {
            b"not a compiled component".to_vec()
        } else {
            bytes.clone()
        };
        fs::write(damaged.join(name), garbage).unwrap();
    }
    let third_cache = root.path().join("third-cache");
    let (replies, log) = serve(&["--precompiled", damaged.to_str().unwrap()], &third_cache);
    assert!(
        log.contains("ignoring unusable compiled cache entry"),
        "{log}"
    );
    assert_eq!(replies[2]["result"]["isError"], false);
}

#[test]
fn precompiling_into_a_folder_that_is_not_empty_is_refused_and_leaves_it_alone() {
    let root = tempfile::tempdir().unwrap();
    let kept = root.path().join("kept.txt");
    fs::write(&kept, "mine").unwrap();
    let out = limina(&["precompile", "--into", root.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let log = text(&out.stderr);
    assert!(
        log.contains("is not empty (1 entries): precompile into an empty folder"),
        "{log}"
    );
    assert_eq!(fs::read_dir(root.path()).unwrap().count(), 1);
    assert_eq!(fs::read_to_string(&kept).unwrap(), "mine");
}
