//! The world survives restarts: a scene built through real skill calls over stdio, then the
//! host killed (-9), closed, or stopped by a signal, and started again on the same trace
//! folder. Worlds are compared by `world.hash` (every entity, transform, body pose and
//! velocity to the bit, materials, lighting, panels, audio, agents, the tick), and a restarted
//! world is stepped on beside a host that never stopped to show the physics goes on exactly.

use super::support::{Client, error_of, limina, limina_ok, long_calls_config, text};
use serde_json::{Value, json};
use std::path::Path;

/// A builder's host on the trace folder `dir`. Calls get room on the engine: these tests
/// build scenes on a loaded machine, and what they check is the world, not the deadline.
fn host(dir: &Path, extra: &[&str]) -> Client {
    let config = long_calls_config();
    let mut args = vec!["--trace-dir", dir.to_str().unwrap(), "--config", &config];
    args.extend_from_slice(extra);
    Client::session("builder.readWrite", &args)
}

/// Builds a scene of every kind of thing through skill calls: a floor, falling and pushed
/// boxes, an agent walking to a point and speaking, a label on it, a material, lighting and
/// an ambient sound, with time passing in between.
fn build(c: &mut Client) {
    c.call_ok(
        "scene.createEntity",
        json!({"size": 40, "position": [0, -20, 0], "static": true}),
    );
    for i in 0..6 {
        let id = c.call_ok(
            "scene.createEntity",
            json!({"position": [i as f64 * 0.3, 1 + 2 * i, 0.2], "dynamic": true, "restitution": 0.2}),
        )["entity"]
            .as_str()
            .unwrap()
            .to_string();
        if i % 2 == 0 {
            c.call_ok(
                "physics.applyImpulse",
                json!({"entity": id, "impulse": [1.5, 0, -0.5]}),
            );
        }
    }
    c.call_ok("world.step", json!({"ticks": 20}));
    let body = c.call_ok("scene.createEntity", json!({"position": [6, 0.5, 6]}))["entity"]
        .as_str()
        .unwrap()
        .to_string();
    c.call_ok(
        "ecs.addComponent",
        json!({"entity": body, "component": "agent:tester"}),
    );
    c.call_ok(
        "ui.label",
        json!({"anchor": {"kind": "world", "entity": body, "offset": [0, 2, 0]}, "text": "walker"}),
    );
    c.call_ok(
        "three.setMaterial",
        json!({"entity": "ent_2", "roughness": 0.3, "color": 0xff8800}),
    );
    c.call_ok(
        "three.setLighting",
        json!({"ambientIntensity": 0.6, "castShadow": true, "direction": [1, 8, 2]}),
    );
    c.call_ok("audio.ambient", json!({"volume": 0.3}));
    c.rebind("social.actor", "tester");
    c.call_ok(
        "social.approach",
        json!({"target": [-4, 0.5, -4], "talkDistance": 1}),
    );
    c.call_ok("social.say", json!({"text": "on my way"}));
    c.rebind("builder.readWrite", "tester");
    c.call_ok("world.step", json!({"ticks": 15}));
}

fn hash(c: &mut Client) -> Value {
    c.call_ok("world.hash", json!({}))
}

/// Steps `c` on and returns its hash.
fn later(c: &mut Client, ticks: u64) -> String {
    c.call_ok("world.step", json!({"ticks": ticks}));
    hash(c)["hash"].as_str().unwrap().to_string()
}

fn checkpoints(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("world"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".bin"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn after_a_kill_the_world_is_exactly_as_the_last_acknowledged_call_left_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    build(&mut c);
    let before = hash(&mut c);
    assert!(before["entities"].as_u64().unwrap() >= 8, "{before}");
    drop(c); // kill -9: no checkpoint, only the journal
    assert!(
        checkpoints(dir.path()).is_empty(),
        "nothing but the journal"
    );

    let mut restarted = host(dir.path(), &[]);
    assert_eq!(hash(&mut restarted), before);
    // The same scene in a host that never stopped: stepping on, both stay identical.
    let control_dir = tempfile::tempdir().unwrap();
    let mut control = host(control_dir.path(), &[]);
    build(&mut control);
    assert_eq!(hash(&mut control), before, "the scene is deterministic");
    assert_eq!(later(&mut restarted, 120), later(&mut control, 120));
    // And the restarted host goes on journaling: another kill, another exact restart.
    restarted.call_ok("scene.destroyEntity", json!({"entity": "ent_3"}));
    let again = hash(&mut restarted);
    drop(restarted);
    let mut third = host(dir.path(), &[]);
    assert_eq!(hash(&mut third), again);
}

#[test]
fn a_clean_shutdown_checkpoints_and_the_restart_loads_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    build(&mut c);
    let before = hash(&mut c);
    assert_eq!(c.close(), Some(0));
    assert_eq!(checkpoints(dir.path()).len(), 1, "stdin's end wrote one");
    let mut restarted = host(dir.path(), &[]);
    assert_eq!(hash(&mut restarted), before);
    let tail = restarted.call_ok(
        "trace.tail",
        json!({"type": "world.checkpointed", "limit": 5}),
    );
    assert_eq!(tail["events"][0]["payload"]["reason"], "shutdown", "{tail}");
}

