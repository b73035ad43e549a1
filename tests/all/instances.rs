//! Instances belong to calls, not sessions (`sandbox/pool.rs`): the sandbox puts no limit on
//! sessions. A crowd of sessions, all open at once, each calling a package on the engine and
//! one off it, all succeed; and a call finding every instance of the pool busy
//! (`[limits] instances`) is refused with `capacity_exceeded` naming the key, changing
//! nothing.

use crate::support::{admitted_builder, package_dir, repo};
use crate::ws_client::WsHost;
use limina::call::{CallControl, ErrorCode};
use limina::packages::PackageSource;
use limina::policy::PolicyConfig;
use limina::realm::{Realm, Rng};
use limina::registry::{Invocation, Registry, Response};
use limina::sandbox::{CompileCache, PoolSettings, Sandbox};
use limina::trace::Tracer;
use limina::world::{World, WorldSettings};
use serde_json::{Value, json};

/// Sessions open at once: far past what instances kept per session could hold (256 slots,
/// two packages each), in a few seconds.
const SESSIONS: usize = 1_500;

/// A packages folder with the example `dice` (no capability: its calls run off the engine).
fn dice() -> tempfile::TempDir {
    package_dir(
        &repo().join("packages/dice"),
        &repo().join("target/components/dice.wasm"),
    )
}

#[test]
fn fifteen_hundred_sessions_open_at_once_each_calling_two_packages_all_succeed() {
    let packages = dice();
    let config = packages.path().join("host.toml");
    std::fs::write(
        &config,
        format!(
            "[network]\nmaxConnections = {n}\nmaxConnectionsPerAddress = {n}\n",
            n = SESSIONS + 10
        ),
    )
    .unwrap();
    let host = WsHost::start(&[
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--network-profile",
        "builder.readWrite",
    ]);
    let mut clients: Vec<_> = (0..SESSIONS)
        .map(|i| host.client("builder.readWrite", &format!("agent-{i}")))
        .collect();
    // Every session sends both calls before any reply is read: the engine runs the world
    // calls one by one while the workers roll the dice.
    let sent: Vec<(u64, u64)> = clients
        .iter_mut()
        .enumerate()
        .map(|(i, c)| {
            let made = c.send_request(
                "tools/call",
                json!({"name": "scene.createEntity", "arguments": {"position": [i as f64, 0.0, 0.0]}}),
            );
            let rolled = c.send_request(
                "tools/call",
                json!({"name": "dice.roll", "arguments": {"expression": "2d6"}}),
            );
            (made, rolled)
        })
        .collect();
    for (i, (c, (made, rolled))) in clients.iter_mut().zip(sent).enumerate() {
        for id in [made, rolled] {
            let reply = c.reply_to(id);
            assert_eq!(
                reply["result"]["isError"], false,
                "session {i}'s call failed: {reply}"
            );
        }
    }
    let (found, _) = clients[0].call_ok("scene.queryEntities", json!({"limit": 2000}));
    assert_eq!(
        found["entities"].as_array().map(Vec::len),
        Some(SESSIONS),
        "every session's entity is in the world"
    );
}

/// A registry over a sandbox whose pool holds `instances`, with `scene` and `dice` (in the
/// folder returned) loaded.
fn registry(instances: u32) -> (tempfile::TempDir, Registry) {
    let pool = PoolSettings {
        instances,
        ..PoolSettings::default()
    };
    let sandbox = Sandbox::with_pool(CompileCache::new(CompileCache::default_dir()), pool).unwrap();
    let realm = Realm {
        world: World::new(WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: Tracer::new(limina::limits::TRACE_WINDOW),
        rng: Rng::seeded(7),
        state: limina::state::StateStore::in_memory(),
    };
    let mut registry = Registry::new(sandbox, PolicyConfig::default(), realm);
    registry
        .load(PackageSource::read(&repo().join("target/core/scene")).unwrap())
        .unwrap();
    let dice = dice();
    registry
        .load(PackageSource::read(&dice.path().join("dice")).unwrap())
        .unwrap();
    (dice, registry)
}

fn assert_refused(response: &Response) {
    let failure = response.error.as_ref().expect("refused");
    assert_eq!(failure.code, ErrorCode::CapacityExceeded, "{failure:?}");
    assert_eq!(
        failure.message,
        "all 1 guest instances the host runs at once are busy with other calls (`[limits] \
         instances`); try again in a moment, or raise `[limits] instances` in the host's \
         configuration"
    );
}

/// A detached call run here, as a worker would.
fn run_detached(
    registry: &mut Registry,
    caller: &limina::registry::Caller,
    input: Value,
) -> Response {
    let Invocation::Detached(call) =
        registry.invoke_or_detach(caller, "dice.roll", input, CallControl::default())
    else {
        panic!("dice.roll ran on the engine");
    };
    let scratch = Box::new(Realm {
        world: World::new(WorldSettings {
            max_entities: 10,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: Tracer::new(16),
        rng: Rng::seeded(1),
        state: limina::state::StateStore::in_memory(),
    });
    let (_, ran) = call.run(scratch);
    registry.complete(ran)
}

#[test]
fn a_call_finding_every_instance_busy_is_capacity_exceeded_naming_the_key_and_changes_nothing() {
    let (_dice, mut registry) = registry(1);
    let caller = admitted_builder(&mut registry);
    assert!(
        registry
            .invoke(&caller, "scene.createEntity", json!({}))
            .success
    );
    // Another call holds the pool's one instance.
    let scene = PackageSource::read(&repo().join("target/core/scene")).unwrap();
    let busy = registry
        .sandbox()
        .compile(&scene.component, "scene")
        .unwrap()
        .instantiate("scene", &scene.manifest.limits)
        .unwrap();

    let events = registry.realm().tracer.count();
    let budget = registry.policy_mut().budget("s1").used;
    let refused = registry.invoke(
        &caller,
        "scene.createEntity",
        json!({"position": [1, 2, 3]}),
    );
    assert_refused(&refused);
    assert_eq!(
        registry.realm().world.entity_count(),
        1,
        "the world is unchanged"
    );
    assert_eq!(
        registry.policy_mut().budget("s1").used,
        budget,
        "nothing was charged"
    );
    assert_eq!(
        registry.realm().tracer.count(),
        events,
        "nothing was decided or traced: refused before the policy step"
    );

    // Off the engine, the worker finds no instance: the call was decided (and traced), then
    // refused; its CPU hold is given back and nothing is charged.
    let cpu = registry.policy_mut().budget("s1").used.cpu_ms;
    let rolled = run_detached(&mut registry, &caller, json!({"expression": "1d6"}));
    assert_refused(&rolled);
    let after = registry.policy_mut().budget("s1");
    assert_eq!(after.used.cpu_ms, cpu, "no CPU charged");
    assert_eq!(registry.realm().world.entity_count(), 1);
    let executed: Vec<_> = registry
        .realm()
        .tracer
        .recent()
        .filter(|e| e.kind == "skill.executed")
        .collect();
    assert_eq!(executed.len(), 1, "only the first call executed");

    // Once the instance is free again, calls run.
    drop(busy);
    assert!(
        registry
            .invoke(&caller, "scene.createEntity", json!({}))
            .success
    );
    assert!(run_detached(&mut registry, &caller, json!({"expression": "1d6"})).success);
    assert_eq!(
        registry.sandbox().instances_alive(),
        0,
        "every call gave its instance back"
    );
}
