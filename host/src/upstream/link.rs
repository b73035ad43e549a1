//! One live connection to an upstream server: requests out with their ids, replies matched
//! back to whoever waits for them, and the server's own messages (progress, `list_changed`,
//! pings) handled as they come. A reader thread owns the server's output; a request waits on
//! its own channel, so any number of callers share the link without holding a lock across
//! the wait. Over stdio the server's stderr goes to our log with its name.

use crate::call::{Cancel, ProgressSink};
use crate::limits::{UPSTREAM_MAX_IN_FLIGHT, UPSTREAM_MESSAGE_BYTES};
use crate::mcp::wire::Revision;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a waiting request looks at its caller's cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestError {
    /// The server answered with a JSON-RPC error.
    Rpc { code: i64, message: String },
    /// The deadline passed; the server was sent `notifications/cancelled`.
    Timeout { ms: u64 },
    /// Our caller cancelled; the server was sent `notifications/cancelled`.
    Cancelled,
    /// The connection is gone (the server exited or broke the protocol).
    Closed(String),
    /// Too many requests wait on this server already.
    Busy,
    /// An HTTP upstream answered with this status (the body's start in `body`).
    Http { status: u16, body: String },
}

/// A conversation with an upstream server, whatever carries it (stdio [`Link`], Streamable
/// HTTP [`super::http::HttpLink`]).
pub trait Conversation: Send + Sync {
    /// Sends `method` and waits for its reply, at most `timeout`, stopping early when
    /// `cancel` is raised; progress the server reports for it goes to `progress`. A request
    /// given up on is cancelled at the server (`notifications/cancelled`).
    fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: Option<&Cancel>,
        progress: Option<ProgressSink>,
    ) -> Result<Value, RequestError>;
    /// Sends a notification.
    fn notify(&self, method: &str, params: Value);
    /// Opens what carries the server's tool list changes in `revision`, kept for the
    /// conversation's life (see [`super::handshake::listen_for_changes`]).
    fn listen_for_changes(&self, revision: Revision);
    /// Whether the conversation is over.
    fn is_closed(&self) -> bool;
    /// Ends it (stops a stdio server).
    fn kill(&self);
}

/// What the server told us outside replies.
pub struct Events {
    /// `notifications/tools/list_changed`.
    pub list_changed: Box<dyn Fn() + Send + Sync>,
}

/// A connection to a running server.
pub struct Link {
    name: String,
    writer: Mutex<Box<dyn Write + Send>>,
    pending: Mutex<HashMap<u64, Sender<Result<Value, RequestError>>>>,
    progress: Mutex<HashMap<String, ProgressSink>>,
    next_id: AtomicU64,
    closed: AtomicBool,
    child: Mutex<Option<Child>>,
}

