//! A connection's way out. stdio's is a plain buffer the engine thread writes to stdout
//! itself; a socket's is a bounded [`Mailbox`] drained by the connection's writer task, plus
//! a close signal that overtakes the queue (a client that stopped reading is told why).
//!
//! The engine queues a socket's messages without waking its writer: it lists the mailbox on
//! its listener's [`Lane`] and rings the lane once for all the messages of a batch (a reply
//! and the deltas it caused, or several clients' replies). A WebSocket listener's lane hands
//! the listed mailboxes to its writer threads (`fanout.rs`), which write each one's messages
//! straight to its socket with one system call (`socket.rs`); another lane's task, on the
//! listener's own thread, wakes each listed writer task there. So a batch costs the engine one
//! wake-up, not one per message. A message is a [`Frame`]: its text, shared, so a delta
//! serialized once is queued for every subscriber that gets the same one, and written to each
//! from that one buffer.

mod fanout;
pub mod socket;

pub use fanout::Fanout;

use crate::limits::OUTBOX_CAPACITY;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// A message's JSON text, shared: cloning it does not copy the text.
pub type Frame = tokio_tungstenite::tungstenite::Utf8Bytes;

/// `message` as a frame.
pub fn frame(message: &Value) -> Frame {
    Frame::from(crate::json::text(message))
}

/// Where the engine puts a connection's messages.
pub enum Outbox {
    /// Serialized lines, written to stdout by the engine thread when no input is waiting
    /// (serialized at once, so no message is kept alive until then).
    Stdio(Vec<u8>),
    /// A socket's bounded queue, the lane that wakes its writer, and its close signal.
    Socket {
        mailbox: Sender,
        lane: Arc<Lane>,
        close: Arc<CloseSignal>,
    },
    /// A joined process's client, written by the engine itself (`relayed.rs`).
    Relayed(Arc<Mutex<super::relayed::RelayOut>>),
}

/// What became of a message.
#[derive(Debug, PartialEq)]
pub enum Sent {
    Queued,
    /// The queue is full: nothing was queued.
    Full,
    /// The connection is closing.
    Gone,
}

/// Asks a socket's writer to close with a code and reason, ahead of anything queued.
#[derive(Default)]
pub struct CloseSignal {
    reason: Mutex<Option<(u16, String)>>,
    notify: Notify,
}

impl CloseSignal {
    /// Requests the close (the first reason wins). The log gets the whole reason; the close
    /// frame at most 123 bytes of it (a control frame's limit).
    pub fn close(&self, code: u16, reason: &str) {
        let mut slot = self.reason.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            crate::log::warn(&format!("closing a connection ({code}): {reason}"));
            let mut end = reason.len().min(123);
            while !reason.is_char_boundary(end) {
                end -= 1;
            }
            *slot = Some((code, reason[..end].to_string()));
        }
        self.notify.notify_one();
    }

    /// Waits for a close request; its code and reason.
    pub async fn requested(&self) -> (u16, String) {
        loop {
            if let Some(r) = self
                .reason
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
            {
                return r;
            }
            self.notify.notified().await;
        }
    }
}

/// A socket connection's queue of outgoing messages: filled by the engine and by the
/// transport itself (refusals it makes without the engine, progress reports from workers),
/// drained by the connection's writer. At most `OUTBOX_CAPACITY` messages wait.
pub struct Mailbox {
    queue: Mutex<VecDeque<Frame>>,
    /// The writer waits here.
    ready: Notify,
    /// Senders still holding it; at none, the writer ends once the queue is empty.
    senders: AtomicUsize,
    /// The writer has ended: nothing more is queued.
    gone: AtomicBool,
    /// It is listed on its lane for the next ring.
    listed: AtomicBool,
    /// The socket the fan-out writes it to (WebSocket connections).
    wire: Option<Arc<socket::Wire>>,
}

/// A way to queue on a mailbox; the writer ends once every sender is dropped.
pub struct Sender(Arc<Mailbox>);

impl Clone for Sender {
    fn clone(&self) -> Sender {
        self.0.senders.fetch_add(1, Ordering::AcqRel);
        Sender(self.0.clone())
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        if self.0.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.ready.notify_one();
        }
    }
}

impl Sender {
    /// Messages queued and not yet taken by the writer.
    pub fn queued(&self) -> usize {
        self.0.len()
    }

    /// Queues `frame` and wakes the writer now (the transport's own messages, progress).
    pub fn send_now(&self, frame: Frame) -> Sent {
        let sent = self.0.push(frame);
        if sent == Sent::Queued {
            self.0.ready.notify_one();
        }
        sent
    }
}

impl Mailbox {
    fn push(&self, frame: Frame) -> Sent {
        if self.gone.load(Ordering::Acquire) {
            return Sent::Gone;
        }
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        if queue.len() >= OUTBOX_CAPACITY {
            return Sent::Full;
        }
        queue.push_back(frame);
        Sent::Queued
    }

