//! `limina --mcp-http`: the MCP Streamable HTTP transport at `/mcp` (hyper on tokio), sessions
//! of the engine's one world like any other connection.
//!
//! - `POST /mcp` carries one JSON-RPC message. Notifications and responses get 202. A request
//!   gets `application/json` with its reply, or — when it asked for progress
//!   (`_meta.progressToken`) and accepts `text/event-stream` — an SSE stream with its progress
//!   and log notifications, then the reply.
//! - `initialize` opens a session and names it in `Mcp-Session-Id`; every later request must
//!   carry it (missing: 400; unknown or ended: 404), and `MCP-Protocol-Version` when sent must
//!   be one this server speaks (400 otherwise).
//! - `GET /mcp` opens the session's server-to-client stream (`tools/list_changed`, logs,
//!   state deltas); events carry ids, the stream starts with a priming event and a `retry`
//!   hint, and `Last-Event-ID` replays what a broken stream missed (the last 256 events).
//! - `DELETE /mcp` ends the session; an idle session ends by itself.
//! - Host and Origin are checked against loopback names (403: DNS-rebinding protection;
//!   `Origin: null` only when allowed) and the bearer token when one is configured (401),
//!   which with the profiles network clients may take decides what `initialize` may ask for;
//!   open connections are capped in all and per address (503); bodies are capped, header and
//!   body reads time out, and each session has an in-flight cap.

use super::edge::gate::{self, Gate};
use super::edge::{Grant, Transport};
use super::guard::is_loopback_name;
use super::listener::{self, Listen};
use crate::limits::{
    HTTP_IDLE_SESSION_SECS, MAX_HTTP_BODY_BYTES, MAX_IN_FLIGHT_PER_CONNECTION, SSE_REPLAY_EVENTS,
};
use crate::mcp::engine::cancel::{CancelBoard, cancelled_request};
use crate::mcp::engine::inbox::{EngineHandle, Inbound, PeerId, next_peer_id};
use crate::mcp::engine::outbox::{self, Frame as Text, Lane};
use crate::mcp::wire::classic::PROTOCOL_VERSIONS;
use crate::mcp::wire::jsonrpc;
use crate::viewer::{self, Viewer};
use bytes::Bytes;
use futures_util::{StreamExt, stream};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

mod modern;
mod protected;
mod route;
mod stateless;

type Body = BoxBody<Bytes, Infallible>;

/// How long a client may take to send its headers, or its body.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request may wait for its reply before the client gets a 504.
const REPLY_TIMEOUT: Duration = Duration::from_secs(600);
/// The `retry` hint sent on SSE streams, in milliseconds.
const RETRY_MS: u64 = 1_000;

/// Binds and serves on a thread of its own; returns the address bound (port 0 picks one).
pub fn start(config: Listen, viewer: Viewer, engine: EngineHandle) -> std::io::Result<SocketAddr> {
    let shared = Arc::new(Shared {
        loopback_only: config.bind.ip().is_loopback(),
        gate: Gate::new(config.limits),
        refusing: AtomicUsize::new(0),
        config,
        viewer,
        engine,
        sessions: Mutex::default(),
        lane: Lane::new(),
    });
    listener::spawn("http", shared.config.bind, move |l| async move {
        tokio::spawn(expire_idle(shared.clone()));
        tokio::spawn(shared.lane.clone().serve());
        accept(l, shared).await
    })
}

/// What every connection shares.
struct Shared {
    config: Listen,
    /// Connection caps (in all and per peer address).
    gate: Arc<Gate>,
    /// Refused connections being answered now.
    refusing: AtomicUsize,
    /// The browser viewer served at `/`.
    viewer: Viewer,
    /// Bound to loopback: the Host header must name loopback too.
    loopback_only: bool,
    engine: EngineHandle,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// Where the engine wakes this listener's session routers.
    lane: Arc<Lane>,
}

/// One MCP session: an engine connection, and where its messages go.
struct HttpSession {
    /// Its `Mcp-Session-Id`, sent once `initialize` is answered.
    id: String,
    /// What its `initialize` was admitted with: later requests must come with the same
    /// (another token's holder cannot use it).
    grant: Grant,
    peer: PeerId,
    cancels: Arc<CancelBoard>,
    in_flight: Arc<AtomicUsize>,
    routes: Mutex<Routes>,
    last_seen: Mutex<Instant>,
    /// Its `initialize` declared elicitation: a `tools/call` may be asked about (approval),
    /// so its response is an SSE stream that can carry the question.
    elicits: std::sync::atomic::AtomicBool,
}

