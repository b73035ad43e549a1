use super::checkpoint::{self, CheckpointError, FORMAT, LAYOUT};
use super::journal::{self, Author};
use super::{WorldConfig, WorldStore, load};
use crate::realm::{Realm, Rng};
use crate::trace::Tracer;
use crate::world::{
    ApproachTarget, BodyKind, EntitySpec, Heard, Lighting, MaterialPatch, Shape, SoundKind,
    SoundSpec, World, WorldSettings,
};
use serde_json::json;

fn settings() -> WorldSettings {
    WorldSettings {
        max_entities: 1000,
        tick_seconds: 1.0 / 60.0,
    }
}

fn spec(position: [f64; 3], body: BodyKind) -> EntitySpec {
    EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: 1.0,
        color: 0x33_66aa,
        position,
        body,
        friction: 0.5,
        restitution: 0.1,
    }
}

/// A busy scene: a floor, a stack of falling boxes pushed around, a walking agent, a panel,
/// lighting, sounds, something heard, a material and tags.
fn build(w: &mut World) -> Vec<String> {
    let mut ids = vec![
        w.create_entity(&EntitySpec {
            size: 40.0,
            ..spec([0.0, -20.0, 0.0], BodyKind::Fixed)
        })
        .unwrap(),
    ];
    for i in 0..12 {
        let p = [
            (i % 3) as f64 * 0.4,
            1.0 + i as f64 * 1.1,
            (i % 2) as f64 * 0.3,
        ];
        ids.push(w.create_entity(&spec(p, BodyKind::Dynamic)).unwrap());
    }
    w.apply_impulse(&ids[3], [2.0, 0.0, 1.0]).unwrap();
    let walker = w
        .create_entity(&spec([5.0, 0.5, 5.0], BodyKind::None))
        .unwrap();
    w.add_tag(&walker, "agent:ada");
    w.approach("ada", ApproachTarget::Point([-5.0, 0.5, -5.0]), Some(1.0))
        .unwrap();
    w.create_panel(
        "label",
        json!({"anchor": {"kind": "world", "entity": walker}, "text": "Ada", "maxWidth": 123.456}),
        "builder",
    )
    .unwrap();
    w.say("ada", "hello there").unwrap();
    w.set_lighting(Lighting {
        ambient_intensity: 0.7,
        cast_shadow: true,
        ..Lighting::default()
    })
    .unwrap();
    w.set_material(
        &ids[1],
        &MaterialPatch {
            roughness: Some(0.25),
            color: Some(0xff_0000),
            ..MaterialPatch::default()
        },
    )
    .unwrap();
    w.play_sound(
        SoundSpec {
            kind: SoundKind::Ambient,
            bus: None,
            volume: Some(0.4),
            position: None,
            max_distance: None,
        },
        "builder",
    )
    .unwrap();
    w.hear(Heard {
        event_id: "evt_ada_000000000001_0000000000000000".into(),
        kind: "agent.signal.wave".into(),
        actor_id: "ada".into(),
        tick: w.tick(),
        payload: json!({"to": "bob", "weight": 0.1}),
    });
    ids.push(walker);
    ids
}

fn steps(w: &mut World, n: usize) {
    for _ in 0..n {
        w.step();
    }
}

/// The same world, checked by its hash and by rapier's own snapshot bytes.
fn assert_same(a: &World, b: &World, when: &str) {
    assert_eq!(
        a.state_hash(),
        b.state_hash(),
        "{when}: world hashes differ"
    );
    assert_eq!(
        a.physics_bytes(),
        b.physics_bytes(),
        "{when}: rapier worlds differ"
    );
}

#[test]
fn a_restored_world_is_the_same_and_steps_on_exactly_as_the_original() {
    let mut original = World::new(settings());
    build(&mut original);
    steps(&mut original, 40);
    let mut restored = World::load_image(&original.save_image(), settings()).unwrap();
    assert_same(&original, &restored, "right after the restore");
    steps(&mut original, 120);
    steps(&mut restored, 120);
    assert_same(&original, &restored, "120 steps after the restore");
    assert!(
        original.drain_collision_events() == restored.drain_collision_events(),
        "the same contacts were reported"
    );
    // New ids continue from the same counters.
    let a = original
        .create_entity(&spec([0.0; 3], BodyKind::Dynamic))
        .unwrap();
    let b = restored
        .create_entity(&spec([0.0; 3], BodyKind::Dynamic))
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(
        original.get_entity(&a).unwrap().body_id,
        restored.get_entity(&b).unwrap().body_id
    );
}

