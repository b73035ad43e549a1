//! `limina --mcp-http`: the MCP Streamable HTTP transport at `/mcp` (hyper on tokio), sessions
//! of the engine's one world like any other connection.
//!
//! - `POST /mcp` carries one JSON-RPC message (`post.rs`; 2026-07-28's in `stateless.rs`).
//!   Notifications and responses get 202. A request gets `application/json` with its reply,
//!   or — when it asked for progress (`_meta.progressToken`) and accepts `text/event-stream` —
//!   an SSE stream with its progress and log notifications, then the reply.
//! - `initialize` opens a session (`session.rs`) and names it in `Mcp-Session-Id`; every
//!   later request must carry it (missing: 400; unknown or ended: 404), and
//!   `MCP-Protocol-Version` when sent must be one this server speaks (400 otherwise).
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
use crate::mcp::engine::inbox::EngineHandle;
use crate::mcp::engine::outbox::{Frame as Text, Lane};
use crate::mcp::wire::classic::PROTOCOL_VERSIONS;
use crate::mcp::wire::jsonrpc;
use crate::viewer::{self, Viewer};
use bytes::Bytes;
use futures_util::{StreamExt, stream};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;
use session::{HttpSession, end_session, expire_idle, session};
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

mod modern;
mod post;
mod protected;
mod route;
mod session;
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
        Method::POST => post::post(shared, request, session_id, grant).await,
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