/// Where the engine's messages for a session go.
#[derive(Default)]
struct Routes {
    /// Requests waiting for their reply, by id (JSON text), with their progress token.
    /// Each message sent on is marked whether it is the reply (else progress), so the
    /// request's task need not parse it again.
    waiting: HashMap<String, Waiter>,
    /// The open GET stream, if any.
    stream: Option<mpsc::Sender<(u64, Text)>>,
    /// Recent stream events, for `Last-Event-ID`.
    replay: VecDeque<(u64, Text)>,
    next_event: u64,
    /// It serves one stateless (2026-07-28) request: that request's notifications go on
    /// its own response, not to a session stream.
    stateless: bool,
}

/// A request waiting for its reply: its progress token, and where its messages go (each
/// marked whether it is the reply).
type Waiter = (Option<String>, mpsc::Sender<(bool, Text)>);

impl Routes {
    /// Routes one message from the engine.
    fn route(&mut self, text: Text) {
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

async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let (stream, from) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                crate::log::warn(&format!("accepting an HTTP connection failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let ticket = match shared.gate.enter(from.ip(), false) {
            Ok(ticket) => ticket,
            // A flood past the cap is answered a few at a time; the rest just closed.
            Err(message) if shared.refusing.load(Ordering::Acquire) < gate::MAX_REFUSING => {
                let shared = shared.clone();
                shared.refusing.fetch_add(1, Ordering::AcqRel);
                tokio::spawn(async move {
                    gate::refuse(stream, &message).await;
                    shared.refusing.fetch_sub(1, Ordering::AcqRel);
                });
                continue;
            }
            Err(_) => continue,
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            // The seat is held for as long as the connection is open.
            let _ticket = ticket;
            let service = service_fn(move |request| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(handle(shared, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(READ_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    // Routes are matched on the path as the path rule reads it (`grants::path`).
    let path = match crate::grants::path::normalize(request.uri().path()) {
        Ok(path) => path,
        Err(refusal) => return text(StatusCode::BAD_REQUEST, &refusal.to_string()),
    };
    match path.as_str() {
        "/healthz" => {
            return match shared.engine.unhealthy() {
                None => text(StatusCode::OK, "ok"),
                Some(why) => text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!("unhealthy: {why}"),
                ),
            };
        }
        "/readyz" => {
            return match shared.engine.not_ready() {
                None => text(StatusCode::OK, "ready"),
                Some(why) => text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!("not ready: {why}"),
                ),
            };
        }
        "/mcp" => {}
        _ if protected::serves(&shared, &path) => return protected::metadata(&shared, &request),
        _ if Viewer::serves(&path) => return view(&shared, &request, &path).await,
        _ => return text(StatusCode::NOT_FOUND, "not found: MCP is served at /mcp"),
    }
    let header = |name: header::HeaderName| header_text(&request, name);
    if shared.loopback_only && !header(header::HOST).is_some_and(|h| is_loopback_name(&h)) {
        return rpc_error(
            StatusCode::FORBIDDEN,
            -32000,
            "the Host header must name this machine's loopback (localhost, 127.0.0.1 or [::1])",
        );
    }
    if !shared
        .config
        .guard
        .origin_allowed(header(header::ORIGIN).as_deref())
    {
        return rpc_error(
            StatusCode::FORBIDDEN,
            -32000,
            "this Origin is not allowed: pages on loopback may connect; allow others with --allow-origin (`null` only with --allow-origin null)",
        );
    }
    let grant = match shared
        .config
        .admission
        .admit(Transport::Http, header(header::AUTHORIZATION).as_deref())
        .await
    {
        Ok(Some(grant)) => grant,
        Ok(None) => unreachable!("HTTP clients always get a grant"),
        Err(refusal) => return protected::refused(&shared, &refusal),
    };
    // POSTs answer this themselves, with the request's id.
    if request.method() != Method::POST
        && let Some(version) = header(header::HeaderName::from_static("mcp-protocol-version"))
        && !PROTOCOL_VERSIONS.contains(&version.as_str())
        && version != crate::mcp::wire::modern::VERSION
    {
        // The 2026-07-28 error, which both eras' clients recognise as a refusal.
        let supported = crate::mcp::wire::modern::supported_versions();
        return json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                Value::Null,
                crate::mcp::wire::modern::UNSUPPORTED_VERSION,
                &format!(
                    "unsupported MCP-Protocol-Version `{version}`; this server speaks {}",
                    supported.join(", ")
                ),
                Some(serde_json::json!({"supported": supported, "requested": version})),
            ),
        );
    }
    let session_id = header(header::HeaderName::from_static("mcp-session-id"));
    match *request.method() {
        Method::POST => post(shared, request, session_id, grant).await,
        Method::GET => get(shared, &request, session_id, &grant),
        Method::DELETE => delete(shared, session_id, &grant),
        _ => {
            let mut r = text(
                StatusCode::METHOD_NOT_ALLOWED,
                "use POST, GET or DELETE on /mcp",
            );
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
    }
}

/// The browser viewer's page and files: the same Host and Origin checks as `/mcp`; glTF
/// assets (world data) also need the bearer token when one is configured. The page and its
/// scripts hold no data, so a browser can load them before the user gives it the token.
async fn view(shared: &Shared, request: &Request<Incoming>, path: &str) -> Response<Body> {
    let header = |name: header::HeaderName| header_text(request, name);
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "the viewer is read with GET",
        );
    }
    if shared.loopback_only && !header(header::HOST).is_some_and(|h| is_loopback_name(&h)) {
        return text(
            StatusCode::FORBIDDEN,
            "the Host header must name this machine's loopback (localhost, 127.0.0.1 or [::1])",
        );
    }
    if !shared
        .config
        .guard
        .origin_allowed(header(header::ORIGIN).as_deref())
    {
        return text(StatusCode::FORBIDDEN, "this Origin is not allowed");
    }
    if Viewer::is_asset(path)
        && let Err(refusal) = shared
            .config
            .admission
            .admit(Transport::Http, header(header::AUTHORIZATION).as_deref())
            .await
    {
        return protected::refused(shared, &refusal);
    }
    match shared.viewer.file(path) {
        Ok(file) => {
            let mut response =
                Response::new(Full::new(Bytes::from(file.bytes.into_owned())).boxed());
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(file.content_type),
            );
            // The page runs only what this binary serves, and talks only to this server.
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
                ),
            );
            headers.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            response
        }
        Err(viewer::Missing::NoThree) => text(
            StatusCode::NOT_FOUND,
            "three.js was not embedded in this build: run `cargo xtask build-guests` (it installs the pinned npm `three`), then rebuild the host",
        ),
        Err(viewer::Missing::NotFound(what)) => {
            text(StatusCode::NOT_FOUND, &format!("not found: {what}"))
        }
    }
}