#[test]
fn the_journal_replayed_on_a_checkpoint_lands_on_the_same_world_as_the_live_one() {
    let mut live = World::new(settings());
    live.record_ops(true);
    build(&mut live);
    steps(&mut live, 10);
    let image = live.save_image();
    live.take_ops();
    // Calls as the pipeline makes them: kept, rolled back (after touching bodies), steps.
    live.begin();
    let made = live
        .create_entity(&spec([1.0, 9.0, 1.0], BodyKind::Dynamic))
        .unwrap();
    live.apply_impulse(&made, [0.0, 3.0, 0.0]).unwrap();
    live.commit();
    steps(&mut live, 7);
    live.begin();
    let doomed = live
        .create_entity(&spec([2.0, 9.0, 2.0], BodyKind::Dynamic))
        .unwrap();
    live.destroy_entity("ent_3");
    live.set_transform(&doomed, Some([0.0, 20.0, 0.0]), None, None);
    live.rollback();
    live.begin();
    live.update_panel("ui_1", json!({"text": "Ada, walking"}))
        .unwrap();
    steps(&mut live, 5);
    live.commit();
    let ops = live.take_ops();

    let mut replayed = World::load_image(&image, settings()).unwrap();
    for op in ops {
        replayed.replay(op);
    }
    assert_same(&live, &replayed, "after the journal");
    steps(&mut live, 90);
    steps(&mut replayed, 90);
    assert_same(&live, &replayed, "90 steps later");
}

#[test]
fn a_call_that_changed_nothing_leaves_no_record_and_steps_wait_for_the_next_one() {
    let mut w = World::new(settings());
    w.record_ops(true);
    steps(&mut w, 3);
    w.begin();
    w.query_entities(&Default::default());
    w.commit();
    assert_eq!(w.call_record(None), None, "a read is not journaled");
    w.settle_ops(false);
    w.begin();
    w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap();
    let ops = w
        .call_record(Some(crate::world::Op::Commit))
        .expect("a change is journaled");
    assert_eq!(
        ops[0],
        crate::world::Op::Steps(3),
        "steps before it ride along"
    );
    assert_eq!(ops.last(), Some(&crate::world::Op::Commit));
    w.commit();
    // A record that could not be written: the call is undone and waits for the next one.
    w.rollback();
    w.settle_ops(false);
    assert!(w.has_pending_ops());
    w.begin();
    w.create_entity(&spec([1.0; 3], BodyKind::None)).unwrap();
    w.commit();
    let next = w.call_record(None).unwrap();
    assert!(
        next.len() > ops.len(),
        "the undone call rides along: {next:?}"
    );
    w.settle_ops(true);
    assert!(!w.has_pending_ops());
}

fn realm(dir: &std::path::Path) -> Realm {
    Realm {
        world: World::new(settings()),
        tracer: Tracer::open(dir, 64).unwrap(),
        rng: Rng::seeded(1),
        state: crate::state::StateStore::in_memory(),
    }
}

/// One call as the registry journals it.
fn call(realm: &mut Realm, f: impl FnOnce(&mut World)) {
    realm.world.begin();
    f(&mut realm.world);
    realm.world.commit();
    let record = realm.world.call_record(None);
    realm.world.settle_ops(record.is_some());
    if let Some(ops) = record {
        let tick = realm.world.tick();
        realm.tracer.emit(journal::record(
            &ops,
            tick,
            Author {
                agent_id: "builder",
                session_id: "s1",
                decision_id: "evt_builder_000000000001_0000000000000000",
            },
        ));
    }
    realm.tracer.flush().unwrap();
}

#[test]
fn a_folder_restores_the_newest_checkpoint_plus_the_journal_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = WorldStore::new(dir.path(), WorldConfig::default());
    let mut r = realm(dir.path());
    store.adopt(&mut r).unwrap();
    call(&mut r, |w| drop(build(w)));
    steps(&mut r.world, 20);
    store.checkpoint(&mut r, "test", false).unwrap();
    call(&mut r, |w| {
        w.create_entity(&spec([3.0, 4.0, 0.0], BodyKind::Dynamic))
            .unwrap();
    });
    steps(&mut r.world, 9);
    store.checkpoint(&mut r, "test", false).unwrap();
    call(&mut r, |w| {
        w.destroy_entity("ent_2");
        steps(w, 4);
    });
    let want = r.world.state_hash();
    let physics = r.world.physics_bytes();
    drop(r);

    let (world, restored) = load(dir.path(), settings()).unwrap();
    assert_eq!(world.state_hash(), want);
    assert_eq!(world.physics_bytes(), physics);
    assert_eq!(
        restored.records, 1,
        "only the record after the newest checkpoint"
    );
    assert!(restored.checkpoint.is_some());
}

