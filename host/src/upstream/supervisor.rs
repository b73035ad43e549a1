//! Keeps a stdio upstream running: start it, open the conversation, list its tools; when it
//! exits, mark its tools down (they answer `handler_error` naming it, at once) and start it
//! again after a backoff that doubles with each failure and resets once a start held.

use super::handshake;
use super::http::HttpLink;
use super::link::{Conversation, Events, Link, RequestError};
use super::oauth::Credentials;
use super::tools::{self, ToolSpec};
use super::{Transport, Upstream};
use crate::limits::{UPSTREAM_BACKOFF_MAX_MS, UPSTREAM_BACKOFF_MIN_MS, UPSTREAM_START_MS};
use crate::mcp::wire::Revision;
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Most `tools/list` pages read from one server.
const MAX_PAGES: usize = 32;

/// A run that lasted this long resets the backoff: the server works, it merely stopped.
const HEALTHY_RUN: Duration = Duration::from_secs(10);

/// Starts the supervisor thread of `upstream`; the receiver yields its first start's outcome.
pub(super) fn start(
    upstream: &Arc<Upstream>,
) -> Result<std::sync::mpsc::Receiver<Result<(), String>>, String> {
    let (first_tx, first) = channel();
    let weak = Arc::downgrade(upstream);
    std::thread::Builder::new()
        .name(format!("upstream-{}", upstream.name()))
        .spawn(move || supervise(weak, first_tx))
        .map_err(|e| {
            format!(
                "upstream `{}`: cannot start its supervisor: {e}",
                upstream.name()
            )
        })?;
    Ok(first)
}

/// Waits for `upstream`'s first start until `deadline`; a failed or late one is logged (it is
/// retried in the background, and its tools are mounted once it answers).
pub(super) fn wait_first(
    upstream: &Upstream,
    first: std::sync::mpsc::Receiver<Result<(), String>>,
    deadline: Instant,
) {
    match first.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => crate::log::error(&format!(
            "{why}; its tools are mounted once it starts (retried with backoff)"
        )),
        Err(_) => crate::log::error(&format!(
            "upstream `{}` did not finish starting within {UPSTREAM_START_MS} ms; its tools are mounted once it answers",
            upstream.name()
        )),
    }
}

fn supervise(weak: Weak<Upstream>, first: std::sync::mpsc::Sender<Result<(), String>>) {
    let mut backoff = UPSTREAM_BACKOFF_MIN_MS;
    let mut first = Some(first);
    loop {
        let Some(upstream) = weak.upgrade() else {
            return;
        };
        if upstream.stopping.load(Ordering::Acquire) {
            return;
        }
        let name = upstream.name().to_string();
        match connect(&upstream, &weak) {
            Ok((link, exited)) => {
                if let Some(first) = first.take() {
                    let _ = first.send(Ok(()));
                }
                let began = Instant::now();
                // Waiting for the exit must not keep the upstream alive.
                drop(upstream);
                let why = exited
                    .recv()
                    .unwrap_or_else(|_| "its reader stopped".into());
                link.kill();
                let Some(upstream) = weak.upgrade() else {
                    return;
                };
                if upstream.stopping.load(Ordering::Acquire) {
                    return;
                }
                if began.elapsed() >= HEALTHY_RUN {
                    backoff = UPSTREAM_BACKOFF_MIN_MS;
                }
                mark_down(
                    &upstream,
                    format!(
                        "upstream `{name}` is down ({why}); it is being restarted, try again in about {backoff} ms"
                    ),
                );
            }
            Err(why) => {
                let message = format!("upstream `{name}` could not start: {why}");
                if let Some(first) = first.take() {
                    let _ = first.send(Err(message.clone()));
                } else {
                    crate::log::warn(&format!("{message}; retrying in {backoff} ms"));
                }
                mark_down(
                    &upstream,
                    format!(
                        "upstream `{name}` is down ({why}); the host retries every {backoff} ms at most"
                    ),
                );
            }
        }
        std::thread::sleep(Duration::from_millis(backoff));
        backoff = (backoff * 2).min(UPSTREAM_BACKOFF_MAX_MS);
    }
}

fn mark_down(upstream: &Upstream, why: String) {
    crate::log::warn(&why);
    let mut live = upstream.live.lock().unwrap_or_else(|e| e.into_inner());
    live.link = None;
    live.down = why;
}

