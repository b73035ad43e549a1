//! Who is on the other end of a control-socket connection, as the kernel says
//! (`SO_PEERCRED`): only the user who runs the host may join it or ask its status. The socket
//! file's mode (0600) already keeps other users out; this check holds even when the mode was
//! widened by hand or the folder is shared.

use std::os::fd::AsRawFd;

/// The process at the other end of a Unix socket, when it connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Credentials {
    pub pid: u32,
    pub uid: u32,
    pub gid: u32,
}

/// The credentials of `socket`'s peer.
pub fn credentials(socket: &impl AsRawFd) -> std::io::Result<Credentials> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are live and sized for SO_PEERCRED's `struct ucred`.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(Credentials {
        pid: cred.pid as u32,
        uid: cred.uid,
        gid: cred.gid,
    })
}

/// This process's user.
pub fn own_uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}

/// The peer of `socket` when it is this process's user; else why it is refused (what the
/// server logs and tells it).
pub fn same_user(socket: &impl AsRawFd) -> Result<Credentials, String> {
    let peer = credentials(socket)
        .map_err(|e| format!("cannot read the control-socket peer's credentials: {e}"))?;
    let own = own_uid();
    if peer.uid != own {
        return Err(format!(
            "refused a control-socket connection from uid {} (pid {}): only the user who runs this host (uid {own}) may join it or read its status",
            peer.uid, peer.pid
        ));
    }
    Ok(peer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    #[test]
    fn a_socket_pair_in_this_process_is_this_user_and_this_pid() {
        let (a, _b) = UnixStream::pair().unwrap();
        let peer = same_user(&a).unwrap();
        assert_eq!(peer.uid, own_uid());
        assert_eq!(peer.pid, std::process::id());
    }

    #[test]
    fn credentials_of_something_not_a_socket_are_an_error() {
        let file = tempfile::tempfile().unwrap();
        let refusal = same_user(&file).unwrap_err();
        assert!(
            refusal.contains("cannot read the control-socket peer's credentials"),
            "{refusal}"
        );
    }
}
