//! stdout, the stdio connection's outgoing side: messages are queued and written as far as
//! the client's pipe takes them without waiting. A client that stops reading then stalls only
//! itself — the engine goes on serving every other transport and polls stdout until it can
//! write again — and a pipelined client reads its first replies while later calls still run.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::time::{Duration, Instant};

/// What stdout is, and how to write it without waiting.
enum Sink {
    /// A pipe, reopened through `/proc/self/fd` as a file description of our own, made
    /// non-blocking: the description the parent handed over keeps its flags (a parent that
    /// shares it never sees `EAGAIN` because of us).
    Pipe(File),
    /// A socket: each `send` says not to wait (`MSG_DONTWAIT`), the socket's flags untouched.
    Socket(RawFd),
    /// A terminal or a file: written through, waiting (neither stalls for long).
    Waiting(RawFd),
}

/// The queue of bytes stdout has not taken yet.
pub struct StdoutQueue {
    sink: Sink,
    pending: Vec<u8>,
    /// How many bytes at the front of `pending` are written.
    sent: usize,
}

impl StdoutQueue {
    /// The queue for the process's stdout.
    pub fn stdout() -> StdoutQueue {
        StdoutQueue::for_fd(libc::STDOUT_FILENO)
    }

    /// The queue for `fd`, which stays open for the queue's life.
    pub fn for_fd(fd: RawFd) -> StdoutQueue {
        StdoutQueue {
            sink: sink_for(fd),
            pending: Vec::new(),
            sent: 0,
        }
    }

