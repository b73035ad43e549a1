//! What a restart would pay to bring the world back: the journal after the newest checkpoint,
//! counted as it is written. A restart reads every record and steps the world as often as it
//! was stepped live, so the host writes a checkpoint as soon as either count passes its bound
//! (`limits.rs`): start-up stays short by construction, however long the host ran since its
//! last scheduled checkpoint.

use crate::limits::{
    WORLD_REPLAY_MAX_BODY_STEPS, WORLD_REPLAY_MAX_EVENTS, WORLD_REPLAY_MAX_RECORDS,
};
use crate::world::Op;

/// The journal after the newest checkpoint, as a restart would replay it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayCost {
    /// Journal records.
    pub records: u64,
    /// Physics steps, each times the bodies the world held when it was taken.
    pub body_steps: u64,
}

/// Where a restart's cost is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayBound {
    pub records: u64,
    pub body_steps: u64,
    /// Events traced after the newest checkpoint, journal or not: a restart scans them all.
    pub events: u64,
}

impl Default for ReplayBound {
    fn default() -> Self {
        ReplayBound {
            records: WORLD_REPLAY_MAX_RECORDS,
            body_steps: WORLD_REPLAY_MAX_BODY_STEPS,
            events: WORLD_REPLAY_MAX_EVENTS,
        }
    }
}

impl ReplayCost {
    /// Counts one record holding `ops`, written while the world held `bodies` bodies.
    pub fn add_record(&mut self, ops: &[Op], bodies: usize) {
        self.records += 1;
        self.body_steps += steps_in(ops) * (bodies.max(1) as u64);
    }

    /// Counts `other` too (the journal before a checkpoint that was not written).
    pub fn add(&mut self, other: ReplayCost) {
        self.records += other.records;
        self.body_steps += other.body_steps;
    }

    /// Whether a checkpoint is due to keep a restart within `bound`.
    pub fn over(&self, bound: ReplayBound) -> bool {
        self.records >= bound.records || self.body_steps >= bound.body_steps
    }
}

/// How many physics steps `ops` take.
pub fn steps_in(ops: &[Op]) -> u64 {
    ops.iter()
        .map(|op| match op {
            Op::Steps(n) => *n,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_body_steps_each_reach_the_bound_alone() {
        let bound = ReplayBound {
            records: 3,
            body_steps: 100,
            events: u64::MAX,
        };
        let mut cost = ReplayCost::default();
        cost.add_record(&[Op::Begin, Op::Commit], 10);
        cost.add_record(&[Op::Begin, Op::Commit], 10);
        assert!(!cost.over(bound));
        cost.add_record(&[Op::Begin, Op::Commit], 10);
        assert!(cost.over(bound), "three records");

        let mut cost = ReplayCost::default();
        cost.add_record(&[Op::Steps(4), Op::Begin, Op::Steps(5), Op::Commit], 10);
        assert_eq!(cost.body_steps, 90);
        assert!(!cost.over(bound));
        cost.add_record(&[Op::Steps(1)], 10);
        assert!(cost.over(bound), "100 body steps");
    }

    #[test]
    fn a_world_without_bodies_still_counts_its_steps() {
        let mut cost = ReplayCost::default();
        cost.add_record(&[Op::Steps(7)], 0);
        assert_eq!(cost.body_steps, 7);
    }
}
