//! `cargo bench -p limina --bench spatial`: perception queries against the full scan, and the
//! candidates for the world's spatial index, in one run.
//!
//! - **Queries on the world** (`World::query_entities`, indexed) against `World::scan_entities`
//!   (every entity looked at, as before the index) at 10,000 and 100,000 render-only
//!   entities spread at 0.1 per m² over a square (so a radius-3 query finds about 3, a
//!   radius-25 one about 200): median and p95 per query, and the ratio to the scan.
//! - **Index candidates** at 100,000 points, the same spread: the uniform grid at several cell
//!   sides, an R-tree (`rstar`, bulk-loaded) and a linear scan of a flat array — build, query
//!   at radius 3 and 25, and a small move (what a physics step does to each awake body).
//! - **The world at size**: for 10,000 to 400,000 entities, resident memory per entity, a
//!   tick with 1,000 awake dynamic bodies among them (the index updated for every moved body),
//!   the tick of a world that holds only those bodies (the baseline), and the world's image
//!   (what a checkpoint encodes), to choose the entity cap.

#[allow(dead_code)] // only the timer is used here
mod common;

use common::median_us;
use limina::realm::Rng;
use limina::world::{BodyKind, EntityFilter, EntitySpec, Shape, SpatialGrid, World, WorldSettings};
use rstar::RTree;
use rstar::primitives::GeomWithData;
use std::time::Instant;

/// Entities per square metre.
const DENSITY: f64 = 0.1;

fn spread(rng: &mut Rng, n: usize) -> Vec<[f64; 3]> {
    let side = (n as f64 / DENSITY).sqrt();
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (0..n)
        .map(|_| [unit() * side, unit() * 2.0, unit() * side])
        .collect()
}

fn spec(position: [f64; 3], body: BodyKind) -> EntitySpec {
    EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: if body == BodyKind::Fixed { 50.0 } else { 0.5 },
        color: 0x88_8888,
        position,
        body,
        friction: 0.5,
        restitution: 0.0,
    }
}

fn world(points: &[[f64; 3]], cap: usize) -> World {
    let mut w = World::new(WorldSettings {
        max_entities: cap,
        tick_seconds: 1.0 / 60.0,
    });
    for p in points {
        w.create_entity(&spec(*p, BodyKind::None)).unwrap();
    }
    w.take_changes();
    w
}

/// Per-query times in µs over `n` queries at random places: (median, p95).
fn per_query(
    points: &[[f64; 3]],
    n: usize,
    mut query: impl FnMut([f64; 3]) -> usize,
) -> (f64, f64) {
    let mut rng = Rng::seeded(7);
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let at = points[(rng.next_u64() % points.len() as u64) as usize];
            let start = Instant::now();
            std::hint::black_box(query(at));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[n / 2], times[n * 95 / 100])
}

fn queries_on_the_world() {
    println!("queries on the world (µs per query: median / p95; ratio of medians to the scan)");
    for n in [10_000, 100_000] {
        let points = spread(&mut Rng::seeded(1), n);
        let w = world(&points, n);
        for radius in [3.0, 25.0] {
            let filter = |near| EntityFilter {
                near: Some(near),
                radius: Some(radius),
                tag: None,
            };
            let scans = if n > 50_000 { 60 } else { 300 };
            let (scan50, scan95) = per_query(&points, scans, |p| w.scan_entities(&filter(p)).len());
            let (idx50, idx95) = per_query(&points, 5_000, |p| w.query_entities(&filter(p)).len());
            println!(
                "  {n:>7} entities, radius {radius:>4}: scan {scan50:>9.1} / {scan95:>9.1}   indexed {idx50:>7.2} / {idx95:>7.2}   {:>8.0}x",
                scan50 / idx50
            );
        }
    }
}

type Tree = RTree<GeomWithData<[f64; 3], u64>>;

