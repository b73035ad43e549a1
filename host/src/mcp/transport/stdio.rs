//! `limina --mcp-stdio`: newline-delimited JSON-RPC on stdin/stdout, served by the engine
//! thread itself (see `engine/`): no reader thread, no hop per message. This module holds
//! stdin's side: a buffer the engine fills when `poll` says input is waiting, cut into lines,
//! and a watcher that, while a guest call runs, reads what has arrived and raises the cancel
//! flag of any `notifications/cancelled` in it — so a cancel sent behind a call stops it.

use crate::limits::STDIN_READ_AHEAD_BYTES;
use crate::mcp::engine::cancel::{CancelBoard, Watch, cancelled_requests};
use crate::mcp::engine::relayed::readable;
use crate::mcp::wire::jsonrpc;
use serde_json::Value;
use std::io;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How often a running call's cancel watcher may ask stdin for new input. Every guest call
/// ends with a check, and asking each time (a `poll`, often a `read`) was 3.5 % of the engine
/// thread in a pipelined burst; a call that runs longer is checked at each epoch tick, so a
/// cancel sent behind it is still seen within about this long.
const WATCH_STDIN_EVERY: Duration = Duration::from_micros(500);

/// Bytes read from stdin and not yet handled.
pub struct StdioInput {
    fd: RawFd,
    buf: Vec<u8>,
    /// Where unhandled input starts in `buf`.
    start: usize,
    /// How far the cancel watcher has looked (an index into `buf`).
    scanned: usize,
    eof: bool,
    board: Weak<CancelBoard>,
    /// When the cancel watcher last asked stdin for input, and how often it may.
    watched: Option<Instant>,
    watch_every: Duration,
}

impl StdioInput {
    pub fn new(fd: RawFd) -> Self {
        StdioInput {
            fd,
            buf: Vec::with_capacity(1 << 16),
            start: 0,
            scanned: 0,
            eof: false,
            board: Weak::new(),
            watched: None,
            watch_every: WATCH_STDIN_EVERY,
        }
    }

    /// Connects the board whose flags the watcher raises.
    pub fn set_board(input: &Arc<Mutex<StdioInput>>, board: &Arc<CancelBoard>) {
        input.lock().unwrap_or_else(|e| e.into_inner()).board = Arc::downgrade(board);
    }

    /// The watcher run at each cancellation check while a call runs.
    pub fn cancel_watch(input: &Arc<Mutex<StdioInput>>) -> Watch {
        let input = Arc::downgrade(input);
        Arc::new(move || {
            let Some(input) = input.upgrade() else { return };
            // Never wait: the engine holds the lock only between calls.
            let Ok(mut input) = input.try_lock() else {
                return;
            };
            // Far enough ahead to see a cancellation soon; the engine reads the rest. Input
            // already read is scanned at every check, stdin itself asked at most once per
            // `watch_every`.
            let ahead = input.buf.len() - input.start;
            let due = input
                .watched
                .is_none_or(|at| at.elapsed() >= input.watch_every);
            if due && !input.eof && ahead < STDIN_READ_AHEAD_BYTES {
                input.watched = Some(Instant::now());
                if readable(input.fd) {
                    let _ = input.fill();
                }
            }
            let ids = input.scan_cancels();
            if let Some(board) = input.board.upgrade() {
                for id in ids {
                    board.cancel(&id);
                }
            }
        })
    }