#[test]
fn a_termination_signal_checkpoints_before_the_host_exits() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    build(&mut c);
    let before = hash(&mut c);
    assert_eq!(
        c.terminate(libc::SIGTERM),
        Some(0),
        "a drained stop exits 0"
    );
    assert_eq!(checkpoints(dir.path()).len(), 1);
    let mut restarted = host(dir.path(), &[]);
    assert_eq!(hash(&mut restarted), before);
}

#[test]
fn a_restart_after_several_checkpoints_loads_the_newest_and_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    build(&mut c);
    let first = c.call_ok("world.checkpoint", json!({}));
    c.call_ok(
        "scene.createEntity",
        json!({"position": [0, 8, 0], "dynamic": true}),
    );
    c.call_ok("world.step", json!({"ticks": 10}));
    let second = c.call_ok("world.checkpoint", json!({}));
    assert!(second["coversEvent"].as_u64() > first["coversEvent"].as_u64());
    c.call_ok("scene.destroyEntity", json!({"entity": "ent_4"}));
    c.call_ok("world.step", json!({"ticks": 3}));
    let before = hash(&mut c);
    drop(c);
    assert_eq!(checkpoints(dir.path()).len(), 2);
    let mut restarted = host(dir.path(), &[]);
    assert_eq!(hash(&mut restarted), before);
}

#[test]
fn fresh_world_starts_empty_on_purpose_and_stays_so_after_the_next_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    build(&mut c);
    drop(c);
    let mut fresh = host(dir.path(), &["--fresh-world"]);
    let h = hash(&mut fresh);
    assert_eq!(
        (h["entities"].as_u64(), h["tick"].as_u64()),
        (Some(0), Some(0))
    );
    fresh.call_ok("scene.createEntity", json!({"position": [1, 2, 3]}));
    let before = hash(&mut fresh);
    drop(fresh);
    let mut next = host(dir.path(), &[]);
    assert_eq!(
        hash(&mut next),
        before,
        "the fresh world is the kept one now"
    );
}

#[test]
fn an_incompatible_checkpoint_stops_the_start_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    c.call_ok("scene.createEntity", json!({}));
    assert_eq!(c.close(), Some(0));
    let newest = dir.path().join("world").join(&checkpoints(dir.path())[0]);
    let mut bytes = std::fs::read(&newest).unwrap();
    bytes[8] = 9; // the format number
    std::fs::write(&newest, &bytes).unwrap();
    let out = limina(&[
        "--mcp-stdio",
        "--manual-clock",
        "--trace-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("incompatible version"), "{err}");
    assert!(err.contains("checkpoint format 9"), "{err}");
    assert!(err.contains("--fresh-world"), "{err}");
    // The file is left as it was; --fresh-world starts anyway.
    assert_eq!(std::fs::read(&newest).unwrap(), bytes);
    let mut fresh = host(dir.path(), &["--fresh-world"]);
    assert_eq!(hash(&mut fresh)["entities"], 0);
}

#[test]
fn checkpointing_needs_scene_write_and_a_refusal_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    c.call_ok("scene.createEntity", json!({}));
    let before = hash(&mut c);
    c.rebind("player.limited", "tester");
    let (code, message) = error_of(&c.call("world.checkpoint", json!({})));
    assert_eq!(code, "forbidden");
    assert!(message.contains("scene.write"), "{message}");
    c.rebind("builder.readWrite", "tester");
    assert_eq!(hash(&mut c), before);
    assert!(checkpoints(dir.path()).is_empty());
}

