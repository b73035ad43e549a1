//! The control socket's file: `control.sock` in the trace folder, bound by the serving host
//! with mode 0600. It is bound under a temporary name, made private, then renamed into place,
//! so no other user ever finds it open and a joining process never finds it half made. Only
//! the lock holder binds it, so a file already there was left by a host that ended without
//! removing it (a crash): it is replaced, and said so.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// The socket's name inside the trace folder.
pub const SOCKET_FILE: &str = "control.sock";

/// The longest path a Unix socket address holds (`sun_path` less its terminating zero).
const MAX_ADDRESS: usize = 107;

/// Where the control socket of the trace folder `trace_dir` is.
pub fn path(trace_dir: &Path) -> PathBuf {
    trace_dir.join(SOCKET_FILE)
}

/// Runs `f` with an address for `file` in `dir` that fits a socket address: the path itself,
/// or, when it is too long, the same file reached through the folder's descriptor
/// (`/proc/self/fd/N/…`), which the kernel resolves like any path.
fn with_address<T>(
    dir: &Path,
    file: &str,
    f: impl FnOnce(&Path) -> io::Result<T>,
) -> io::Result<T> {
    let direct = dir.join(file);
    if direct.as_os_str().len() <= MAX_ADDRESS {
        return f(&direct);
    }
    let folder = std::fs::File::open(dir)?;
    use std::os::fd::AsRawFd;
    let short = PathBuf::from(format!("/proc/self/fd/{}/{file}", folder.as_raw_fd()));
    f(&short)
}

/// The bound control socket; its file is removed when this is dropped, unless another host
/// has replaced it meanwhile.
pub struct Bound {
    pub listener: UnixListener,
    path: PathBuf,
    inode: u64,
}

impl Drop for Bound {
    fn drop(&mut self) {
        let ours = std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.ino() == self.inode);
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Binds the control socket of `trace_dir`. Call only while holding the trace folder's lock:
/// a socket file found there is then stale, and replaced.
pub fn bind(trace_dir: &Path) -> io::Result<Bound> {
    let path = path(trace_dir);
    let temporary = format!("{SOCKET_FILE}.{}.new", std::process::id());
    let staging = trace_dir.join(&temporary);
    let _ = std::fs::remove_file(&staging);
    let listener = with_address(trace_dir, &temporary, |p| UnixListener::bind(p))?;
    std::fs::set_permissions(&staging, std::fs::Permissions::from_mode(0o600))?;
    if std::fs::symlink_metadata(&path).is_ok() {
        crate::log::warn(&format!(
            "replacing the stale control socket {} (left by a host that ended without removing it)",
            path.display()
        ));
    }
    std::fs::rename(&staging, &path)?;
    let inode = std::fs::symlink_metadata(&path)?.ino();
    Ok(Bound {
        listener,
        path,
        inode,
    })
}

/// Why connecting to a control socket did not give a connection.
#[derive(Debug)]
pub enum ConnectError {
    /// No socket file: no host serves the folder yet (or it is still starting).
    Missing,
    /// A socket file nobody listens on: left by a host that ended (a crash).
    Stale,
    /// Something listens, but as another user: not to be trusted with this user's calls.
    OtherUser {
        uid: u32,
        pid: u32,
    },
    Io(io::Error),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Missing => write!(f, "no control socket"),
            ConnectError::Stale => write!(f, "a stale control socket nobody listens on"),
            ConnectError::OtherUser { uid, pid } => write!(
                f,
                "the control socket is served by uid {uid} (pid {pid}), not by this user: refusing to send it anything"
            ),
            ConnectError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Connects to the control socket of `trace_dir`, checking that the host there runs as this
/// user.
pub fn connect(trace_dir: &Path) -> Result<UnixStream, ConnectError> {
    let stream = with_address(trace_dir, SOCKET_FILE, |p| UnixStream::connect(p)).map_err(|e| {
        match e.kind() {
            io::ErrorKind::NotFound => ConnectError::Missing,
            io::ErrorKind::ConnectionRefused => ConnectError::Stale,
            _ => ConnectError::Io(e),
        }
    })?;
    let peer = super::peer::credentials(&stream).map_err(ConnectError::Io)?;
    if peer.uid != super::peer::own_uid() {
        return Err(ConnectError::OtherUser {
            uid: peer.uid,
            pid: peer.pid,
        });
    }
    Ok(stream)
}

/// What reading the serving host's one-line answer gave.
#[derive(Debug)]
pub enum Answer {
    /// The line, as it came (with its end).
    Line(Vec<u8>),
    /// The host closed the socket without answering (it is ending).
    Ended,
    /// Nothing came within the socket's read timeout: the host is stuck (alive, holding the
    /// lock, not answering); its pid when the socket tells it.
    Stuck(Option<u32>),
    /// The read failed otherwise.
    Failed(io::Error),
}

/// Reads the serving host's answer on `stream` through `reader`, within the read timeout set
/// on `stream`.
pub fn read_answer(reader: &mut impl io::BufRead, stream: &UnixStream) -> Answer {
    let mut line = Vec::new();
    match reader.read_until(b'\n', &mut line) {
        Ok(0) => Answer::Ended,
        Ok(_) => Answer::Line(line),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Answer::Stuck(super::peer::credentials(stream).map(|c| c.pid).ok())
        }
        Err(e) => Answer::Failed(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_is_private_connectable_and_removed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(connect(dir.path()), Err(ConnectError::Missing)));
        let bound = bind(dir.path()).unwrap();
        let mode = std::fs::metadata(path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let _client = connect(dir.path()).unwrap();
        let (_served, _) = bound.listener.accept().unwrap();
        drop(bound);
        assert!(!path(dir.path()).exists());
    }

    #[test]
    fn a_stale_socket_is_detected_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        // A host that died: its socket file stays, nobody listens.
        drop(UnixListener::bind(path(dir.path())).unwrap());
        assert!(matches!(connect(dir.path()), Err(ConnectError::Stale)));
        let bound = bind(dir.path()).unwrap();
        let _client = connect(dir.path()).unwrap();
        drop(bound);
    }

    #[test]
    fn a_folder_too_long_for_a_socket_address_is_reached_through_its_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("x".repeat(60)).join("y".repeat(60));
        std::fs::create_dir_all(&deep).unwrap();
        assert!(path(&deep).as_os_str().len() > MAX_ADDRESS);
        let bound = bind(&deep).unwrap();
        assert!(path(&deep).exists());
        let _client = connect(&deep).unwrap();
        drop(bound);
        assert!(!path(&deep).exists());
    }
}
