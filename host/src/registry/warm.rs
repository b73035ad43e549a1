//! Warm instances. After a call that did not trap, its instance may serve the same session's
//! next call of the same package: a repeat caller skips making an instance (a Rust core
//! skill 2.9 µs on a warm instance against 17 µs on a fresh one, a Python one 20 µs against
//! 1.3 ms; `cargo bench -p limina --bench instances`). Never another session's: nothing a
//! call leaves in a guest's memory reaches another agent's call (`sandbox/pool.rs`). The set
//! is small and bounded — `WARM_INSTANCES` instances holding at most `WARM_INSTANCE_BYTES`
//! of memory, the least recently used dropped first — so it never grows with the sessions.

use crate::limits::{WARM_INSTANCE_BYTES, WARM_INSTANCES};
use crate::sandbox::{CompiledPackage, GuestInstance};

/// One warm instance: whose it is, and when it last ran.
struct Entry {
    session: String,
    package: usize,
    instance: GuestInstance,
    bytes: usize,
    used: u64,
}

/// The warm instances, at most `WARM_INSTANCES` (a linear search over so few costs less
/// than hashing a session id).
#[derive(Default)]
pub(super) struct Warm {
    entries: Vec<Entry>,
    bytes: usize,
    clock: u64,
}

impl Warm {
    /// `session`'s warm instance of `package` as compiled now, if one is left.
    pub(super) fn take(
        &mut self,
        session: &str,
        package: usize,
        compiled: &CompiledPackage,
    ) -> Option<GuestInstance> {
        let at = self
            .entries
            .iter()
            .position(|e| e.package == package && e.session == session)?;
        let entry = self.entries.swap_remove(at);
        self.bytes -= entry.bytes;
        compiled.same(&entry.instance).then_some(entry.instance)
    }

    /// Keeps `instance` (unseated) warm for `session`'s next call of `package`, dropping the
    /// least recently used past the bounds.
    pub(super) fn put(&mut self, session: &str, package: usize, instance: GuestInstance) {
        let bytes = instance.peak_memory_bytes();
        // A second call of the session that ran meanwhile left one already: the newer stays.
        self.retain(|s, p| p != package || s != session);
        if bytes > WARM_INSTANCE_BYTES {
            return;
        }
        while self.entries.len() >= WARM_INSTANCES || self.bytes + bytes > WARM_INSTANCE_BYTES {
            let Some(oldest) = (0..self.entries.len()).min_by_key(|&i| self.entries[i].used) else {
                break;
            };
            self.bytes -= self.entries.swap_remove(oldest).bytes;
        }
        self.clock += 1;
        self.bytes += bytes;
        self.entries.push(Entry {
            session: session.to_string(),
            package,
            instance,
            bytes,
            used: self.clock,
        });
    }

    /// Drops the instances `keep` refuses.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&str, usize) -> bool) {
        self.entries.retain(|e| keep(&e.session, e.package));
        self.bytes = self.entries.iter().map(|e| e.bytes).sum();
    }
}