    fn len(&self) -> usize {
        self.queue.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Moves up to `max` queued messages into `batch`, oldest first.
    fn take(&self, batch: &mut Vec<Frame>, max: usize) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let n = queue.len().min(max);
        batch.extend(queue.drain(..n));
    }

    /// Puts messages taken and not written back at the front of the queue, in their order.
    fn put_back(&self, frames: impl DoubleEndedIterator<Item = Frame>) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        for frame in frames.rev() {
            queue.push_front(frame);
        }
    }

    /// Off its lane's list: the next message queued lists it again.
    fn unlist(&self) {
        self.listed.store(false, Ordering::Release);
    }

    /// Wakes its writer task.
    fn wake(&self) {
        self.ready.notify_one();
    }
}

/// The writer's end of a mailbox.
pub struct Receiver(Arc<Mailbox>);

impl Receiver {
    /// Waits until the writer is woken (something queued, the fan-out found the socket full);
    /// false once every sender is gone and nothing is left.
    pub async fn woken(&self) -> bool {
        if self.0.len() > 0 {
            return true;
        }
        if self.0.senders.load(Ordering::Acquire) == 0 {
            return false;
        }
        self.0.ready.notified().await;
        self.0.len() > 0 || self.0.senders.load(Ordering::Acquire) > 0
    }

    /// Writes what is queued to the mailbox's socket (see [`socket::Wire::pump`]).
    pub fn pump(&self) -> socket::Pumped {
        match &self.0.wire {
            Some(wire) => wire.pump(&self.0),
            None => socket::Pumped::Over,
        }
    }