#[test]
fn an_exported_scene_replayed_into_a_fresh_host_builds_the_same_world() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = host(dir.path(), &[]);
    for (i, dynamic) in [(0, false), (1, true), (2, false)] {
        c.call_ok(
            "scene.createEntity",
            json!({"position": [i, 0.5, 0], "dynamic": dynamic, "shape": "sphere", "color": 0x112233 * (i + 1)}),
        );
    }
    c.call_ok("scene.destroyEntity", json!({"entity": "ent_1"}));
    c.call_ok(
        "ecs.updateComponent",
        json!({"entity": "ent_3", "component": "rotation", "value": [0, 0.3826834, 0, 0.9238795]}),
    );
    c.call_ok(
        "ecs.updateComponent",
        json!({"entity": "ent_3", "component": "scale", "value": [2, 1, 2]}),
    );
    c.call_ok(
        "ecs.addComponent",
        json!({"entity": "ent_3", "component": "agent:ada"}),
    );
    c.call_ok(
        "three.setMaterial",
        json!({"entity": "ent_2", "metalness": 0.9}),
    );
    c.call_ok("three.setLighting", json!({"ambientIntensity": 2.5}));
    c.call_ok(
        "ui.label",
        json!({"anchor": {"kind": "world", "entity": "ent_3"}, "text": "ada"}),
    );
    c.call_ok("audio.setBusVolume", json!({"bus": "sfx", "volume": 0.5}));
    c.call_ok("audio.ambient", json!({"volume": 0.25}));
    let exported = c.call_ok("world.export", json!({}));
    assert_eq!(exported["lines"], 10, "{exported}");
    let scene = dir.path().join("kept.jsonl");
    std::fs::write(&scene, exported["scene"].as_str().unwrap()).unwrap();

    let config = long_calls_config();
    let mut replayed = Client::session(
        "builder.readWrite",
        &["--scene", scene.to_str().unwrap(), "--config", &config],
    );
    let again = replayed.call_ok("world.export", json!({}));
    assert_eq!(again["sceneHash"], exported["sceneHash"]);
    assert_eq!(again["lines"], exported["lines"]);

    // The shell reads the same world from the folder, beside the running host.
    let out = dir.path().join("shell.jsonl");
    limina_ok(&[
        "world",
        "export",
        "--trace-dir",
        dir.path().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        exported["scene"].as_str().unwrap()
    );
}

