//! A joined process's client, read and written by the engine thread itself (`crate::join`).
//! Once the control socket has welcomed the connection it hands the socket to the engine,
//! which polls it beside stdin, cuts its frames into messages as it does stdin's lines
//! ([`RelayIn`]) and writes their replies without waiting ([`RelayOut`]): no thread between
//! the engine and the joined process either way. (Through the control socket's own thread
//! each call cost that thread two wake-ups, one per direction: measured in `benches/join.rs`.)
//!
//! Like stdin, a connection whose calls fill its share is not read on (its relay's writes
//! wait), and while a guest call runs a watcher looks at the socket for a
//! `notifications/cancelled` aimed at it.

use super::cancel::{CancelBoard, Watch, cancelled_request};
use super::inbox::{EngineHandle, Notify};
use super::outbox::Sent;
use crate::join::frame::{self, Kind};
use crate::limits::{JOIN_READ_BYTES, OUTBOX_CAPACITY, STDIN_READ_AHEAD_BYTES};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How often a running call's cancel watcher may read the socket (as stdin's watcher).
const WATCH_EVERY: Duration = Duration::from_micros(500);

/// What a message read from the socket is, or why the connection must close (a code and
/// reason as a WebSocket close would give).
pub type Received = Result<String, (u16, String)>;

/// The connection's incoming side: bytes read and not yet handed to the engine.
pub struct RelayIn {
    fd: Arc<OwnedFd>,
    frames: frame::Reader,
    /// Messages the cancel watcher cut out ahead of the engine, in order.
    ahead: VecDeque<Received>,
    ahead_bytes: usize,
    ended: bool,
    /// A frame could not be read: nothing after it is.
    broken: bool,
    board: Weak<CancelBoard>,
    watched: Option<Instant>,
    /// Dropped with the engine's peer: tells the control socket the connection is over.
    _released: Option<tokio::sync::oneshot::Sender<()>>,
}

impl RelayIn {
    /// The incoming side of `socket`, `early` being the bytes read past the handshake;
    /// `released` is dropped once the engine lets the connection go.
    pub fn new(
        socket: Arc<OwnedFd>,
        early: &[u8],
        released: tokio::sync::oneshot::Sender<()>,
    ) -> Arc<Mutex<RelayIn>> {
        let mut frames = frame::Reader::default();
        frames.space(early.len()).copy_from_slice(early);
        frames.filled(early.len(), early.len());
        Arc::new(Mutex::new(RelayIn {
            fd: socket,
            frames,
            ahead: VecDeque::new(),
            ahead_bytes: 0,
            ended: false,
            broken: false,
            board: Weak::new(),
            watched: None,
            _released: Some(released),
        }))
    }

    /// The board whose flags its cancel watcher raises, built with that watcher.
    pub fn board(input: &Arc<Mutex<RelayIn>>) -> Arc<CancelBoard> {
        let weak = Arc::downgrade(input);
        let watch: Watch = Arc::new(move || {
            let Some(input) = weak.upgrade() else { return };
            // Never wait: the engine holds the lock only between calls.
            let Ok(mut input) = input.try_lock() else {
                return;
            };
            input.watch();
        });
        let board = Arc::new(CancelBoard::with_watch(Some(watch)));
        lock(input).board = Arc::downgrade(&board);
        board
    }

    /// Whether the joined process closed its side (or the socket failed): nothing more to read.
    pub fn closed(&self) -> bool {
        self.ended
    }