#[test]
fn without_a_checkpoint_the_whole_journal_rebuilds_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = WorldStore::new(dir.path(), WorldConfig::default());
    let mut r = realm(dir.path());
    store.adopt(&mut r).unwrap();
    call(&mut r, |w| drop(build(w)));
    steps(&mut r.world, 5);
    call(&mut r, |w| {
        w.set_transform("ent_14", Some([1.0, 2.0, 3.0]), None, None);
    });
    let want = r.world.state_hash();
    drop(r);
    let (world, restored) = load(dir.path(), settings()).unwrap();
    assert_eq!(world.state_hash(), want);
    assert_eq!((restored.checkpoint, restored.records), (None, 2));
}

#[test]
fn checkpoints_beyond_the_kept_number_are_removed_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let config = WorldConfig {
        keep: 2,
        ..WorldConfig::default()
    };
    let mut store = WorldStore::new(dir.path(), config);
    let mut r = realm(dir.path());
    store.adopt(&mut r).unwrap();
    for i in 0..4 {
        call(&mut r, |w| {
            w.create_entity(&spec([i as f64, 0.0, 0.0], BodyKind::None))
                .unwrap();
        });
        store.checkpoint(&mut r, "test", false).unwrap();
    }
    let kept = checkpoint::list(&store.dir()).unwrap();
    assert_eq!(kept.len(), 2);
    assert!(kept[0].seq < kept[1].seq);
    assert_eq!(kept[1].seq, r.tracer.count(), "covers every event so far");
}

fn incompatible(bytes: Vec<u8>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = checkpoint::write(dir.path(), 7, &bytes).unwrap();
    match checkpoint::read(&path, settings()) {
        Err(e @ CheckpointError::Incompatible { .. }) => e.to_string(),
        Err(e) => panic!("expected an incompatible checkpoint, got {e}"),
        Ok(_) => panic!("an incompatible checkpoint was loaded"),
    }
}

#[test]
fn a_checkpoint_of_another_format_or_layout_is_refused_with_what_to_do() {
    let mut w = World::new(settings());
    build(&mut w);
    let message = incompatible(checkpoint::encode_with(&w, 7, FORMAT + 1, LAYOUT));
    assert!(
        message.contains("checkpoint format 2; this host reads format 1"),
        "{message}"
    );
    assert!(message.contains("--fresh-world"), "{message}");
    let message = incompatible(checkpoint::encode_with(
        &w,
        7,
        FORMAT,
        "world-image/0 rapier3d-0.30",
    ));
    assert!(
        message.contains("`world-image/0 rapier3d-0.30`"),
        "{message}"
    );
    assert!(message.contains(LAYOUT), "{message}");
}

#[test]
fn a_damaged_checkpoint_is_refused_and_the_one_before_it_is_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = WorldStore::new(dir.path(), WorldConfig::default());
    let mut r = realm(dir.path());
    store.adopt(&mut r).unwrap();
    call(&mut r, |w| drop(build(w)));
    store.checkpoint(&mut r, "test", false).unwrap();
    call(&mut r, |w| {
        w.create_entity(&spec([9.0; 3], BodyKind::None)).unwrap();
    });
    store.checkpoint(&mut r, "test", false).unwrap();
    let want = r.world.state_hash();
    drop(r);
    let newest = checkpoint::list(&store.dir()).unwrap().pop().unwrap();
    let mut bytes = std::fs::read(&newest.path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&newest.path, &bytes).unwrap();
    match checkpoint::read(&newest.path, settings()) {
        Err(CheckpointError::Damaged { why, .. }) => assert!(why.contains("digest"), "{why}"),
        _ => panic!("a damaged checkpoint was not refused"),
    }
    let (world, restored) = load(dir.path(), settings()).unwrap();
    assert_eq!(world.state_hash(), want, "the older one plus its journal");
    assert_eq!(restored.records, 1);
}

#[test]
fn an_incompatible_newest_checkpoint_stops_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = World::new(settings());
    build(&mut w);
    let world_dir = dir.path().join(super::WORLD_DIR);
    checkpoint::write(&world_dir, 3, &checkpoint::encode(&w, 3)).unwrap();
    checkpoint::write(&world_dir, 9, &checkpoint::encode_with(&w, 9, 99, LAYOUT)).unwrap();
    let e = match load(dir.path(), settings()) {
        Err(e) => format!("{e:#}"),
        Ok(_) => panic!("an incompatible checkpoint was passed over"),
    };
    assert!(e.contains("incompatible version"), "{e}");
}

#[test]
fn world_settings_parse_and_bad_values_name_their_key() {
    let c =
        crate::config::Config::parse("[world]\ncheckpointEverySeconds = 0\nkeepCheckpoints = 5\n")
            .unwrap();
    assert_eq!(c.world.every, None);
    assert_eq!(c.world.keep, 5);
    let e = crate::config::Config::parse("[world]\nkeepCheckpoints = 0\n").unwrap_err();
    assert!(
        e.contains("`world.keepCheckpoints` must be from 1 to 100, got 0"),
        "{e}"
    );
    let e = crate::config::Config::parse("[world]\ncheckpointEverySeconds = -1\n").unwrap_err();
    assert!(e.starts_with("2:"), "{e}");
    assert!(e.contains("`world.checkpointEverySeconds`"), "{e}");
}

