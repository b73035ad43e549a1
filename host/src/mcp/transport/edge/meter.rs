//! Reads a WebSocket connection's bytes on their way to the protocol layer and keeps count of
//! what unfinished messages hold. Each frame header is read as it passes: a data message's
//! announced length is counted against one [`Pool`] for all connections (past a small size
//! every message may use), and one that does not fit is refused (1009) *before* the protocol
//! layer sees its header and reserves room for it. The count is given back when the message's
//! last frame has arrived, or the connection goes. The time a message has been arriving is
//! kept for the connection's read timeout.

use crate::limits::{MAX_WS_MESSAGE_BYTES, UNMETERED_MESSAGE_BYTES};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

/// Bytes that unfinished messages of every connection may hold.
#[derive(Debug)]
pub struct Pool {
    limit: usize,
    held: AtomicUsize,
}

impl Pool {
    pub fn new(limit: usize) -> Arc<Pool> {
        Arc::new(Pool {
            limit,
            held: AtomicUsize::new(0),
        })
    }

    /// Bytes held now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    fn take(&self, n: usize) -> bool {
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                (held + n <= self.limit).then_some(held + n)
            })
            .is_ok()
    }

    fn give(&self, n: usize) {
        self.held.fetch_sub(n, Ordering::AcqRel);
    }
}

/// What a connection's task learns from its meter.
#[derive(Debug, Default)]
pub struct Signals {
    /// Why reading stopped (close code and reason), once refused.
    refused: Mutex<Option<(u16, String)>>,
    wake: Notify,
    /// When the message now arriving started, if one is.
    message_started: Mutex<Option<Instant>>,
}

impl Signals {
    /// Waits until the meter refuses a message; the close code and reason.
    pub async fn refused(&self) -> (u16, String) {
        loop {
            if let Some(refusal) = self.refusal() {
                return refusal;
            }
            self.wake.notified().await;
        }
    }

    fn refusal(&self) -> Option<(u16, String)> {
        self.refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// How long the message now arriving has been arriving (`None`: between messages).
    pub fn message_age(&self) -> Option<std::time::Duration> {
        self.message_started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map(|t| t.elapsed())
    }

    fn set_started(&self, at: Option<Instant>) {
        *self
            .message_started
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = at;
    }
}

/// Where the byte stream is.
#[derive(Debug)]
enum Phase {
    /// In the HTTP upgrade request: the length of the line so far (`\r` not counted), and
    /// whether a non-empty line was seen (an empty line after one ends the request, with
    /// `\r\n` or bare `\n` line ends alike, as the request parser takes both).
    Handshake(usize, bool),
    /// In a frame header: the bytes so far.
    Header([u8; 14], usize),
    /// In a frame's payload.
    Payload { left: u64, data: bool, fin: bool },
}

/// A socket whose inbound bytes are metered (see the module doc).
pub struct Metered<S> {
    inner: S,
    pool: Arc<Pool>,
    signals: Arc<Signals>,
    phase: Phase,
    /// Payload bytes announced so far of the unfinished message.
    message: usize,
    /// What of them is counted in the pool.
    charged: usize,
}

impl<S> Metered<S> {
    pub fn new(inner: S, pool: Arc<Pool>) -> (Metered<S>, Arc<Signals>) {
        let signals = Arc::new(Signals::default());
        let metered = Metered {
            inner,
            pool,
            signals: signals.clone(),
            phase: Phase::Handshake(0, false),
            message: 0,
            charged: 0,
        };
        (metered, signals)
    }