async fn post(
    shared: Arc<Shared>,
    request: Request<Incoming>,
    session_id: Option<String>,
    grant: Grant,
) -> Response<Body> {
    let headers = request.headers().clone();
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type.starts_with("application/json") {
        return rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32000,
            "send the JSON-RPC message with `Content-Type: application/json`",
        );
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let accepts = |kind: &str| accept.contains(kind) || accept.contains("*/*");
    if !accepts("application/json") && !accepts("text/event-stream") {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "the Accept header must list application/json and text/event-stream",
        );
    }
    let body = match tokio::time::timeout(
        READ_TIMEOUT,
        Limited::new(request.into_body(), MAX_HTTP_BODY_BYTES).collect(),
    )
    .await
    {
        Err(_) => {
            return rpc_error(
                StatusCode::REQUEST_TIMEOUT,
                -32000,
                "the request body did not arrive in time",
            );
        }
        Ok(Err(_)) => {
            return rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32000,
                &format!("the request body is over {MAX_HTTP_BODY_BYTES} bytes"),
            );
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    let mut message: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                &jsonrpc::error(
                    Value::Null,
                    jsonrpc::PARSE_ERROR,
                    &format!("Parse error: {e}"),
                    None,
                ),
            );
        }
    };
    if message.is_array() {
        return json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                Value::Null,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: batches are not supported; send one message per POST",
                None,
            ),
        );
    }
    let text = if carry_trace_context(&headers, &mut message) {
        message.to_string()
    } else {
        String::from_utf8_lossy(&body).into_owned()
    };
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").filter(|_| method.is_some()).cloned();
    if modern::speaks_modern(&headers, &message) {
        let streams = accepts("text/event-stream");
        return stateless::post(shared, grant, &headers, &message, text, id, streams).await;
    }
    if let Some(refused) = modern::unknown_version(&headers) {
        return json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                id.unwrap_or(Value::Null),
                refused.code,
                &refused.message,
                refused.data,
            ),
        );
    }
    let session = match (session_id, method) {
        (None, Some("initialize")) => open_session(&shared, grant),
        (None, _) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                -32000,
                "missing Mcp-Session-Id: send `initialize` first and echo the id it returns",
            );
        }
        (Some(sid), _) => match session(&shared, &sid, &grant) {
            Some(s) => s,
            None => {
                return rpc_error(
                    StatusCode::NOT_FOUND,
                    -32001,
                    "unknown or ended session: initialize a new one",
                );
            }
        },
    };
    *session.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    let Some(id) = id else {
        if method == Some("initialize") {
            // `initialize` sent as a notification opens nothing.
            end_session(&shared, &session);
            return rpc_error(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "`initialize` is a request: give it an `id`",
            );
        }
        // A notification or a response: hand it over, nothing to wait for.
        forward(&shared, &session, &text);
        return empty(StatusCode::ACCEPTED);
    };
    if session.in_flight.load(Ordering::Acquire) >= MAX_IN_FLIGHT_PER_CONNECTION {
        return json_response(
            StatusCode::OK,
            &jsonrpc::error(
                id,
                jsonrpc::SERVER_BUSY,
                &format!(
                    "too many requests in flight on this session (at most {MAX_IN_FLIGHT_PER_CONNECTION}); wait for replies before sending more"
                ),
                None,
            ),
        );
    }
    let token = message
        .pointer("/params/_meta/progressToken")
        .map(Value::to_string);
    if method == Some("initialize") {
        let elicits = message
            .pointer("/params/capabilities")
            .is_some_and(crate::mcp::wire::classic::declares_elicitation);
        session.elicits.store(elicits, Ordering::Relaxed);
    }
    // A call may be put to a person (approval): its response must be able to carry the question.
    let asks = method == Some("tools/call") && session.elicits.load(Ordering::Relaxed);
    let stream = (token.is_some() || asks) && accepts("text/event-stream");
    let (tx, mut rx) = mpsc::channel(64);
    session
        .routes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .waiting
        .insert(id.to_string(), (token, tx));
    forward(&shared, &session, &text);
    let initialized = method == Some("initialize");
    if stream {
        let body = stream::unfold(Some(rx), |rx| async move {
            let mut rx = rx?;
            let (is_reply, message) = tokio::time::timeout(REPLY_TIMEOUT, rx.recv())
                .await
                .ok()??;
            let frame = Frame::data(Bytes::from(format!("event: message\ndata: {message}\n\n")));
            Some((Ok::<_, Infallible>(frame), (!is_reply).then_some(rx)))
        });
        let mut response = Response::new(BodyExt::boxed(StreamBody::new(body)));
        sse_headers(&mut response);
        return with_session(response, &shared, &session, initialized);
    }
    // Plain JSON: the reply (notifications for this request other than progress go to the
    // session's stream).
    let reply = loop {
        match tokio::time::timeout(REPLY_TIMEOUT, rx.recv()).await {
            Ok(Some((is_reply, message))) => {
                if is_reply {
                    break Some(message);
                }
            }
            Ok(None) => break None,
            Err(_) => {
                return rpc_error(
                    StatusCode::GATEWAY_TIMEOUT,
                    -32000,
                    "the call did not answer in time",
                );
            }
        }
    };
    match reply {
        Some(reply) => {
            let failed_initialize = initialized
                && serde_json::from_str::<Value>(&reply).is_ok_and(|m| m.get("error").is_some());
            let mut response = Response::new(full(reply));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            if failed_initialize {
                end_session(&shared, &session);
                return response;
            }
            with_session(response, &shared, &session, initialized)
        }
        // Cancelled: no reply will come.
        None => empty(StatusCode::ACCEPTED),
    }
}

