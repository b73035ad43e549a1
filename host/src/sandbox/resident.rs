//! Reading a compiled component into memory before its first call's clock starts.
//!
//! A component read from the compiled cache is mapped from its file, not read: its machine
//! code and the initial image of its linear memory come in from the disk page by page as the
//! first instance touches them. On a machine whose disk is busy each such page fault waits
//! tens of milliseconds, and inside a call that wait counted against the call's deadline: a
//! Python package's first call (9 faults) took 983 ms of wall time for 7 ms of CPU, and a
//! JavaScript call on the engine was cut at its slice for a wait the guest did not cause.
//! Loading the package is the host's work, so the host does it once, before the first instance
//! of a compilation starts its clock; later instances find the pages in memory.

use std::sync::{Arc, OnceLock};
use wasmtime::component::Component;

/// Whether a compilation's component has been read in (shared by its clones).
#[derive(Clone, Default)]
pub(super) struct Resident(Arc<OnceLock<()>>);

impl Resident {
    /// Reads `component` in, the first time only: the initial image of its memories made now
    /// (else the first instantiation makes it) and every page of its compiled image faulted
    /// in. Nothing here can fail the call: at worst the pages come in during it, as before.
    pub(super) fn ensure(&self, component: &Component) {
        self.0.get_or_init(|| {
            if let Err(e) = component.initialize_copy_on_write_image() {
                crate::log::warn(&format!(
                    "a component's memory image could not be made ahead of its first call: {e}"
                ));
            }
            let range = component.image_range();
            populate(range.start, range.end as usize - range.start as usize);
        });
    }

    /// Whether [`Resident::ensure`] has run.
    pub(super) fn done(&self) -> bool {
        self.0.get().is_some()
    }
}

/// Faults in the `len` readable bytes at `start`: one `madvise(MADV_POPULATE_READ)` (Linux
/// 5.14+), else a read of one byte per page.
fn populate(start: *const u8, len: usize) {
    if len == 0 {
        return;
    }
    // SAFETY: `sysconf` has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
    let offset = start as usize % page;
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the range is the component's image, mapped readable for as long as the
        // component lives (the caller holds it); the advice only reads it in.
        let status = unsafe {
            libc::madvise(
                start.wrapping_sub(offset) as *mut libc::c_void,
                len + offset,
                libc::MADV_POPULATE_READ,
            )
        };
        if status == 0 {
            return;
        }
    }
    let mut at = 0;
    while at < len {
        // SAFETY: `start + at` lies inside the readable image.
        unsafe { std::ptr::read_volatile(start.add(at)) };
        at += page - (start as usize + at) % page;
    }
}
