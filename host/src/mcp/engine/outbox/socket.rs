//! A WebSocket connection's TCP stream, written from two sides in one order: the fan-out
//! threads write queued messages straight to it (`fanout.rs`), and the protocol layer
//! (handshake, pongs, the close frame) writes through it as its I/O. Whoever writes holds one
//! lock, and bytes the kernel did not take wait in `pending`, written before anything else:
//! so no frame is ever cut by another's bytes, and a connection's frames leave in the order
//! they were queued.
//!
//! A server's frames are not masked, so a message's frame is a 2-10 byte header and its text
//! as queued: written with one `writev` for a whole batch, the text shared by every
//! subscriber it was queued for and never copied (but for the part of a frame the kernel did
//! not take, kept in `pending`).

use super::{Frame, Mailbox};
use std::io::{self, IoSlice};
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Messages written with one system call, at most (each is two slices; `IOV_MAX` is 1024).
const BATCH: usize = 256;
/// Bytes the protocol layer may leave waiting before it is made to wait for the socket.
const PENDING_LIMIT: usize = 64 * 1024;

/// What a pump did.
#[derive(Debug, PartialEq)]
pub enum Pumped {
    /// Everything queued is written.
    Done,
    /// The socket is full: the rest waits for it (the connection's writer waits for room).
    Blocked,
    /// The socket failed or is closing: nothing more is written.
    Over,
}

/// The write side's state, under the lock.
#[derive(Default)]
struct Out {
    /// Bytes accepted and not yet written: the rest of a frame cut by a full socket.
    pending: Vec<u8>,
    /// A close frame was asked for: queued messages are no longer written.
    closing: bool,
    /// A write failed: nothing more is written.
    failed: bool,
    /// The pump's buffers, empty between pumps and kept for their room.
    scratch: Scratch,
}

/// What a pump builds each batch in: the frames taken, their headers, and the slices handed
/// to `writev` (frames and slices left empty between pumps, the slices kept as `'static` and
/// given their room back each batch by `recycle`).
#[derive(Default)]
struct Scratch {
    batch: Vec<Frame>,
    headers: Vec<([u8; 10], usize)>,
    slices: Vec<IoSlice<'static>>,
}