    /// Follows `bytes` through the stream; `Err(at)`: the frame header starting at `at`
    /// (0 when it started in an earlier read) is refused and nothing from it on is passed on.
    fn follow(&mut self, bytes: &[u8]) -> Result<(), usize> {
        let mut i = 0;
        while i < bytes.len() {
            match &mut self.phase {
                Phase::Handshake(line, seen_line) => {
                    let byte = bytes[i];
                    i += 1;
                    if byte == b'\n' {
                        if *line == 0 && *seen_line {
                            self.phase = Phase::Header([0; 14], 0);
                        } else {
                            *seen_line |= *line > 0;
                            *line = 0;
                        }
                    } else if byte != b'\r' {
                        *line += 1;
                    }
                }
                Phase::Header(header, have) => {
                    header[*have] = bytes[i];
                    *have += 1;
                    i += 1;
                    let Some(need) = header_len(&header[..*have]) else {
                        continue;
                    };
                    if *have < need {
                        continue;
                    }
                    let started = i - need.min(i);
                    let (fin, opcode, len) = parse_header(header);
                    let data = opcode & 0x8 == 0;
                    if data && !self.admit(opcode == 0, len) {
                        return Err(started);
                    }
                    self.phase = Phase::Payload {
                        left: len,
                        data,
                        fin,
                    };
                    self.end_if_done();
                }
                Phase::Payload { left, .. } => {
                    let take = (*left).min((bytes.len() - i) as u64);
                    *left -= take;
                    i += take as usize;
                    self.end_if_done();
                }
            }
        }
        Ok(())
    }

    /// A data frame of `len` bytes begins (`continuation`: of the message already arriving).
    /// Whether it may be read; refusing sets the connection's close reason.
    fn admit(&mut self, continuation: bool, len: u64) -> bool {
        if !continuation {
            self.release();
            self.signals.set_started(Some(Instant::now()));
        }
        let message = self.message as u64 + len;
        if message > MAX_WS_MESSAGE_BYTES as u64 {
            // The protocol layer refuses it (1009) from the header alone, before buffering.
            return true;
        }
        self.message = message as usize;
        let charge = self.message.saturating_sub(UNMETERED_MESSAGE_BYTES);
        if charge > self.charged {
            if !self.pool.take(charge - self.charged) {
                let reason = format!(
                    "host busy: {} bytes of unfinished messages held; resend later",
                    self.pool.held()
                );
                *self
                    .signals
                    .refused
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some((1009, reason));
                self.signals.wake.notify_one();
                return false;
            }
            self.charged = charge;
        }
        true
    }

    /// At the end of a frame: the header phase again, and the message done if it was its last.
    fn end_if_done(&mut self) {
        if let Phase::Payload { left: 0, data, fin } = self.phase {
            if data && fin {
                self.release();
                self.signals.set_started(None);
            }
            self.phase = Phase::Header([0; 14], 0);
        }
    }

