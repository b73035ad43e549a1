//! A request's own context: built once where a message is handled ([`Server::handle`]) and
//! passed down through the dispatcher, so nothing about one request lives on its connection
//! and nothing is swapped in and out around a call. A 2026-07-28 request runs as the
//! identity its transport gives (`stateless.rs`), named here; every other request runs as
//! its connection's session.
//!
//! [`Server::handle`]: super::server::Server::handle

use super::observe::Watch;
use super::server::{CallShape, Connection};
use super::session::Session;
use crate::call::Cancel;
use crate::log::Level;
use crate::mcp::wire::Revision;
use crate::mcp::wire::modern::Envelope;
use crate::registry::DetachedCall;
use serde_json::Value;

/// One request (or notification) on its way through the dispatcher.
pub(in crate::mcp) struct Request {
    /// Its id; `None` for a notification, which nobody waits on.
    pub id: Option<Value>,
    /// How its reply is shaped.
    pub reply: ReplyShape,
    /// What the client declared it can do in the request's `_meta` (2026-07-28; `Null`
    /// otherwise: a session's client declared it at `initialize`).
    pub capabilities: Value,
    /// Its cancellation flag (`None`: a notification).
    pub cancel: Option<Cancel>,
    /// The `progressToken` it carries, if any.
    pub progress: Option<Value>,
    /// The identity a 2026-07-28 request runs as, once its method needs one (`None`: it runs
    /// as its connection's session).
    pub identity: Option<Session>,
    /// Its call, when it came back detached to run off the engine.
    pub detached: Option<Box<DetachedCall>>,
    /// The request as telemetry watches it (export on).
    pub watch: Option<Watch>,
}

/// How a request's reply is written: which method asked, in which revision, with which log
/// lines. Kept until the reply goes out, also while its call runs on a worker.
#[derive(Debug, Clone)]
pub(in crate::mcp) struct ReplyShape {
    /// The standard method or the Limina alias (`callTool`).
    pub call: CallShape,
    pub revision: Revision,
    /// Guest log lines at or above this level travel with the reply (2026-07-28, when the
    /// request asked for them).
    pub log_level: Option<Level>,
}

impl Request {
    /// A request `id` for `method` with `params`, cancelled through `cancel`, in a session's
    /// revision (2025-11-25 and before).
    pub(in crate::mcp) fn classic(id: Value, method: &str, params: &Value, cancel: Cancel) -> Self {
        Request {
            id: Some(id),
            reply: ReplyShape {
                call: CallShape::of(method),
                revision: Revision::Classic,
                log_level: None,
            },
            capabilities: Value::Null,
            cancel: Some(cancel),
            progress: progress_token(params),
            identity: None,
            detached: None,
            watch: None,
        }
    }

    /// The same request speaking 2026-07-28, with what its `envelope` declares.
    pub(in crate::mcp) fn modern(mut self, envelope: Envelope) -> Self {
        self.reply.revision = Revision::Modern;
        self.reply.log_level = envelope.log_level;
        self.capabilities = envelope.capabilities;
        self
    }

    /// A notification: nobody waits on it, so it cannot be cancelled, held or detached.
    pub(in crate::mcp) fn notification(method: &str, params: &Value) -> Self {
        Request {
            id: None,
            reply: ReplyShape {
                call: CallShape::of(method),
                revision: Revision::Classic,
                log_level: None,
            },
            capabilities: Value::Null,
            cancel: None,
            progress: progress_token(params),
            identity: None,
            detached: None,
            watch: None,
        }
    }

    /// Who it runs as: the identity of a 2026-07-28 request, else its connection's session
    /// (`None` before `initialize`).
    pub(in crate::mcp) fn session<'a>(&'a self, conn: &'a Connection) -> Option<&'a Session> {
        self.identity.as_ref().or(conn.session.as_ref())
    }

    /// Whether it speaks 2026-07-28.
    pub(in crate::mcp) fn is_modern(&self) -> bool {
        self.reply.revision == Revision::Modern
    }
}

/// The `progressToken` a request carries in `params._meta`, if it is a string or a number.
pub(in crate::mcp) fn progress_token(params: &Value) -> Option<Value> {
    // Two lookups, not `pointer`, which copies each part of the path it parses.
    params
        .get("_meta")
        .and_then(|meta| meta.get("progressToken"))
        .filter(|t| t.is_string() || t.is_number())
        .cloned()
}
