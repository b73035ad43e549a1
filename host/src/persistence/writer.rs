//! Checkpoints written off the engine. Encoding a world of 100,000 entities, hashing it and
//! syncing it took the engine 174 ms, during which every client waited. Now the engine only
//! takes a snapshot and goes on: it forks the process, and the child — a copy-on-write image
//! of the world as it stood between two calls, for the cost of copying the page tables —
//! encodes it and writes it to a temporary file, synced. A thread of the host waits for the
//! child, syncs the trace (a checkpoint must never be newer than the events it names), renames
//! the file into place and syncs the folder, then reports. Nothing the child does touches the
//! host's state: it closes every file but its own two, writes nothing else, takes no lock of
//! the host's, and ends with `_exit`.
//!
//! Where the process cannot fork (a memory limit), the engine encodes the world itself, as
//! before, and only the writing and syncing leave it.

use super::checkpoint;
use crate::trace::disk::SyncJob;
use crate::world::World;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Condvar, Mutex};

/// A checkpoint written: where, and its size.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub path: PathBuf,
    pub bytes: u64,
}

/// A checkpoint's outcome: the file written, or why it was not.
pub type Outcome = Result<Written, String>;

/// A checkpoint being written: its outcome arrives on `outcome` (for the engine to look at
/// between messages) and in `done` (for a call waiting for it on another thread).
pub struct Pending {
    pub outcome: Receiver<Outcome>,
    pub done: Arc<Done>,
}

/// The outcome of a checkpoint, for whoever waits for it.
#[derive(Default)]
pub struct Done {
    outcome: Mutex<Option<Outcome>>,
    ready: Condvar,
}

impl Done {
    /// Waits for the outcome.
    pub fn wait(&self) -> Outcome {
        let mut outcome = self.outcome.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(outcome) = outcome.as_ref() {
                return outcome.clone();
            }
            outcome = self.ready.wait(outcome).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn set(&self, outcome: Outcome) {
        *self.outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
        self.ready.notify_all();
    }
}

/// Starts writing a checkpoint of `world`, covering the trace up to `seq`, into `dir`;
/// `sync` syncs the trace before the checkpoint takes its place. Returns at once.
pub fn start(
    world: &World,
    seq: u64,
    dir: &Path,
    sync: Option<SyncJob>,
) -> std::io::Result<Pending> {
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!("{}.tmp", checkpoint::file_name(seq)));
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temp)?;
    let target = Target {
        dir: dir.to_path_buf(),
        path: dir.join(checkpoint::file_name(seq)),
        temp,
        sync,
    };
    type Finish = Box<dyn FnOnce() -> Result<Written, String> + Send>;
    let finish: Finish = match fork_writer(world, seq, file)? {
        Ok(child) => Box::new(move || target.finish(child.wait())),
        Err(file) => {
            // No fork: the world is encoded here, and written by the thread.
            let bytes = checkpoint::encode(world, seq);
            Box::new(move || {
                let written = write_synced(file, &bytes).map(|()| bytes.len() as u64);
                target.finish(written)
            })
        }
    };
    let (tx, outcome) = channel();
    let done = Arc::new(Done::default());
    let told = done.clone();
    std::thread::Builder::new()
        .name("world-checkpoint".into())
        .spawn(move || {
            let outcome = finish();
            told.set(outcome.clone());
            let _ = tx.send(outcome);
        })?;
    Ok(Pending { outcome, done })
}

/// Where the checkpoint goes, and what must happen before it is there.
struct Target {
    dir: PathBuf,
    path: PathBuf,
    temp: PathBuf,
    sync: Option<SyncJob>,
}

impl Target {
    /// After the temporary file is written and synced (`written` bytes): the trace synced,
    /// the file renamed into place, the folder synced. On any failure the temporary file goes.
    fn finish(self, written: Result<u64, String>) -> Result<Written, String> {
        let done = written.and_then(|bytes| {
            if let Some(sync) = self.sync {
                sync().map_err(|e| {
                    format!("the trace could not be synced, so no checkpoint was written: {e}")
                })?;
            }
            std::fs::rename(&self.temp, &self.path)
                .and_then(|()| File::open(&self.dir)?.sync_all())
                .map_err(|e| {
                    format!(
                        "cannot write a world checkpoint in {}: {e}",
                        self.dir.display()
                    )
                })?;
            Ok(Written {
                path: self.path.clone(),
                bytes,
            })
        });
        if done.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        done
    }
}

