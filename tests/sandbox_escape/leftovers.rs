//! A guest that keeps each call's input in its memory and answers with what the call before
//! left there (`leftovers/guest.wat`) never finds what another agent's call left: an instance
//! serves calls of one session only (made for a call, kept warm at most for its session's next
//! one). On the engine (a package with a world capability) and off it alike.

use crate::wat_guest;
use crate::ws_client::WsHost;
use serde_json::json;

/// A host serving the leftovers guest as package `hostile`, declaring `capabilities`.
fn host(capabilities: &[&str]) -> (tempfile::TempDir, WsHost) {
    let dir = crate::support::repo().join("tests/sandbox_escape/leftovers");
    let packages = tempfile::tempdir().unwrap();
    let pkg = packages.path().join(wat_guest::PACKAGE);
    std::fs::create_dir_all(&pkg).unwrap();
    let manifest = format!(
        "name = \"{}\"\nversion = \"0.1.0\"\ncomponent = \"hostile.wasm\"\ncapabilities = {capabilities:?}\n",
        wat_guest::PACKAGE
    );
    std::fs::write(pkg.join("limina.toml"), manifest).unwrap();
    std::fs::write(pkg.join("hostile.wasm"), wat_guest::component(&dir, 0)).unwrap();
    let host = WsHost::start(&[
        "--packages",
        packages.path().to_str().unwrap(),
        "--network-profile",
        "builder.readWrite",
    ]);
    (packages, host)
}

fn no_call_sees_what_another_left(capabilities: &[&str]) {
    let (_packages, host) = host(capabilities);
    let mut clients = [
        host.client("builder.readWrite", "alice"),
        host.client("builder.readWrite", "bob"),
    ];
    // Turn by turn, then Alice twice in a row, then Bob twice.
    let calls = [
        (0, "alice's first secret"),
        (1, "bob's first secret"),
        (0, "alice's second secret"),
        (1, "bob's second secret"),
        (0, "alice's third secret"),
        (0, "alice's fourth secret"),
        (1, "bob's third secret"),
        (1, "bob's fourth secret"),
    ];
    let mut own_last: [Option<&str>; 2] = [None, None];
    for (who, secret) in calls {
        let (result, _) = clients[who].call_ok("hostile.run", json!({"secret": secret}));
        let left = &result["left"];
        // Nothing, or what this session's own previous call left (a warm instance): never
        // the other agent's.
        let own = own_last[who].map(|s| json!({"secret": s}));
        assert!(
            left.is_null() || Some(left) == own.as_ref(),
            "the call carrying {secret:?} found {left}, left by another agent's call"
        );
        own_last[who] = Some(secret);
    }
}

/// The guest really does find what an earlier call left when its instance is kept: what the
/// tests above rule out is the host's doing.
#[test]
fn the_guest_reads_what_an_earlier_call_left_in_an_instance_kept_across_calls() {
    use limina::sandbox::{CallInfo, CompileCache, Sandbox};
    let dir = crate::support::repo().join("tests/sandbox_escape/leftovers");
    let sandbox = Sandbox::new(CompileCache::new(None)).unwrap();
    let compiled = sandbox
        .compile(&wat_guest::component(&dir, 0), wat_guest::PACKAGE)
        .unwrap();
    let limits = limina::limits::PackageLimits::default();
    let mut kept = compiled.instantiate(wat_guest::PACKAGE, &limits).unwrap();
    let mut realm = Box::new(limina::realm::Realm {
        world: limina::world::World::new(limina::world::WorldSettings {
            max_entities: 10,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: limina::trace::Tracer::new(16),
        rng: limina::realm::Rng::seeded(1),
        state: limina::state::StateStore::in_memory(),
    });
    let mut outputs = Vec::new();
    for secret in [r#"{"secret":"first"}"#, r#"{"secret":"second"}"#] {
        let info = CallInfo {
            skill: "hostile.run".into(),
            agent_id: "alice".into(),
            session_id: "alice".into(),
            profile: "builder.readWrite".into(),
            invocation_id: "evt_1".into(),
            grants: limina::policy::Permissions::NONE,
            fuel: limits.fuel_per_call,
            memory_limit_bytes: limits.memory_bytes,
            timeout_ms: limits.timeout_ms,
            clock: limina::call::Clock::Wall,
            tick: 0,
            cancel: Default::default(),
            progress: None,
            state_quota: None,
            reach: None,
            view: None,
        };
        let (back, outcome) = kept.invoke(realm, info, secret);
        realm = back;
        outputs.push(outcome.result.unwrap().unwrap().structured);
    }
    assert_eq!(
        outputs,
        [r#"{"left":null}"#, r#"{"left":{"secret":"first"}}"#]
    );
}

#[test]
fn no_call_off_the_engine_sees_what_an_earlier_call_left_in_guest_memory() {
    no_call_sees_what_another_left(&[]);
}

#[test]
fn no_call_on_the_engine_sees_what_an_earlier_call_left_in_guest_memory() {
    no_call_sees_what_another_left(&["scene.read"]);
}
