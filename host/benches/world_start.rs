//! `cargo bench -p limina --bench world_start`: how long a restart takes to bring the kept
//! world back. Prepares a trace folder as a host would leave it: a 10,000-entity world (1,000
//! dynamic boxes on a floor, the rest render-only) checkpointed, then 19,999 calls and 400
//! physics steps journaled, with the checkpoints the replay bound writes on the way (so the
//! journal after the newest one is as long as the bound lets it get). Times the binary from
//! spawn to its first `tools/list` reply on that folder against an empty folder, alternating,
//! and the world's load alone in-process. Prints medians and the ratio.

mod spawn;

use limina::limits::WORLD_REPLAY_MAX_RECORDS;
use limina::persistence::journal::{self, Author};
use limina::persistence::{WorldConfig, WorldStore, load};
use limina::realm::{Realm, Rng};
use limina::trace::Tracer;
use limina::world::{BodyKind, EntitySpec, Shape, World, WorldSettings};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

const ENTITIES: usize = 10_000;
const BODIES: usize = 1_000;
/// One short of twice the records bound: the last checkpoint falls a bound before the end,
/// so the journal a restart replays is one record short of the bound (its worst case).
const JOURNAL_CALLS: usize = 2 * WORLD_REPLAY_MAX_RECORDS as usize - 1;
const STEP_EVERY: usize = 50;
const STARTS: usize = 7;

fn settings() -> WorldSettings {
    WorldSettings {
        max_entities: ENTITIES + 10,
        tick_seconds: 0.016,
    }
}

fn spec(position: [f64; 3], body: BodyKind) -> EntitySpec {
    EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: if body == BodyKind::Fixed { 50.0 } else { 0.8 },
        color: 0x88_8888,
        position,
        body,
        friction: 0.5,
        restitution: 0.0,
    }
}

/// One call as the registry journals it, and the checkpoint the host writes after it when
/// one is due; returns the checkpoint's milliseconds when one was written.
fn call(realm: &mut Realm, store: &mut WorldStore, f: impl FnOnce(&mut World)) -> Option<f64> {
    realm.world.begin();
    f(&mut realm.world);
    realm.world.commit();
    let record = realm.world.call_record(None);
    realm.world.settle_ops(record.is_some());
    if let Some(ops) = record {
        let tick = realm.world.tick();
        let author = Author {
            agent_id: "bench",
            session_id: "bench",
            decision_id: "evt_bench_000000000001_0000000000000000",
        };
        realm.tracer.emit(journal::record(&ops, tick, author));
        store.note_record(&ops, realm.world.body_count());
    }
    store.due(realm).then(|| {
        let summary = store.checkpoint(realm, "bench", false).unwrap();
        summary["ms"].as_f64().unwrap()
    })
}

/// What preparing the folder left.
struct Prepared {
    hash: String,
    /// Journal records after the newest checkpoint.
    tail: u64,
    /// Checkpoints the replay bound wrote, and their median milliseconds.
    automatic: usize,
    checkpoint_ms: f64,
}