/// An empty `Vec` of another lifetime with `slices`' room: collecting a mapped `IntoIter`
/// into a `Vec` of an element of the same size reuses its allocation.
fn recycle<'a, 'b>(mut slices: Vec<IoSlice<'a>>) -> Vec<IoSlice<'b>> {
    slices.clear();
    slices.into_iter().map(|_| unreachable!()).collect()
}

/// One connection's stream and the lock its writers share.
pub struct Wire {
    stream: TcpStream,
    out: Mutex<Out>,
}

/// `Wire` as the protocol layer's I/O.
pub struct Socket(pub Arc<Wire>);

/// The header of an unmasked text frame of `len` bytes: its bytes and length.
pub fn text_header(len: usize) -> ([u8; 10], usize) {
    let mut h = [0u8; 10];
    h[0] = 0x81; // FIN, text
    if len < 126 {
        h[1] = len as u8;
        (h, 2)
    } else if len <= u16::MAX as usize {
        h[1] = 126;
        h[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        (h, 4)
    } else {
        h[1] = 127;
        h[2..10].copy_from_slice(&(len as u64).to_be_bytes());
        (h, 10)
    }
}

impl Wire {
    pub fn new(stream: TcpStream) -> Arc<Wire> {
        Arc::new(Wire {
            stream,
            out: Mutex::new(Out::default()),
        })
    }

    /// The stream, to look at (the handshake peeks at it).
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    fn lock(&self) -> MutexGuard<'_, Out> {
        self.out.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes what `pending` holds; true once it is empty.
    fn flush_pending(&self, out: &mut Out) -> io::Result<bool> {
        while !out.pending.is_empty() {
            match self.stream.try_write(&out.pending) {
                Ok(n) => {
                    out.pending.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Writes `mailbox`'s messages to the socket until it is empty or the socket is full;
    /// messages the socket had no room for stay queued, in order.
    pub fn pump(&self, mailbox: &Mailbox) -> Pumped {
        let mut out = self.lock();
        if out.failed || out.closing {
            return Pumped::Over;
        }
        let mut scratch = std::mem::take(&mut out.scratch);
        let pumped = self.pump_batches(&mut out, mailbox, &mut scratch);
        out.scratch = scratch;
        pumped
    }

    /// [`Wire::pump`]'s work, in buffers it leaves empty.
    fn pump_batches(&self, out: &mut Out, mailbox: &Mailbox, scratch: &mut Scratch) -> Pumped {
        let Scratch {
            batch,
            headers,
            slices,
        } = scratch;
        loop {
            match self.flush_pending(out) {
                Ok(true) => {}
                Ok(false) => return Pumped::Blocked,
                Err(_) => {
                    out.failed = true;
                    return Pumped::Over;
                }
            }
            mailbox.take(batch, BATCH);
            if batch.is_empty() {
                return Pumped::Done;
            }
            headers.clear();
            headers.extend(batch.iter().map(|f| text_header(f.len())));
            let mut iov = recycle(std::mem::take(slices));
            for (frame, (header, n)) in batch.iter().zip(headers.iter()) {
                iov.push(IoSlice::new(&header[..*n]));
                iov.push(IoSlice::new(frame.as_bytes()));
            }
            let total: usize = iov.iter().map(|s| s.len()).sum();
            let wrote = self.stream.try_write_vectored(&iov);
            *slices = recycle(iov);
            let written = match wrote {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
                Err(_) => {
                    out.failed = true;
                    batch.clear();
                    return Pumped::Over;
                }
            };
            if written == total {
                batch.clear();
                continue;
            }
            // The socket is full: the cut frame's rest waits in `pending`, whole frames go
            // back to the front of the queue.
            let mut skip = written;
            let mut cut = batch.len();
            for (i, frame) in batch.iter().enumerate() {
                let size = headers[i].1 + frame.len();
                if skip < size {
                    if skip > 0 {
                        // The rest of the header (if the cut fell inside it), then of the text.
                        let (header, n) = &headers[i];
                        out.pending.extend_from_slice(&header[skip.min(*n)..*n]);
                        out.pending
                            .extend_from_slice(&frame.as_bytes()[skip.saturating_sub(*n)..]);
                        cut = i + 1;
                    } else {
                        cut = i;
                    }
                    break;
                }
                skip -= size;
            }
            mailbox.put_back(batch.drain(cut..));
            batch.clear();
            return Pumped::Blocked;
        }
    }

    /// Stops writing queued messages: the close frame the protocol layer writes next is the
    /// last thing sent.
    pub fn closing(&self) {
        self.lock().closing = true;
    }

    /// Waits until the socket may take more.
    pub async fn writable(&self) -> io::Result<()> {
        self.stream.writable().await
    }

    fn poll_flush_pending(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut out = self.lock();
            if self.flush_pending(&mut out)? {
                return Poll::Ready(Ok(()));
            }
            drop(out);
            ready!(self.stream.poll_write_ready(cx))?;
        }
    }
}

impl AsyncRead for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            ready!(self.0.stream.poll_read_ready(cx))?;
            match self.0.stream.try_read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for Socket {
    /// Takes all of `buf` or none of it, so the fan-out never writes inside one of its frames.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let wire = &self.0;
        loop {
            let mut out = wire.lock();
            if out.failed {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            }
            if wire.flush_pending(&mut out)? {
                let n = match wire.stream.try_write(buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
                    Err(e) => return Poll::Ready(Err(e)),
                };
                out.pending.extend_from_slice(&buf[n..]);
                return Poll::Ready(Ok(buf.len()));
            }
            if out.pending.len() + buf.len() <= PENDING_LIMIT {
                out.pending.extend_from_slice(buf);
                return Poll::Ready(Ok(buf.len()));
            }
            drop(out);
            ready!(wire.stream.poll_write_ready(cx))?;
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.poll_flush_pending(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.0.poll_flush_pending(cx))?;
        // SAFETY: the descriptor is the stream's own and open while `self` lives.
        let done = unsafe { libc::shutdown(self.0.stream.as_raw_fd(), libc::SHUT_WR) };
        if done == 0 {
            Poll::Ready(Ok(()))
        } else {
            Poll::Ready(Err(io::Error::last_os_error()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CloseSignal, Frame, Lane, Outbox, Receiver, Sender, socket};
    use super::*;
    use std::io::Read;
    use tokio::io::AsyncWriteExt;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    /// What the outbox needs kept while it is used: it is gone once every sender is.
    type Held = (Sender, Arc<CloseSignal>);

    /// A wire on the server's end of a loopback connection, the client's end, and a socket
    /// outbox written to the wire: the engine's end, the writer's, and what must be held.
    async fn wired() -> (Arc<Wire>, std::net::TcpStream, Outbox, Receiver, Held) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let wire = Wire::new(stream);
        let (outbox, own, writer, close) = socket(&Lane::new(), Some(wire.clone()));
        (wire, client, outbox, writer, (own, close))
    }

    /// The text frames in `bytes`, each whole (server frames: unmasked).
    fn frames(mut bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            assert_eq!(bytes[0], 0x81, "a text frame starts here");
            let (len, at) = match bytes[1] {
                126 => (u16::from_be_bytes([bytes[2], bytes[3]]) as usize, 4),
                127 => (
                    u64::from_be_bytes(bytes[2..10].try_into().unwrap()) as usize,
                    10,
                ),
                n => (n as usize, 2),
            };
            out.push(bytes[at..at + len].to_vec());
            bytes = &bytes[at + len..];
        }
        out
    }

    #[test]
    fn headers_announce_each_length_form() {
        assert_eq!(
            frames(&[&text_header(5).0[..2], b"hello"].concat()),
            [b"hello"]
        );
        for len in [125, 126, 65_535, 65_536] {
            let (h, n) = text_header(len);
            let bytes = [&h[..n], &vec![b'x'; len][..]].concat();
            assert_eq!(frames(&bytes)[0].len(), len);
        }
    }

    #[test]
    fn a_full_socket_keeps_frames_whole_and_in_order_between_the_fanout_and_the_protocol() {
        block_on(async {
            let (wire, mut client, mut outbox, writer, _held) = wired().await;
            // 200 frames of 64 KiB: far more than the socket buffers hold unread.
            let texts: Vec<String> = (0..200)
                .map(|i| format!("{i:05}").repeat(64 * 1024 / 5))
                .collect();
            for text in &texts {
                assert_eq!(
                    outbox.push_frame(Frame::from(text.clone())),
                    super::super::Sent::Queued
                );
            }
            assert_eq!(writer.pump(), Pumped::Blocked);
            assert!(
                outbox.room() < crate::limits::OUTBOX_CAPACITY,
                "frames stay queued"
            );
            // The protocol layer writes a frame of its own meanwhile: it goes after the frame
            // the full socket cut, whole.
            let mut own = Socket(wire.clone());
            let (h, n) = text_header(4);
            own.write_all(&[&h[..n], b"pong"].concat()).await.unwrap();
            let reader = std::thread::spawn(move || {
                let mut all = Vec::new();
                client.read_to_end(&mut all).unwrap();
                all
            });
            loop {
                match writer.pump() {
                    Pumped::Done => break,
                    Pumped::Blocked => wire.writable().await.unwrap(),
                    Pumped::Over => panic!("the socket failed"),
                }
            }
            own.shutdown().await.unwrap();
            let got = frames(&reader.join().unwrap());
            let pong = got
                .iter()
                .position(|f| f == b"pong")
                .expect("the pong arrived whole");
            let data: Vec<&Vec<u8>> = got.iter().filter(|f| *f != b"pong").collect();
            assert_eq!(data.len(), texts.len());
            for (i, (got, sent)) in data.iter().zip(&texts).enumerate() {
                assert!(got.as_slice() == sent.as_bytes(), "frame {i} differs");
            }
            assert!(
                pong > 0 && pong < texts.len(),
                "the pong went between frames, not first or last only by luck: at {pong}"
            );
        });
    }

    #[test]
    fn a_pump_reuses_its_buffers_and_keeps_no_frame() {
        block_on(async {
            let (wire, mut client, mut outbox, writer, _held) = wired().await;
            let rooms = || {
                let out = wire.lock();
                let s = &out.scratch;
                assert!(
                    s.batch.is_empty() && s.slices.is_empty(),
                    "frames or slices kept"
                );
                [
                    (s.batch.as_ptr() as usize, s.batch.capacity()),
                    (s.headers.as_ptr() as usize, s.headers.capacity()),
                    (s.slices.as_ptr() as usize, s.slices.capacity()),
                ]
            };
            let text = Frame::from("x".repeat(300));
            let mut got = vec![0u8; 3 * (4 + 300)];
            for _ in 0..3 {
                outbox.push_frame(text.clone());
            }
            assert_eq!(writer.pump(), Pumped::Done);
            client.read_exact(&mut got).unwrap();
            let first = rooms();
            assert!(first.iter().all(|(_, capacity)| *capacity > 0), "{first:?}");
            for round in 0..3 {
                for _ in 0..3 {
                    outbox.push_frame(text.clone());
                }
                assert_eq!(writer.pump(), Pumped::Done);
                client.read_exact(&mut got).unwrap();
                assert_eq!(frames(&got), vec![text.as_bytes().to_vec(); 3]);
                assert_eq!(rooms(), first, "round {round} allocated");
            }
            // Written frames are not held: the test's copy is the text's last owner but one.
            let bytes: tokio_tungstenite::tungstenite::Bytes = text.into();
            assert!(bytes.is_unique(), "the pump kept a written frame");
        });
    }

    #[test]
    fn recycled_slices_keep_their_room() {
        let slices: Vec<IoSlice<'static>> = Vec::with_capacity(16);
        let at = slices.as_ptr() as usize;
        let text = [0u8; 4];
        let mut again: Vec<IoSlice<'_>> = recycle(slices);
        again.push(IoSlice::new(&text));
        assert_eq!((again.as_ptr() as usize, again.capacity()), (at, 16));
    }

    #[test]
    fn nothing_queued_is_written_after_the_close_and_a_failed_socket_stops_the_pump() {
        block_on(async {
            let (wire, client, mut outbox, writer, _held) = wired().await;
            outbox.push_frame(Frame::from("before"));
            assert_eq!(writer.pump(), Pumped::Done);
            wire.closing();
            outbox.push_frame(Frame::from("after"));
            assert_eq!(writer.pump(), Pumped::Over);
            assert_eq!(
                outbox.room(),
                crate::limits::OUTBOX_CAPACITY - 1,
                "still queued, unsent"
            );
            drop(client);
            let (_wire, client, mut outbox, writer, _held) = wired().await;
            drop(client);
            // Writes to a socket the peer closed fail (at the latest the second one).
            let mut outcomes = Vec::new();
            for _ in 0..3 {
                outbox.push_frame(Frame::from("x".repeat(1000)));
                outcomes.push(writer.pump());
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            assert_eq!(outcomes.last(), Some(&Pumped::Over), "{outcomes:?}");
        });
    }
}
