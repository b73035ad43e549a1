//! Packages from an OCI registry (Debian's docker-registry on loopback): `limina pkg push`
//! uploads a WebAssembly component artifact; `oci://…@sha256:…` in `--packages` and
//! `package.load` fetch it by digest, check it and keep it, so it loads again with the
//! registry gone. Every refusal names its reason — a tag where digests are demanded, an
//! unreachable registry, an unsigned package or a stranger's signature under `trustedKeys`, a
//! blob that is not what its digest says, a digest the registry lacks — and the host goes on
//! serving what it has.

use crate::local_registry::LocalRegistry;
use crate::support::{limina, limina_ok, repo, text};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A built `counter` package (its content_hash pinned), signed with `key` when given.
pub fn counter(key: Option<&Path>) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("counter");
    std::fs::create_dir_all(&dir).unwrap();
    let component = repo().join("target/components/counter_v1.wasm");
    std::fs::copy(&component, dir.join("counter.wasm")).unwrap();
    let manifest =
        std::fs::read_to_string(repo().join("tests/guests/counter-v1/limina.toml")).unwrap();
    let hash = limina::packages::content_hash(&std::fs::read(&component).unwrap());
    std::fs::write(
        dir.join("limina.toml"),
        format!("content_hash = \"{hash}\"\n{manifest}"),
    )
    .unwrap();
    if let Some(key) = key {
        limina_ok(&[
            "pkg",
            "sign",
            dir.to_str().unwrap(),
            "--key",
            key.to_str().unwrap(),
        ]);
    }
    root
}

/// A fresh signing key and its public key.
pub fn keygen(dir: &Path, name: &str) -> (PathBuf, String) {
    let key = dir.join(name);
    let out = limina_ok(&["pkg", "keygen", "--out", key.to_str().unwrap()]);
    let public = out
        .lines()
        .find_map(|l| l.strip_prefix("public key: "))
        .unwrap()
        .to_string();
    (key, public)
}

/// Pushes the package in `root` to `reference`; returns the digest printed.
pub fn push(root: &tempfile::TempDir, reference: &str) -> String {
    let dir = root.path().join("counter");
    let out = limina_ok(&["pkg", "push", dir.to_str().unwrap(), reference]);
    out.lines()
        .find_map(|l| l.strip_prefix("digest "))
        .unwrap_or_else(|| panic!("no digest in {out}"))
        .to_string()
}

