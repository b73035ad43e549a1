//! The seam between the trace's write path and the filesystem: every byte the store writes
//! (segment lines, the retention record) and every sync goes through a [`Disk`], so tests can
//! fail them — a disk that fills up mid-line, at rotation, or while the retention record is
//! written — without root. [`RealDisk`] is the filesystem.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::Path;

pub use super::syncer::SyncJob;

/// Opens the files the trace writes.
pub trait Disk: Send + Sync {
    /// Opens (creating if missing) the segment at `path` for appending.
    fn open_segment(&self, path: &Path) -> io::Result<Box<dyn SegmentFile>>;
    /// Appends `bytes` to the file at `path` (created if missing) and syncs it.
    fn append_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
}

/// A segment open for appending.
pub trait SegmentFile: Send {
    /// Writes some of `bytes` at the end; how many were written (like `write(2)`).
    fn append(&mut self, bytes: &[u8]) -> io::Result<usize>;
    /// Makes what was written durable (`fdatasync`).
    fn sync(&mut self) -> io::Result<()>;
    /// The same sync, to run on another thread while writing goes on (it covers at least what
    /// was written before it was made).
    fn sync_job(&self) -> io::Result<SyncJob>;
    /// Cuts the file back to `len` bytes (a line torn by a failed write goes).
    fn truncate(&mut self, len: u64) -> io::Result<()>;
    /// Checks that `len` more bytes fit after `at` by reserving them (without changing the
    /// file's size), so an outage ends only once writing can succeed.
    fn reserve(&mut self, at: u64, len: u64) -> io::Result<()>;
    /// Its size on disk.
    fn size(&self) -> io::Result<u64>;
}

/// The filesystem itself.
pub struct RealDisk;

impl Disk for RealDisk {
    fn open_segment(&self, path: &Path) -> io::Result<Box<dyn SegmentFile>> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        Ok(Box::new(file))
    }

    fn append_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut file = OpenOptions::new().create(true).append(true).open(path)?;
        file.write_all(bytes)?;
        file.sync_all()
    }
}

impl SegmentFile for File {
    fn append(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write(bytes)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }

    fn sync_job(&self) -> io::Result<SyncJob> {
        let file = self.try_clone()?;
        Ok(Box::new(move || file.sync_data()))
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.set_len(len)
    }

    fn reserve(&mut self, at: u64, len: u64) -> io::Result<()> {
        // SAFETY: a plain syscall on an fd this file owns.
        let done = unsafe {
            libc::fallocate(
                self.as_raw_fd(),
                libc::FALLOC_FL_KEEP_SIZE,
                at as libc::off_t,
                len as libc::off_t,
            )
        };
        if done == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            // A filesystem that cannot reserve: the next write is the test.
            Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => Ok(()),
            _ => Err(e),
        }
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

/// Writes all of `bytes` through `file`; on failure, how many were written before it.
pub fn append_all(file: &mut dyn SegmentFile, mut bytes: &[u8]) -> Result<(), (usize, io::Error)> {
    let mut written = 0;
    while !bytes.is_empty() {
        match file.append(bytes) {
            Ok(0) => {
                return Err((
                    written,
                    io::Error::new(io::ErrorKind::WriteZero, "the file took no more bytes"),
                ));
            }
            Ok(n) => {
                written += n;
                bytes = &bytes[n..];
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err((written, e)),
        }
    }
    Ok(())
}

/// A disk for tests that holds `capacity` bytes in all: a write past it writes what fits and
/// then fails with "No space left on device", as a full filesystem does. Files are real (in a
/// temporary folder); `set_room` frees or takes space while a store runs. Only tests open a
/// trace on it (`Tracer::open_on`).
pub mod faulty {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    /// What a faulty disk allows; shared with the test that drives it.
    #[derive(Default)]
    pub struct Faults {
        /// Bytes that may still be written.
        pub room: AtomicU64,
        /// Creating a file fails (a full inode table, a lost folder).
        pub refuse_create: AtomicBool,
        /// Syncs fail with an I/O error.
        pub fail_sync: AtomicBool,
        /// Paths whose writes always fail (e.g. the retention record).
        pub refuse_paths: Mutex<Vec<String>>,
    }

    impl Faults {
        pub fn with_room(room: u64) -> Arc<Faults> {
            let faults = Arc::new(Faults::default());
            faults.room.store(room, Ordering::SeqCst);
            faults
        }

        pub fn set_room(&self, room: u64) {
            self.room.store(room, Ordering::SeqCst);
        }

        fn take(&self, path: &Path, want: usize) -> io::Result<usize> {
            let refused = self
                .refuse_paths
                .lock()
                .unwrap()
                .iter()
                .any(|p| path.to_string_lossy().ends_with(p.as_str()));
            let room = self.room.load(Ordering::SeqCst);
            if refused || room == 0 {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            let n = (want as u64).min(room);
            self.room.fetch_sub(n, Ordering::SeqCst);
            Ok(n as usize)
        }
    }

    /// The disk itself.
    pub struct FaultyDisk(pub Arc<Faults>);

    struct FaultyFile {
        file: File,
        path: std::path::PathBuf,
        faults: Arc<Faults>,
    }

    impl Disk for FaultyDisk {
        fn open_segment(&self, path: &Path) -> io::Result<Box<dyn SegmentFile>> {
            if self.0.refuse_create.load(Ordering::SeqCst) && !path.exists() {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            let file = RealDisk.open_segment(path)?;
            drop(file);
            let file = OpenOptions::new().read(true).append(true).open(path)?;
            Ok(Box::new(FaultyFile {
                file,
                path: path.to_path_buf(),
                faults: self.0.clone(),
            }))
        }

        fn append_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            let n = self.0.take(path, bytes.len())?;
            RealDisk.append_synced(path, &bytes[..n])?;
            if n < bytes.len() {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            Ok(())
        }
    }

    impl SegmentFile for FaultyFile {
        fn append(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let n = self.faults.take(&self.path, bytes.len())?;
            self.file.write_all(&bytes[..n])?;
            Ok(n)
        }

        fn sync(&mut self) -> io::Result<()> {
            if self.faults.fail_sync.load(Ordering::SeqCst) {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            self.file.sync_data()
        }

        fn sync_job(&self) -> io::Result<SyncJob> {
            let (file, faults) = (self.file.try_clone()?, self.faults.clone());
            Ok(Box::new(move || {
                if faults.fail_sync.load(Ordering::SeqCst) {
                    return Err(io::Error::from_raw_os_error(libc::EIO));
                }
                file.sync_data()
            }))
        }

        fn truncate(&mut self, len: u64) -> io::Result<()> {
            let before = self.file.metadata()?.len();
            self.file.set_len(len)?;
            // Space a cut gives back is free again.
            self.faults
                .room
                .fetch_add(before.saturating_sub(len), Ordering::SeqCst);
            Ok(())
        }

        fn reserve(&mut self, _at: u64, len: u64) -> io::Result<()> {
            if self.faults.room.load(Ordering::SeqCst) < len {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            Ok(())
        }

        fn size(&self) -> io::Result<u64> {
            Ok(self.file.metadata()?.len())
        }
    }
}
