//! `limina --mcp-ws`: MCP over WebSocket, one JSON-RPC message per text frame, one session
//! per connection, many connections on the engine's one world. A connection is a small state
//! machine: handshake (subprotocol `mcp`, bearer token when configured, Origin check), then a
//! reader that hands text frames to the engine and a writer that drains the bounded outbox.
//! It never touches the registry.

use super::cancel::{CancelBoard, cancelled_request};
use super::engine::{EngineHandle, Inbound, PeerId, next_peer_id};
use super::jsonrpc;
use super::listener::{self, Listen};
use super::outbox::{self, CloseSignal};
use crate::limits::{MAX_IN_FLIGHT_PER_CONNECTION, MAX_WS_MESSAGE_BYTES};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
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
    listener::spawn("ws", bind, move |l| accept(l, Arc::new(config), engine))
}

async fn accept(listener: TcpListener, config: Arc<Listen>, engine: EngineHandle) {
    loop {
        match listener.accept().await {
            Ok((stream, from)) => {
                let _ = stream.set_nodelay(true);
                let id = next_peer_id();
                tokio::spawn(connection(stream, from, id, config.clone(), engine.clone()));
            }
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                crate::log::warn(&format!("accepting a WebSocket connection failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

async fn connection(
    stream: TcpStream,
    from: SocketAddr,
    id: PeerId,
    config: Arc<Listen>,
    engine: EngineHandle,
) {
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(MAX_WS_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_WS_MESSAGE_BYTES));
    #[allow(clippy::result_large_err)] // the handshake's own error type
    let check = |request: &Request, response: Response| handshake(&config, request, response);
    let ws = match tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(ws_config)),
    )
    .await
    {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            crate::log::debug(&format!("WebSocket handshake from {from} refused: {e}"));
            return;
        }
        Err(_) => {
            crate::log::debug(&format!("WebSocket handshake from {from} timed out"));
            return;
        }
    };
    crate::log::debug(&format!("WebSocket connection {id} from {from}"));
    let (mut sink, mut frames) = ws.split();
    let (outbox, own, mut queue, close) = outbox::socket();
    let cancels = Arc::new(CancelBoard::default());
    let in_flight = Arc::new(AtomicUsize::new(0));
    let progress = own.clone();
    engine.send(Inbound::Open {
        id,
        outbox,
        cancels: cancels.clone(),
        in_flight: in_flight.clone(),
        // Progress is advisory: a report that finds the queue full is dropped.
        notify: Arc::new(move |message: Value| {
            let _ = progress.try_send(message.to_string());
        }),
        transport_session: None,
    });

    let closing = close.clone();
    let writer = tokio::spawn(async move {
        loop {
            tokio::select! {
                biased;
                (code, reason) = closing.requested() => {
                    let frame = CloseFrame { code: code.into(), reason: reason.into() };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    break;
                }
                message = queue.recv() => match message {
                    Some(text) => if sink.send(Message::Text(text.into())).await.is_err() { break },
                    None => break,
                },
            }
        }
    });

    while let Some(frame) = frames.next().await {
        match frame {
            Ok(Message::Text(text)) => {
                read_text(
                    text.as_str(),
                    id,
                    &cancels,
                    &in_flight,
                    &own,
                    &close,
                    &engine,
                );
            }
            Ok(Message::Binary(_)) => {
                close.close(
                    1003,
                    "binary frames are not accepted: send each JSON-RPC message as a text frame",
                );
                break;
            }
            Ok(Message::Close(_)) => break,
            Ok(_) => {} // pings are answered by the protocol layer
            Err(WsError::Capacity(e)) => {
                close.close(
                    1009,
                    &format!(
                        "message too big ({e}); at most {MAX_WS_MESSAGE_BYTES} bytes per message"
                    ),
                );
                break;
            }
            Err(e) => {
                crate::log::debug(&format!("WebSocket connection {id}: {e}"));
                break;
            }
        }
    }
    drop(own);
    engine.send(Inbound::Close { id });
    // Let the writer send a close frame it was asked for; it ends once the engine lets go.
    let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
}

/// One text frame: cancellations take effect at once; past the in-flight cap a request is
/// refused here (the engine never sees the flood); the rest goes to the engine in order.
fn read_text(
    text: &str,
    id: PeerId,
    cancels: &CancelBoard,
    in_flight: &AtomicUsize,
    own: &mpsc::Sender<String>,
    close: &CloseSignal,
    engine: &EngineHandle,
) {
    if let Some(request) = cancelled_request(text.as_bytes()) {
        cancels.cancel(&request);
    }
    if in_flight.load(Ordering::Acquire) >= MAX_IN_FLIGHT_PER_CONNECTION {
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
            if own.try_send(refusal.to_string()).is_err() {
                close.close(
                    1008,
                    "the client is flooding requests and not reading replies",
                );
            }
        }
        return;
    }
    in_flight.fetch_add(1, Ordering::AcqRel);
    if !engine.send(Inbound::Message {
        id,
        text: text.to_string(),
    }) {
        close.close(1001, "the host is shutting down");
    }
}

/// Accepts the `mcp` subprotocol, checks the bearer token and the Origin.
#[allow(clippy::result_large_err)] // the handshake's own error type
fn handshake(
    config: &Listen,
    request: &Request,
    mut response: Response,
) -> Result<Response, ErrorResponse> {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    if !config.guard.authorized(header("authorization")) {
        let mut refusal = refuse(
            http::StatusCode::UNAUTHORIZED,
            "a bearer token is required: send `Authorization: Bearer <token>`",
        );
        refusal.headers_mut().insert(
            "www-authenticate",
            HeaderValue::from_static("Bearer realm=\"limina\""),
        );
        return Err(refusal);
    }
    if !config.guard.origin_allowed(header("origin")) {
        return Err(refuse(
            http::StatusCode::FORBIDDEN,
            &format!(
                "origin `{}` is not allowed: pages on loopback may connect; allow others with --allow-origin",
                header("origin").unwrap_or_default()
            ),
        ));
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

fn refuse(status: http::StatusCode, message: &str) -> ErrorResponse {
    let mut response = ErrorResponse::new(Some(format!("{message}\n")));
    *response.status_mut() = status;
    response
}
