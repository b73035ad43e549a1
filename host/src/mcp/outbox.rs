//! A connection's way out. stdio's is a plain buffer the engine thread writes to stdout
//! itself; a socket's is a bounded queue drained by the connection's writer task, plus a
//! close signal that overtakes the queue (a client that stopped reading is told why).

use crate::limits::OUTBOX_CAPACITY;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, mpsc};

/// Where the engine puts a connection's messages.
pub enum Outbox {
    /// Serialized lines, written to stdout by the engine thread when no input is waiting
    /// (serialized at once, so no message is kept alive until then).
    Stdio(Vec<u8>),
    /// A socket's bounded queue.
    Socket {
        queue: mpsc::Sender<String>,
        close: Arc<CloseSignal>,
    },
}

/// What became of a message.
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

/// A socket outbox: the engine's end, a sender for the transport's own replies (refusals it
/// makes without the engine), the writer task's end, and the close signal.
pub fn socket() -> (
    Outbox,
    mpsc::Sender<String>,
    mpsc::Receiver<String>,
    Arc<CloseSignal>,
) {
    let (queue, rx) = mpsc::channel(OUTBOX_CAPACITY);
    let close = Arc::new(CloseSignal::default());
    let own = queue.clone();
    (
        Outbox::Socket {
            queue,
            close: close.clone(),
        },
        own,
        rx,
        close,
    )
}

impl Outbox {
    /// Queues `message` without waiting.
    pub fn push(&mut self, message: Value) -> Sent {
        match self {
            Outbox::Stdio(queued) => {
                serde_json::to_writer(&mut *queued, &message).expect("a Value serializes");
                queued.push(b'\n');
                Sent::Queued
            }
            Outbox::Socket { queue, .. } => match queue.try_send(message.to_string()) {
                Ok(()) => Sent::Queued,
                Err(mpsc::error::TrySendError::Full(_)) => Sent::Full,
                Err(mpsc::error::TrySendError::Closed(_)) => Sent::Gone,
            },
        }
    }

    /// Free places in the queue.
    pub fn room(&self) -> usize {
        match self {
            Outbox::Stdio(_) => OUTBOX_CAPACITY,
            Outbox::Socket { queue, .. } => queue.capacity(),
        }
    }

    /// Closes the connection with `code` and `reason` (sockets; stdio cannot be closed).
    pub fn close(&self, code: u16, reason: &str) {
        if let Outbox::Socket { close, .. } = self {
            close.close(code, reason);
        }
    }
}
