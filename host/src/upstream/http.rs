//! A conversation with a Streamable HTTP upstream: each request is a POST on a connection of
//! its own, answered with one JSON message or an event stream (progress first, the reply
//! last). The headers follow the revision the message speaks: 2026-07-28 messages carry
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`; 2025-11-25 ones the session the server
//! gave at `initialize` (`Mcp-Session-Id`). A request given up on (cancelled, past its deadline)
//! closes its stream — how 2026-07-28 cancels — and is also cancelled by notification.
//!
//! The host connects only where the configuration says: the name is resolved by the host and
//! every address checked (plain `http` reaches loopback only, a cloud metadata address never),
//! then TCP and, for `https`, TLS with the Mozilla roots (`crate::net::connect`).

use super::handshake;
use super::link::{Conversation, Events, RequestError, reply_of};
use super::oauth::Credentials;
use crate::call::{Cancel, ProgressSink};
use crate::limits::UPSTREAM_MESSAGE_BYTES;
use crate::mcp::wire::Revision;
use crate::mcp::wire::modern::VERSION_KEY;
use crate::net::HttpUrl;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use serde_json::{Value, json};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How often a waiting request looks at its caller's cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(5);
/// How long a notification (which nobody waits on) may take to deliver.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(5);
/// Waits between reopening a listen stream that ended.
const RELISTEN: Duration = Duration::from_secs(1);

/// Where an HTTP upstream lives, parsed once.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub https: bool,
    pub host: String,
    pub port: u16,
    /// `host[:port]` as the `Host` header says it.
    pub authority: String,
    /// Path and query.
    pub path: String,
    /// What `https` trusts: the web roots and `[outbound] extraRoots`.
    pub roots: crate::net::TlsRoots,
}

impl Endpoint {
    /// Parses `url` (already checked by the configuration).
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let HttpUrl {
            https,
            host,
            port,
            authority,
            path,
        } = HttpUrl::parse(url)?;
        // Held to the path rule like every path the host sends (`grants::path`).
        let path =
            crate::grants::path::normalize_target(&path).map_err(|e| format!("`{url}`: {e}"))?;
        Ok(Endpoint {
            https,
            host,
            port,
            authority,
            path,
            roots: crate::net::TlsRoots::default(),
        })
    }

    /// The one address to connect to: resolved by the host, checked.
    pub fn address(&self) -> Result<SocketAddr, String> {
        let ips: Vec<IpAddr> = match self.host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => crate::net::HostResolver::default()
                .into_shared()
                .resolve(&self.host)?,
        };
        let ip = ips
            .into_iter()
            .find(|ip| self.may_reach(*ip))
            .ok_or_else(|| {
                if self.https {
                    format!("`{}` resolves to no address the host may reach", self.host)
                } else {
                    format!(
                        "`{}` resolves beyond loopback, and plain http reaches loopback only; use https",
                        self.host
                    )
                }
            })?;
        Ok(SocketAddr::new(ip, self.port))
    }

    fn may_reach(&self, ip: IpAddr) -> bool {
        if crate::net::address::special(ip) == Some("a cloud metadata address") {
            return false;
        }
        self.https || ip.is_loopback()
    }
}

/// A POST's answer.
pub struct Answer {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: hyper::body::Incoming,
}

/// Sends one POST of `body` with `headers` to `endpoint` on a fresh connection.
pub async fn post(
    endpoint: &Endpoint,
    headers: Vec<(&'static str, String)>,
    body: String,
) -> Result<Answer, String> {
    send(endpoint, hyper::Method::POST, headers, body).await
}

/// Sends one request to `endpoint` on a fresh connection.
async fn send(
    endpoint: &Endpoint,
    method: hyper::Method,
    headers: Vec<(&'static str, String)>,
    body: String,
) -> Result<Answer, String> {
    let addr = endpoint.address()?;
    let tls = endpoint.https.then(|| crate::net::connect::Tls {
        name: endpoint.host.as_str(),
        config: endpoint.roots.client_config(),
    });
    let stream = crate::net::connect::open(addr, tls)
        .await
        .map_err(|e| format!("{} unreachable: {}", endpoint.authority, e.reason))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| format!("HTTP with {} failed: {e}", endpoint.authority))?;
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri(endpoint.path.as_str())
        .header("host", &endpoint.authority);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let request = request
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| format!("building the request failed: {e}"))?;
    let answer = sender
        .send_request(request)
        .await
        .map_err(|e| format!("{} did not answer: {e}", endpoint.authority))?;
    let (parts, body) = answer.into_parts();
    Ok(Answer {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body,
    })
}

/// Reads a whole (small) body, capped.
pub async fn read_body(body: hyper::body::Incoming, cap: usize) -> Result<Vec<u8>, String> {
    let mut body = body;
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("reading the answer failed: {e}"))?;
        if let Ok(data) = frame.into_data() {
            out.extend_from_slice(&data);
            if out.len() > cap {
                return Err(format!("the answer is over the {cap} byte limit"));
            }
        }
    }
    Ok(out)
}

/// A Streamable HTTP upstream.
pub struct HttpLink {
    name: String,
    endpoint: Endpoint,
    credentials: Option<Arc<Credentials>>,
    /// The 2025-11-25 session the server opened at `initialize`.
    session: Mutex<Option<String>>,
    events: Arc<Events>,
    next_id: AtomicU64,
    closed: AtomicBool,
    /// Itself, for the threads it starts.
    me: Weak<HttpLink>,
    /// Told (by being dropped) when the link goes: the supervisor waits on it.
    gone: Mutex<Option<std::sync::mpsc::Sender<String>>>,
}

impl HttpLink {
    pub fn new(
        name: &str,
        url: &str,
        credentials: Option<Arc<Credentials>>,
        events: Events,
        roots: &crate::net::TlsRoots,
    ) -> Result<Arc<HttpLink>, String> {
        let endpoint = Endpoint {
            roots: roots.clone(),
            ..Endpoint::parse(url)?
        };
        Ok(Arc::new_cyclic(|me| HttpLink {
            me: me.clone(),
            gone: Mutex::new(None),
            name: name.to_string(),
            endpoint,
            credentials,
            session: Mutex::new(None),
            events: Arc::new(events),
            next_id: AtomicU64::new(1),
            closed: AtomicBool::new(false),
        }))
    }

    /// The headers `message` travels with.
    async fn headers(&self, message: &Value) -> Result<Vec<(&'static str, String)>, RequestError> {
        let mut headers = vec![
            ("content-type", "application/json".to_string()),
            ("accept", "application/json, text/event-stream".to_string()),
        ];
        let method = message["method"].as_str().unwrap_or("");
        let modern = message
            .pointer("/params/_meta")
            .and_then(|m| m.get(VERSION_KEY))
            .is_some();
        if modern {
            headers.push((
                "mcp-protocol-version",
                Revision::Modern.version().to_string(),
            ));
            headers.push(("mcp-method", method.to_string()));
            if let Some(name) = message.pointer("/params/name").and_then(Value::as_str) {
                headers.push(("mcp-name", name.to_string()));
            }
        } else if method != "initialize" {
            headers.push((
                "mcp-protocol-version",
                Revision::Classic.version().to_string(),
            ));
            self.push_session(&mut headers);
        }
        self.push_bearer(&mut headers).await?;
        Ok(headers)
    }

    /// POSTs `message` and reads its answer up to the reply to `id` (when it has one).
    async fn exchange(
        &self,
        message: &Value,
        id: Option<u64>,
        progress: Option<&ProgressSink>,
    ) -> Result<Value, RequestError> {
        let mut retried = false;
        loop {
            let headers = self.headers(message).await?;
            let answer = post(&self.endpoint, headers, message.to_string())
                .await
                .map_err(RequestError::Closed)?;
            if answer.status == 401
                && !retried
                && let Some(credentials) = &self.credentials
                && credentials.is_refreshable()
            {
                // The token may have been revoked before it expired: fetch a new one once.
                credentials.forget();
                retried = true;
                continue;
            }
            return self.read_answer(answer, message, id, progress).await;
        }
    }

    async fn read_answer(
        &self,
        answer: Answer,
        message: &Value,
        id: Option<u64>,
        progress: Option<&ProgressSink>,
    ) -> Result<Value, RequestError> {
        if let Some(session) = answer.headers.get("mcp-session-id")
            && message["method"] == "initialize"
            && let Ok(session) = session.to_str()
        {
            *self.session.lock().unwrap_or_else(|e| e.into_inner()) = Some(session.to_string());
        }
        let had_session = self
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        if answer.status == 404 && had_session {
            // The server forgot our 2025-11-25 session (it restarted): start over.
            self.kill();
            return Err(RequestError::Closed(
                "the server no longer knows our session; reconnecting".into(),
            ));
        }
        if !(200..300).contains(&answer.status) {
            let body = read_body(answer.body, 64 << 10).await.unwrap_or_default();
            let text = String::from_utf8_lossy(&body);
            // A JSON-RPC error in the body says more than the status.
            if let Ok(reply) = serde_json::from_str::<Value>(&text)
                && reply.get("error").is_some()
            {
                return reply_of(reply);
            }
            return Err(RequestError::Http {
                status: answer.status,
                body: text.chars().take(300).collect(),
            });
        }
        let Some(id) = id else {
            return Ok(Value::Null);
        };
        let streaming = answer
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        if !streaming {
            let body = read_body(answer.body, UPSTREAM_MESSAGE_BYTES)
                .await
                .map_err(RequestError::Closed)?;
            let reply: Value = serde_json::from_slice(&body)
                .map_err(|e| RequestError::Closed(format!("its answer is not JSON: {e}")))?;
            return reply_of(reply);
        }
        let mut events = EventStream::new(answer.body);
        while let Some(message) = events.next().await.map_err(RequestError::Closed)? {
            if message.get("id").and_then(Value::as_u64) == Some(id)
                && message.get("method").is_none()
            {
                return reply_of(message);
            }
            self.on_message(&message, progress);
        }
        Err(RequestError::Closed(
            "its event stream ended before the reply".into(),
        ))
    }

    fn on_message(&self, message: &Value, progress: Option<&ProgressSink>) {
        match message.get("method").and_then(Value::as_str) {
            Some("notifications/progress") => {
                let params = &message["params"];
                if let (Some(sink), Some(done)) =
                    (progress, params.get("progress").and_then(Value::as_f64))
                {
                    let total = params.get("total").and_then(Value::as_f64);
                    let text = params
                        .get("message")
                        .and_then(Value::as_str)
                        .map(|m| m.chars().take(512).collect());
                    sink(done, total, text);
                }
            }
            Some("notifications/tools/list_changed") => (self.events.list_changed)(),
            _ => {}
        }
    }

    /// Runs `work` on a runtime of this thread's own (the caller is never the engine).
    fn block_on<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, RequestError>>,
    ) -> Result<T, RequestError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| RequestError::Closed(format!("no runtime for the request: {e}")))?;
        runtime.block_on(work)
    }
}

impl Conversation for HttpLink {
    fn request(
        &self,
        method: &str,
        mut params: Value,
        timeout: Duration,
        cancel: Option<&Cancel>,
        progress: Option<ProgressSink>,
    ) -> Result<Value, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if progress.is_some() {
            params["_meta"]["progressToken"] = json!(format!("limina-{id}"));
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let deadline = Instant::now() + timeout;
        let outcome = self.block_on(async {
            let exchange = self.exchange(&message, Some(id), progress.as_ref());
            tokio::pin!(exchange);
            loop {
                tokio::select! {
                    reply = &mut exchange => return Ok(reply),
                    () = tokio::time::sleep(CANCEL_POLL) => {}
                }
                if cancel.is_some_and(Cancel::is_cancelled) {
                    return Err(RequestError::Cancelled);
                }
                if Instant::now() >= deadline {
                    return Err(RequestError::Timeout {
                        ms: timeout.as_millis() as u64,
                    });
                }
            }
        });
        match outcome {
            Ok(reply) => reply,
            Err(given_up) => {
                // The stream is closed (the exchange was dropped); say so by notification too.
                let reason = match given_up {
                    RequestError::Cancelled => "the caller cancelled the call",
                    _ => "the caller's deadline passed",
                };
                let mut params = json!({"requestId": id, "reason": reason});
                if message
                    .pointer("/params/_meta")
                    .and_then(|m| m.get(VERSION_KEY))
                    .is_some()
                {
                    params = handshake::stamped(Revision::Modern, params);
                }
                self.notify("notifications/cancelled", params);
                Err(given_up)
            }
        }
    }

    fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let _ = self.block_on(async {
            tokio::time::timeout(NOTIFY_TIMEOUT, self.exchange(&message, None, None))
                .await
                .unwrap_or(Ok(Value::Null))
        });
    }

    fn listen_for_changes(&self, revision: Revision) {
        let Some(link) = self.me() else { return };
        let spawned = std::thread::Builder::new()
            .name(format!("upstream-{}-listen", self.name))
            .spawn(move || {
                while !link.is_closed() {
                    let ended = match revision {
                        Revision::Modern => link.listen_modern(),
                        Revision::Classic => link.block_on(link.listen_classic()),
                    };
                    match ended {
                        // The stream broke: open it again.
                        Err(RequestError::Closed(_)) => std::thread::sleep(RELISTEN),
                        // Refused (the server offers no such stream) or ended by the server.
                        _ => return,
                    }
                }
            });
        if let Err(e) = spawned {
            crate::log::warn(&format!(
                "upstream `{}`: cannot listen for tool changes: {e}",
                self.name
            ));
        }
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn kill(&self) {
        self.closed.store(true, Ordering::Release);
        if let Some(gone) = self.gone.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = gone.send("it was stopped".into());
        }
    }
}

impl HttpLink {
    /// A `subscriptions/listen` POST, read for as long as it lasts (its reply never comes).
    fn listen_modern(&self) -> Result<Value, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = handshake::listen_request(id);
        self.block_on(self.exchange(&message, Some(id), None))
    }

    /// The 2025-11-25 session's id, once the upstream gave one.
    fn push_session(&self, headers: &mut Vec<(&'static str, String)>) {
        let session = self
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(session) = session {
            headers.push(("mcp-session-id", session));
        }
    }

    /// The bearer token the configuration gives (fetched or refreshed when it is OAuth's).
    async fn push_bearer(
        &self,
        headers: &mut Vec<(&'static str, String)>,
    ) -> Result<(), RequestError> {
        if let Some(credentials) = &self.credentials {
            let token = credentials.bearer().await.map_err(|e| RequestError::Http {
                status: 401,
                body: e,
            })?;
            headers.push(("authorization", format!("Bearer {token}")));
        }
        Ok(())
    }

    /// The 2025-11-25 GET stream of the session, read for as long as it lasts.
    async fn listen_classic(&self) -> Result<Value, RequestError> {
        let mut headers = vec![
            ("accept", "text/event-stream".to_string()),
            (
                "mcp-protocol-version",
                Revision::Classic.version().to_string(),
            ),
        ];
        self.push_session(&mut headers);
        self.push_bearer(&mut headers).await?;
        let answer = send(&self.endpoint, hyper::Method::GET, headers, String::new())
            .await
            .map_err(RequestError::Closed)?;
        if answer.status != 200 {
            // 405: the server offers no such stream.
            return Err(RequestError::Http {
                status: answer.status,
                body: String::new(),
            });
        }
        let mut events = EventStream::new(answer.body);
        while let Some(message) = events.next().await.map_err(RequestError::Closed)? {
            self.on_message(&message, None);
        }
        Err(RequestError::Closed("the stream ended".into()))
    }

    /// Keeps `gone` until the link is dropped or killed, so its receiver learns it.
    pub fn hold_until_dropped(&self, gone: std::sync::mpsc::Sender<String>) {
        *self.gone.lock().unwrap_or_else(|e| e.into_inner()) = Some(gone);
    }

    /// This link as an `Arc` (the listen thread keeps one).
    fn me(&self) -> Option<Arc<HttpLink>> {
        self.me.upgrade()
    }
}

/// Server-sent events, one JSON-RPC message per event's `data`.
struct EventStream {
    body: hyper::body::Incoming,
    buffer: Vec<u8>,
}

impl EventStream {
    fn new(body: hyper::body::Incoming) -> EventStream {
        EventStream {
            body,
            buffer: Vec::new(),
        }
    }

    /// The next message, `None` at the stream's end.
    async fn next(&mut self) -> Result<Option<Value>, String> {
        loop {
            if let Some(end) = event_end(&self.buffer) {
                let event: Vec<u8> = self.buffer.drain(..end).collect();
                if let Some(message) = data_of(&event) {
                    return Ok(Some(message));
                }
                continue;
            }
            if self.buffer.len() > UPSTREAM_MESSAGE_BYTES {
                return Err(format!(
                    "an event over the {UPSTREAM_MESSAGE_BYTES} byte limit"
                ));
            }
            match self.body.frame().await {
                None => return Ok(None),
                Some(Err(e)) => return Err(format!("reading the event stream failed: {e}")),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
            }
        }
    }
}

/// Where the first complete event ends (after its blank line), if one is buffered.
fn event_end(buffer: &[u8]) -> Option<usize> {
    let text = buffer;
    for i in 0..text.len() {
        if text[i..].starts_with(b"\n\n") {
            return Some(i + 2);
        }
        if text[i..].starts_with(b"\r\n\r\n") {
            return Some(i + 4);
        }
    }
    None
}

/// The JSON message in an event's `data:` lines, if it holds one.
fn data_of(event: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(event);
    let data: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect();
    if data.is_empty() {
        return None;
    }
    serde_json::from_str(&data.join("\n")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_on_blank_lines_and_join_their_data() {
        let buf = b"event: message\ndata: {\"a\":1}\n\nrest";
        let end = event_end(buf).unwrap();
        assert_eq!(data_of(&buf[..end]), Some(json!({"a": 1})));
        assert_eq!(event_end(b"data: {}\n"), None);
        assert_eq!(data_of(b": keep-alive\n\n"), None);
    }

    #[test]
    fn plain_http_reaches_loopback_only_and_metadata_never() {
        let plain = Endpoint::parse("http://127.0.0.1:9/mcp").unwrap();
        assert_eq!(plain.path, "/mcp");
        assert!(plain.may_reach("127.0.0.1".parse().unwrap()));
        assert!(!plain.may_reach("10.1.2.3".parse().unwrap()));
        let tls = Endpoint::parse("https://mcp.example/x?y=1").unwrap();
        assert_eq!((tls.port, tls.path.as_str()), (443, "/x?y=1"));
        assert!(tls.may_reach("93.184.216.34".parse().unwrap()));
        assert!(!tls.may_reach("169.254.169.254".parse().unwrap()));
    }

    #[test]
    fn the_path_sent_is_held_to_the_path_rule() {
        let dotted = Endpoint::parse("http://127.0.0.1:9/api/v1/../mcp?x=/../y").unwrap();
        assert_eq!(dotted.path, "/api/mcp?x=/../y");
        let err = Endpoint::parse("http://127.0.0.1:9/api/..;/mcp").unwrap_err();
        assert!(err.contains("`path.dotParameter`"), "{err}");
    }
}