/// The folder: a 10,000-entity world checkpointed, then a long journal.
fn prepare(dir: &Path) -> Prepared {
    let mut realm = Realm {
        world: World::new(settings()),
        tracer: Tracer::open(dir, 64).unwrap(),
        rng: Rng::seeded(1),
        state: limina::state::StateStore::in_memory(),
    };
    // No schedule: only the replay bound (and the bench) checkpoint.
    let config = WorldConfig {
        every: None,
        ..WorldConfig::default()
    };
    let mut store = WorldStore::new(dir, config);
    store.adopt(&mut realm).unwrap();
    call(&mut realm, &mut store, |w| {
        w.create_entity(&spec([0.0, -25.0, 0.0], BodyKind::Fixed))
            .unwrap();
    });
    for chunk in 0..10 {
        call(&mut realm, &mut store, |w| {
            // 9,999 besides the floor: the last chunk is one short.
            for i in 0..if chunk < 9 { 1000 } else { 999 } {
                let n = chunk * 1000 + i;
                let (x, z) = ((n % 100) as f64 * 1.5 - 75.0, (n / 100) as f64 * 1.5 - 75.0);
                let body = if n % 10 == 0 {
                    BodyKind::Dynamic
                } else {
                    BodyKind::None
                };
                let y = if body == BodyKind::Dynamic { 1.0 } else { 3.0 };
                w.create_entity(&spec([x, y, z], body)).unwrap();
            }
        });
        realm.tracer.flush().unwrap();
    }
    assert_eq!(realm.world.entity_count(), ENTITIES);
    store.checkpoint(&mut realm, "bench", false).unwrap();
    let mut automatic = Vec::new();
    for i in 0..JOURNAL_CALLS {
        let id = format!("ent_{}", 2 + (i * 7919) % (ENTITIES - 1));
        let written = call(&mut realm, &mut store, |w| {
            w.set_transform(&id, Some([i as f64 * 0.01, 4.0, 0.0]), None, None);
            if i % STEP_EVERY == 0 {
                w.step();
            }
        });
        automatic.extend(written);
        if i % 256 == 0 {
            realm.tracer.flush().unwrap();
        }
    }
    realm.tracer.flush().unwrap();
    Prepared {
        hash: realm.world.state_hash(),
        tail: store.replay_cost().records,
        automatic: automatic.len(),
        checkpoint_ms: if automatic.is_empty() {
            0.0
        } else {
            median(automatic)
        },
    }
}

/// Spawn → first `tools/list` reply, in milliseconds.
fn start_ms(traces: &Path) -> f64 {
    let started = Instant::now();
    let mut host = spawn::limina_at(
        env!("CARGO_BIN_EXE_limina"),
        &["--mcp-stdio", "--manual-clock", "--log-level", "warn"],
        Some(traces),
        None,
    );
    let reply = host.exchange(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    assert!(reply["result"]["tools"].is_array(), "{reply}");
    ms
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    // `LIMINA_WORLD_START_KEEP=DIR`: only prepare the folder in DIR and keep it (to profile a
    // start against it: `perf record limina --mcp-stdio --trace-dir DIR`).
    if let Some(dir) = std::env::var_os("LIMINA_WORLD_START_KEEP") {
        let dir = Path::new(&dir);
        std::fs::create_dir_all(dir).unwrap();
        let prepared = prepare(dir);
        println!(
            "prepared {} (world hash {}, {} records after the newest checkpoint)",
            dir.display(),
            prepared.hash,
            prepared.tail
        );
        return;
    }
    let big = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let prepared = Instant::now();
    let made = prepare(big.path());
    println!(
        "prepared {ENTITIES} entities ({BODIES} dynamic), a checkpoint and {JOURNAL_CALLS} journal records in {:.1} s",
        prepared.elapsed().as_secs_f64()
    );
    println!(
        "the replay bound wrote {} checkpoints on the way (median {:.1} ms each); a restart replays {} records",
        made.automatic, made.checkpoint_ms, made.tail
    );

    let mut loads = Vec::new();
    for _ in 0..STARTS {
        let t = Instant::now();
        let (world, restored) = load(big.path(), settings()).unwrap();
        loads.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(
            world.state_hash(),
            made.hash,
            "the load rebuilt the same world"
        );
        assert_eq!(restored.records, made.tail);
    }
    // Warm the compile cache and the page cache once for both.
    start_ms(empty.path());
    start_ms(big.path());
    let (mut with_world, mut without) = (Vec::new(), Vec::new());
    for _ in 0..STARTS {
        without.push(start_ms(empty.path()));
        with_world.push(start_ms(big.path()));
        std::thread::sleep(Duration::from_millis(50));
    }
    let (w, e, l) = (median(with_world), median(without), median(loads));
    println!("world load in-process (checkpoint + journal): median {l:.1} ms");
    println!("spawn to first tools/list, empty folder:       median {e:.1} ms");
    println!(
        "spawn to first tools/list, 10k-entity world:   median {w:.1} ms ({:.2}x, +{:.1} ms)",
        w / e,
        w - e
    );
}
