//! `limina --mcp-ws`: MCP over WebSocket, one JSON-RPC message per text frame, one session
//! per connection, many connections on the engine's one world. A connection is a small state
//! machine: a seat at the edge's gate (connection caps), the handshake (subprotocol `mcp`,
//! Origin check, bearer token when configured, which decides what the client may take), then a
//! reader that hands text messages to the engine — its bytes metered on the way (see
//! `edge::meter`), its first message and every unfinished one on a deadline — and a bounded
//! outbox, written to the socket by the listener's writer threads at each ring of the engine
//! (`outbox::Fanout`); the connection's own writer task takes over while the socket is full,
//! and sends what the transport queues itself and the close frame. It never touches the
//! registry.

use super::bearer;
use super::edge::gate::{self, Gate, Ticket};
use super::edge::meter::{Metered, Pool, Signals};
use super::edge::{EdgeLimits, Grant, Transport};
use super::listener::{self, Listen};
use crate::limits::{
    MAX_IN_FLIGHT_PER_CONNECTION, MAX_WS_MESSAGE_BYTES, WS_HANDSHAKE_PEEK_BYTES,
    WS_READ_BUFFER_BYTES, WS_WRITER_THREADS,
};
use crate::mcp::engine::cancel::{CancelBoard, cancelled_request};
use crate::mcp::engine::inbox::{EngineHandle, Inbound, PeerId, next_peer_id};
use crate::mcp::engine::outbox::socket::{Pumped, Socket, Wire};
use crate::mcp::engine::outbox::{self, CloseSignal, Fanout, Lane, Sent};
use crate::mcp::wire::jsonrpc;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{self, HeaderValue};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// How long a client may take to finish the WebSocket handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Binds and serves on a thread of its own; returns the address bound (port 0 picks one).
pub fn start(config: Listen, engine: EngineHandle) -> std::io::Result<SocketAddr> {
    let bind = config.bind;
    let edge = Arc::new(Edge {
        gate: Gate::new(config.limits),
        pool: Pool::new(config.limits.max_pending_frame_bytes),
        refusing: AtomicUsize::new(0),
        lane: Lane::writing(Fanout::start("ws", WS_WRITER_THREADS)?),
        config,
    });
    listener::spawn("ws", bind, move |l| accept(l, edge, engine))
}

/// What every connection of the listener shares.
struct Edge {
    config: Listen,
    gate: Arc<Gate>,
    /// Bytes held in unfinished messages, all connections together.
    pool: Arc<Pool>,
    /// Refused connections being answered now.
    refusing: AtomicUsize,
    /// Where the engine wakes this listener's writers.
    lane: Arc<Lane>,
}

