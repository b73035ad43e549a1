//! What the in-process benches share: a fresh realm and the median-of-batches timer.

use limina::realm::{Realm, Rng};
use limina::trace::Tracer;
use limina::world::{World, WorldSettings};
use std::time::Instant;

/// A realm with an empty world holding at most `max_entities`.
pub fn realm(max_entities: usize) -> Box<Realm> {
    Box::new(Realm {
        world: World::new(WorldSettings {
            max_entities,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: Tracer::new(1024),
        rng: Rng::seeded(1),
        state: limina::state::StateStore::in_memory(),
    })
}

/// Median over `samples` samples of the mean time per operation in a batch of `batch`, in
/// microseconds, after one warm-up batch.
pub fn median_us(samples: usize, batch: usize, mut op: impl FnMut()) -> f64 {
    for _ in 0..batch {
        op();
    }
    let mut means: Vec<f64> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                op();
            }
            start.elapsed().as_secs_f64() * 1e6 / batch as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    means[samples / 2]
}