    fn release(&mut self) {
        self.pool.give(self.charged);
        self.charged = 0;
        self.message = 0;
    }
}

impl<S> Drop for Metered<S> {
    fn drop(&mut self) {
        self.release();
    }
}

/// A frame header's length once its first bytes say it (`None`: need more).
fn header_len(so_far: &[u8]) -> Option<usize> {
    let second = *so_far.get(1)?;
    let mask = if second & 0x80 != 0 { 4 } else { 0 };
    let extended = match second & 0x7f {
        126 => 2,
        127 => 8,
        _ => 0,
    };
    Some(2 + extended + mask)
}

/// FIN, opcode and payload length of a complete header.
fn parse_header(header: &[u8; 14]) -> (bool, u8, u64) {
    let fin = header[0] & 0x80 != 0;
    let opcode = header[0] & 0x0f;
    let len = match header[1] & 0x7f {
        126 => u16::from_be_bytes([header[2], header[3]]) as u64,
        127 => u64::from_be_bytes(header[2..10].try_into().expect("8 bytes")),
        n => n as u64,
    };
    (fin, opcode, len)
}

impl<S: AsyncRead + Unpin> AsyncRead for Metered<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.signals.refusal().is_some() {
            // Refused: nothing more is read; the connection's task closes it.
            return Poll::Pending;
        }
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        if buf.filled().len() == before {
            return Poll::Ready(Ok(())); // end of stream
        }
        match this.follow(&buf.filled()[before..]) {
            Ok(()) => Poll::Ready(Ok(())),
            Err(at) => {
                buf.set_filled(before + at);
                if at == 0 {
                    Poll::Pending
                } else {
                    Poll::Ready(Ok(()))
                }
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Metered<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A masked client frame header announcing `len` bytes.
    fn header(fin: bool, opcode: u8, len: u64) -> Vec<u8> {
        let mut h = vec![(if fin { 0x80 } else { 0 }) | opcode];
        if len < 126 {
            h.push(0x80 | len as u8);
        } else if len <= u16::MAX as u64 {
            h.push(0x80 | 126);
            h.extend((len as u16).to_be_bytes());
        } else {
            h.push(0x80 | 127);
            h.extend(len.to_be_bytes());
        }
        h.extend([1, 2, 3, 4]);
        h
    }

    fn meter(pool: &Arc<Pool>) -> (Metered<()>, Arc<Signals>) {
        let (mut m, s) = Metered::new((), pool.clone());
        m.follow(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        (m, s)
    }

    #[test]
    fn large_messages_are_counted_until_their_last_frame_and_refused_past_the_pool() {
        let pool = Pool::new(3 << 20);
        let (mut a, sa) = meter(&pool);
        let (mut b, sb) = meter(&pool);
        let big = 2 << 20;
        a.follow(&header(false, 1, big)).unwrap();
        a.follow(&vec![0; 1000]).unwrap();
        assert_eq!(pool.held(), big as usize - UNMETERED_MESSAGE_BYTES);
        assert!(sa.message_age().is_some());
        // b's big message does not fit: refused at its header, before any of it is passed on.
        let mut bytes = header(true, 1, 10);
        bytes.extend([0; 10]);
        let at = bytes.len();
        bytes.extend(header(true, 1, big));
        assert_eq!(b.follow(&bytes), Err(at));
        let (code, reason) = sb.refusal().unwrap();
        assert_eq!(code, 1009);
        assert!(reason.contains("unfinished messages"), "{reason}");
        // Small messages pass uncounted while the pool is full.
        let (mut c, _) = meter(&pool);
        let mut small = header(true, 1, 100);
        small.extend([0; 100]);
        c.follow(&small).unwrap();
        // a's message ends with a final continuation frame: its count is given back.
        a.follow(&vec![0; big as usize - 1000]).unwrap();
        a.follow(&header(true, 0, 5)).unwrap();
        a.follow(&[0; 5]).unwrap();
        assert_eq!(pool.held(), 0);
        assert!(sa.message_age().is_none());
        // A connection that goes gives back what it held.
        let (mut d, _) = meter(&pool);
        d.follow(&header(true, 2, big)).unwrap();
        assert!(pool.held() > 0);
        drop(d);
        assert_eq!(pool.held(), 0);
    }

    #[test]
    fn the_request_ends_at_its_empty_line_whatever_the_line_ends() {
        for request in [
            &b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"[..],
            b"GET / HTTP/1.1\nHost: x\n\n",
            b"\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
        ] {
            let pool = Pool::new(1 << 20);
            let (mut m, _) = Metered::new((), pool.clone());
            let mut bytes = request.to_vec();
            bytes.extend(header(false, 1, 100_000));
            m.follow(&bytes).unwrap();
            assert_eq!(
                pool.held(),
                100_000 - UNMETERED_MESSAGE_BYTES,
                "{}",
                String::from_utf8_lossy(request)
            );
        }
    }

    #[test]
    fn control_frames_between_fragments_are_not_counted() {
        let pool = Pool::new(1 << 20);
        let (mut m, _) = meter(&pool);
        m.follow(&header(false, 1, 100_000)).unwrap();
        m.follow(&vec![0; 100_000]).unwrap();
        let mut ping = header(true, 9, 4);
        ping.extend([0; 4]);
        m.follow(&ping).unwrap();
        assert_eq!(pool.held(), 100_000 - UNMETERED_MESSAGE_BYTES);
        m.follow(&header(true, 0, 1)).unwrap();
        m.follow(&[0]).unwrap();
        assert_eq!(pool.held(), 0);
    }
}