/// The session's server-to-client stream.
fn get(
    shared: Arc<Shared>,
    request: &Request<Incoming>,
    session_id: Option<String>,
    grant: &Grant,
) -> Response<Body> {
    let accept = request
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !accept.contains("text/event-stream") {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "GET /mcp opens an event stream: send `Accept: text/event-stream`",
        );
    }
    let Some(session) = session_id.and_then(|sid| session(&shared, &sid, grant)) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            -32000,
            "GET /mcp needs the Mcp-Session-Id of an initialized session",
        );
    };
    let last: Option<u64> = request
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let (tx, rx) = mpsc::channel::<(u64, Text)>(256);
    let mut first = format!("retry: {RETRY_MS}\n");
    {
        let mut routes = session.routes.lock().unwrap_or_else(|e| e.into_inner());
        // A resumed stream first gets what it missed; a new one a priming event to resume from.
        match last {
            Some(last) => {
                for (n, message) in routes.replay.iter().filter(|(n, _)| *n > last) {
                    first.push_str(&format!("id: {n}\nevent: message\ndata: {message}\n\n"));
                }
            }
            None => first.push_str(&format!("id: {}\ndata: \n\n", routes.next_event)),
        }
        routes.stream = Some(tx);
    }
    let events = stream::once(async move { Ok::<_, Infallible>(Frame::data(Bytes::from(first))) })
        .chain(stream::unfold(rx, |mut rx| async move {
            let (n, message) = rx.recv().await?;
            let frame = Frame::data(Bytes::from(format!(
                "id: {n}\nevent: message\ndata: {message}\n\n"
            )));
            Some((Ok::<_, Infallible>(frame), rx))
        }));
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(events)));
    sse_headers(&mut response);
    response
}

