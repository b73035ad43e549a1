//! `cargo bench -p limina --bench state`: what a package's state costs per call, through the
//! whole pipeline (validation, policy, guest, commit, trace), against a call of the same guest
//! that touches no state — all in one run, printing medians and ratios. The store is a real
//! SQLite file (WAL, `synchronous = FULL`: a committed call is on disk before it returns), and,
//! for comparison, one in memory (what durability costs). Needs `target/components/stash.wasm`
//! from `cargo xtask build-guests`.

use limina::config::Config;
use limina::packages::PackageSource;
use limina::policy::Permissions;
use limina::realm::Realm;
use limina::registry::{Caller, Registry};
use limina::sandbox::{CompileCache, Sandbox};
use limina::state::StateStore;
use serde_json::{Value, json};
use std::path::Path;

#[path = "common.rs"]
mod common;

const SAMPLES: usize = 9;
const BATCH: usize = 100;

const CONFIG: &str = r#"
# A loaded machine can take a state call past the engine's 10 ms; a benchmark measures, it
# does not cut.
[limits]
engineCallMs = 1000

[profiles.keeper]
permissions = ["state.read", "state.write"]

[packages.stash.grants]
state = { keys = 4, bytes = 256 }
"#;

/// A registry with `stash` loaded over `state`.
fn registry(state: StateStore, packages: &Path) -> Registry {
    let config = Config::parse(CONFIG).unwrap();
    let mut realm: Box<Realm> = common::realm(16);
    realm.state = state;
    let sandbox = Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap();
    let mut registry = Registry::new(sandbox, config.policy, *realm);
    registry.set_host_grants(config.grants);
    registry.set_ceilings(config.ceilings);
    registry
        .load(PackageSource::read(&packages.join("stash")).unwrap())
        .unwrap();
    registry
}

fn call(registry: &mut Registry, caller: &Caller, name: &str, input: &Value) {
    let response = registry.invoke(caller, name, input.clone());
    assert!(response.success, "{name}: {:?}", response.error);
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let component = repo.join("target/components/stash.wasm");
    assert!(
        component.is_file(),
        "build the guests first: cargo xtask build-guests"
    );
    let packages = tempfile::tempdir().unwrap();
    let stash = packages.path().join("stash");
    std::fs::create_dir(&stash).unwrap();
    std::fs::copy(
        repo.join("tests/guests/stash/limina.toml"),
        stash.join("limina.toml"),
    )
    .unwrap();
    std::fs::copy(&component, stash.join("stash.wasm")).unwrap();
    let caller = Caller {
        agent_id: "bench".into(),
        session_id: "bench".into(),
        profile: "keeper".into(),
        permissions: Permissions::parse(&["state.read", "state.write"]).unwrap(),
    };

    let data = tempfile::tempdir().unwrap();
    let mut durable = registry(
        StateStore::open(&data.path().join("state.sqlite")).unwrap(),
        packages.path(),
    );
    let mut memory = registry(StateStore::in_memory(), packages.path());
    let noop = json!({"key": "k"});
    let get = json!({"key": "k"});
    let writer = caller.clone();
    let mut n = 0u64;
    // A new value each time, so every commit writes.
    let mut put = move |registry: &mut Registry| {
        n += 1;
        let input = json!({"key": "k", "value": format!("v{n}"), "then": "ok"});
        call(registry, &writer, "stash.put", &input);
    };
    put(&mut durable);
    put(&mut memory);

    let pure = common::median_us(SAMPLES, BATCH, || {
        call(&mut durable, &caller, "stash.noop", &noop)
    });
    let read = common::median_us(SAMPLES, BATCH, || {
        call(&mut durable, &caller, "stash.get", &get)
    });
    let write = common::median_us(SAMPLES, BATCH, || put(&mut durable));
    let write_memory = common::median_us(SAMPLES, BATCH, || put(&mut memory));

    // The store alone, without the pipeline or the guest: a read, and a write committed.
    let mut alone = StateStore::open(&data.path().join("alone.sqlite")).unwrap();
    let quota = limina::state::Usage {
        keys: 4,
        bytes: 256,
    };
    let store_get = common::median_us(SAMPLES, BATCH, || {
        alone.begin();
        alone.get("stash", None, "k").unwrap();
        alone.end_call(true).unwrap();
    });
    let mut m = 0u64;
    let store_set = common::median_us(SAMPLES, BATCH, || {
        m += 1;
        alone.begin();
        alone
            .set("stash", None, "k", format!("v{m}").into_bytes(), quota)
            .unwrap();
        alone.end_call(true).unwrap();
    });

    println!(
        "state per call, through the whole pipeline (median of {SAMPLES} batches of {BATCH}):"
    );
    println!("  pure guest call (stash.noop)                 {pure:>9.1} µs   1.00×");
    println!(
        "  state get + keys (stash.get)                 {read:>9.1} µs   {:.2}×",
        read / pure
    );
    println!(
        "  state set + keys, durable commit (stash.put) {write:>9.1} µs   {:.2}×",
        write / pure
    );
    println!(
        "  the same, store in memory (no disk)          {write_memory:>9.1} µs   {:.2}×",
        write_memory / pure
    );
    println!("  the store alone: get {store_get:.1} µs, set + durable commit {store_set:.1} µs");
}
