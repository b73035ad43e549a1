//! Files: a package's granted volumes, mounted in its guest through `wasi:filesystem`
//! preopens — one per volume, at `/NAME`. The manifest names volumes (`read:rules`,
//! `write:notes`), never host paths; the host's configuration says where each lives.
//!
//! What a guest can do there, and what stops it:
//! - A volume is mounted only when the session also holds `files.read`; a writable volume is
//!   mounted writable only when the session holds `files.write` (read-only otherwise): the
//!   effective grant is session ∩ package, as for world imports ([`FileAccess::new`]).
//! - Paths resolve beneath the volume: `..`, absolute paths and symlinks leading out are
//!   refused by wasmtime-wasi's capability-based resolution (every lookup is made relative to
//!   the volume's directory handle, component by component).
//! - A hard link is not a path: a link inside the volume to a file outside it looks like any
//!   file. So a file with more than one link is never opened for writing (checked before the
//!   open, so nothing is truncated, and again on the opened file): what a package writes is
//!   only ever reachable through its own volume. Reading such a file is allowed (the host put
//!   it there, or it is the package's own).
//! - Bytes written (through `write`, streams, zeroes or splices) count against the package's
//!   write quota ([`WriteQuota`], shared by all its instances over the host's run); a write
//!   past it fails with `insufficient-space` and is traced as a denial.
//! - Every write is traced as `files.write {package, volume, path, bytes}` (one event per file
//!   per call, at its end), never with what was written.
//!
//! File writes are not undone when a call fails (a file is not the world); state is
//! (`crate::state`). The guarded WASI functions live in `sandbox/wasi_files.rs`.

mod config;

pub use config::{FilesConfig, RawFiles};

use crate::policy::{Permission, Permissions};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One volume as a guest sees it: `/volume`, backed by `dir` on the host.
#[derive(Debug, Clone, PartialEq)]
pub struct Mount {
    pub volume: String,
    pub dir: PathBuf,
    pub writable: bool,
}

/// What one instance may reach in files: its mounts, the package's write quota, and the
/// permission the session lacks when a granted volume is kept from it.
#[derive(Debug, Clone, Default)]
pub struct FileAccess {
    pub mounts: Vec<Mount>,
    pub quota: WriteQuota,
    /// Set when the package holds volumes the session's permissions keep unmounted (or
    /// mounted read-only): the permission that would have given them.
    pub withheld: Option<Permission>,
}

impl FileAccess {
    /// The effective mounts: each granted volume `(name, writable)` the host maps to a folder
    /// (`dir_of`), as far as the session's `permissions` allow.
    pub fn new(
        granted: &[(String, bool)],
        dir_of: impl Fn(&str) -> Option<PathBuf>,
        permissions: Permissions,
        quota: WriteQuota,
    ) -> FileAccess {
        let mut access = FileAccess {
            quota,
            ..FileAccess::default()
        };
        if granted.is_empty() {
            return access;
        }
        if !permissions.contains(Permission::FilesRead) {
            access.withheld = Some(Permission::FilesRead);
            return access;
        }
        let may_write = permissions.contains(Permission::FilesWrite);
        for (volume, writable) in granted {
            let Some(dir) = dir_of(volume) else { continue };
            if *writable && !may_write {
                access.withheld = Some(Permission::FilesWrite);
            }
            access.mounts.push(Mount {
                volume: volume.clone(),
                dir,
                writable: *writable && may_write,
            });
        }
        access
    }

    /// The mount of `volume`, if the instance has it.
    pub fn mount(&self, volume: &str) -> Option<&Mount> {
        self.mounts.iter().find(|m| m.volume == volume)
    }
}

/// The bytes a package may write into its volumes over the host's run, shared by all of its
/// instances (every session's).
#[derive(Debug, Clone)]
pub struct WriteQuota {
    limit: u64,
    used: Arc<AtomicU64>,
}

impl Default for WriteQuota {
    fn default() -> Self {
        WriteQuota::new(crate::limits::FILES_WRITE_BYTES)
    }
}

impl WriteQuota {
    /// A fresh quota of `limit` bytes.
    pub fn new(limit: u64) -> Self {
        WriteQuota {
            limit,
            used: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The quota's size in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes written (or reserved by a write in progress) so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Reserves `bytes` for a write about to happen; `Err(used)` when they do not fit.
    pub fn reserve(&self, bytes: u64) -> Result<(), u64> {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .map(|_| ())
    }

    /// Gives back what a reservation did not use (a short or failed write).
    pub fn release(&self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                Some(used.saturating_sub(bytes))
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn granted() -> Vec<(String, bool)> {
        vec![("rules".into(), false), ("notes".into(), true)]
    }

    fn dir_of(name: &str) -> Option<PathBuf> {
        (name != "gone").then(|| PathBuf::from(format!("/srv/{name}")))
    }

    #[test]
    fn mounts_are_the_grant_narrowed_by_the_session() {
        let all = Permissions::parse(&["files.read", "files.write"]).unwrap();
        let access = FileAccess::new(&granted(), dir_of, all, WriteQuota::new(10));
        assert_eq!(access.withheld, None);
        assert!(!access.mount("rules").unwrap().writable);
        assert!(access.mount("notes").unwrap().writable);
        assert_eq!(
            access.mount("notes").unwrap().dir,
            PathBuf::from("/srv/notes")
        );

        let read = Permissions::parse(&["files.read"]).unwrap();
        let access = FileAccess::new(&granted(), dir_of, read, WriteQuota::new(10));
        assert_eq!(access.withheld, Some(Permission::FilesWrite));
        assert!(access.mounts.iter().all(|m| !m.writable));
        assert_eq!(access.mounts.len(), 2);

        let access = FileAccess::new(&granted(), dir_of, Permissions::NONE, WriteQuota::new(10));
        assert_eq!(access.withheld, Some(Permission::FilesRead));
        assert!(access.mounts.is_empty());

        let access = FileAccess::new(&[], dir_of, Permissions::NONE, WriteQuota::new(10));
        assert_eq!(access.withheld, None, "nothing granted, nothing withheld");
    }

    #[test]
    fn a_volume_the_host_does_not_map_is_not_mounted() {
        let all = Permissions::parse(&["files.read", "files.write"]).unwrap();
        let access = FileAccess::new(&[("gone".into(), true)], dir_of, all, WriteQuota::new(10));
        assert!(access.mounts.is_empty());
    }

    #[test]
    fn the_write_quota_refuses_what_does_not_fit_and_is_shared_by_clones() {
        let quota = WriteQuota::new(100);
        let other = quota.clone();
        assert_eq!(quota.reserve(60), Ok(()));
        assert_eq!(other.reserve(50), Err(60), "shared between instances");
        assert_eq!(other.reserve(40), Ok(()));
        assert_eq!(quota.used(), 100);
        quota.release(30);
        assert_eq!(other.used(), 70);
        assert_eq!(quota.reserve(u64::MAX), Err(70), "no overflow");
    }
}
