//! Instances belong to calls: every guest call gets an instance of its package made for it
//! from the pooling allocator, and the instance is dropped when the call ends — whatever the
//! call's session, whatever happened in it. Nothing a call leaves in a guest's memory is seen
//! by any other call, and no instance outlives its call, so the sandbox sets no limit on
//! sessions: the instances alive at once are the calls running at once (the engine thread's
//! one, one per worker thread, and a package being described), and the pool holds
//! `[limits] instances` of them. A call that would need one more is refused with
//! `capacity_exceeded`, naming the key.
//!
//! Chosen by measuring (`cargo bench -p limina --bench instances`): see [`PoolSettings`] for
//! the settings and the figures behind each.

use crate::limits::{INSTANCES, MAX_PACKAGE_MEMORY_BYTES, WARM_INSTANCES};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use wasmtime::{Config, Enabled, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How instances are made and how their slots are made ready for the next one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolSettings {
    /// Instances that may exist at once (`[limits] instances`).
    pub instances: u32,
    /// Slots reserved up front (the pooling allocator); `false`: each instance maps its own
    /// memory (what a host without address space for the slots falls back to).
    pub pooled: bool,
    /// Linear memory and tables start as copy-on-write mappings of the component's image.
    pub copy_on_write: bool,
    /// Bytes of a slot's memory reset in place (the pages a call dirtied, copied back from
    /// the image) rather than given back to the kernel and faulted in again by the next call.
    pub keep_resident_bytes: usize,
    /// Find the pages a call dirtied with `PAGEMAP_SCAN` (Linux ≥ 6.7) instead of resetting
    /// every page up to `keep_resident_bytes`.
    pub pagemap_scan: bool,
    /// Slots whose memory is given back to the kernel in one batch of system calls.
    pub decommit_batch: usize,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            instances: INSTANCES,
            pooled: true,
            copy_on_write: true,
            keep_resident_bytes: KEEP_RESIDENT_BYTES,
            pagemap_scan: true,
            decommit_batch: 1,
        }
    }
}

/// See [`PoolSettings::keep_resident_bytes`].
const KEEP_RESIDENT_BYTES: usize = 64 << 20;

/// Core instances, memories and tables one component may hold: the most a guest of ours has,
/// with room. A component needing more is refused when it is first instantiated (at load).
const CORE_INSTANCES_PER_COMPONENT: u32 = 32;
const MEMORIES_PER_COMPONENT: u32 = 2;
const TABLES_PER_COMPONENT: u32 = 8;

impl PoolSettings {
    /// These settings applied to `config`.
    pub(super) fn apply(&self, config: &mut Config) {
        config.memory_init_cow(self.copy_on_write);
        if !self.pooled {
            return;
        }
        // Slots for the instances running calls (seated) and for the warm ones.
        let n = self.instances + WARM_INSTANCES as u32;
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(n);
        pool.max_core_instances_per_component(CORE_INSTANCES_PER_COMPONENT);
        pool.max_memories_per_component(MEMORIES_PER_COMPONENT);
        pool.max_tables_per_component(TABLES_PER_COMPONENT);
        pool.total_core_instances(n * CORE_INSTANCES_PER_COMPONENT);
        pool.total_memories(n * MEMORIES_PER_COMPONENT);
        pool.total_tables(n * TABLES_PER_COMPONENT);
        pool.max_memory_size(MAX_PACKAGE_MEMORY_BYTES as usize);
        pool.linear_memory_keep_resident(self.keep_resident_bytes);
        pool.table_keep_resident(self.keep_resident_bytes.min(1 << 20));
        pool.pagemap_scan(if self.pagemap_scan {
            Enabled::Auto
        } else {
            Enabled::No
        });
        pool.decommit_batch_size(self.decommit_batch);
        // Guests run synchronously on the calling thread's stack: no fiber stacks. (The
        // default reserves 1,000 of them and protects a guard page in each at start-up.)
        pool.total_stacks(0);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
}

/// The instances alive now, against the most there may be: each [`Seat`] is one.
#[derive(Debug)]
pub struct Seats {
    taken: AtomicU32,
    limit: u32,
}

/// No seat was free: every instance the pool holds runs a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolFull {
    pub instances: u32,
}

impl std::fmt::Display for PoolFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "all {} guest instances the host runs at once are busy with other calls \
             (`[limits] instances`); try again in a moment, or raise `[limits] instances` in \
             the host's configuration",
            self.instances
        )
    }
}

impl std::error::Error for PoolFull {}

impl Seats {
    /// Room for `limit` instances.
    pub fn new(limit: u32) -> Arc<Seats> {
        Arc::new(Seats {
            taken: AtomicU32::new(0),
            limit,
        })
    }

    /// A seat for one instance, or why there is none.
    pub fn take(self: &Arc<Self>) -> Result<Seat, PoolFull> {
        self.taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limit).then_some(n + 1)
            })
            .map(|_| Seat(self.clone()))
            .map_err(|_| PoolFull {
                instances: self.limit,
            })
    }

    /// Instances alive now.
    pub fn taken(&self) -> u32 {
        self.taken.load(Ordering::Acquire)
    }
}

/// One instance's place in the pool, given back when the instance is dropped.
#[derive(Debug)]
pub struct Seat(Arc<Seats>);

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_run_out_at_the_limit_and_come_back_when_dropped() {
        let seats = Seats::new(2);
        let a = seats.take().unwrap();
        let _b = seats.take().unwrap();
        let full = seats.take().unwrap_err();
        assert_eq!(full, PoolFull { instances: 2 });
        assert!(full.to_string().contains("`[limits] instances`"), "{full}");
        drop(a);
        assert_eq!(seats.taken(), 1);
        assert!(seats.take().is_ok());
    }
}