    /// The socket, to poll.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Reads what is waiting (one read; call it when the socket is readable).
    pub fn fill(&mut self) {
        let space = self.frames.space(JOIN_READ_BYTES);
        // SAFETY: reads at most `space.len()` bytes into a live buffer; never waits.
        let n = unsafe {
            libc::recv(
                self.fd.as_raw_fd(),
                space.as_mut_ptr().cast(),
                space.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n < 0 {
            self.frames.filled(JOIN_READ_BYTES, 0);
            let e = io::Error::last_os_error();
            if !matches!(
                e.kind(),
                io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
            ) {
                self.ended = true;
            }
            return;
        }
        self.frames.filled(JOIN_READ_BYTES, n as usize);
        if n == 0 {
            self.ended = true;
        }
    }

    /// The next message, if a whole one has arrived; raises its cancel flag first when it is
    /// a `notifications/cancelled` (as every transport does on arrival).
    pub fn next(&mut self) -> Option<Received> {
        if let Some(next) = self.ahead.pop_front() {
            if let Ok(text) = &next {
                self.ahead_bytes -= text.len();
            }
            return Some(next);
        }
        let next = self.cut()?;
        if let Ok(text) = &next
            && let Some(id) = cancelled_request(text.as_bytes())
            && let Some(board) = self.board.upgrade()
        {
            board.cancel(&id);
        }
        Some(next)
    }

    /// Whether the joined process closed its side and [`RelayIn::next`] has handed out
    /// every message (a partial frame left at the end is dropped).
    pub fn ended(&self) -> bool {
        self.ended && self.ahead.is_empty()
    }

    /// The next frame as a message; notes (none are sent this way yet) are skipped.
    fn cut(&mut self) -> Option<Received> {
        if self.broken {
            return None;
        }
        loop {
            return match self.frames.next_frame()? {
                Ok((Kind::Message, payload)) => Some(match std::str::from_utf8(payload) {
                    Ok(text) => Ok(text.to_string()),
                    Err(_) => Err((1007, "a message is not valid UTF-8".into())),
                }),
                Ok((Kind::Note, _)) => continue,
                Err(e) => {
                    // Nothing after a broken frame can be read.
                    self.ended = true;
                    self.broken = true;
                    Some(Err((1008, e.to_string())))
                }
            };
        }
    }

    /// While a call runs: reads the socket (at most once per `WATCH_EVERY`) and raises the
    /// flag of every cancellation that came, keeping the messages for the engine.
    fn watch(&mut self) {
        let due = self.watched.is_none_or(|at| at.elapsed() >= WATCH_EVERY);
        if due && !self.ended && self.ahead_bytes < STDIN_READ_AHEAD_BYTES {
            self.watched = Some(Instant::now());
            if readable(self.fd.as_raw_fd()) {
                self.fill();
            }
        }
        while let Some(next) = self.cut() {
            if let Ok(text) = &next {
                self.ahead_bytes += text.len();
                if let Some(id) = cancelled_request(text.as_bytes())
                    && let Some(board) = self.board.upgrade()
                {
                    board.cancel(&id);
                }
            }
            let broken = next.is_err();
            self.ahead.push_back(next);
            if broken {
                break;
            }
        }
    }
}

/// The connection's outgoing side: frames queued and written as far as the socket takes them
/// without waiting; the engine polls the socket for room while some wait.
pub struct RelayOut {
    fd: Arc<OwnedFd>,
    pending: Vec<u8>,
    /// Bytes at the front of `pending` already written.
    sent: usize,
    /// Messages queued since the queue was last empty: at `OUTBOX_CAPACITY` it is full, as a
    /// WebSocket's outbox is.
    queued: usize,
    /// Closing: nothing more is queued; the write side is shut once the rest is written.
    closing: bool,
    shut: bool,
    /// The socket refused a write (the joined process is gone).
    broken: bool,
}

impl RelayOut {
    pub fn new(socket: Arc<OwnedFd>) -> Arc<Mutex<RelayOut>> {
        Arc::new(Mutex::new(RelayOut {
            fd: socket,
            pending: Vec::new(),
            sent: 0,
            queued: 0,
            closing: false,
            shut: false,
            broken: false,
        }))
    }

    /// The sender of the connection's progress notifications (from any thread): queued and
    /// written at once; what the socket does not take the engine writes once it can.
    pub fn notifier(output: &Arc<Mutex<RelayOut>>, engine: &EngineHandle) -> Notify {
        let output = output.clone();
        let wake = engine.wake.clone();
        Arc::new(move |message: Value| {
            let mut out = lock(&output);
            if out.push(crate::json::text(&message).as_bytes()) == Sent::Queued {
                out.write_some();
                if out.backlog() > 0 {
                    wake.signal();
                }
            }
        })
    }

    /// Queues one message.
    pub fn push(&mut self, message: &[u8]) -> Sent {
        if self.closing || self.broken {
            return Sent::Gone;
        }
        if self.queued >= OUTBOX_CAPACITY {
            return Sent::Full;
        }
        frame::push(&mut self.pending, Kind::Message, message);
        self.queued += 1;
        Sent::Queued
    }

    /// Queues a note between the hosts (never shown to the client).
    pub fn note(&mut self, note: &Value) {
        if !self.closing && !self.broken {
            frame::push(&mut self.pending, Kind::Note, note.to_string().as_bytes());
        }
    }

    /// Tells the joined process why its connection closes, and closes it once what is queued
    /// is written (the first reason wins).
    pub fn close(&mut self, code: u16, reason: &str) {
        if self.closing {
            return;
        }
        crate::log::warn(&format!(
            "closing a joined client's connection ({code}): {reason}"
        ));
        self.note(&json!({ "closing": reason }));
        self.closing = true;
    }

    /// Ends the connection once what is queued is written (the engine let it go).
    pub fn finish(&mut self) {
        self.closing = true;
        self.write_some();
    }

    /// Room for this many more messages.
    pub fn room(&self) -> usize {
        OUTBOX_CAPACITY.saturating_sub(self.queued)
    }

    /// Bytes queued and not written yet.
    pub fn backlog(&self) -> usize {
        if self.broken {
            return 0;
        }
        self.pending.len() - self.sent
    }

    /// Whether nothing more will be written.
    pub fn done(&self) -> bool {
        self.broken || self.shut
    }

    /// The socket, to poll for room while bytes wait.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Writes as much as the socket takes now.
    pub fn write_some(&mut self) {
        while self.backlog() > 0 {
            let rest = &self.pending[self.sent..];
            // SAFETY: sends from a live slice on a socket kept open by `fd`; never waits.
            let n = unsafe {
                libc::send(
                    self.fd.as_raw_fd(),
                    rest.as_ptr().cast(),
                    rest.len(),
                    libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                )
            };
            if n < 0 {
                match io::Error::last_os_error().kind() {
                    io::ErrorKind::Interrupted => continue,
                    io::ErrorKind::WouldBlock => break,
                    _ => {
                        self.broken = true;
                        break;
                    }
                }
            }
            self.sent += n as usize;
        }
        if self.backlog() == 0 {
            self.pending.clear();
            self.sent = 0;
            self.queued = 0;
            if self.closing && !self.shut && !self.broken {
                // SAFETY: shuts the write side of a socket kept open by `fd`.
                unsafe { libc::shutdown(self.fd.as_raw_fd(), libc::SHUT_WR) };
                self.shut = true;
            }
        } else if self.sent >= self.pending.len() / 2 {
            self.pending.drain(..self.sent);
            self.sent = 0;
        }
    }
}

/// The joined clients' outgoing sides, shared by the engine loop (which writes them at each
/// ring) and the hook that writes them from inside a call, before a third-party call takes
/// its slice of the engine (as the listeners' lanes are rung then).
#[derive(Clone, Default)]
pub struct RelayOuts(Arc<Mutex<Vec<Arc<Mutex<RelayOut>>>>>);

impl RelayOuts {
    pub fn add(&self, out: &Arc<Mutex<RelayOut>>) {
        lock(&self.0).push(out.clone());
    }

    pub fn remove(&self, out: &Arc<Mutex<RelayOut>>) {
        lock(&self.0).retain(|o| !Arc::ptr_eq(o, out));
    }

    /// Writes what each socket takes of its queued messages.
    pub fn write(&self) {
        for out in lock(&self.0).iter() {
            let mut out = lock(out);
            if out.backlog() > 0 {
                out.write_some();
            }
        }
    }
}

/// The lock, whoever panicked while holding it.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `fd` has input (or its end) right now: a joined client's socket here, stdin for
/// the stdio transport.
pub fn readable(fd: RawFd) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the duration of the call.
    unsafe { libc::poll(&mut pfd, 1, 0) > 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    fn pair() -> (Arc<OwnedFd>, UnixStream) {
        let (ours, theirs) = UnixStream::pair().unwrap();
        (Arc::new(OwnedFd::from(ours)), theirs)
    }

    fn framed(messages: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            frame::push(&mut out, Kind::Message, m.as_bytes());
        }
        out
    }

    const CANCEL_5: &str =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;

    #[test]
    fn messages_come_out_whole_and_a_cancel_is_seen_ahead_of_the_engine_while_a_call_runs() {
        let (ours, mut theirs) = pair();
        let (released, _gone) = tokio::sync::oneshot::channel();
        let bytes = framed(&[r#"{"id":1}"#, CANCEL_5, r#"{"id":2}"#]);
        // The first bytes came with the hello; the rest arrive in two pieces.
        let input = RelayIn::new(ours, &bytes[..3], released);
        let board = RelayIn::board(&input);
        let running = board.start(&serde_json::json!(5)).unwrap();
        theirs.write_all(&bytes[3..20]).unwrap();
        lock(&input).fill();
        assert_eq!(lock(&input).next(), Some(Ok(r#"{"id":1}"#.into())));
        assert_eq!(lock(&input).next(), None, "the cancel is not whole yet");
        theirs.write_all(&bytes[20..]).unwrap();
        // A cancellation check while the call runs reads the socket itself.
        assert!(running.is_cancelled(), "the watcher read the cancel");
        assert_eq!(lock(&input).next(), Some(Ok(CANCEL_5.into())));
        assert_eq!(lock(&input).next(), Some(Ok(r#"{"id":2}"#.into())));
        assert!(!lock(&input).ended());
        drop(theirs);
        lock(&input).fill();
        assert_eq!(lock(&input).next(), None);
        assert!(lock(&input).ended(), "the joined process closed its side");
    }

    #[test]
    fn a_broken_frame_or_text_closes_the_connection_with_a_reason_and_nothing_after_is_read() {
        let (ours, mut theirs) = pair();
        let (released, gone) = tokio::sync::oneshot::channel::<()>();
        let input = RelayIn::new(ours, &[], released);
        let mut bytes = Vec::new();
        frame::push(&mut bytes, Kind::Message, &[0xff, 0xfe]);
        bytes.extend_from_slice(&[0, 0, 0, 0, 7]);
        bytes.extend_from_slice(&framed(&[r#"{"id":3}"#]));
        theirs.write_all(&bytes).unwrap();
        lock(&input).fill();
        let (code, reason) = lock(&input).next().unwrap().unwrap_err();
        assert_eq!(
            (code, reason.as_str()),
            (1007, "a message is not valid UTF-8")
        );
        let (code, reason) = lock(&input).next().unwrap().unwrap_err();
        assert_eq!(code, 1008);
        assert!(reason.contains("unknown kind 7"), "{reason}");
        assert_eq!(lock(&input).next(), None, "nothing after a broken frame");
        assert!(lock(&input).ended());
        // The engine letting go of it tells the control socket.
        let mut gone = gone;
        assert!(gone.try_recv().is_err(), "still held");
        drop(input);
        assert!(matches!(
            gone.try_recv(),
            Err(tokio::sync::oneshot::error::TryRecvError::Closed)
        ));
    }

    #[test]
    fn replies_are_framed_bounded_and_a_close_says_why_then_ends_the_connection() {
        let (ours, mut theirs) = pair();
        let output = RelayOut::new(ours);
        let mut out = lock(&output);
        for i in 0..OUTBOX_CAPACITY {
            assert_eq!(out.push(format!("{i}").as_bytes()), Sent::Queued);
        }
        assert_eq!(out.push(b"over"), Sent::Full);
        assert_eq!(out.room(), 0);
        out.write_some();
        assert_eq!(out.backlog(), 0, "a socket pair takes this much at once");
        assert_eq!(out.room(), OUTBOX_CAPACITY, "written: room again");
        out.close(1008, "the client is not reading");
        assert_eq!(out.push(b"late"), Sent::Gone);
        out.write_some();
        assert!(
            out.done(),
            "the write side is shut once the note is written"
        );
        drop(out);
        let mut got = Vec::new();
        theirs.read_to_end(&mut got).unwrap();
        let mut frames = frame::Reader::default();
        frames.space(got.len()).copy_from_slice(&got);
        frames.filled(got.len(), got.len());
        for i in 0..OUTBOX_CAPACITY {
            let (kind, payload) = frames.next_frame().unwrap().unwrap();
            assert_eq!((kind, payload), (Kind::Message, format!("{i}").as_bytes()));
        }
        let (kind, payload) = frames.next_frame().unwrap().unwrap();
        assert_eq!(kind, Kind::Note);
        let note: Value = serde_json::from_slice(payload).unwrap();
        assert_eq!(note["closing"], "the client is not reading");
        assert!(frames.next_frame().is_none());
    }
}