#[test]
fn retention_keeps_the_journal_a_checkpoint_needs() {
    let dir = tempfile::tempdir().unwrap();
    let retention = crate::trace::Retention {
        segment_bytes: crate::limits::MIN_TRACE_SEGMENT_BYTES,
        max_bytes: Some(crate::limits::MIN_TRACE_SEGMENT_BYTES * 2),
        max_age: None,
    };
    let mut store = WorldStore::new(dir.path(), WorldConfig::default());
    let mut r = Realm {
        world: World::new(settings()),
        tracer: Tracer::open_with(dir.path(), 64, retention).unwrap(),
        rng: Rng::seeded(1),
        state: crate::state::StateStore::in_memory(),
    };
    store.adopt(&mut r).unwrap();
    call(&mut r, |w| drop(build(w)));
    store.checkpoint(&mut r, "test", false).unwrap();
    // Far more journal than retention would keep.
    for i in 0..400 {
        call(&mut r, |w| {
            w.set_transform("ent_14", Some([i as f64, 0.0, 0.0]), None, None);
        });
    }
    let want = r.world.state_hash();
    drop(r);
    let (world, restored) = load(dir.path(), settings()).unwrap();
    assert_eq!(world.state_hash(), want);
    assert_eq!(restored.records, 400);
}

#[test]
fn a_restart_counts_the_journal_it_replayed_toward_the_next_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = WorldStore::new(dir.path(), WorldConfig::default());
    let mut r = realm(dir.path());
    store.adopt(&mut r).unwrap();
    call(&mut r, |w| drop(build(w)));
    call(&mut r, |w| steps(w, 3));
    call(&mut r, |w| {
        w.set_transform("ent_14", Some([1.0, 2.0, 3.0]), None, None);
    });
    let bodies = r.world.body_count() as u64;
    drop(r);

    let no_schedule = WorldConfig {
        every: None,
        ..WorldConfig::default()
    };
    let bound = super::ReplayBound {
        records: 3,
        body_steps: u64::MAX,
        events: u64::MAX,
    };
    let mut store = WorldStore::new(dir.path(), no_schedule).with_replay_bound(bound);
    let (world, restored) = store.restore(settings()).unwrap();
    assert_eq!(restored.records, 3);
    assert_eq!(store.replay_cost().records, 3);
    assert_eq!(store.replay_cost().body_steps, 3 * bodies);
    let mut r = realm(dir.path());
    r.world = world;
    store.adopt(&mut r).unwrap();
    assert!(
        store.due(&r),
        "three records replayed: a checkpoint is due at once"
    );
    store.checkpoint(&mut r, "test", false).unwrap();
    assert_eq!(store.replay_cost(), super::ReplayCost::default());
    assert!(!store.due(&r));
}

/// A host that only answers reads journals nothing, yet a restart after a kill scans every
/// event after the newest checkpoint: past the bound of events traced, a checkpoint is due
/// even though the world did not change, and writing it ends the debt.
#[test]
fn a_long_run_of_reads_makes_a_checkpoint_due() {
    let dir = tempfile::tempdir().unwrap();
    let no_schedule = WorldConfig {
        every: None,
        ..WorldConfig::default()
    };
    let bound = super::ReplayBound {
        records: u64::MAX,
        body_steps: u64::MAX,
        events: 50,
    };
    let mut store = WorldStore::new(dir.path(), no_schedule).with_replay_bound(bound);
    let mut r = realm(dir.path());
    store.adopt(&mut r).unwrap();
    let read = |r: &mut Realm| {
        r.tracer.emit(crate::trace::NewEvent {
            kind: "skill.executed",
            actor_id: "reader",
            thread_id: "s1",
            parent_event_id: None,
            caused_by: Vec::new(),
            payload: json!({"skill": "scene.queryEntities"}),
        });
        r.tracer.commit().unwrap();
    };
    // No checkpoint yet: every event counts.
    while r.tracer.count() < 49 {
        read(&mut r);
    }
    assert!(
        !store.due(&r),
        "49 events after no checkpoint: under the bound"
    );
    read(&mut r);
    assert!(store.due(&r), "50 events traced: a checkpoint is due");
    assert_eq!(
        store.replay_cost(),
        super::ReplayCost::default(),
        "nothing journaled"
    );
    let summary = store.checkpoint(&mut r, "test", false).unwrap();
    assert_eq!(summary["coversEvent"], 50);
    assert!(!store.due(&r), "the checkpoint covers them");
    for _ in 0..49 {
        read(&mut r);
    }
    assert!(!store.due(&r));
    read(&mut r);
    assert!(store.due(&r), "50 more after the checkpoint");
}