fn delete(shared: Arc<Shared>, session_id: Option<String>, grant: &Grant) -> Response<Body> {
    let Some(sid) = session_id else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            -32000,
            "DELETE /mcp needs the Mcp-Session-Id of the session to end",
        );
    };
    match session(&shared, &sid, grant) {
        Some(session) => {
            end_session(&shared, &session);
            empty(StatusCode::NO_CONTENT)
        }
        None => rpc_error(StatusCode::NOT_FOUND, -32001, "unknown or ended session"),
    }
}

/// A new session: an engine connection whose outbox a router task drains.
fn open_session(shared: &Arc<Shared>, grant: Grant) -> Arc<HttpSession> {
    let peer = next_peer_id();
    let (outbox, own, queue, close) = outbox::socket(&shared.lane);
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
        grant,
        ticket: None,
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
fn session(shared: &Shared, id: &str, grant: &Grant) -> Option<Arc<HttpSession>> {
    shared
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(id)
        .filter(|s| s.grant == *grant)
        .cloned()
}

/// Ends a session: the engine releases it, its streams close.
fn end_session(shared: &Shared, session: &HttpSession) {
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
fn forward(shared: &Shared, session: &HttpSession, text: &str) {
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

/// Registers a new session under a fresh id and names it in the response.
fn with_session(
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

/// Moves a request's W3C trace context from its HTTP headers (`traceparent`, `tracestate`, as
/// instrumented HTTP clients send it) into `params._meta`, where the MCP conventions carry it,
/// unless the message has its own. Whether the message changed.
fn carry_trace_context(headers: &header::HeaderMap, message: &mut Value) -> bool {
    let Some(traceparent) = headers.get("traceparent").and_then(|v| v.to_str().ok()) else {
        return false;
    };
    if message.get("id").is_none() || message.get("method").is_none() {
        return false;
    }
    let params = message
        .as_object_mut()
        .expect("a message with an id is an object")
        .entry("params")
        .or_insert_with(|| Value::Object(Default::default()));
    let Some(meta) = params.as_object_mut().map(|p| {
        p.entry("_meta")
            .or_insert_with(|| Value::Object(Default::default()))
    }) else {
        return false;
    };
    let Some(meta) = meta.as_object_mut() else {
        return false;
    };
    if meta.contains_key("traceparent") {
        return false;
    }
    meta.insert("traceparent".into(), Value::String(traceparent.into()));
    if let Some(state) = headers.get("tracestate").and_then(|v| v.to_str().ok()) {
        meta.insert("tracestate".into(), Value::String(state.into()));
    }
    true
}

fn random_u128() -> u128 {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS has randomness");
    u128::from_le_bytes(bytes)
}

/// Ends sessions no request has touched for a while (their clients went away).
async fn expire_idle(shared: Arc<Shared>) {
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

fn sse_headers(response: &mut Response<Body>) {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
}

fn full(text: impl Into<Bytes>) -> Body {
    BodyExt::boxed(Full::new(text.into()))
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(full(String::new()));
    *response.status_mut() = status;
    response
}

/// A request header's value as text (`None` when missing or not visible ASCII).
fn header_text(request: &Request<Incoming>, name: header::HeaderName) -> Option<String> {
    request
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn text(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(full(format!("{message}\n")));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

fn json_response(status: StatusCode, message: &Value) -> Response<Body> {
    let mut response = Response::new(full(message.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// An HTTP error with a JSON-RPC error body that says what to change.
fn rpc_error(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    json_response(status, &jsonrpc::error(Value::Null, code, message, None))
}