fn candidates() {
    let n = 100_000;
    let points = spread(&mut Rng::seeded(2), n);
    println!("index candidates at {n} points (µs: build whole; query median / p95; move median)");
    let moves: Vec<(u64, [f64; 3])> = {
        let mut rng = Rng::seeded(3);
        (0..1_000)
            .map(|_| {
                let i = rng.next_u64() % n as u64;
                let d = (rng.next_u64() % 100) as f64 * 0.001;
                let p = points[i as usize];
                (i, [p[0] + d, p[1], p[2] - d])
            })
            .collect()
    };
    let row = |label: &str, build: f64, q3: (f64, f64), q25: (f64, f64), mv: f64| {
        println!(
            "  {label:<14} build {build:>9.0}   r=3 {:>7.2} / {:>7.2}   r=25 {:>8.2} / {:>8.2}   move {mv:>6.3}",
            q3.0, q3.1, q25.0, q25.1
        );
    };
    // The scan: what every structure is measured against.
    let flat: Vec<(u64, [f64; 3])> = points
        .iter()
        .enumerate()
        .map(|(i, p)| (i as u64, *p))
        .collect();
    let scan = |at: [f64; 3], r: f64| {
        flat.iter()
            .filter(|(_, p)| (0..3).map(|i| (p[i] - at[i]).powi(2)).sum::<f64>() <= r * r)
            .count()
    };
    row(
        "flat scan",
        0.0,
        per_query(&points, 200, |p| scan(p, 3.0)),
        per_query(&points, 200, |p| scan(p, 25.0)),
        0.0,
    );
    for side in [4.0, 8.0, 16.0, 32.0] {
        let start = Instant::now();
        let mut grid = SpatialGrid::new(side);
        for (i, p) in points.iter().enumerate() {
            grid.put(i as u64, *p);
        }
        let build = start.elapsed().as_secs_f64() * 1e6;
        let query = |at: [f64; 3], r: f64| {
            let mut found = 0;
            grid.candidates(at, r, |_, p| {
                found += usize::from((0..3).map(|i| (p[i] - at[i]).powi(2)).sum::<f64>() <= r * r)
            });
            found
        };
        let q3 = per_query(&points, 5_000, |p| query(p, 3.0));
        let q25 = per_query(&points, 2_000, |p| query(p, 25.0));
        let mut k = 0;
        let mv = median_us(15, 1_000, || {
            let (i, p) = moves[k % moves.len()];
            grid.put(i, p);
            k += 1;
        });
        row(&format!("grid {side} m"), build, q3, q25, mv);
    }
    let start = Instant::now();
    let mut tree: Tree = RTree::bulk_load(
        points
            .iter()
            .enumerate()
            .map(|(i, p)| GeomWithData::new(*p, i as u64))
            .collect(),
    );
    let build = start.elapsed().as_secs_f64() * 1e6;
    let q3 = per_query(&points, 5_000, |p| {
        tree.locate_within_distance(p, 9.0).count()
    });
    let q25 = per_query(&points, 2_000, |p| {
        tree.locate_within_distance(p, 625.0).count()
    });
    let mut now: Vec<[f64; 3]> = points.clone();
    let mut k = 0;
    let mv = median_us(15, 1_000, || {
        let (i, p) = moves[k % moves.len()];
        let before = now[i as usize];
        tree.remove(&GeomWithData::new(before, i)).expect("held");
        tree.insert(GeomWithData::new(p, i));
        now[i as usize] = p;
        k += 1;
    });
    row("r-tree", build, q3, q25, mv);
}

/// Resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn world_at_size() {
    const BODIES: usize = 1_000;
    println!(
        "the world at size: {BODIES} dynamic bodies falling onto a floor among render-only entities (tick: median ms of their first 60, all awake)"
    );
    let tick_ms = |w: &mut World| {
        median_us(60, 1, || {
            w.step();
            w.take_changes();
        }) / 1e3
    };
    let bodies = |w: &mut World| {
        w.create_entity(&spec([0.0, -25.0, 0.0], BodyKind::Fixed))
            .unwrap();
        for i in 0..BODIES {
            let p = [
                (i % 32) as f64 * 0.7 - 11.0,
                1.0 + (i / 1024) as f64,
                ((i / 32) % 32) as f64 * 0.7 - 11.0,
            ];
            w.create_entity(&spec(p, BodyKind::Dynamic)).unwrap();
        }
    };
    let mut alone = World::new(WorldSettings {
        max_entities: BODIES + 1,
        tick_seconds: 1.0 / 60.0,
    });
    bodies(&mut alone);
    let base = tick_ms(&mut alone);
    drop(alone);
    println!(
        "  {:>7} entities: tick {base:>6.2} ms (the baseline)",
        BODIES + 1
    );
    for n in [10_000, 100_000, 200_000, 400_000] {
        let before = rss_kib();
        let start = Instant::now();
        let mut w = world(&spread(&mut Rng::seeded(4), n), n + BODIES + 1);
        let built = start.elapsed().as_secs_f64();
        let per_entity = (rss_kib().saturating_sub(before)) as f64 * 1024.0 / n as f64;
        bodies(&mut w);
        let tick = tick_ms(&mut w);
        let start = Instant::now();
        let image = w.save_image();
        let saved = start.elapsed().as_secs_f64() * 1e3;
        println!(
            "  {:>7} entities: tick {tick:>6.2} ms ({:.2}x)   {per_entity:>5.0} B resident per entity   created in {built:.2} s   image {:.1} MB in {saved:.0} ms",
            n + BODIES + 1,
            tick / base,
            image.len() as f64 / 1e6
        );
    }
}

fn main() {
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    if wanted("queries") {
        queries_on_the_world();
    }
    if wanted("candidates") {
        candidates();
    }
    if wanted("size") {
        world_at_size();
    }
}
