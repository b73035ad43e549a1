//! An HTTP session: one engine connection per `initialize` (or per 2026-07-28 request), named
//! by its `Mcp-Session-Id`, and the router that sends each message the engine queues for it to
//! the POST waiting for it, or to the session's GET stream (kept for `Last-Event-ID`).

use super::{Body, Shared, route};
use crate::limits::{HTTP_IDLE_SESSION_SECS, SSE_REPLAY_EVENTS};
use crate::mcp::engine::cancel::{CancelBoard, cancelled_request};
use crate::mcp::engine::inbox::{Inbound, PeerId, next_peer_id};
use crate::mcp::engine::outbox::{self, Frame as Text};
use crate::mcp::transport::edge::Grant;
use hyper::Response;
use hyper::header::HeaderValue;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// One MCP session: an engine connection, and where its messages go.
pub(super) struct HttpSession {
    /// Its `Mcp-Session-Id`, sent once `initialize` is answered.
    pub(super) id: String,
    /// What its `initialize` was admitted with: later requests must come with the same
    /// (another token's holder cannot use it).
    pub(super) grant: Grant,
    pub(super) peer: PeerId,
    pub(super) cancels: Arc<CancelBoard>,
    pub(super) in_flight: Arc<AtomicUsize>,
    pub(super) routes: Mutex<Routes>,
    pub(super) last_seen: Mutex<Instant>,
    /// Its `initialize` declared elicitation: a `tools/call` may be asked about (approval),
    /// so its response is an SSE stream that can carry the question.
    pub(super) elicits: std::sync::atomic::AtomicBool,
}

/// Where the engine's messages for a session go.
#[derive(Default)]
pub(super) struct Routes {
    /// Requests waiting for their reply, by id (JSON text), with their progress token.
    /// Each message sent on is marked whether it is the reply (else progress), so the
    /// request's task need not parse it again.
    pub(super) waiting: HashMap<String, Waiter>,
    /// The open GET stream, if any.
    pub(super) stream: Option<mpsc::Sender<(u64, Text)>>,
    /// Recent stream events, for `Last-Event-ID`.
    pub(super) replay: VecDeque<(u64, Text)>,
    pub(super) next_event: u64,
    /// It serves one stateless (2026-07-28) request: that request's notifications go on
    /// its own response, not to a session stream.
    pub(super) stateless: bool,
}

/// A request waiting for its reply: its progress token, and where its messages go (each
/// marked whether it is the reply).
pub(super) type Waiter = (Option<String>, mpsc::Sender<(bool, Text)>);

impl Routes {
    /// Routes one message from the engine.
    pub(super) fn route(&mut self, text: Text) {
        // Only the envelope is read: a result is skipped over, not built.
        let message: route::Envelope = serde_json::from_str(&text).unwrap_or_default();
        // A question about a request (approval) goes on that request's response stream.
        if let Some(request) = message.related()
            && message.id.is_some()
            && let Some((_, tx)) = self.waiting.get(&request.to_string())
        {
            let _ = tx.try_send((false, text));
            return;
        }
        if message.method.is_none()
            && let Some(id) = &message.id
        {
            if let Some((_, tx)) = self.waiting.remove(&id.to_string()) {
                let _ = tx.try_send((true, text));
            }
            return;
        }
        if message.method.as_deref() == Some("notifications/progress")
            && let Some(token) = message.progress_token()
        {
            let token = token.to_string();
            if let Some((_, tx)) = self
                .waiting
                .values()
                .find(|(t, _)| t.as_deref() == Some(token.as_str()))
            {
                let _ = tx.try_send((false, text));
            }
            return;
        }
        if self.stateless
            && self.stream.is_none()
            && let Some((_, tx)) = self.waiting.values().next()
        {
            let _ = tx.try_send((false, text));
            return;
        }
        // Everything else belongs to the session's own stream.
        self.next_event += 1;
        let event = (self.next_event, text);
        if let Some(stream) = &self.stream
            && stream.try_send(event.clone()).is_err()
        {
            self.stream = None;
        }
        self.replay.push_back(event);
        if self.replay.len() > SSE_REPLAY_EVENTS {
            self.replay.pop_front();
        }
    }
}

