//! A joined process's stdio client, relayed to the serving host over one control-socket
//! connection, on one thread: `poll` on stdin and the socket, every complete line read from
//! stdin framed and written to the socket in one write (or as much of it as the socket takes,
//! the rest when it has room, the socket read meanwhile), every frame read from the socket
//! written to stdout in one write. No thread hop per message.
//!
//! Writes wait: this process serves one client, so a client that stops reading stalls only
//! itself (its server-side outbox fills, and the server deals with it as with any slow
//! client). The relay outlives a server: [`Relay::serve`] returns when the connection ends,
//! and the caller answers what was in flight ([`Relay::answer_in_flight`]) and serves the
//! same relay on the next server's connection, which it first recreates the session on.

use super::frame::{self, Kind};
use super::resume::{FromServer, Resume};
use crate::limits::{JOIN_READ_BYTES, JOIN_SPIN_US};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// How a connection to a server ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// The client closed stdin and had every reply (or closed stdout): this process is done.
    ClientDone,
    /// The server went away while the client is still here.
    ServerGone,
}

/// The client's side of the relay, kept from one server to the next.
pub struct Relay {
    stdin: RawFd,
    stdout: Box<dyn Write + Send>,
    /// Bytes of a line read from stdin but not complete yet.
    partial: Vec<u8>,
    stdin_ended: bool,
    /// The server is draining: the client's further requests wait for the next server.
    holding: bool,
    resume: Resume,
}

impl Default for Relay {
    fn default() -> Self {
        Relay::new()
    }
}

impl Relay {
    /// The relay of this process's stdin and stdout.
    pub fn new() -> Relay {
        Relay::on(libc::STDIN_FILENO, Box::new(std::io::stdout()))
    }

    /// The relay of a client reading `stdout` and writing `stdin` (which stays open for the
    /// relay's life).
    pub fn on(stdin: RawFd, stdout: Box<dyn Write + Send>) -> Relay {
        Relay {
            stdin,
            stdout,
            partial: Vec::new(),
            stdin_ended: false,
            holding: false,
            resume: Resume::default(),
        }
    }

    /// The agent the client's session is bound to, if any.
    pub fn agent(&self) -> Option<&str> {
        self.resume.agent()
    }

    /// Whether the client has closed stdin.
    pub fn client_ended(&self) -> bool {
        self.stdin_ended
    }

    /// Answers every request the server that ended (`server_pid`) left unanswered with an
    /// error saying it may or may not have run; how many.
    pub fn answer_in_flight(&mut self, server_pid: u32) -> io::Result<usize> {
        let agent = self.resume.agent().map(str::to_string);
        let left = self.resume.take_in_flight();
        let mut out = Vec::new();
        for request in &left {
            if let Some(line) = super::resume::unanswered(request, server_pid, agent.as_deref()) {
                out.extend_from_slice(&line);
            }
        }
        self.write_client(&out)?;
        Ok(left.len())
    }

    /// Recreates the client's session on a new server's connection (replies swallowed by
    /// [`Relay::serve`]).
    pub fn resume_on(&self, socket: &mut UnixStream) -> io::Result<()> {
        let mut out = Vec::new();
        for message in self.resume.messages() {
            frame::push(&mut out, Kind::Message, message.as_bytes());
        }
        socket.write_all(&out)
    }

