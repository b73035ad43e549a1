//! Start-up with a warm cache: a package's description is read from the compiled cache, so it
//! is listed without being deserialized or instantiated, and compiled on its first call.
//! Nothing stale: a changed component is described again, a damaged cache entry (description
//! or compiled code) is made again rather than trusted, and a component that left the cache
//! and changed on disk is refused at its call. The state store opens only when needed.

use crate::support::{Client, admitted_builder, empty_registry, repo};
use limina::call::ErrorCode;
use limina::packages::PackageSource;
use limina::registry::{Caller, Registry};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn registry(cache: &Path) -> Registry {
    empty_registry(Some(cache.to_path_buf()))
}

fn builder(registry: &mut Registry) -> Caller {
    admitted_builder(registry)
}

fn component(version: u32) -> PathBuf {
    repo().join(format!("target/components/counter_v{version}.wasm"))
}

/// A folder holding the `counter` package with version 1's component.
fn counter_folder() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("counter");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = repo().join("tests/guests/counter-v1/limina.toml");
    std::fs::copy(manifest, dir.join("limina.toml")).unwrap();
    std::fs::copy(component(1), dir.join("counter.wasm")).unwrap();
    (root, dir)
}

/// A configuration granting `stash` its state (a host grants none unless told to).
fn stash_config(dir: &Path) -> PathBuf {
    let path = dir.join("host.toml");
    std::fs::write(
        &path,
        "[packages.stash.grants]\nstate = { keys = 4, bytes = 256 }\n",
    )
    .unwrap();
    path
}

/// Loads `counter` from `dir` into a fresh registry over `cache`.
fn load(cache: &Path, dir: &Path) -> (Registry, Caller) {
    let mut registry = registry(cache);
    registry.load(PackageSource::read(dir).unwrap()).unwrap();
    let caller = builder(&mut registry);
    (registry, caller)
}

fn counter_version(registry: &Registry) -> String {
    registry.skill("counter.version").unwrap().version.clone()
}

fn compiled(registry: &Registry) -> bool {
    registry.packages()[0].is_compiled()
}

/// The files in `cache` ending with `suffix`.
fn entries(cache: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    found.sort();
    found
}

fn call_version(registry: &mut Registry, caller: &Caller) -> Value {
    let response = registry.invoke(caller, "counter.version", json!({}));
    assert!(response.success, "{:?}", response.error);
    response.result.unwrap()
}

#[test]
fn a_second_load_lists_from_the_cached_description_and_compiles_on_the_first_call() {
    let cache = tempfile::tempdir().unwrap();
    let (_root, dir) = counter_folder();
    let (first, _) = load(cache.path(), &dir);
    assert!(compiled(&first), "the first load compiles and describes");
    assert_eq!(entries(cache.path(), ".cwasm").len(), 1);
    assert_eq!(entries(cache.path(), ".describe").len(), 1);
    let first_schema = first
        .skill("counter.version")
        .unwrap()
        .input
        .text()
        .get()
        .to_string();
    drop(first);

    let (mut second, caller) = load(cache.path(), &dir);
    assert!(!compiled(&second), "listed from the description alone");
    assert_eq!(counter_version(&second), "0.1.0");
    let schema = &second.skill("counter.version").unwrap().input;
    assert!(
        !schema.parsed(),
        "listed from its text: no schema parsed at load"
    );
    assert_eq!(
        schema.text().get(),
        first_schema,
        "the standard form the first load made, read back as it was kept"
    );
    assert_eq!(schema.source()["type"], "object");
    assert_eq!(call_version(&mut second, &caller), json!({"version": 1}));
    assert!(compiled(&second), "compiled by its first call");
    assert_eq!(call_version(&mut second, &caller), json!({"version": 1}));
    assert_eq!(
        entries(cache.path(), ".describe").len(),
        1,
        "nothing rewritten"
    );
}

#[test]
fn a_changed_component_is_described_again_never_from_the_old_entry() {
    let cache = tempfile::tempdir().unwrap();
    let (_root, dir) = counter_folder();
    drop(load(cache.path(), &dir));
    std::fs::copy(component(2), dir.join("counter.wasm")).unwrap();

    let (mut changed, caller) = load(cache.path(), &dir);
    assert!(
        compiled(&changed),
        "a component never seen is compiled to describe it"
    );
    assert_eq!(counter_version(&changed), "0.2.0");
    assert_eq!(call_version(&mut changed, &caller), json!({"version": 2}));
    assert_eq!(
        entries(cache.path(), ".describe").len(),
        2,
        "one entry each"
    );
}

#[test]
fn a_damaged_description_entry_is_ignored_and_written_again() {
    let cache = tempfile::tempdir().unwrap();
    let (_root, dir) = counter_folder();
    drop(load(cache.path(), &dir));
    let entry = entries(cache.path(), ".describe").remove(0);
    let sound = std::fs::read_to_string(&entry).unwrap();
    // An edit that keeps the file well-formed JSON but not its checksum.
    std::fs::write(&entry, sound.replace("0.1.0", "9.9.9")).unwrap();

    let (again, _) = load(cache.path(), &dir);
    assert_eq!(counter_version(&again), "0.1.0", "the edit was not trusted");
    assert!(compiled(&again), "described again from the component");
    assert_eq!(std::fs::read_to_string(&entry).unwrap(), sound, "rewritten");

    std::fs::write(&entry, "not a description").unwrap();
    let (again, _) = load(cache.path(), &dir);
    assert_eq!(counter_version(&again), "0.1.0");
    let (warm, _) = load(cache.path(), &dir);
    assert!(
        !compiled(&warm),
        "the rewritten entry serves the next start"
    );
}