fn write_synced(mut file: File, bytes: &[u8]) -> Result<(), String> {
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write the world checkpoint: {e}"))
}

/// A child process writing the checkpoint.
struct Child {
    pid: libc::pid_t,
    /// Its report: `ok <bytes>` or the error.
    report: File,
}

impl Child {
    /// Waits for it to end; the bytes it wrote, or why it could not.
    fn wait(mut self) -> Result<u64, String> {
        let mut report = String::new();
        let _ = self.report.read_to_string(&mut report);
        let mut status = 0;
        // SAFETY: waits for our own child; `status` is a live int.
        let waited = unsafe { libc::waitpid(self.pid, &mut status, 0) };
        if waited != self.pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
            return Err(match report.strip_prefix("error ") {
                Some(why) => why.to_string(),
                None => {
                    format!("the process writing the world checkpoint failed (status {status})")
                }
            });
        }
        report
            .strip_prefix("ok ")
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("the process writing the world checkpoint said `{report}`"))
    }
}

/// Forks a child that encodes `world` and writes it to `file`, synced; the file back when the
/// process cannot fork.
fn fork_writer(world: &World, seq: u64, file: File) -> std::io::Result<Result<Child, File>> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two ends.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both ends were just opened and are owned here.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: the child runs only `child_main`, which reads the world (a copy of this
    // process's memory), writes to its two files and ends with `_exit`: it takes no lock
    // another thread could have held at the fork, except the allocator's, which the C
    // library makes safe across `fork`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        crate::log::warn(&format!(
            "cannot fork to write the world checkpoint ({}); the engine encodes it",
            std::io::Error::last_os_error()
        ));
        return Ok(Err(file));
    }
    if pid == 0 {
        child_main(world, seq, file.into_raw_fd(), write.into_raw_fd());
    }
    drop(write);
    Ok(Ok(Child {
        pid,
        report: File::from(read),
    }))
}

/// The child: nothing but the checkpoint, then `_exit`.
fn child_main(world: &World, seq: u64, file: RawFd, report: RawFd) -> ! {
    close_all_but(file, report);
    // SAFETY: both fds are this process's own, open, and used only here.
    let (out, mut report) = unsafe { (File::from_raw_fd(file), File::from_raw_fd(report)) };
    // A panic must end the child here, never unwind into the host's code it shares: no hook
    // (it would lock stderr, which another thread may have held at the fork), exit code 2.
    std::panic::set_hook(Box::new(|_| {}));
    let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let bytes = checkpoint::encode(world, seq);
        write_synced(out, &bytes).map(|()| bytes.len())
    }));
    let code = match written {
        Ok(Ok(len)) => {
            let _ = write!(report, "ok {len}");
            0
        }
        Ok(Err(e)) => {
            let _ = write!(report, "error {e}");
            1
        }
        Err(_) => {
            let _ = write!(report, "error encoding the world panicked");
            2
        }
    };
    // SAFETY: ends the child without running the parent's exit handlers or destructors.
    unsafe { libc::_exit(code) }
}

/// Closes every file descriptor but `a` and `b` (sockets the host closes must not stay open
/// in the child). Best effort: an old kernel without `close_range` keeps them until it ends.
fn close_all_but(a: RawFd, b: RawFd) {
    let (low, high) = (a.min(b) as u32, a.max(b) as u32);
    let ranges = [
        (0, low.checked_sub(1)),
        (low + 1, high.checked_sub(1)),
        (high + 1, Some(u32::MAX)),
    ];
    for (first, last) in ranges {
        if let Some(last) = last.filter(|last| *last >= first) {
            // SAFETY: a plain syscall closing descriptors of this (single-threaded) child.
            unsafe { libc::syscall(libc::SYS_close_range, first, last, 0) };
        }
    }
}