    /// Queues `bytes` (written at the next [`StdoutQueue::write_some`]).
    pub fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
    }

    /// Queues what `batch` holds and leaves it empty (its allocation swapped in when nothing
    /// waits, so a batch's replies are not copied).
    pub fn take(&mut self, batch: &mut Vec<u8>) {
        if self.backlog() == 0 {
            self.pending.clear();
            self.sent = 0;
            std::mem::swap(&mut self.pending, batch);
        } else {
            self.pending.append(batch);
        }
    }

    /// Bytes queued and not written yet.
    pub fn backlog(&self) -> usize {
        self.pending.len() - self.sent
    }

    /// The fd to poll for `POLLOUT` while bytes wait: none when nothing does (or stdout is
    /// written waiting, so nothing ever waits).
    pub fn poll_fd(&self) -> Option<RawFd> {
        if self.backlog() == 0 {
            return None;
        }
        match &self.sink {
            Sink::Pipe(file) => Some(file.as_raw_fd()),
            Sink::Socket(fd) => Some(*fd),
            Sink::Waiting(_) => None,
        }
    }

    /// Writes as much as stdout takes now. An error (the client closed its end) is returned;
    /// a full pipe is not an error: the rest stays queued.
    pub fn write_some(&mut self) -> io::Result<()> {
        while self.backlog() > 0 {
            let rest = &self.pending[self.sent..];
            let n = match &mut self.sink {
                Sink::Pipe(file) => file.write(rest),
                // SAFETY (both): from a live slice, on an fd that stays open.
                Sink::Socket(fd) => written(unsafe {
                    libc::send(
                        *fd,
                        rest.as_ptr().cast(),
                        rest.len(),
                        libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                    )
                }),
                Sink::Waiting(fd) => {
                    written(unsafe { libc::write(*fd, rest.as_ptr().cast(), rest.len()) })
                }
            };
            match n {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        if self.backlog() == 0 {
            self.pending.clear();
            self.sent = 0;
        } else if self.sent >= self.pending.len() / 2 {
            self.pending.drain(..self.sent);
            self.sent = 0;
        }
        Ok(())
    }

    /// Writes everything queued, waiting up to `limit` for the client to read (at the end of
    /// the stdio connection); false when it did not in time.
    pub fn drain(&mut self, limit: Duration) -> io::Result<bool> {
        let until = Instant::now() + limit;
        loop {
            self.write_some()?;
            let Some(fd) = self.poll_fd() else {
                return Ok(true);
            };
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLOUT,
                revents: 0,
            };
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd for the duration of the call.
            if unsafe { libc::poll(&mut pfd, 1, ms) } < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// A `write`/`send` result: bytes written, or the error it set.
fn written(n: isize) -> io::Result<usize> {
    usize::try_from(n).map_err(|_| io::Error::last_os_error())
}

/// How to write `fd` without waiting, from what it is.
fn sink_for(fd: RawFd) -> Sink {
    // SAFETY: fstat on an fd into a zeroed stat we own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Sink::Waiting(fd);
    }
    let kind = st.st_mode & libc::S_IFMT;
    if kind == libc::S_IFSOCK {
        return Sink::Socket(fd);
    }
    if kind == libc::S_IFIFO {
        let reopened = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(format!("/proc/self/fd/{fd}"));
        match reopened {
            Ok(file) if file.metadata().is_ok_and(|m| m.file_type().is_fifo()) => {
                return Sink::Pipe(file);
            }
            _ => crate::log::warn(
                "stdout is a pipe that cannot be reopened without waiting; replies are \
                 written waiting, so a client that stops reading stalls the host",
            ),
        }
    }
    Sink::Waiting(fd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::FromRawFd;

    fn pipe() -> (File, File) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two fds we then own.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: fresh fds owned by nobody else.
        unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) }
    }

    fn numbered_lines(count: usize) -> Vec<u8> {
        (0..count)
            .flat_map(|i| format!("{{\"id\":{i}}}\n").into_bytes())
            .collect()
    }

    /// A reader that stops reading: the writer is not held up, keeps the rest, and once the
    /// reader reads again every byte arrives once, in order.
    fn check_a_stalled_reader(mut reader: File, writer_fd: RawFd) {
        let mut queue = StdoutQueue::for_fd(writer_fd);
        let lines = numbered_lines(40_000);
        assert!(
            lines.len() > 256 << 10,
            "more than a pipe or socket buffer holds"
        );
        queue.push(&lines);
        queue.write_some().expect("a full pipe is not an error");
        assert!(
            queue.backlog() > 0,
            "the reader has not read, so some is left"
        );
        assert!(queue.poll_fd().is_some());
        let got = std::thread::spawn(move || {
            let mut got = Vec::new();
            reader.read_to_end(&mut got).unwrap();
            got
        });
        assert!(queue.drain(Duration::from_secs(10)).unwrap());
        assert_eq!(queue.backlog(), 0);
        assert_eq!(queue.poll_fd(), None);
        drop(queue);
        // SAFETY: the test owns this fd; closing it ends the reader's stream.
        unsafe { libc::close(writer_fd) };
        assert!(got.join().unwrap() == lines, "every byte once, in order");
    }

    #[test]
    fn a_pipe_whose_reader_stalls_never_blocks_the_writer() {
        let (reader, writer) = pipe();
        let fd = writer.as_raw_fd();
        std::mem::forget(writer);
        check_a_stalled_reader(reader, fd);
    }

    #[test]
    fn a_socket_whose_reader_stalls_never_blocks_the_writer() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let fd = b.as_raw_fd();
        std::mem::forget(b);
        // SAFETY: `a` gives up its fd to the File.
        let reader = unsafe { File::from_raw_fd(std::os::fd::IntoRawFd::into_raw_fd(a)) };
        check_a_stalled_reader(reader, fd);
    }

    #[test]
    fn reopening_the_pipe_leaves_the_handed_over_description_blocking() {
        let (_reader, writer) = pipe();
        let queue = StdoutQueue::for_fd(writer.as_raw_fd());
        assert!(matches!(queue.sink, Sink::Pipe(_)));
        // SAFETY: F_GETFL on an open fd.
        let flags = unsafe { libc::fcntl(writer.as_raw_fd(), libc::F_GETFL) };
        assert_eq!(
            flags & libc::O_NONBLOCK,
            0,
            "the parent's description is untouched"
        );
    }

    #[test]
    fn a_file_takes_everything_at_once() {
        let file = tempfile::tempfile().unwrap();
        let mut queue = StdoutQueue::for_fd(file.as_raw_fd());
        assert!(matches!(queue.sink, Sink::Waiting(_)));
        let mut batch = numbered_lines(1_000);
        let expected = batch.clone();
        queue.take(&mut batch);
        assert!(batch.is_empty());
        queue.write_some().unwrap();
        assert_eq!(queue.backlog(), 0);
        assert_eq!(queue.poll_fd(), None);
        let mut got = Vec::new();
        let mut file = file;
        std::io::Seek::rewind(&mut file).unwrap();
        file.read_to_end(&mut got).unwrap();
        assert!(got == expected);
    }

    #[test]
    fn a_closed_reader_is_an_error() {
        let (reader, writer) = pipe();
        let mut queue = StdoutQueue::for_fd(writer.as_raw_fd());
        drop(reader);
        queue.push(b"{}\n");
        let e = queue.write_some().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }
}
