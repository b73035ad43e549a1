//! Other MCP servers mounted into the registry (`[[upstream]]`): their tools become skills
//! `NAME.tool` that cross the one pipeline like any other — validated against the server's
//! input schema before it sees anything, decided by policy (the entry's `capability`, the
//! profile's allow-list, quotas, the call and upstream wall-time budgets), traced, run off
//! the engine, their output checked against the server's output schema.
//!
//! How a call travels: the engine decides it (`registry/upstream.rs`), a thread of its own
//! sends `tools/call` over the server's [`link::Link`] and waits for the reply, the caller's
//! cancel flag and the entry's `timeoutMs` (either sends the server `notifications/cancelled`),
//! relaying the server's progress to the caller; the engine completes it as it completes any
//! detached call. A [`supervisor`] keeps each stdio server running: started at boot, restarted
//! with backoff when it exits; while it is down its tools answer `handler_error` naming it.
//! When a server says its tools changed, the supervisor lists them again and the engine
//! remounts them between messages; clients hear `notifications/tools/list_changed`.
//!
//! An upstream is sent nothing of the caller's identity: only the tool's name and arguments.

pub mod config;
mod handshake;
mod http;
mod link;
mod oauth;
pub mod pins;
mod supervisor;
pub mod tools;

pub use config::{Auth, Transport, UpstreamConfig};
pub use tools::ToolSpec;

use crate::call::{CallControl, ErrorCode, Failure};
use crate::limits::UPSTREAM_RESULT_BYTES;
use crate::mcp::wire::Revision;
use link::{Conversation, RequestError};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A configured upstream server and its connection, shared by the registry and the threads
/// that call it.
pub struct Upstream {
    pub config: UpstreamConfig,
    live: Mutex<Live>,
    /// A tool list the registry has not mounted yet (after a start or `list_changed`).
    fresh: Mutex<Option<Vec<ToolSpec>>>,
    /// Tools that declared an output schema: their `structuredContent` is the output.
    structured: Mutex<HashSet<String>>,
    /// The host is stopping: do not restart it.
    stopping: AtomicBool,
    /// Its tools' pins (the rug-pull defence).
    pins: Mutex<pins::PinStore>,
}

/// The connection as it stands.
struct Live {
    link: Option<Arc<dyn Conversation>>,
    revision: Revision,
    /// Why it is down, while it is.
    down: String,
}

impl Upstream {
    fn new(config: UpstreamConfig) -> Upstream {
        Upstream {
            live: Mutex::new(Live {
                link: None,
                revision: Revision::Classic,
                down: format!("upstream `{}` has not started yet", config.name),
            }),
            pins: Mutex::new(pins::PinStore::new(
                &config.name,
                config.pinning,
                config.pin.clone(),
            )),
            config,
            fresh: Mutex::new(None),
            structured: Mutex::new(HashSet::new()),
            stopping: AtomicBool::new(false),
        }
    }

    /// Starts `config`'s server and waits (up to [`crate::limits::UPSTREAM_START_MS`]) for its
    /// first tool list. A server that cannot start is retried in the background with backoff;
    /// its tools appear once it answers.
    pub fn start(config: UpstreamConfig) -> Result<Arc<Upstream>, String> {
        Ok(Upstream::start_all(vec![config])?.remove(0))
    }

    /// [`Upstream::start`] for several servers at once: they start together, and the wait for
    /// all of them is one [`crate::limits::UPSTREAM_START_MS`], not one each.
    pub fn start_all(configs: Vec<UpstreamConfig>) -> Result<Vec<Arc<Upstream>>, String> {
        let deadline =
            std::time::Instant::now() + Duration::from_millis(crate::limits::UPSTREAM_START_MS);
        let mut started = Vec::new();
        for config in configs {
            let upstream = Arc::new(Upstream::new(config));
            let first = supervisor::start(&upstream)?;
            started.push((upstream, first));
        }
        Ok(started
            .into_iter()
            .map(|(upstream, first)| {
                supervisor::wait_first(&upstream, first, deadline);
                upstream
            })
            .collect())
    }

    /// Its name: its tools are `NAME.tool`.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The tool list the registry should mount now, if it changed since last taken.
    pub fn take_fresh_tools(&self) -> Option<Vec<ToolSpec>> {
        self.fresh.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Keeps its pins in the trace folder `trace_dir` (else they live in memory).
    pub fn keep_pins_in(&self, trace_dir: &std::path::Path) {
        self.pins().keep_in(trace_dir);
    }

    /// Judges a listing against its pins: what to mount, what is held, what changed.
    pub fn review(&self, tools: Vec<ToolSpec>) -> pins::Review {
        self.pins().review(tools)
    }

    /// The last listing judged again, when an approval changed its pins since.
    pub fn review_if_approved(&self) -> Option<pins::Review> {
        let mut pins = self.pins();
        if !pins.changed_on_disk() {
            return None;
        }
        let listed = pins.listed();
        Some(pins.review(listed))
    }

    fn pins(&self) -> std::sync::MutexGuard<'_, pins::PinStore> {
        self.pins.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The revision it speaks now (`None` while it is down).
    pub fn revision(&self) -> Option<Revision> {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.link.as_ref().map(|_| live.revision)
    }

    /// Stops its server and keeps it stopped (host shutdown).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        if let Some(link) = self
            .live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .link
            .take()
        {
            link.kill();
        }
    }