/// Starts the server, opens the conversation and offers its tools; the link and the receiver
/// that yields once it exits.
fn connect(
    upstream: &Arc<Upstream>,
    weak: &Weak<Upstream>,
) -> Result<(Arc<dyn Conversation>, Receiver<String>), String> {
    let on_change = weak.clone();
    let events = Events {
        list_changed: Box::new(move || {
            if let Some(upstream) = on_change.upgrade() {
                // The reader thread must go on reading (the listing's reply comes through it).
                std::thread::spawn(move || relist(&upstream));
            }
        }),
    };
    let (link, exited): (Arc<dyn Conversation>, Receiver<String>) = match &upstream.config.transport
    {
        Transport::Stdio { command, args, env } => {
            let (link, exited) = Link::spawn(upstream.name(), command, args, env, events)
                .map_err(|e| format!("`{command}` could not be run: {e}"))?;
            (link, exited)
        }
        Transport::Http { url } => {
            let roots = &upstream.config.roots;
            let credentials = Credentials::of(&upstream.config.auth, roots)?.map(Arc::new);
            let link = HttpLink::new(upstream.name(), url, credentials, events, roots)?;
            // No process to watch: the receiver yields once the link is dropped.
            let (gone, exited) = channel();
            link.hold_until_dropped(gone);
            (link, exited)
        }
    };
    let timeout = Duration::from_millis(UPSTREAM_START_MS);
    let opened = handshake::handshake(link.as_ref(), timeout).and_then(|(revision, server)| {
        let tools = list_tools(link.as_ref(), revision, &upstream.config, timeout)?;
        Ok((revision, server, tools))
    });
    let (revision, server, tools) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            link.kill();
            return Err(describe(e));
        }
    };
    crate::log::info(&format!(
        "upstream `{}` ({server}) speaks {}; {} tools mounted: {}",
        upstream.name(),
        revision.version(),
        tools.len(),
        tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    upstream.offer_tools(tools);
    handshake::listen_for_changes(link.as_ref(), revision);
    let mut live = upstream.live.lock().unwrap_or_else(|e| e.into_inner());
    live.link = Some(link.clone());
    live.revision = revision;
    Ok((link, exited))
}

/// Lists the tools again after `notifications/tools/list_changed`.
fn relist(upstream: &Upstream) {
    let (link, revision) = {
        let live = upstream.live.lock().unwrap_or_else(|e| e.into_inner());
        match &live.link {
            Some(link) => (link.clone(), live.revision),
            None => return,
        }
    };
    let timeout = Duration::from_millis(upstream.config.timeout_ms);
    match list_tools(link.as_ref(), revision, &upstream.config, timeout) {
        Ok(tools) => {
            crate::log::info(&format!(
                "upstream `{}` changed its tools; {} mounted",
                upstream.name(),
                tools.len()
            ));
            upstream.offer_tools(tools);
        }
        Err(e) => crate::log::warn(&format!(
            "upstream `{}` said its tools changed, but listing them failed: {}; the previous ones stay",
            upstream.name(),
            describe(e)
        )),
    }
}

/// Every page of `tools/list`, admitted by the entry's allow-list.
fn list_tools(
    link: &dyn Conversation,
    revision: Revision,
    config: &super::UpstreamConfig,
    timeout: Duration,
) -> Result<Vec<ToolSpec>, RequestError> {
    let mut listed: Vec<Value> = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let mut params = json!({});
        if let Some(c) = cursor.take() {
            params["cursor"] = c;
        }
        let page = link.request(
            "tools/list",
            handshake::stamped(revision, params),
            timeout,
            None,
            None,
        )?;
        if let Some(tools) = page.get("tools").and_then(Value::as_array) {
            listed.extend(tools.iter().cloned());
        }
        match page.get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => break,
        }
    }
    Ok(tools::admit(&config.name, &config.tools, &listed))
}

fn describe(e: RequestError) -> String {
    match e {
        RequestError::Rpc { code, message } => format!("it answered an error: {message} ({code})"),
        RequestError::Timeout { ms } => format!("it did not answer within {ms} ms"),
        RequestError::Cancelled => "the start was cancelled".into(),
        RequestError::Closed(why) => why,
        RequestError::Busy => "too many requests were waiting".into(),
        RequestError::Http { status, body } => format!("it answered HTTP {status}: {body}"),
    }
}