impl Link {
    /// Starts `command` with exactly `env` (plus `PATH` and `HOME`), and reads it. Returns
    /// the link and a receiver that yields once the server's output ends, with why.
    pub fn spawn(
        name: &str,
        command: &str,
        args: &[String],
        env: &std::collections::BTreeMap<String, String>,
        events: Events,
    ) -> std::io::Result<(Arc<Link>, Receiver<String>)> {
        let mut cmd = Command::new(command);
        cmd.args(args).env_clear();
        for key in ["PATH", "HOME"] {
            if let Some(v) = std::env::var_os(key) {
                cmd.env(key, v);
            }
        }
        cmd.envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn()?;
        let stdin: ChildStdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let link = Arc::new(Link {
            name: name.to_string(),
            writer: Mutex::new(Box::new(stdin)),
            pending: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            closed: AtomicBool::new(false),
            child: Mutex::new(Some(child)),
        });
        let log_name = name.to_string();
        std::thread::Builder::new()
            .name(format!("upstream-{name}-stderr"))
            .spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    crate::log::info(&format!("upstream `{log_name}`: {line}"));
                }
            })?;
        let (exited_tx, exited) = channel();
        let reader = link.clone();
        std::thread::Builder::new()
            .name(format!("upstream-{name}-reader"))
            .spawn(move || {
                let why = reader.read_all(stdout, &events);
                reader.close(&why);
                let _ = exited_tx.send(why);
            })?;
        Ok((link, exited))
    }

    /// Reads messages until the server's output ends; returns why it ended.
    fn read_all(&self, out: impl Read, events: &Events) -> String {
        let mut reader = BufReader::new(out);
        let mut line = Vec::new();
        loop {
            line.clear();
            let mut limited = (&mut reader).take(UPSTREAM_MESSAGE_BYTES as u64 + 1);
            match limited.read_until(b'\n', &mut line) {
                Ok(0) => return self.exit_status("its output ended"),
                Ok(_) if line.len() > UPSTREAM_MESSAGE_BYTES => {
                    return format!(
                        "it sent a message over the {UPSTREAM_MESSAGE_BYTES} byte limit"
                    );
                }
                Ok(_) => {}
                Err(e) => return format!("reading it failed: {e}"),
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(text) {
                Ok(message) => self.on_message(message, events),
                Err(e) => crate::log::warn(&format!(
                    "upstream `{}` wrote a line that is not JSON-RPC ({e}); ignored",
                    self.name
                )),
            }
        }
    }

    /// Why the process ended, once it has (waited for briefly).
    fn exit_status(&self, fallback: &str) -> String {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let Some(c) = child.as_mut() else {
            return fallback.to_string();
        };
        for _ in 0..40 {
            if let Ok(Some(status)) = c.try_wait() {
                return format!("it exited ({status})");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        fallback.to_string()
    }

    fn on_message(&self, message: Value, events: &Events) {
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (None, Some(id)) => {
                let Some(id) = id.as_u64() else { return };
                let waiter = self
                    .pending
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                if let Some(waiter) = waiter {
                    let _ = waiter.send(reply_of(message));
                }
            }
            (Some("notifications/progress"), None) => self.on_progress(&message["params"]),
            (Some("notifications/tools/list_changed"), None) => (events.list_changed)(),
            (Some("ping"), Some(id)) => {
                let _ = self.write(&json!({"jsonrpc": "2.0", "id": id, "result": {}}));
            }
            (Some(other), Some(id)) => {
                // Sampling, elicitation, roots: the host offers none of them to upstreams.
                let _ = self.write(&json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601,
                    "message": format!("`{other}` is not offered to upstream servers by this host"),
                }}));
            }
            _ => {}
        }
    }

    fn on_progress(&self, params: &Value) {
        let Some(token) = params.get("progressToken") else {
            return;
        };
        let key = token_key(token);
        let sink = self
            .progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        if let (Some(sink), Some(done)) = (sink, params.get("progress").and_then(Value::as_f64)) {
            let total = params.get("total").and_then(Value::as_f64);
            let message = params
                .get("message")
                .and_then(Value::as_str)
                .map(|m| m.chars().take(512).collect());
            sink(done, total, message);
        }
    }

    /// Writes one message as a line.
    fn write(&self, message: &Value) -> Result<(), RequestError> {
        let mut text = message.to_string();
        text.push('\n');
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        w.write_all(text.as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| RequestError::Closed(format!("writing to it failed: {e}")))
    }

    /// Sends `method` and waits for its reply, at most `timeout`, stopping early when
    /// `cancel` is raised; progress the server reports for it goes to `progress`. A request
    /// given up on is cancelled at the server (`notifications/cancelled`).
    fn send_request(
        &self,
        method: &str,
        mut params: Value,
        timeout: Duration,
        cancel: Option<&Cancel>,
        progress: Option<ProgressSink>,
    ) -> Result<Value, RequestError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(RequestError::Closed("the connection is closed".into()));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = channel();
        {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if pending.len() >= UPSTREAM_MAX_IN_FLIGHT {
                return Err(RequestError::Busy);
            }
            pending.insert(id, tx);
        }
        let token = progress.map(|sink| {
            let token = format!("limina-{id}");
            params["_meta"]["progressToken"] = json!(token);
            self.progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(token.clone(), sink);
            token
        });
        let sent =
            self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let outcome = sent.and_then(|()| self.wait(id, &rx, timeout, cancel));
        self.forget(id, token.as_deref());
        outcome
    }

    fn wait(
        &self,
        id: u64,
        rx: &Receiver<Result<Value, RequestError>>,
        timeout: Duration,
        cancel: Option<&Cancel>,
    ) -> Result<Value, RequestError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.cancel_at_server(id, "the caller's deadline passed");
                return Err(RequestError::Timeout {
                    ms: timeout.as_millis() as u64,
                });
            }
            let slice = if cancel.is_some() {
                left.min(CANCEL_POLL)
            } else {
                left
            };
            match rx.recv_timeout(slice) {
                Ok(reply) => return reply,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(RequestError::Closed("the connection closed".into()));
                }
            }
            if cancel.is_some_and(Cancel::is_cancelled) {
                self.cancel_at_server(id, "the caller cancelled the call");
                return Err(RequestError::Cancelled);
            }
        }
    }

    fn cancel_at_server(&self, id: u64, reason: &str) {
        self.notify(
            "notifications/cancelled",
            json!({"requestId": id, "reason": reason}),
        );
    }

    fn forget(&self, id: u64, token: Option<&str>) {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        if let Some(token) = token {
            self.progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(token);
        }
    }

    /// Marks the link closed and fails every waiting request with `why`.
    fn close(&self, why: &str) {
        self.closed.store(true, Ordering::Release);
        let waiting: Vec<_> = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .collect();
        for (_, waiter) in waiting {
            let _ = waiter.send(Err(RequestError::Closed(why.to_string())));
        }
    }
}

impl Conversation for Link {
    fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: Option<&Cancel>,
        progress: Option<ProgressSink>,
    ) -> Result<Value, RequestError> {
        self.send_request(method, params, timeout, cancel, progress)
    }

    fn notify(&self, method: &str, params: Value) {
        let _ = self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn listen_for_changes(&self, revision: Revision) {
        // Over stdio a 2025-11-25 server's notifications arrive on its output anyway.
        if revision == Revision::Modern {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            let _ = self.write(&super::handshake::listen_request(id));
        }
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn kill(&self) {
        if let Some(mut child) = self.child.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A reply message as a result or an error.
pub(super) fn reply_of(message: Value) -> Result<Value, RequestError> {
    if let Some(error) = message.get("error") {
        return Err(RequestError::Rpc {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message")
                .chars()
                .take(1024)
                .collect(),
        });
    }
    Ok(message.get("result").cloned().unwrap_or(Value::Null))
}

/// Progress tokens are strings or numbers; both key the same map.
pub(super) fn token_key(token: &Value) -> String {
    match token {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