#[test]
fn a_damaged_compiled_entry_is_compiled_again_at_the_first_call_not_trusted() {
    let cache = tempfile::tempdir().unwrap();
    let (_root, dir) = counter_folder();
    drop(load(cache.path(), &dir));
    let cwasm = entries(cache.path(), ".cwasm").remove(0);
    let size = std::fs::metadata(&cwasm).unwrap().len();
    std::fs::write(&cwasm, b"\x7fELF damaged").unwrap();

    let (mut warm, caller) = load(cache.path(), &dir);
    assert!(!compiled(&warm));
    assert_eq!(call_version(&mut warm, &caller), json!({"version": 1}));
    assert_eq!(
        std::fs::metadata(&cwasm).unwrap().len(),
        size,
        "the damaged entry was replaced by a fresh compile"
    );
}

#[test]
fn a_component_that_left_the_cache_and_changed_on_disk_is_refused_at_its_call() {
    let cache = tempfile::tempdir().unwrap();
    let (_root, dir) = counter_folder();
    drop(load(cache.path(), &dir));
    let (mut warm, caller) = load(cache.path(), &dir);
    for entry in entries(cache.path(), ".cwasm") {
        std::fs::remove_file(entry).unwrap();
    }
    std::fs::copy(component(2), dir.join("counter.wasm")).unwrap();
    let events = warm.realm().tracer.recent().count();
    let entities = warm.realm().world.entity_count();
    let spent = warm.policy_mut().budget(&caller.session_id).used;

    let response = warm.invoke(&caller, "counter.version", json!({}));
    assert!(!response.success);
    let failure = response.error.unwrap();
    assert_eq!(failure.code, ErrorCode::HandlerError);
    assert!(
        failure
            .message
            .starts_with("the package could not start: its compiled component left the cache and ")
            && failure
                .message
                .contains("counter.wasm changed since the package was loaded")
            && failure
                .message
                .contains("reload the package (`dev.reload`)"),
        "{}",
        failure.message
    );
    assert_eq!(warm.realm().world.entity_count(), entities);
    let after = warm.policy_mut().budget(&caller.session_id).used;
    assert_eq!(after.cpu_ms, spent.cpu_ms, "no guest ran");
    assert_eq!(after.mem_bytes, spent.mem_bytes);
    let executed = warm
        .realm()
        .tracer
        .recent()
        .skip(events)
        .filter(|e| e.kind == "skill.executed")
        .count();
    assert_eq!(executed, 0, "the refused call is not recorded as executed");
    assert!(
        !compiled(&warm),
        "nothing was compiled from the changed file"
    );
    assert_eq!(
        counter_version(&warm),
        "0.1.0",
        "the registered package stands"
    );
}

#[test]
fn the_state_store_is_opened_only_for_a_package_that_keeps_state() {
    let traces = tempfile::tempdir().unwrap();
    let trace_dir = traces.path().to_str().unwrap();
    let mut plain = Client::session("builder.readWrite", &["--trace-dir", trace_dir]);
    plain.call_ok("scene.createEntity", json!({}));
    plain.close();
    assert!(
        !traces.path().join("state.sqlite").exists(),
        "a host whose packages keep no state never opens the state store"
    );

    let stash = crate::support::guest_packages(&["stash"]);
    let config = stash_config(stash.path());
    let keeping = Client::session(
        "builder.readWrite",
        &[
            "--trace-dir",
            trace_dir,
            "--packages",
            stash.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    assert!(keeping_lists_stash(keeping), "the stash package was loaded");
    assert!(
        traces.path().join("state.sqlite").exists(),
        "opened at start when a package holds a state grant"
    );
}

/// Whether the host lists the stash package's skills; closes the host.
fn keeping_lists_stash(mut keeping: Client) -> bool {
    let tools = keeping.request("tools/list", json!({}));
    let listed = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"].as_str().unwrap().starts_with("stash."));
    keeping.close();
    listed
}

#[test]
fn a_state_store_that_cannot_be_opened_stops_a_start_that_needs_it() {
    let traces = tempfile::tempdir().unwrap();
    // A folder where the database file should be: SQLite cannot open it.
    std::fs::create_dir_all(traces.path().join("state.sqlite")).unwrap();
    let stash = crate::support::guest_packages(&["stash"]);
    let config = stash_config(stash.path());
    let out = crate::support::limina(&[
        "--mcp-stdio",
        "--trace-dir",
        traces.path().to_str().unwrap(),
        "--packages",
        stash.path().to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = crate::support::text(&out.stderr);
    assert!(
        stderr.contains("state.sqlite: cannot open the state store"),
        "{stderr}"
    );
}

/// A completion of a package listed from its cached description compiles it once and keeps it
/// (it was made again for every completion), answering as before.
#[test]
fn a_completion_compiles_a_package_listed_from_the_cache_once_and_keeps_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = repo().join("packages/npc");
    let packages = crate::support::package_dir(&dir, &dir.join("npc.wasm"));
    let folder = packages.path().join("npc");
    drop(load(cache.path(), &folder));
    let (second, caller) = load(cache.path(), &folder);
    assert!(!compiled(&second), "listed from the description alone");
    let values = second.complete_prompt(&caller, "npc.playScene", "personality", "", 10);
    let all = ["friendly", "gruff", "shy", "formal"]
        .map(String::from)
        .to_vec();
    assert_eq!(values, Some(all));
    assert!(compiled(&second), "compiled by the completion, and kept");
    let again = second.complete_prompt(&caller, "npc.playScene", "personality", "g", 10);
    assert_eq!(again, Some(vec!["gruff".to_string()]));
}
