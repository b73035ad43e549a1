//! The realm: the mutable state a call reaches through host imports — the world, the trace,
//! the host's randomness and the packages' state. The registry owns it; during a guest call it is lent to the
//! guest's store and handed back afterwards, so no lock is held across wasm.

use crate::state::StateStore;
use crate::trace::Tracer;
use crate::world::World;

/// World, trace, randomness and state, owned together.
pub struct Realm {
    pub world: World,
    pub tracer: Tracer,
    pub rng: Rng,
    /// Every package's key-value state; committed and rolled back with the world.
    pub state: StateStore,
}

/// Seedable randomness (splitmix64): a seeded host replays the same rolls.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn seeded(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// Seeded from the clock, for hosts started without `--seed`.
    pub fn from_time() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9e37_79b9_7f4a_7c15);
        Rng::seeded(nanos)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_same_seed_replays_the_same_sequence() {
        let (mut a, mut b) = (Rng::seeded(7), Rng::seeded(7));
        let xs: Vec<_> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<_> = (0..4).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs[0], xs[1]);
    }
}