    /// Relays between the client and `socket` until one of them ends; `early` is what was
    /// read from the socket past the handshake.
    pub fn serve(&mut self, socket: &mut UnixStream, early: &[u8]) -> io::Result<Ended> {
        let mut from_server = frame::Reader::default();
        let space = from_server.space(early.len());
        space.copy_from_slice(early);
        from_server.filled(early.len(), early.len());
        // Writes to the server never wait: while the server holds this client back it is
        // still sending replies, which must be read meanwhile (`to_server` keeps what is not
        // written yet, from `written` on).
        socket.set_nonblocking(true)?;
        let mut to_server = Vec::new();
        let mut written = 0;
        // The socket refused the last write: tried again once `poll` says it has room, not
        // on every turn (a write refused costs a system call for nothing).
        let mut full = false;
        let mut to_client = Vec::new();
        let mut half_closed = false;
        self.holding = false;
        // What was complete before a reconnect goes out first.
        self.frame_lines(&mut to_server);
        loop {
            while !full && written < to_server.len() {
                match write(socket.as_raw_fd(), &to_server[written..]) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => full = true,
                    Err(_) => return Ok(Ended::ServerGone),
                }
            }
            if written == to_server.len() {
                to_server.clear();
                written = 0;
            }
            if self.stdin_ended && !half_closed && to_server.is_empty() {
                // Replies to what was sent still come; the server ends the connection after.
                let _ = socket.shutdown(std::net::Shutdown::Write);
                half_closed = true;
            }
            // The client's input is read on only while what it sent before is mostly written.
            let room = to_server.len() - written < JOIN_READ_BYTES;
            let stdin = (!self.stdin_ended && !self.holding && room).then_some(self.stdin);
            let ready = wait(stdin, socket.as_raw_fd(), !to_server.is_empty())?;
            full &= !ready.writable;
            if ready.socket {
                let space = from_server.space(JOIN_READ_BYTES);
                let n = match read(socket.as_raw_fd(), space) {
                    Ok(0) if !ready.interrupted => {
                        from_server.filled(JOIN_READ_BYTES, 0);
                        return self.server_ended(&mut to_client);
                    }
                    Ok(n) => n,
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                        ) =>
                    {
                        0
                    }
                    Err(_) => {
                        from_server.filled(JOIN_READ_BYTES, 0);
                        return self.server_ended(&mut to_client);
                    }
                };
                from_server.filled(JOIN_READ_BYTES, n);
                self.take_frames(&mut from_server, &mut to_client)?;
                if !to_client.is_empty() {
                    self.write_client(&to_client)?;
                    to_client.clear();
                }
            }
            if ready.stdin {
                match self.read_stdin() {
                    Ok(0) => self.stdin_ended = true,
                    Ok(_) => self.frame_lines(&mut to_server),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => self.stdin_ended = true,
                }
            }
        }
    }

    /// Reads what stdin has after the partial line kept so far (no copy between).
    fn read_stdin(&mut self) -> io::Result<usize> {
        self.partial.reserve(JOIN_READ_BYTES);
        let room = self.partial.spare_capacity_mut();
        // SAFETY: reads at most `room.len()` bytes into the vector's spare capacity, then
        // counts as initialized only the bytes the read wrote.
        let n = unsafe { libc::read(self.stdin, room.as_mut_ptr().cast(), room.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = n as usize;
        // SAFETY: the read initialized these `n` bytes, within the capacity reserved.
        unsafe { self.partial.set_len(self.partial.len() + n) };
        Ok(n)
    }

    /// The server's connection ended: done if the client has ended and nothing is owed,
    /// else the server is gone.
    fn server_ended(&mut self, to_client: &mut Vec<u8>) -> io::Result<Ended> {
        if !to_client.is_empty() {
            self.write_client(to_client)?;
            to_client.clear();
        }
        if self.stdin_ended && self.resume.in_flight() == 0 {
            return Ok(Ended::ClientDone);
        }
        Ok(Ended::ServerGone)
    }

    /// Frames every complete line waiting from stdin (blank lines are skipped, as the stdio
    /// transport does).
    fn frame_lines(&mut self, to_server: &mut Vec<u8>) {
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &self.partial[start..]).map(|i| start + i) {
            let mut line = &self.partial[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            start = end + 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.resume.client_sent(line);
            frame::push(to_server, Kind::Message, line);
        }
        self.partial.drain(..start);
        if self.stdin_ended && !self.partial.is_empty() {
            // A last line without its line break is still a message.
            let line = std::mem::take(&mut self.partial);
            self.resume.client_sent(&line);
            frame::push(to_server, Kind::Message, &line);
        }
    }

    /// Moves every complete frame into the client's bytes (the relay's own replies dropped).
    fn take_frames(
        &mut self,
        from_server: &mut frame::Reader,
        to_client: &mut Vec<u8>,
    ) -> io::Result<()> {
        while let Some(next) = from_server.next_frame() {
            let (kind, payload) =
                next.map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            match kind {
                Kind::Message => {
                    if self.resume.server_sent(payload) == FromServer::Pass {
                        to_client.extend_from_slice(payload);
                        to_client.push(b'\n');
                    }
                }
                Kind::Note => self.note(payload),
            }
        }
        Ok(())
    }

    /// A note from the serving host: it is draining (hold the client's input until the next
    /// server), or it closes this connection (why, for the log).
    fn note(&mut self, payload: &[u8]) {
        let note: serde_json::Value = serde_json::from_slice(payload).unwrap_or_default();
        if note["draining"] == true {
            crate::log::info(
                "the serving host is stopping: this client's next requests wait for the host that takes the world over",
            );
            self.holding = true;
        } else if let Some(reason) = note["closing"].as_str() {
            crate::log::warn(&format!(
                "the serving host closes this client's connection: {reason}"
            ));
        }
    }

    fn write_client(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.stdout.write_all(bytes)?;
        self.stdout.flush()
    }
}

struct Ready {
    stdin: bool,
    /// The socket has bytes (or its end) to read.
    socket: bool,
    /// The socket has room for what waits to be written.
    writable: bool,
    interrupted: bool,
}

/// Waits for stdin (if still open) or the socket, looking without sleeping for a moment
/// first: a quick client's next message, or the server's reply, usually comes within it, and
/// waking from `poll` costs more than the look.
fn wait(stdin: Option<RawFd>, socket: RawFd, writing: bool) -> io::Result<Ready> {
    let spin_until = Instant::now() + Duration::from_micros(JOIN_SPIN_US);
    loop {
        let spinning = Instant::now() < spin_until;
        let ready = poll(stdin, socket, writing, if spinning { 0 } else { -1 })?;
        if ready.stdin || ready.socket || ready.writable || ready.interrupted || !spinning {
            return Ok(ready);
        }
        std::thread::yield_now();
    }
}

fn poll(stdin: Option<RawFd>, socket: RawFd, writing: bool, timeout_ms: i32) -> io::Result<Ready> {
    let mut fds = [
        libc::pollfd {
            fd: socket,
            events: libc::POLLIN | if writing { libc::POLLOUT } else { 0 },
            revents: 0,
        },
        libc::pollfd {
            fd: stdin.unwrap_or(-1),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    // SAFETY: two valid pollfds for the duration of the call.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout_ms) };
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(Ready {
                stdin: false,
                socket: false,
                writable: false,
                interrupted: true,
            });
        }
        return Err(e);
    }
    Ok(Ready {
        socket: fds[0].revents & !libc::POLLOUT != 0,
        writable: fds[0].revents & libc::POLLOUT != 0,
        stdin: fds[1].revents != 0,
        interrupted: false,
    })
}

fn write(fd: RawFd, from: &[u8]) -> io::Result<usize> {
    // SAFETY: writes at most `from.len()` bytes from a live buffer.
    let n = unsafe { libc::write(fd, from.as_ptr().cast(), from.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n as usize)
}

fn read(fd: RawFd, into: &mut [u8]) -> io::Result<usize> {
    // SAFETY: reads at most `into.len()` bytes into a live buffer.
    let n = unsafe { libc::read(fd, into.as_mut_ptr().cast(), into.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::sync::{Arc, Mutex};

    /// The client's stdout, kept.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn pipe() -> (std::fs::File, std::fs::File) {
        let mut fds = [0; 2];
        // SAFETY: two fds for `pipe` to fill; each owned by one File from here on.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        use std::os::fd::FromRawFd;
        // SAFETY: fresh descriptors, owned by nothing else.
        unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        }
    }

    /// A burst from the client arrives in pieces cut anywhere and then many lines in one
    /// piece: the server gets each line as one whole frame, in order, blank lines skipped;
    /// the server's replies written in one burst reach the client as lines, in order, its
    /// own resume replies not among them; and the relay ends once the client has closed
    /// stdin and had every reply.
    #[test]
    fn a_burst_cut_anywhere_goes_out_as_whole_frames_in_order_and_replies_come_back_in_order() {
        let (stdin_read, mut stdin_write) = pipe();
        let (mut ours, mut server) = UnixStream::pair().unwrap();
        // A relay that lost or held back a frame fails the test instead of hanging it.
        server
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let stdout = Captured::default();
        let mut relay = Relay::on(stdin_read.as_raw_fd(), Box::new(stdout.clone()));
        let relaying = std::thread::spawn(move || {
            let ended = relay.serve(&mut ours, &[]);
            drop(stdin_read);
            ended.unwrap()
        });
        let n = 500;
        let lines: Vec<String> = (0..n)
            .map(|i| {
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping","params":{{"n":"é{i}"}}}}"#)
            })
            .collect();
        let mut bytes = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            bytes.extend_from_slice(line.as_bytes());
            bytes.extend_from_slice(if i % 7 == 0 { b"\r\n\n" } else { b"\n" });
        }
        let split = bytes.len() / 4;
        let mut at = 0;
        for cut in [1usize, 2, 3, 5, 8, 13, 21, 34, 55].iter().cycle() {
            if at >= split {
                break;
            }
            let end = (at + cut).min(split);
            stdin_write.write_all(&bytes[at..end]).unwrap();
            at = end;
            std::thread::sleep(Duration::from_micros(100));
        }
        stdin_write.write_all(&bytes[split..]).unwrap();
        drop(stdin_write);
        // The server's side: every frame read, whole and in order.
        let mut frames = frame::Reader::default();
        let mut got = Vec::new();
        while got.len() < n {
            let space = frames.space(4096);
            let read = server.read(space).unwrap();
            frames.filled(4096, read);
            assert!(read > 0, "the relay closed after {} frames", got.len());
            while let Some(next) = frames.next_frame() {
                let (kind, payload) = next.unwrap();
                assert_eq!(kind, Kind::Message);
                got.push(String::from_utf8(payload.to_vec()).unwrap());
            }
        }
        assert_eq!(got, lines);
        // Every reply in one write, a reply to the relay's own resume request among them.
        let mut replies = Vec::new();
        let mut expected = Vec::new();
        for i in 0..n {
            let reply = format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#);
            frame::push(&mut replies, Kind::Message, reply.as_bytes());
            expected.extend_from_slice(reply.as_bytes());
            expected.push(b'\n');
            if i == n / 2 {
                let own = format!(
                    r#"{{"jsonrpc":"2.0","id":"{}1","result":{{}}}}"#,
                    crate::join::resume::RESUME_ID
                );
                frame::push(&mut replies, Kind::Message, own.as_bytes());
            }
        }
        server.write_all(&replies).unwrap();
        // The client closed stdin: the relay shuts its side once all is written.
        let mut rest = Vec::new();
        server.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "nothing after the frames: {rest:?}");
        drop(server);
        assert_eq!(relaying.join().unwrap(), Ended::ClientDone);
        assert_eq!(*stdout.0.lock().unwrap(), expected);
    }
}
