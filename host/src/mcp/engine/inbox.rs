//! What transports hand the engine, and how: a connection's number, the messages
//! ([`Inbound`]), and the handle that queues them and wakes the engine's `poll`. Transports
//! depend on this module, never on the engine loop (`thread.rs`) itself.

use super::cancel::CancelBoard;
use super::outbox::Outbox;
use crate::registry::RanCall;
use serde_json::Value;
use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;

/// Sends a notification to a connection from any thread, while a call runs.
pub type Notify = Arc<dyn Fn(Value) + Send + Sync>;

/// A connection's number.
pub type PeerId = u64;

static NEXT_PEER: AtomicU64 = AtomicU64::new(1);

/// A fresh connection number (0 is stdio's).
pub fn next_peer_id() -> PeerId {
    NEXT_PEER.fetch_add(1, Ordering::Relaxed)
}

/// What transports hand the engine.
pub enum Inbound {
    /// A client connected.
    Open {
        id: PeerId,
        outbox: Outbox,
        cancels: Arc<CancelBoard>,
        in_flight: Arc<AtomicUsize>,
        /// Sends it a notification while a call runs (progress).
        notify: Notify,
        /// The session id its transport gave it (`Mcp-Session-Id` over HTTP).
        transport_session: Option<String>,
        /// What the edge admitted it with: the profiles and agent it may take at `initialize`.
        /// (`None`: no ceiling, as over stdio — a joined process's stdio client).
        grant: Option<crate::mcp::transport::edge::Grant>,
        /// The profile it gets when its `initialize` names none, if not the server's
        /// `--profile` (a joined process's own `--profile`).
        default_profile: Option<String>,
        /// Its connection's seat, told when it initializes (WebSocket).
        ticket: Option<Arc<crate::mcp::transport::edge::Ticket>>,
        /// Its socket, read by the engine itself (a joined process's client, `relayed.rs`).
        input: Option<Arc<std::sync::Mutex<super::relayed::RelayIn>>>,
    },
    /// One JSON-RPC message from it.
    Message { id: PeerId, text: String },
    /// It went away.
    Close { id: PeerId },
    /// A detached call of its finished on a worker (`ticket` names which).
    Completed {
        id: PeerId,
        ticket: u64,
        ran: RanCall,
    },
    /// A task's call finished on a worker.
    TaskDone { task: String, ran: RanCall },
    /// A termination signal: the first drains and stops cleanly, the next cuts the drain short.
    Stop { signal: i32 },
    /// The network edge refused a client's bearer token: traced as `session.admission.denied`
    /// with the reason (never the token), as the agent the token named if it was verified.
    Refused {
        agent: Option<String>,
        reason: String,
    },
    /// Stop cleanly as when stdin ends: the client of a process that took the world over
    /// (`crate::join`) is done.
    Finish,
    /// What the engine serves, for `limina status` and a joining process's welcome (which
    /// proves the engine is alive).
    Status {
        reply: Box<dyn FnOnce(EngineStatus) + Send>,
    },
}

/// What the engine serves now.
#[derive(Debug, Clone, Default)]
pub struct EngineStatus {
    pub entities: usize,
    pub tick: u64,
    /// Each connection's bound session (`initialize`'s `session` object), by connection.
    pub sessions: Vec<(PeerId, Value)>,
}

/// A transport's way in: a channel plus the eventfd that wakes the engine's `poll`.
#[derive(Clone)]
pub struct EngineHandle {
    pub(super) tx: Sender<Inbound>,
    pub(super) wake: Arc<Wake>,
    /// Why the trace cannot be written, while it cannot (`/readyz`).
    pub(super) trace_health: crate::trace::Health,
    /// The loop's pulse and whether it drains (`/healthz`, `/readyz`).
    pub(super) vitals: std::sync::Arc<super::vitals::Vitals>,
}

impl EngineHandle {
    /// Hands `message` to the engine; false once the engine has stopped.
    pub fn send(&self, message: Inbound) -> bool {
        let sent = self.tx.send(message).is_ok();
        self.wake.signal();
        sent
    }

    /// A handle whose messages go to the [`Forwarding`] returned with it instead of to an
    /// engine of this process: a joined process's network listener hands its clients to the
    /// host serving the world through it (`transport/front.rs`).
    pub fn forwarding() -> io::Result<(EngineHandle, Forwarding)> {
        let (tx, inbox) = std::sync::mpsc::channel();
        let vitals = Arc::new(super::vitals::Vitals::new());
        vitals.beat();
        let handle = EngineHandle {
            tx,
            wake: Arc::new(Wake::new()?),
            trace_health: crate::trace::Health::default(),
            vitals: vitals.clone(),
        };
        Ok((handle, Forwarding { inbox, vitals }))
    }

    /// Why the host should not be sent traffic now, if so: the engine has not begun serving,
    /// drains, or is stalled, or the trace cannot be written.
    pub fn not_ready(&self) -> Option<String> {
        self.vitals.not_ready().or_else(|| {
            self.trace_health
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
        })
    }

    /// Whether a termination signal started a drain: the host admits no new calls and stops
    /// once those in flight finish (a joined process then holds its client's input for the
    /// host that takes the world over).
    pub fn draining(&self) -> bool {
        self.vitals.draining()
    }

    /// Why the host is not healthy, if it is not: its engine loop has stopped turning.
    pub fn unhealthy(&self) -> Option<String> {
        self.vitals.stalled()
    }
}

/// The receiving end of a forwarding [`EngineHandle`]: what its transports hand over, and the
/// pulse its `/healthz` and `/readyz` read (the forwarder's loop, beating as it turns).
pub struct Forwarding {
    pub inbox: std::sync::mpsc::Receiver<Inbound>,
    vitals: Arc<super::vitals::Vitals>,
}

impl Forwarding {
    /// The forwarder's loop turned now.
    pub fn beat(&self) {
        self.vitals.beat();
    }
}

/// An eventfd that wakes the engine's `poll` when a transport hands it a message.
pub(super) struct Wake {
    pub(super) fd: RawFd,
    /// Socket transports started.
    pub(super) listeners: AtomicUsize,
}

impl Wake {
    pub(super) fn new() -> io::Result<Wake> {
        // SAFETY: plain syscall; the fd is owned by this value and closed on drop.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Wake {
            fd,
            listeners: AtomicUsize::new(0),
        })
    }

    pub(super) fn signal(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd. A full counter (never in
        // practice) only means the engine is already due to wake.
        unsafe { libc::write(self.fd, (&one as *const u64).cast(), 8) };
    }

    pub(super) fn clear(&self) {
        let mut count: u64 = 0;
        // SAFETY: reads 8 bytes into a live u64 from our non-blocking eventfd.
        unsafe { libc::read(self.fd, (&mut count as *mut u64).cast(), 8) };
    }
}

impl Drop for Wake {
    fn drop(&mut self) {
        // SAFETY: we own the fd.
        unsafe { libc::close(self.fd) };
    }
}