async fn accept(listener: TcpListener, edge: Arc<Edge>, engine: EngineHandle) {
    loop {
        match listener.accept().await {
            Ok((stream, from)) => {
                let _ = stream.set_nodelay(true);
                match edge.gate.enter(from.ip(), true) {
                    Ok(ticket) => {
                        let id = next_peer_id();
                        tokio::spawn(connection(
                            stream,
                            from,
                            id,
                            ticket,
                            edge.clone(),
                            engine.clone(),
                        ));
                    }
                    // A flood past the cap is answered a few at a time; the rest just closed.
                    Err(message) if edge.refusing.load(Ordering::Acquire) < gate::MAX_REFUSING => {
                        let edge = edge.clone();
                        edge.refusing.fetch_add(1, Ordering::AcqRel);
                        tokio::spawn(async move {
                            gate::refuse(stream, &message).await;
                            edge.refusing.fetch_sub(1, Ordering::AcqRel);
                        });
                    }
                    Err(_) => drop(stream),
                }
            }
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                crate::log::warn(&format!("accepting a WebSocket connection failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// One client connection: the handshake, then its engine connection opened, a writer
/// draining its outbox and a reader handing its messages over, until either end closes. Its
/// seat at the gate (`ticket`) is held until it ends.
async fn connection(
    stream: TcpStream,
    from: SocketAddr,
    id: PeerId,
    ticket: Ticket,
    edge: Arc<Edge>,
    engine: EngineHandle,
) {
    let wire = Wire::new(stream);
    let Some((ws, grant, meter)) = accept_handshake(&wire, from, &edge, &engine).await else {
        return;
    };
    let opened = Instant::now();
    let limits = edge.config.limits;
    let ticket = Arc::new(ticket);
    crate::log::debug(&format!("WebSocket connection {id} from {from}"));
    let (sink, frames) = ws.split();
    let (outbox, own, queue, close) = outbox::socket(&edge.lane, Some(wire.clone()));
    let peer = Peer {
        id,
        cancels: Arc::new(CancelBoard::default()),
        in_flight: Arc::new(AtomicUsize::new(0)),
        own,
        close,
        engine,
    };
    peer.open(outbox, grant, ticket.clone());
    let writer = tokio::spawn(write(sink, queue, peer.close.clone(), wire));
    peer.read(frames, &meter, &limits, opened).await;
    let Peer {
        id,
        own,
        engine,
        cancels: _cancels,
        in_flight: _in_flight,
        close: _close,
    } = peer;
    drop(own);
    engine.send(Inbound::Close { id });
    // Let the writer send a close frame it was asked for; it ends once the engine lets go.
    let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
}

/// The WebSocket handshake within `HANDSHAKE_TIMEOUT`, over a stream whose bytes are metered:
/// the socket, what the client was admitted with, and its meter. `None` when it was refused
/// or too slow (logged).
async fn accept_handshake(
    wire: &Arc<Wire>,
    from: SocketAddr,
    edge: &Edge,
    engine: &EngineHandle,
) -> Option<(WebSocketStream<Metered<Socket>>, Grant, Arc<Signals>)> {
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(MAX_WS_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_WS_MESSAGE_BYTES))
        .read_buffer_size(WS_READ_BUFFER_BYTES);
    // The token is checked before the handshake reads the request (a check may wait on the
    // identity provider, which the handshake's callback cannot); the callback answers with it.
    let started = Instant::now();
    let admitted = match tokio::time::timeout(HANDSHAKE_TIMEOUT, async {
        let authorization = peek_authorization(wire.stream()).await;
        edge.config
            .admission
            .admit(Transport::WebSocket, authorization.as_deref())
            .await
    })
    .await
    {
        Ok(admitted) => admitted,
        Err(_) => {
            crate::log::debug(&format!("WebSocket handshake from {from} timed out"));
            return None;
        }
    };
    let (stream, meter) = Metered::new(Socket(wire.clone()), edge.pool.clone());
    let mut grant = None;
    #[allow(clippy::result_large_err)] // the handshake's own error type
    let check = |request: &Request, response: Response| {
        handshake(
            &edge.config,
            engine,
            request,
            response,
            admitted,
            &mut grant,
        )
    };
    let ws = match tokio::time::timeout(
        HANDSHAKE_TIMEOUT.saturating_sub(started.elapsed()),
        tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(ws_config)),
    )
    .await
    {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            crate::log::debug(&format!("WebSocket handshake from {from} refused: {e}"));
            return None;
        }
        Err(_) => {
            crate::log::debug(&format!("WebSocket handshake from {from} timed out"));
            return None;
        }
    };
    Some((ws, grant?, meter))
}

/// The connection's writer: writes what the outbox holds when woken (the transport's own
/// messages, or a socket the fan-out found full, waited on until it has room), until the
/// outbox ends, the socket fails, or a close is asked for (sent ahead of anything queued).
async fn write<S>(mut sink: S, queue: outbox::Receiver, closing: Arc<CloseSignal>, wire: Arc<Wire>)
where
    S: futures_util::Sink<Message, Error = WsError> + Unpin,
{
    let mut full = false;
    loop {
        tokio::select! {
            biased;
            (code, reason) = closing.requested() => {
                wire.closing();
                let frame = CloseFrame { code: code.into(), reason: reason.into() };
                let _ = sink.send(Message::Close(Some(frame))).await;
                break;
            }
            room = wire.writable(), if full => {
                if room.is_err() {
                    break;
                }
            }
            more = queue.woken(), if !full => {
                if !more {
                    break;
                }
            }
        }
        match queue.pump() {
            Pumped::Done => full = false,
            Pumped::Blocked => full = true,
            Pumped::Over => break,
        }
    }
}

/// A connection's side of the engine: its number, its requests' cancellation flags and
/// in-flight count, its way to queue a frame itself (progress, refusals) and to close.
struct Peer {
    id: PeerId,
    cancels: Arc<CancelBoard>,
    in_flight: Arc<AtomicUsize>,
    own: outbox::Sender,
    close: Arc<CloseSignal>,
    engine: EngineHandle,
}

impl Peer {
    /// Tells the engine the client connected, admitted with `grant`, seated by `ticket`.
    fn open(&self, outbox: outbox::Outbox, grant: Grant, ticket: Arc<Ticket>) {
        let progress = self.own.clone();
        self.engine.send(Inbound::Open {
            id: self.id,
            outbox,
            cancels: self.cancels.clone(),
            in_flight: self.in_flight.clone(),
            // Progress is advisory: a report that finds the queue full is dropped.
            notify: Arc::new(move |message: Value| {
                let _ = progress.send_now(outbox::frame(&message));
            }),
            transport_session: None,
            grant: Some(grant),
            default_profile: None,
            ticket: Some(ticket),
            input: None,
        });
    }

    /// Reads frames until the client closes, breaks a rule, or a deadline passes: its first
    /// message within `firstMessageMs` of `opened`, each message whole within `frameReadMs`.
    async fn read<R>(&self, mut frames: R, meter: &Signals, limits: &EdgeLimits, opened: Instant)
    where
        R: futures_util::Stream<Item = Result<Message, WsError>> + Unpin,
    {
        let mut spoken = false;
        loop {
            let wait = next_check(limits, spoken, opened, meter);
            let frame = tokio::select! {
                biased;
                (code, reason) = meter.refused() => {
                    self.close.close(code, &reason);
                    return;
                }
                frame = tokio::time::timeout(wait, frames.next()) => frame,
            };
            let frame = match frame {
                Ok(Some(frame)) => frame,
                Ok(None) => return,
                Err(_) => {
                    if let Some(reason) = overdue(limits, spoken, opened, meter) {
                        self.close.close(1008, &reason);
                        return;
                    }
                    continue;
                }
            };
            spoken |= matches!(frame, Ok(Message::Text(_)));
            if !self.take(frame) {
                return;
            }
        }
    }

    /// One frame: a text message is handed over, pings are left to the protocol layer, and
    /// anything else ends the connection (false), closed with the reason when there is one.
    fn take(&self, frame: Result<Message, WsError>) -> bool {
        match frame {
            Ok(Message::Text(text)) => {
                self.text(text.as_str());
                true
            }
            Ok(Message::Binary(_)) => {
                self.close.close(
                    1003,
                    "binary frames are not accepted: send each JSON-RPC message as a text frame",
                );
                false
            }
            Ok(Message::Close(_)) => false,
            Ok(_) => true, // pings are answered by the protocol layer
            Err(WsError::Capacity(e)) => {
                self.close.close(
                    1009,
                    &format!("message too big ({e}); at most {MAX_WS_MESSAGE_BYTES} bytes"),
                );
                false
            }
            Err(WsError::Utf8(e)) => {
                self.close
                    .close(1007, &format!("a text frame is not valid UTF-8 ({e})"));
                false
            }
            Err(e) => {
                crate::log::debug(&format!("WebSocket connection {}: {e}", self.id));
                false
            }
        }
    }

    /// One text message: cancellations take effect at once; past the in-flight cap a request
    /// is refused here (the engine never sees the flood) and a notification dropped, but for
    /// a cancellation; the rest goes to the engine in order.
    fn text(&self, text: &str) {
        let cancel = cancelled_request(text.as_bytes());
        if let Some(request) = &cancel {
            self.cancels.cancel(request);
        }
        // A cancellation goes on even past the cap: behind a joined process's listener the
        // flag it raises is the serving host's, which only the message reaches.
        if cancel.is_none()
            && self.in_flight.load(Ordering::Acquire) >= MAX_IN_FLIGHT_PER_CONNECTION
        {
            let request_id = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|m| m.get("id").cloned());
            if let Some(request_id) = request_id {
                let refusal = jsonrpc::error(
                    request_id,
                    jsonrpc::SERVER_BUSY,
                    &format!(
                        "too many requests in flight on this connection (at most {MAX_IN_FLIGHT_PER_CONNECTION}); wait for replies before sending more"
                    ),
                    None,
                );
                if self.own.send_now(outbox::frame(&refusal)) != Sent::Queued {
                    self.close.close(
                        1008,
                        "the client is flooding requests and not reading replies",
                    );
                }
            }
            return;
        }
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        if !self.engine.send(Inbound::Message {
            id: self.id,
            text: text.to_string(),
        }) {
            self.close.close(1001, "the host is shutting down");
        }
    }
}

/// How long the reader may wait for a frame before looking at its deadlines again.
fn next_check(limits: &EdgeLimits, spoken: bool, opened: Instant, meter: &Signals) -> Duration {
    // A message may start arriving while the reader waits: look again often enough.
    let mut wait = (limits.frame_read / 4).min(Duration::from_secs(1));
    if !spoken {
        wait = wait.min(limits.first_message.saturating_sub(opened.elapsed()));
    }
    if let Some(age) = meter.message_age() {
        wait = wait.min(limits.frame_read.saturating_sub(age));
    }
    wait.max(Duration::from_millis(5))
}

/// Why the connection is closed now, if a deadline passed: no first message in time, or a
/// message that stopped arriving.
fn overdue(limits: &EdgeLimits, spoken: bool, opened: Instant, meter: &Signals) -> Option<String> {
    if meter
        .message_age()
        .is_some_and(|age| age >= limits.frame_read)
    {
        return Some(format!(
            "a message did not finish arriving within {} ms (`[network] frameReadMs`)",
            limits.frame_read.as_millis()
        ));
    }
    if !spoken && opened.elapsed() >= limits.first_message {
        return Some(format!(
            "no message within {} ms of connecting (`[network] firstMessageMs`)",
            limits.first_message.as_millis()
        ));
    }
    None
}

/// Accepts the `mcp` subprotocol, checks the Origin, and answers with what the bearer token
/// was `admitted` with; `grant` is what the client may take.
#[allow(clippy::result_large_err)] // the handshake's own error type
fn handshake(
    config: &Listen,
    engine: &EngineHandle,
    request: &Request,
    mut response: Response,
    admitted: Result<Option<Grant>, crate::identity::Refusal>,
    grant: &mut Option<Grant>,
) -> Result<Response, ErrorResponse> {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    if !config.guard.origin_allowed(header("origin")) {
        return Err(refuse(
            http::StatusCode::FORBIDDEN,
            &format!(
                "origin `{}` is not allowed: pages on loopback may connect; allow others with --allow-origin (`null` only with --allow-origin null)",
                header("origin").unwrap_or_default()
            ),
        ));
    }
    match admitted {
        Ok(admitted) => *grant = admitted,
        Err(refusal) => {
            let answer = bearer::refused(&config.admission, engine, Transport::WebSocket, &refusal);
            let mut response = refuse(answer.status, &answer.message);
            response
                .headers_mut()
                .insert("www-authenticate", answer.challenge);
            return Err(response);
        }
    }
    let offers_mcp =
        header("sec-websocket-protocol").is_some_and(|v| v.split(',').any(|p| p.trim() == "mcp"));
    if offers_mcp {
        response
            .headers_mut()
            .insert("sec-websocket-protocol", HeaderValue::from_static("mcp"));
    }
    Ok(response)
}

/// The `Authorization` header of the handshake request, read without taking the bytes off
/// the socket (the handshake reads the request itself afterwards): peeks until the head is
/// complete. A head larger than the peek is left to the handshake, which refuses it.
async fn peek_authorization(stream: &TcpStream) -> Option<String> {
    let mut buf = vec![0u8; WS_HANDSHAKE_PEEK_BYTES];
    loop {
        let n = stream.peek(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        // The head ends at an empty line (bare line ends are accepted, as the handshake does).
        if let Some(end) = buf[..n]
            .windows(2)
            .position(|w| w == b"\n\n")
            .or_else(|| buf[..n].windows(4).position(|w| w == b"\r\n\r\n"))
        {
            return authorization_of(&buf[..end]);
        }
        if n == buf.len() {
            return None;
        }
        // The rest of the head is on its way; a peek would return the same bytes at once.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// The `Authorization` header in a request head.
fn authorization_of(head: &[u8]) -> Option<String> {
    let head = std::str::from_utf8(head).ok()?;
    head.lines().skip(1).find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("authorization")
            .then(|| value.trim().to_string())
    })
}

fn refuse(status: http::StatusCode, message: &str) -> ErrorResponse {
    let mut response = ErrorResponse::new(Some(format!("{message}\n")));
    *response.status_mut() = status;
    response
}
