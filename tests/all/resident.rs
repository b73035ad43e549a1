//! A component read from the compiled cache is read in by the host before its first call's
//! clock starts, not page by page from the disk while the call runs (`sandbox/resident.rs`):
//! on a machine whose disk was busy those page faults cut innocent first calls at their
//! deadline.

use crate::support::repo;
use limina::limits::PackageLimits;
use limina::sandbox::{CompileCache, Sandbox};
use std::os::fd::AsRawFd;

/// How many of the pages in `range` are in memory (`mincore`).
fn resident_pages(range: std::ops::Range<*const u8>) -> (usize, usize) {
    // SAFETY: `sysconf` has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let start = range.start as usize / page * page;
    let len = range.end as usize - start;
    let pages = len.div_ceil(page);
    let mut flags = vec![0u8; pages];
    // SAFETY: the range is mapped (the compiled component holds it) and `flags` has a byte
    // per page.
    let status = unsafe { libc::mincore(start as *mut libc::c_void, len, flags.as_mut_ptr()) };
    assert_eq!(status, 0, "mincore: {}", std::io::Error::last_os_error());
    (flags.iter().filter(|f| **f & 1 == 1).count(), pages)
}

#[test]
fn a_cached_component_is_read_in_before_its_first_instance_runs() {
    let cache = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(repo().join("packages/npc/npc.wasm")).unwrap();
    // The first host compiles it into the cache; the second maps it from there, as a restart
    // does.
    Sandbox::new(CompileCache::new(Some(cache.path().into())))
        .unwrap()
        .compile(&bytes, "npc")
        .unwrap();
    let sandbox = Sandbox::new(CompileCache::new(Some(cache.path().into()))).unwrap();
    let compiled = sandbox.compile(&bytes, "npc").unwrap();
    assert!(!compiled.resident());
    // The disk's copy only: the page cache lets go of what the mapping has not touched yet,
    // as a busy machine's would.
    for entry in std::fs::read_dir(cache.path()).unwrap() {
        let file = std::fs::File::open(entry.unwrap().path()).unwrap();
        file.sync_all().unwrap();
        // SAFETY: a valid descriptor; the advice only drops cached pages.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
    let (before, pages) = resident_pages(compiled.image_range());
    assert!(
        before < pages * 9 / 10,
        "{before} of {pages} pages were in memory before the first instance"
    );

    let limits = PackageLimits {
        fuel_per_call: 100_000_000,
        memory_bytes: 64 << 20,
        timeout_ms: 1_000,
    };
    let instance = compiled.instantiate("npc", &limits).unwrap();
    drop(instance);
    assert!(compiled.resident());
    let (after, pages) = resident_pages(compiled.image_range());
    assert_eq!(
        after, pages,
        "the whole image is in memory after the first instance"
    );
}