/// A new session: an engine connection whose outbox a router task drains.
pub(super) fn open_session(shared: &Arc<Shared>, grant: Grant) -> Arc<HttpSession> {
    let peer = next_peer_id();
    let (outbox, own, queue, close) = outbox::socket(&shared.lane, None);
    let cancels = Arc::new(CancelBoard::default());
    let in_flight = Arc::new(AtomicUsize::new(0));
    let id = format!("{:032x}", random_u128());
    let session = Arc::new(HttpSession {
        id: id.clone(),
        grant: grant.clone(),
        peer,
        cancels: cancels.clone(),
        in_flight: in_flight.clone(),
        routes: Mutex::default(),
        last_seen: Mutex::new(Instant::now()),
        elicits: Default::default(),
    });
    shared.engine.send(Inbound::Open {
        id: peer,
        outbox,
        cancels,
        in_flight,
        notify: Arc::new(move |message: Value| {
            let _ = own.send_now(outbox::frame(&message));
        }),
        transport_session: Some(id),
        grant: Some(grant),
        default_profile: None,
        ticket: None,
        input: None,
    });
    let router = session.clone();
    let shared_for_close = shared.clone();
    tokio::spawn(async move {
        let mut batch = Vec::new();
        loop {
            tokio::select! {
                more = queue.recv_all(&mut batch) => {
                    if !more {
                        break;
                    }
                    let mut routes = router.routes.lock().unwrap_or_else(|e| e.into_inner());
                    for text in batch.drain(..) {
                        routes.route(text);
                    }
                }
                (code, reason) = close.requested() => {
                    crate::log::warn(&format!("ending HTTP session ({code}): {reason}"));
                    end_session(&shared_for_close, &router);
                    break;
                }
            }
        }
    });
    session
}

/// The session `id` names, if the request was admitted as it was.
pub(super) fn session(shared: &Shared, id: &str, grant: &Grant) -> Option<Arc<HttpSession>> {
    shared
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(id)
        .filter(|s| s.grant == *grant)
        .cloned()
}

/// Ends a session: the engine releases it, its streams close.
pub(super) fn end_session(shared: &Shared, session: &HttpSession) {
    shared
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&session.id);
    let mut routes = session.routes.lock().unwrap_or_else(|e| e.into_inner());
    routes.stream = None;
    routes.waiting.clear();
    shared.engine.send(Inbound::Close { id: session.peer });
}

/// Hands a message to the engine, counting it in flight; cancellations take effect at once.
pub(super) fn forward(shared: &Shared, session: &HttpSession, text: &str) {
    if let Some(request) = cancelled_request(text.as_bytes()) {
        session.cancels.cancel(&request);
        // No reply will come for it: let its POST go.
        session
            .routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .waiting
            .remove(&request.to_string());
    }
    session.in_flight.fetch_add(1, Ordering::AcqRel);
    shared.engine.send(Inbound::Message {
        id: session.peer,
        text: text.to_string(),
    });
}

/// Hands request `id` to the engine and gives back where its reply and the messages about
/// it (progress under `token`, questions) will come, each marked whether it is the reply.
/// The request waits before it is forwarded, so nothing it causes can miss it.
pub(super) fn forward_request(
    shared: &Shared,
    session: &HttpSession,
    id: &Value,
    token: Option<String>,
    text: &str,
) -> mpsc::Receiver<(bool, Text)> {
    let (tx, rx) = mpsc::channel(64);
    session
        .routes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .waiting
        .insert(id.to_string(), (token, tx));
    forward(shared, session, text);
    rx
}

/// Registers a new session under a fresh id and names it in the response.
pub(super) fn with_session(
    mut response: Response<Body>,
    shared: &Shared,
    session: &Arc<HttpSession>,
    new: bool,
) -> Response<Body> {
    if new {
        let id = session.id.clone();
        shared
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), session.clone());
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert("mcp-session-id", value);
        }
    }
    response
}

fn random_u128() -> u128 {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS has randomness");
    u128::from_le_bytes(bytes)
}

/// Ends sessions no request has touched for a while (their clients went away).
pub(super) async fn expire_idle(shared: Arc<Shared>) {
    let idle = Duration::from_secs(HTTP_IDLE_SESSION_SECS);
    loop {
        tokio::time::sleep(Duration::from_secs(5).min(idle)).await;
        let stale: Vec<Arc<HttpSession>> = shared
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|s| {
                s.last_seen
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .elapsed()
                    > idle
                    && s.routes
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .stream
                        .is_none()
            })
            .cloned()
            .collect();
        for session in stale {
            crate::log::info("ending an idle HTTP session");
            end_session(&shared, &session);
        }
    }
}