/// One host over stdio with `args` and the cache in `cache`: lists its tools after sending
/// `extra` requests (ids from 10 on); returns the replies, the tool names and the log.
fn host(args: &[&str], cache: &Path, extra: &[Value]) -> (Vec<Value>, Vec<String>, String) {
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
        .arg(cache.join("compiled"))
        .args(args)
        .env("LIMINA_NET_LOOPBACK_ONLY", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut messages = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for (i, request) in extra.iter().enumerate() {
        let mut request = request.clone();
        request["jsonrpc"] = json!("2.0");
        request["id"] = json!(10 + i);
        messages.push(request);
    }
    messages.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let log = text(&out.stderr);
    assert!(out.status.success(), "{log}");
    let replies: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let listing = replies.iter().find(|r| r["id"] == 2).expect("a listing");
    let tools = listing["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    (replies, tools, log)
}

fn has_counter(tools: &[String]) -> bool {
    tools.iter().any(|t| t == "counter.version")
}

fn load(reference: &str) -> Value {
    json!({"method": "tools/call", "params": {"name": "package.load", "arguments": {
        "ref": reference, "agentId": "ops", "sessionId": "s", "profile": "builder.readWrite"}}})
}

/// The structured answer of the `package.load` call sent first among `extra`.
fn load_answer(replies: &[Value]) -> Value {
    let reply = replies
        .iter()
        .find(|r| r["id"] == 10)
        .expect("the load's reply");
    reply["result"]["structuredContent"].clone()
}

fn config(dir: &Path, text: &str) -> String {
    let path = dir.join("host.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_pushed_package_is_fetched_by_digest_kept_and_loaded_again_with_the_registry_gone() {
    let mut registry = LocalRegistry::start();
    let package = counter(None);
    let tagged = format!("oci://{}/test/counter:0.1.0", registry.address);
    let digest = push(&package, &tagged);
    assert!(
        digest.starts_with("sha256:") && digest.len() == 71,
        "{digest}"
    );
    // The artifact is a WebAssembly component in the layout other tools recognise.
    let (status, manifest) = registry.get("/v2/test/counter/manifests/0.1.0");
    assert_eq!(status, 200, "{manifest}");
    let manifest: Value = serde_json::from_str(&manifest).unwrap();
    assert_eq!(
        manifest["config"]["mediaType"],
        "application/vnd.wasm.config.v0+json"
    );
    assert_eq!(manifest["layers"][0]["mediaType"], "application/wasm");
    assert_eq!(manifest["layers"].as_array().unwrap().len(), 1);

    let cache = tempfile::tempdir().unwrap();
    let pinned = format!("oci://{}/test/counter@{digest}", registry.address);
    let (_, tools, log) = host(&["--packages", &pinned], cache.path(), &[]);
    assert!(has_counter(&tools), "{log}");
    let kept = cache.path().join("packages").join(digest.replace(':', "-"));
    assert!(kept.join("limina.toml").is_file() && kept.join("counter.wasm").is_file());

    // A second host fetches it with package.load, by digest.
    let other = tempfile::tempdir().unwrap();
    let (replies, tools, log) = host(&[], other.path(), &[load(&pinned)]);
    assert_eq!(load_answer(&replies)["ok"], true, "{replies:?}\n{log}");
    assert!(has_counter(&tools));

    // With the registry gone, the pinned package loads from what was kept; a tag cannot.
    registry.stop();
    let (_, tools, log) = host(&["--packages", &pinned], cache.path(), &[]);
    assert!(has_counter(&tools), "{log}");
    assert!(!log.contains("skipping"), "{log}");
    let (replies, tools, log) = host(&["--packages", &tagged], cache.path(), &[load(&tagged)]);
    assert!(
        log.contains(&format!("skipping the package {tagged}: "))
            && log.contains("(registry.unreachable)"),
        "{log}"
    );
    assert!(!has_counter(&tools) && tools.iter().any(|t| t == "scene.createEntity"));
    let answer = load_answer(&replies);
    assert_eq!(answer["ok"], false);
    assert_eq!(answer["rule"], "registry.unreachable");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains(&registry.address),
        "{answer}"
    );
}

#[test]
fn refusals_name_their_reason_and_the_host_serves_on_without_the_package() {
    let registry = LocalRegistry::start();
    let keys = tempfile::tempdir().unwrap();
    let (trusted_key, trusted) = keygen(keys.path(), "trusted.key");
    let (stranger_key, stranger) = keygen(keys.path(), "stranger.key");
    let address = &registry.address;
    let unsigned = push(&counter(None), &format!("oci://{address}/test/unsigned:1"));
    let by_stranger = push(
        &counter(Some(&stranger_key)),
        &format!("oci://{address}/test/stranger:1"),
    );
    let by_trusted = push(
        &counter(Some(&trusted_key)),
        &format!("oci://{address}/test/trusted:1"),
    );
    let scratch = tempfile::tempdir().unwrap();
    let refused = |args: &[&str], why: &str| {
        let cache = tempfile::tempdir().unwrap();
        let (_, tools, log) = host(args, cache.path(), &[]);
        assert!(log.contains(why), "expected `{why}` in:\n{log}");
        assert!(!has_counter(&tools), "{log}");
        assert!(tools.iter().any(|t| t == "scene.createEntity"));
    };

    // A tag where the configuration demands digests.
    let strict = config(scratch.path(), "[oci]\nrequireDigest = true\n");
    refused(
        &[
            "--config",
            &strict,
            "--packages",
            &format!("oci://{address}/test/unsigned:1"),
        ],
        "names a tag but no digest, and `[oci] requireDigest` is on",
    );
    // … and such a configuration listing a tag is refused as it is read.
    let listing = scratch.path().join("listing.toml");
    std::fs::write(
        &listing,
        format!("[oci]\nrequireDigest = true\npackages = [\"oci://{address}/test/unsigned:1\"]\n"),
    )
    .unwrap();
    let out = limina(&["--mcp-stdio", "--config", listing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("listing.toml:3: `oci.packages`"),
        "{}",
        text(&out.stderr)
    );

    // Signatures, with trustedKeys set.
    let trusting = config(scratch.path(), &format!("trustedKeys = [\"{trusted}\"]\n"));
    let pinned = |repo: &str, digest: &str| format!("oci://{address}/test/{repo}@{digest}");
    refused(
        &[
            "--config",
            &trusting,
            "--packages",
            &pinned("unsigned", &unsigned),
        ],
        "is not signed, and this host takes registry packages only signed by one of `trustedKeys`",
    );
    refused(
        &[
            "--config",
            &trusting,
            "--packages",
            &pinned("stranger", &by_stranger),
        ],
        &format!("is signed by {stranger}, which is not among `trustedKeys`"),
    );
    let cache = tempfile::tempdir().unwrap();
    let (_, tools, log) = host(
        &[
            "--config",
            &trusting,
            "--packages",
            &pinned("trusted", &by_trusted),
        ],
        cache.path(),
        &[],
    );
    assert!(has_counter(&tools), "{log}");

    // A digest the registry does not hold.
    let absent = format!("sha256:{}", "0".repeat(64));
    refused(
        &["--packages", &pinned("unsigned", &absent)],
        &format!("the registry has no {absent}"),
    );

    // A blob that is not what its digest says.
    let (_, manifest) = registry.get(&format!("/v2/test/unsigned/manifests/{unsigned}"));
    let manifest: Value = serde_json::from_str(&manifest).unwrap();
    let layer = manifest["layers"][0]["digest"].as_str().unwrap();
    let file = registry.blob_file(layer);
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&file, bytes).unwrap();
    refused(
        &["--packages", &pinned("unsigned", &unsigned)],
        &format!("the blob {layer} arrived as"),
    );
}