#[test]
fn a_host_with_its_trace_in_memory_keeps_no_world_and_says_so() {
    let mut c = Client::session("builder.readWrite", &["--ephemeral-trace"]);
    c.call_ok("scene.createEntity", json!({}));
    let before = hash(&mut c);
    let (code, message) = error_of(&c.call("world.checkpoint", json!({})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("in memory only"), "{message}");
    assert_eq!(hash(&mut c), before);
}

/// A host that runs long between scheduled checkpoints still restarts quickly: once the
/// journal after the newest checkpoint reaches the replay bound (records, or physics steps
/// times bodies), the next idle moment writes a checkpoint, so a restart never replays more.
#[test]
fn the_journal_a_restart_would_replay_stays_within_its_bound() {
    use limina::persistence::{ReplayBound, WorldConfig, WorldStore, load};
    use limina::policy::Profiles;
    use limina::registry::Caller;

    let dir = tempfile::tempdir().unwrap();
    let mut registry = super::support::in_process_registry(&["scene", "physics"]);
    registry.realm_mut().tracer = limina::trace::Tracer::open(dir.path(), 64).unwrap();
    let no_schedule = WorldConfig {
        every: None,
        ..WorldConfig::default()
    };
    let bound = ReplayBound {
        records: 8,
        body_steps: 60,
        events: u64::MAX,
    };
    registry
        .keep_world(WorldStore::new(dir.path(), no_schedule).with_replay_bound(bound))
        .unwrap();
    let caller = Caller {
        agent_id: "builder".into(),
        session_id: "s1".into(),
        profile: "builder.readWrite".into(),
        permissions: Profiles::default()
            .get("builder.readWrite")
            .unwrap()
            .permissions,
    };
    let checkpoints = || {
        std::fs::read_dir(dir.path().join("world"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    // Checkpoints are written off the engine: each call waits for the one it started.
    let call = |registry: &mut limina::registry::Registry, name: &str, input: Value| {
        let response = registry.invoke(&caller, name, input);
        assert!(response.success, "{name}: {:?}", response.error);
        registry.world_idle();
        registry.wait_checkpoints();
    };

    // Seven records: under the bound, no checkpoint; the eighth writes one.
    for i in 0..7 {
        call(
            &mut registry,
            "scene.createEntity",
            json!({"position": [i * 2, 0, 0]}),
        );
    }
    assert_eq!(checkpoints(), 0, "under the bound");
    call(
        &mut registry,
        "scene.createEntity",
        json!({"position": [0, 5, 0], "dynamic": true}),
    );
    assert_eq!(checkpoints(), 1, "the eighth record reached the bound");

    // Steps count times the bodies the world holds: just under the bound, then past it.
    let bodies = registry.realm_mut().world.body_count().max(1) as u64;
    let under = 59 / bodies;
    assert!(under > 0, "{bodies} bodies");
    call(&mut registry, "world.step", json!({"ticks": under}));
    assert_eq!(checkpoints(), 1, "{} body steps", under * bodies);
    call(&mut registry, "world.step", json!({"ticks": 1}));
    assert_eq!(checkpoints(), 2, "{} body steps", (under + 1) * bodies);

    // A restart replays what came after the newest checkpoint: nothing here.
    call(
        &mut registry,
        "scene.createEntity",
        json!({"position": [9, 9, 9]}),
    );
    let want = registry.realm_mut().world.state_hash();
    drop(registry);
    let (world, restored) = load(
        dir.path(),
        limina::world::WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        },
    )
    .unwrap();
    assert_eq!(world.state_hash(), want);
    assert_eq!(restored.records, 1);
}

#[test]
fn a_checkpoint_taken_while_calls_run_restores_to_a_world_the_trace_agrees_with() {
    use crate::ws_client::WsHost;
    let dir = tempfile::tempdir().unwrap();
    let config = long_calls_config();
    let args = [
        "--profile",
        "builder.readWrite",
        "--trace-dir",
        dir.path().to_str().unwrap(),
        "--config",
        &config,
    ];
    let host = WsHost::start(&args);
    let mut builder = host.client("builder.readWrite", "builder");
    let mut keeper = host.client("builder.readWrite", "keeper");
    for i in 0..8 {
        builder.call_ok(
            "scene.createEntity",
            json!({"position": [i as f64 * 0.4, 1 + i, 0], "dynamic": true}),
        );
    }
    // Checkpoints are taken (and written off the engine) while the builder goes on changing
    // the world: bodies falling, new ones, impulses, destroyed ones.
    let taken = std::thread::scope(|s| {
        let checkpoints = s.spawn(move || {
            (0..5)
                .map(|_| keeper.call_ok("world.checkpoint", json!({})).0)
                .collect::<Vec<_>>()
        });
        for i in 0..40 {
            builder.call_ok("world.step", json!({"ticks": 3}));
            let (made, _) = builder.call_ok(
                "scene.createEntity",
                json!({"position": [i as f64 * 0.1, 6, 1], "dynamic": true}),
            );
            let id = made["entity"].as_str().unwrap().to_string();
            if i % 3 == 0 {
                builder.call_ok(
                    "physics.applyImpulse",
                    json!({"entity": id, "impulse": [0.5, 1.0, 0]}),
                );
            }
            if i % 5 == 4 {
                builder.call_ok("scene.destroyEntity", json!({"entity": id}));
            }
        }
        checkpoints.join().unwrap()
    });
    for pair in taken.windows(2) {
        assert!(
            pair[1]["coversEvent"].as_u64() > pair[0]["coversEvent"].as_u64(),
            "{pair:?}"
        );
    }
    let newest = taken.last().unwrap();
    assert!(
        Path::new(newest["file"].as_str().unwrap()).is_file(),
        "{newest}"
    );
    let (want, _) = builder.call_ok("world.hash", json!({}));
    drop(builder);
    drop(host); // killed: no checkpoint at shutdown

    // The newest checkpoint and the journal after it give the world the calls left.
    let (world, restored) = limina::persistence::load(
        dir.path(),
        limina::world::WorldSettings {
            max_entities: 10_000,
            tick_seconds: 1.0 / 60.0,
        },
    )
    .unwrap();
    assert!(restored.checkpoint.is_some(), "{restored:?}");
    assert_eq!(json!(world.state_hash()), want["hash"]);
    let host = WsHost::start(&args);
    let mut again = host.client("builder.readWrite", "builder");
    assert_eq!(again.call_ok("world.hash", json!({})).0, want);
}
