//! How one agent reaches the host: a WebSocket session (initialize, then calls on the one
//! connection) or stateless 2026-07-28 HTTP posts on a kept-alive connection, its identity
//! bound by its own bearer token.

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{WebSocketStream, client_async};

const MODERN: &str = "2026-07-28";

/// A tool call's reply: the JSON-RPC message, or why none came.
pub type Reply = Result<Value, String>;

/// One agent's way to the host.
pub enum Channel {
    Ws(Box<Ws>),
    Http(Http),
}

impl Channel {
    /// Calls tool `name` with `arguments`; the whole JSON-RPC reply.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Reply {
        match self {
            Channel::Ws(ws) => ws.call(name, arguments).await,
            Channel::Http(http) => http.call(name, arguments).await,
        }
    }
}

/// An initialized WebSocket session.
pub struct Ws {
    socket: WebSocketStream<TcpStream>,
    next_id: u64,
}

fn host_port(url: &str) -> Result<String, String> {
    let rest = url
        .split_once("://")
        .map(|(_, r)| r)
        .ok_or_else(|| format!("`{url}` is not a URL"))?;
    Ok(rest.split('/').next().unwrap_or(rest).to_string())
}

impl Ws {
    /// Connects to `url` (`ws://host:port`), shows `token`, and initializes a session as
    /// `agent` with the profile the host gives network clients by default.
    pub async fn open(url: &str, token: Option<&str>, agent: &str) -> Result<Ws, String> {
        let stream = TcpStream::connect(host_port(url)?)
            .await
            .map_err(|e| format!("connecting to {url}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut request = url.into_client_request().map_err(|e| e.to_string())?;
        let headers = request.headers_mut();
        headers.insert("sec-websocket-protocol", HeaderValue::from_static("mcp"));
        if let Some(token) = token {
            let value =
                HeaderValue::from_str(&format!("Bearer {token}")).map_err(|e| e.to_string())?;
            headers.insert("authorization", value);
        }
        let (socket, _) = client_async(request, stream)
            .await
            .map_err(|e| format!("WebSocket handshake: {e}"))?;
        let mut ws = Ws { socket, next_id: 1 };
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "mcp-load crowd", "version": "1"},
            "agentId": agent});
        let reply = ws.request("initialize", init).await?;
        if reply.get("result").is_none() {
            return Err(format!("initialize was refused: {reply}"));
        }
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        ws.send(&note).await?;
        Ok(ws)
    }

    async fn send(&mut self, message: &Value) -> Result<(), String> {
        self.socket
            .send(Message::text(message.to_string()))
            .await
            .map_err(|e| format!("WebSocket send: {e}"))
    }

    async fn request(&mut self, method: &str, params: Value) -> Reply {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        loop {
            let message = match self.socket.next().await {
                Some(Ok(m)) => m,
                Some(Err(e)) => return Err(format!("WebSocket read: {e}")),
                None => return Err("the host closed the WebSocket".into()),
            };
            let text = match message {
                Message::Text(t) => t,
                Message::Close(frame) => {
                    return Err(format!("the host closed the WebSocket: {frame:?}"));
                }
                _ => continue,
            };
            let value: Value =
                serde_json::from_str(&text).map_err(|e| format!("reply is not JSON: {e}"))?;
            // Notifications (logs, progress, deltas) are not the reply.
            if value.get("id").and_then(Value::as_u64) == Some(id) {
                return Ok(value);
            }
        }
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Reply {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}

/// Stateless posts on one kept-alive connection (opened again when the host closes it).
pub struct Http {
    url: String,
    authority: String,
    token: String,
    sender: Option<SendRequest<Full<Bytes>>>,
    next_id: u64,
}

impl Http {
    pub fn new(url: &str, token: &str) -> Result<Http, String> {
        Ok(Http {
            url: url.to_string(),
            authority: host_port(url)?,
            token: token.to_string(),
            sender: None,
            next_id: 1,
        })
    }

    async fn connection(&mut self) -> Result<&mut SendRequest<Full<Bytes>>, String> {
        if self.sender.as_ref().is_none_or(|s| s.is_closed()) {
            let stream = TcpStream::connect(&self.authority)
                .await
                .map_err(|e| format!("connecting to {}: {e}", self.url))?;
            stream.set_nodelay(true).map_err(|e| e.to_string())?;
            let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|e| format!("HTTP handshake: {e}"))?;
            tokio::spawn(async move {
                let _ = connection.await;
            });
            self.sender = Some(sender);
        }
        Ok(self.sender.as_mut().expect("just opened"))
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Reply {
        let id = self.next_id;
        self.next_id += 1;
        let meta = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-load crowd", "version": "1"}});
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}});
        let request = hyper::Request::post(&self.url)
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .header("authorization", format!("Bearer {}", self.token))
            .body(Full::new(Bytes::from(body.to_string())))
            .map_err(|e| e.to_string())?;
        let sender = self.connection().await?;
        sender
            .ready()
            .await
            .map_err(|e| format!("HTTP connection: {e}"))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("HTTP request: {e}"))?;
        let status = response.status();
        let sse = response
            .headers()
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("HTTP body: {e}"))?
            .to_bytes();
        let text = String::from_utf8_lossy(&bytes);
        let json_text = if sse {
            // The reply is the stream's data line carrying our id.
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .find(|d| d.contains("\"id\""))
                .unwrap_or("")
                .to_string()
        } else {
            text.into_owned()
        };
        match serde_json::from_str::<Value>(&json_text) {
            Ok(value) => Ok(value),
            Err(_) => Err(format!(
                "HTTP {status}: {}",
                json_text.chars().take(200).collect::<String>()
            )),
        }
    }
}