    /// Reads what is waiting (one `read`; call it when input is readable).
    pub fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 && self.start * 2 >= self.buf.len() {
            self.buf.drain(..self.start);
            self.scanned -= self.start.min(self.scanned);
            self.start = 0;
        }
        // Room for 64 KiB more, not zeroed first (that cost a 64 KiB memset per read).
        let len = self.buf.len();
        self.buf.reserve(1 << 16);
        let room = self.buf.spare_capacity_mut();
        // SAFETY: reads at most `room.len()` bytes into the vector's spare capacity.
        let n = unsafe { libc::read(self.fd, room.as_mut_ptr().cast(), room.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => Ok(()),
                _ => Err(e),
            };
        }
        // SAFETY: `read` initialized the first `n` bytes of the spare capacity.
        unsafe { self.buf.set_len(len + n as usize) };
        if n == 0 {
            self.eof = true;
        }
        Ok(())
    }

    /// The next complete line (or a final one without a newline at end of input); a line that
    /// is not UTF-8 comes back as the parse-error reply to send.
    pub fn next_line(&mut self) -> Option<Result<String, Value>> {
        loop {
            let rest = &self.buf[self.start..];
            let (line, used) = match rest.iter().position(|b| *b == b'\n') {
                Some(i) => (&rest[..i], i + 1),
                None if self.eof && !rest.is_empty() => (rest, rest.len()),
                None => return None,
            };
            let parsed = match std::str::from_utf8(line) {
                Ok(text) if text.trim().is_empty() => None,
                Ok(text) => Some(Ok(text.trim().to_string())),
                Err(_) => Some(Err(jsonrpc::error(
                    Value::Null,
                    jsonrpc::PARSE_ERROR,
                    "Parse error: the message is not valid UTF-8",
                    None,
                ))),
            };
            self.start += used;
            if parsed.is_some() {
                return parsed;
            }
        }
    }

    /// Whether input has ended and every line was handed out.
    pub fn ended(&self) -> bool {
        self.eof && self.start >= self.buf.len()
    }

    /// Request ids of the `notifications/cancelled` in complete lines not looked at before.
    fn scan_cancels(&mut self) -> Vec<Value> {
        let from = self.scanned.max(self.start);
        let Some(end) = memchr::memrchr(b'\n', &self.buf[from..]) else {
            return Vec::new();
        };
        let end = from + end + 1;
        self.scanned = end;
        cancelled_requests(&self.buf[from..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn lines_come_out_whole_and_cancels_are_seen_ahead_of_them() {
        let (reader, mut writer) = std::os::unix::net::UnixStream::pair().unwrap();
        let input = Arc::new(Mutex::new(StdioInput::new(reader.as_raw_fd())));
        let board = Arc::new(CancelBoard::with_watch(Some(StdioInput::cancel_watch(
            &input,
        ))));
        StdioInput::set_board(&input, &board);
        let running = board.start(&serde_json::json!(5)).unwrap();
        writer
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5}}\n{\"partial\":")
            .unwrap();
        assert!(
            running.is_cancelled(),
            "the watcher read the cancel while the call ran"
        );
        let mut input = input.lock().unwrap();
        assert!(input.next_line().unwrap().unwrap().contains("ping"));
        assert!(input.next_line().unwrap().unwrap().contains("cancelled"));
        assert!(input.next_line().is_none(), "the partial line waits");
        drop(writer);
        input.fill().unwrap();
        assert_eq!(input.next_line().unwrap().unwrap(), "{\"partial\":");
        assert!(input.ended());
    }

    #[test]
    fn the_watcher_asks_stdin_at_most_once_per_interval_and_scans_what_was_read_each_time() {
        let (reader, mut writer) = std::os::unix::net::UnixStream::pair().unwrap();
        let input = Arc::new(Mutex::new(StdioInput::new(reader.as_raw_fd())));
        input.lock().unwrap().watch_every = Duration::from_secs(3600);
        let board = Arc::new(CancelBoard::with_watch(Some(StdioInput::cancel_watch(
            &input,
        ))));
        StdioInput::set_board(&input, &board);
        let first = board.start(&serde_json::json!(1)).unwrap();
        let cancel = |id: u32| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id}}}}}\n"
            )
        };
        writer.write_all(cancel(1).as_bytes()).unwrap();
        assert!(first.is_cancelled(), "the first check asks stdin");
        // Within the interval stdin is not asked again...
        let second = board.start(&serde_json::json!(2)).unwrap();
        writer.write_all(cancel(2).as_bytes()).unwrap();
        assert!(!second.is_cancelled(), "stdin is not asked again so soon");
        // ...but what the engine has read meanwhile is scanned at every check.
        input.lock().unwrap().fill().unwrap();
        assert!(second.is_cancelled(), "input already read is scanned");
        let third = board.start(&serde_json::json!(3)).unwrap();
        writer.write_all(cancel(3).as_bytes()).unwrap();
        assert!(!third.is_cancelled());
        input.lock().unwrap().watch_every = Duration::ZERO;
        assert!(third.is_cancelled(), "once it is due, stdin is asked");
    }
}