    /// Waits until something is queued, then moves it all into `batch` (in order); false
    /// once every sender is gone and nothing is left.
    pub async fn recv_all(&self, batch: &mut Vec<Frame>) -> bool {
        loop {
            {
                let mut queue = self.0.queue.lock().unwrap_or_else(|e| e.into_inner());
                if !queue.is_empty() {
                    batch.extend(queue.drain(..));
                    return true;
                }
            }
            if self.0.senders.load(Ordering::Acquire) == 0 {
                return false;
            }
            self.0.ready.notified().await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.0.gone.store(true, Ordering::Release);
        self.0
            .queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// A listener's bell: the engine lists the mailboxes it queued on and rings once; the
/// lane's writer threads write them ([`Fanout`]), or, on a lane without, the lane's task
/// ([`Lane::serve`], on the listener's thread) wakes their writers.
#[derive(Default)]
pub struct Lane {
    listed: Mutex<Vec<Arc<Mailbox>>>,
    bell: Notify,
    fanout: Option<Fanout>,
}

impl Lane {
    pub fn new() -> Arc<Lane> {
        Arc::default()
    }

    /// A lane whose mailboxes `fanout` writes to their sockets (each mailbox needs a wire).
    pub fn writing(fanout: Fanout) -> Arc<Lane> {
        Arc::new(Lane {
            fanout: Some(fanout),
            ..Lane::default()
        })
    }

    /// Wakes the writers of the mailboxes listed at each ring; runs for as long as the
    /// listener does.
    pub async fn serve(self: Arc<Lane>) {
        let mut woken = Vec::new();
        loop {
            self.bell.notified().await;
            std::mem::swap(
                &mut woken,
                &mut *self.listed.lock().unwrap_or_else(|e| e.into_inner()),
            );
            for mailbox in woken.drain(..) {
                mailbox.unlist();
                mailbox.wake();
            }
        }
    }

    fn list(&self, mailbox: &Arc<Mailbox>) {
        if !mailbox.listed.swap(true, Ordering::AcqRel) {
            self.listed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(mailbox.clone());
        }
    }

    /// Rings the bell when a mailbox is listed.
    pub fn ring(&self) {
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        if listed.is_empty() {
            return;
        }
        match &self.fanout {
            Some(fanout) => fanout.hand(std::mem::take(&mut *listed)),
            None => self.bell.notify_one(),
        }
    }
}

/// The listeners' lanes, shared by the engine loop and the hook that rings them from inside a
/// call (before a third-party call takes its slice of the engine, `thread.rs`).
#[derive(Clone, Default)]
pub struct Lanes(Arc<Mutex<Vec<Arc<Lane>>>>);

impl Lanes {
    /// Adds `lane` unless it is there already.
    pub fn add(&self, lane: &Arc<Lane>) {
        let mut lanes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !lanes.iter().any(|l| Arc::ptr_eq(l, lane)) {
            lanes.push(lane.clone());
        }
    }

    /// Rings every lane (a lane with nothing listed is not woken).
    pub fn ring(&self) {
        for lane in self.0.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            lane.ring();
        }
    }
}

/// A socket outbox on `lane`, written to `wire` when there is one: the engine's end, a sender
/// for the transport's own messages, the writer's end, and the close signal.
pub fn socket(
    lane: &Arc<Lane>,
    wire: Option<Arc<socket::Wire>>,
) -> (Outbox, Sender, Receiver, Arc<CloseSignal>) {
    let mailbox = Arc::new(Mailbox {
        queue: Mutex::new(VecDeque::new()),
        ready: Notify::new(),
        senders: AtomicUsize::new(2),
        gone: AtomicBool::new(false),
        listed: AtomicBool::new(false),
        wire,
    });
    let close = Arc::new(CloseSignal::default());
    (
        Outbox::Socket {
            mailbox: Sender(mailbox.clone()),
            lane: lane.clone(),
            close: close.clone(),
        },
        Sender(mailbox.clone()),
        Receiver(mailbox),
        close,
    )
}

impl Outbox {
    /// Queues `message` without waiting (a socket's writer is woken at the next ring).
    pub fn push(&mut self, message: &Value) -> Sent {
        match self {
            Outbox::Stdio(queued) => {
                serde_json::to_writer(&mut *queued, message).expect("a Value serializes");
                queued.push(b'\n');
                Sent::Queued
            }
            Outbox::Socket { .. } => self.push_frame(frame(message)),
            Outbox::Relayed(out) => {
                super::relayed::lock(out).push(crate::json::text(message).as_bytes())
            }
        }
    }

    /// Queues a message already serialized (shared with other connections).
    pub fn push_frame(&mut self, frame: Frame) -> Sent {
        match self {
            Outbox::Stdio(queued) => {
                queued.extend_from_slice(frame.as_bytes());
                queued.push(b'\n');
                Sent::Queued
            }
            Outbox::Socket { mailbox, lane, .. } => {
                let sent = mailbox.0.push(frame);
                if sent == Sent::Queued {
                    lane.list(&mailbox.0);
                }
                sent
            }
            Outbox::Relayed(out) => super::relayed::lock(out).push(frame.as_bytes()),
        }
    }

    /// The lane to ring once the batch is queued (sockets).
    pub fn lane(&self) -> Option<&Arc<Lane>> {
        match self {
            Outbox::Stdio(_) | Outbox::Relayed(_) => None,
            Outbox::Socket { lane, .. } => Some(lane),
        }
    }

    /// Free places in the queue.
    pub fn room(&self) -> usize {
        match self {
            Outbox::Stdio(_) => OUTBOX_CAPACITY,
            Outbox::Socket { mailbox, .. } => OUTBOX_CAPACITY.saturating_sub(mailbox.0.len()),
            Outbox::Relayed(out) => super::relayed::lock(out).room(),
        }
    }

    /// Closes the connection with `code` and `reason` (sockets; stdio cannot be closed).
    pub fn close(&self, code: u16, reason: &str) {
        match self {
            Outbox::Socket { close, .. } => close.close(code, reason),
            Outbox::Relayed(out) => super::relayed::lock(out).close(code, reason),
            Outbox::Stdio(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(frames: &[Frame]) -> Vec<&str> {
        frames.iter().map(|f| f.as_str()).collect()
    }

    #[test]
    fn a_socket_outbox_is_bounded_keeps_order_and_wakes_its_writer_at_the_ring() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let lane = Lane::new();
        let (mut outbox, own, writer, _close) = socket(&lane, None);
        runtime.block_on(async move {
            tokio::spawn(lane.clone().serve());
            for i in 0..OUTBOX_CAPACITY {
                assert_eq!(outbox.push(&serde_json::json!(i)), Sent::Queued);
            }
            assert_eq!(outbox.push(&serde_json::json!("over")), Sent::Full);
            assert_eq!(outbox.room(), 0);
            let mut batch = Vec::new();
            // Queued but not rung: the writer is not woken.
            let early = tokio::time::timeout(
                std::time::Duration::from_millis(20),
                writer.0.ready.notified(),
            );
            assert!(early.await.is_err(), "woken before the ring");
            outbox.lane().unwrap().ring();
            assert!(writer.recv_all(&mut batch).await);
            assert_eq!(batch.len(), OUTBOX_CAPACITY);
            assert_eq!(batch[0].as_str(), "0");
            assert_eq!(batch[OUTBOX_CAPACITY - 1].as_str(), "255");
            batch.clear();
            // The transport's own message wakes the writer at once.
            assert_eq!(own.send_now(Frame::from("refused")), Sent::Queued);
            assert!(writer.recv_all(&mut batch).await);
            assert_eq!(text(&batch), ["refused"]);
            // Every sender gone: the writer ends.
            drop(own);
            drop(outbox);
            batch.clear();
            assert!(!writer.recv_all(&mut batch).await);
        });
    }

    #[test]
    fn once_the_writer_is_gone_nothing_is_queued() {
        let lane = Lane::new();
        let (mut outbox, own, writer, _close) = socket(&lane, None);
        drop(writer);
        assert_eq!(outbox.push(&serde_json::json!(1)), Sent::Gone);
        assert_eq!(own.send_now(Frame::from("x")), Sent::Gone);
        assert!(lane.listed.lock().unwrap().is_empty());
    }
}