    /// Calls its tool `tool` with `arguments` (already validated), within its `timeoutMs`,
    /// stopped when `control`'s cancel is raised; progress goes to `control`'s sink. Blocks
    /// the calling thread: never call it on the engine.
    pub fn call(
        &self,
        tool: &str,
        arguments: Value,
        control: &CallControl,
    ) -> Result<Value, Failure> {
        let name = &self.config.name;
        let (link, revision) = {
            let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
            match &live.link {
                Some(link) if !link.is_closed() => (link.clone(), live.revision),
                // Closed a moment ago; the supervisor has not marked it down yet.
                Some(_) => {
                    return Err(Failure::new(
                        ErrorCode::HandlerError,
                        format!(
                            "upstream `{name}` is down (its connection just closed); it is being restarted, try again shortly"
                        ),
                    ));
                }
                None => return Err(Failure::new(ErrorCode::HandlerError, live.down.clone())),
            }
        };
        let params = handshake::stamped(revision, json!({"name": tool, "arguments": arguments}));
        let timeout = Duration::from_millis(self.config.timeout_ms);
        match link.request(
            "tools/call",
            params,
            timeout,
            Some(&control.cancel),
            control.progress.clone(),
        ) {
            Ok(result) => self.result_of(tool, result),
            // A limit cut it, as a guest's deadline does.
            Err(RequestError::Timeout { ms }) => Err(Failure::new(
                ErrorCode::CapacityExceeded,
                format!(
                    "upstream `{name}` did not answer `{tool}` within its {ms} ms timeoutMs; it was sent notifications/cancelled"
                ),
            )),
            Err(RequestError::Cancelled) => Err(Failure::new(
                ErrorCode::Cancelled,
                format!(
                    "the call was cancelled; upstream `{name}` was sent notifications/cancelled"
                ),
            )),
            Err(RequestError::Closed(why)) => Err(Failure::new(
                ErrorCode::HandlerError,
                format!(
                    "upstream `{name}` could not complete the call ({why}); the host reconnects to it by itself, try again shortly"
                ),
            )),
            Err(RequestError::Rpc { code, message }) => Err(Failure::new(
                ErrorCode::HandlerError,
                format!("upstream `{name}` refused `{tool}`: {message} (JSON-RPC error {code})"),
            )),
            Err(RequestError::Http { status, body }) => Err(Failure::new(
                ErrorCode::HandlerError,
                format!("upstream `{name}` answered HTTP {status} to `{tool}`: {body}"),
            )),
            Err(RequestError::Busy) => Err(Failure::new(
                ErrorCode::HandlerError,
                format!(
                    "upstream `{name}` has {} calls waiting already; try again when one finishes",
                    crate::limits::UPSTREAM_MAX_IN_FLIGHT
                ),
            )),
        }
    }

    /// A `tools/call` result as the skill's output: its `structuredContent` for a tool with an
    /// output schema, else `{content}`; an `isError` result is a `handler_error` with its text.
    fn result_of(&self, tool: &str, result: Value) -> Result<Value, Failure> {
        let name = &self.config.name;
        let size = result.to_string().len();
        if size > UPSTREAM_RESULT_BYTES {
            return Err(Failure::new(
                ErrorCode::HandlerError,
                format!(
                    "upstream `{name}` returned {size} bytes for `{tool}`, over the {UPSTREAM_RESULT_BYTES} byte cap"
                ),
            ));
        }
        let content = result.get("content").cloned().unwrap_or(json!([]));
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            return Err(Failure::new(
                ErrorCode::HandlerError,
                format!(
                    "upstream `{name}` tool `{tool}` failed: {}",
                    text_of(&content)
                ),
            ));
        }
        let structured = self
            .structured
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(tool);
        if structured {
            return result.get("structuredContent").cloned().ok_or_else(|| {
                Failure::new(
                    ErrorCode::HandlerError,
                    format!(
                        "upstream `{name}` tool `{tool}` declares an output schema but returned no structuredContent"
                    ),
                )
            });
        }
        Ok(json!({ "content": content }))
    }

    /// Records a fresh tool list for the registry.
    fn offer_tools(&self, tools: Vec<ToolSpec>) {
        *self.structured.lock().unwrap_or_else(|e| e.into_inner()) = tools
            .iter()
            .filter(|t| t.output_schema.is_some())
            .map(|t| t.name.clone())
            .collect();
        *self.fresh.lock().unwrap_or_else(|e| e.into_inner()) = Some(tools);
    }
}

/// The text blocks of a result's content, joined and cut to a readable length.
fn text_of(content: &Value) -> String {
    let text: Vec<&str> = content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let joined = text.join(" ");
    if joined.is_empty() {
        "(no text)".into()
    } else {
        joined.chars().take(1024).collect()
    }
}
