//! Who holds a trace folder: the process holding its lock (`segments/lock`, an advisory
//! `flock` the trace store takes at start and the kernel drops when that process ends, however
//! it ends). The lock alone decides who serves: a joining process asks it, and takes it only
//! by starting a host, which fails if another process took it first.

use crate::trace::{FolderInUse, LOCK_FILE, SEGMENTS_DIR};
use std::fs::{File, TryLockError};
use std::io::Read;
use std::path::Path;

/// What the lock says now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// Nobody holds it: the next host to start serves the folder.
    Free,
    /// A live process holds it (its pid and host as it wrote them, if readable).
    Held(FolderInUse),
}

/// Looks at `trace_dir`'s lock without keeping it. (A process that holds the lock and asks
/// about its own folder sees it held: `flock` locks belong to open files, not processes.)
pub fn probe(trace_dir: &Path) -> std::io::Result<Holder> {
    let path = trace_dir.join(SEGMENTS_DIR).join(LOCK_FILE);
    let mut file = match File::options().read(true).write(true).open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Holder::Free),
        Err(e) => return Err(e),
    };
    match file.try_lock() {
        Ok(()) => Ok(Holder::Free),
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            Ok(Holder::Held(FolderInUse::read(trace_dir, &text)))
        }
        Err(TryLockError::Error(e)) => Err(e),
    }
}

/// Whether process `pid` exists (it may belong to another user).
pub fn alive(pid: u32) -> bool {
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_folder_without_a_lock_file_or_with_an_unheld_one_is_free() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(probe(dir.path()).unwrap(), Holder::Free);
        std::fs::create_dir_all(dir.path().join(SEGMENTS_DIR)).unwrap();
        std::fs::write(dir.path().join(SEGMENTS_DIR).join(LOCK_FILE), "12345").unwrap();
        assert_eq!(probe(dir.path()).unwrap(), Holder::Free);
        // Probing left it free.
        assert_eq!(probe(dir.path()).unwrap(), Holder::Free);
    }

    #[test]
    fn a_held_lock_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(SEGMENTS_DIR)).unwrap();
        let path = dir.path().join(SEGMENTS_DIR).join(LOCK_FILE);
        let mut held = File::create(&path).unwrap();
        held.lock().unwrap();
        write!(held, "{} somehost", std::process::id()).unwrap();
        let Holder::Held(by) = probe(dir.path()).unwrap() else {
            panic!("held")
        };
        assert_eq!(by.pid, Some(std::process::id()));
        assert_eq!(by.host.as_deref(), Some("somehost"));
        assert!(!by.on_this_host());
        drop(held);
        assert_eq!(probe(dir.path()).unwrap(), Holder::Free);
    }

    #[test]
    fn this_process_is_alive_and_an_unused_pid_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(i32::MAX as u32));
    }
}
