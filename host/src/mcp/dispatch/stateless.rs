//! Serving a 2026-07-28 request without a session: who it runs as, which methods it may call,
//! and how its result leaves (`resultType`, caching fields, its own log lines). The shapes
//! are `wire/modern.rs`'s; the methods are the one dispatcher's (`server.rs`).
//!
//! Identity is bound by the host, never taken from the payload: a stateless request runs as
//! the identity its transport gives — over stdio the process's `--profile` (agent `stdio`),
//! over WebSocket and HTTP what the network edge granted its bearer token (`[[network.tokens]]`
//! name an agent and a profile; without one, agent `anonymous` under the first profile network
//! clients may take) — admitted once and kept, so budgets, quotas, revocation, tiers and the trace see one caller per identity,
//! exactly as they see one per session. [`Server::request_identity`] is the one place that
//! decides it.

use super::request::{ReplyShape, Request};
use super::server::{Connection, INSTRUCTIONS, Listening, Server};
use super::session::Session;
use crate::mcp::wire::Revision;
use crate::mcp::wire::jsonrpc;
use crate::mcp::wire::jsonrpc::RpcError;
use crate::mcp::wire::modern;
use crate::telemetry::NetworkTransport;
use serde_json::{Value, json};

/// Who a stateless request runs as: an agent and a profile.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    pub agent_id: String,
    pub profile: String,
}

impl Server {
    /// The identity a stateless request on `conn` runs as: over stdio the process's
    /// profile; over the network what the edge granted its bearer token (the token's agent
    /// and profile, or the first profile network clients may take).
    pub(in crate::mcp) fn request_identity(&self, conn: &Connection) -> Result<Identity, RpcError> {
        let mut params = json!({});
        if let Some(grant) = &conn.grant {
            grant
                .apply(&mut params)
                .map_err(|m| RpcError::new(jsonrpc::NOT_INITIALIZED, m))?;
        }
        let default_agent = match conn.transport {
            NetworkTransport::Pipe => "stdio",
            NetworkTransport::Tcp => "anonymous",
        };
        let text = |key: &str, or: &str| params[key].as_str().unwrap_or(or).to_string();
        Ok(Identity {
            agent_id: text("agentId", default_agent),
            profile: text("profile", &self.config.default_profile),
        })
    }

    /// The session standing for `identity`: bound and admitted on its first request.
    fn identity_session(&mut self, identity: Identity) -> Result<Session, RpcError> {
        let key = (identity.agent_id.clone(), identity.profile.clone());
        if let Some(session) = self.stateless.get(&key) {
            return Ok(session.clone());
        }
        let params = json!({
            "agentId": identity.agent_id,
            "profile": identity.profile,
            "sessionId": format!("stateless.{}.{}", identity.agent_id, identity.profile),
        });
        let session = Session::bind(
            &params,
            self.registry().profiles(),
            &self.config.default_profile,
        )
        .map_err(|m| RpcError::new(jsonrpc::INVALID_PARAMS, m))?;
        self.registry_mut()
            .admit_session(&session.caller)
            .map_err(|m| RpcError::new(jsonrpc::NOT_INITIALIZED, m))?;
        self.stateless.insert(key, session.clone());
        Ok(session)
    }

    /// Dispatches a 2026-07-28 request: the methods this revision removed are refused, the
    /// ones it added answered here, the rest run through the one dispatcher as the request's
    /// identity.
    pub(in crate::mcp) fn dispatch_modern(
        &mut self,
        conn: &mut Connection,
        request: &mut Request,
        method: &str,
        params: Value,
    ) -> Result<Value, RpcError> {
        if let Some(refused) = modern::removed(method) {
            return Err(refused);
        }
        match method {
            "server/discover" => Ok(modern::discover(INSTRUCTIONS)),
            "subscriptions/listen" => self.listen(conn, request, &params),
            _ => {
                // It runs as its identity; the connection's own session (an older revision's)
                // is left as it is.
                request.identity = Some(self.identity_session(self.request_identity(conn)?)?);
                let outcome = self
                    .dispatch(conn, request, method, params)
                    .map(super::answer::Answer::into_value);
                let generation = self.registry().generation();
                let hot_reload = self.reloads.is_some();
                outcome.map(|mut result| {
                    if method == "tools/list" {
                        modern::cache(&mut result, generation, hot_reload);
                    }
                    result
                })
            }
        }
    }

    /// A 2026-07-28 request's outcome as it leaves: results typed and stamped, and the log
    /// lines it asked for queued before its reply. Older revisions' outcomes pass unchanged.
    pub(in crate::mcp) fn in_revision(
        &mut self,
        conn: &mut Connection,
        shape: &ReplyShape,
        outcome: Result<Value, RpcError>,
    ) -> Result<Value, RpcError> {
        if shape.revision == Revision::Classic {
            return outcome;
        }
        self.queue_logs(conn, shape);
        outcome.map(modern::complete)
    }

    /// The log lines a 2026-07-28 request asked for (`shape.log_level`), queued before its
    /// reply.
    pub(in crate::mcp) fn queue_logs(&mut self, conn: &mut Connection, shape: &ReplyShape) {
        if let Some(threshold) = shape.log_level {
            let lines = self.registry_mut().take_logs();
            conn.pending.extend(
                lines
                    .into_iter()
                    .filter(|line| line.level >= threshold)
                    .map(|line| {
                        jsonrpc::notification(
                            "notifications/message",
                            json!({"level": line.level.mcp_name(), "logger": line.logger, "data": line.message}),
                        )
                    }),
            );
        }
    }

    /// `subscriptions/listen`: acknowledges what it honours, then keeps the request open;
    /// `tools/list_changed` (and, asked for, state deltas) follow on it until it is cancelled
    /// or its transport closes.
    fn listen(
        &mut self,
        conn: &mut Connection,
        request: &mut Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let id = request.id.clone().expect("a listen is a request");
        let mut honoured = modern::listen_filter(params)?;
        let resources = self.listen_resources(conn, &mut honoured)?;
        if honoured.get(modern::STATE_DELTAS_KEY).is_some() {
            request.identity = Some(self.identity_session(self.request_identity(conn)?)?);
            self.subscribe(conn, request, &json!({}))?;
        }
        if let Some(previous) = conn.listen.take() {
            conn.cancels.finish(&previous.id);
            if previous.resources && resources.is_none() {
                conn.resources = Default::default();
            }
        }
        let watches = resources.is_some();
        if let Some(watching) = resources {
            conn.resources = watching;
            self.watch_resources(conn);
        }
        // The acknowledgement goes first, then whatever the subscription queued (a snapshot).
        conn.pending.insert(0, modern::acknowledged(&id, &honoured));
        conn.listen = Some(Listening {
            id,
            generation: self.registry().generation(),
            tools: honoured.get("toolsListChanged").is_some(),
            deltas: honoured.get(modern::STATE_DELTAS_KEY).is_some(),
            resources: watches,
        });
        Ok(Value::Null)
    }

    /// The resource watching a listen filter asks for (`None`: none), its
    /// `resourceSubscriptions` narrowed in `honoured` to the URIs the request's identity may
    /// read and that exist now; the others are left out of the acknowledgement.
    fn listen_resources(
        &mut self,
        conn: &Connection,
        honoured: &mut Value,
    ) -> Result<Option<super::resources::Watching>, RpcError> {
        let asked = |key: &str| honoured.get(key).is_some();
        if !asked("resourceSubscriptions")
            && !asked("resourcesListChanged")
            && !asked("promptsListChanged")
        {
            return Ok(None);
        }
        let caller = self.identity_session(self.request_identity(conn)?)?.caller;
        let mut watching = super::resources::Watching::default();
        watching.list = asked("resourcesListChanged");
        watching.prompts = asked("promptsListChanged");
        if let Some(Value::Array(uris)) = honoured.get("resourceSubscriptions") {
            let uris: Vec<String> = uris
                .iter()
                .filter_map(|u| u.as_str().map(str::to_string))
                .collect();
            for uri in uris {
                if self.check_subscribable(&caller, &uri, true).is_ok() {
                    watching.uris.insert(uri);
                }
            }
            honoured["resourceSubscriptions"] = json!(watching.uris);
        }
        Ok(Some(watching))
    }

    /// Ends the listen stream `id` names, if it is the open one.
    pub(in crate::mcp) fn end_listen(&mut self, conn: &mut Connection, id: &Value) {
        if conn.listen.as_ref().is_some_and(|l| &l.id == id) {
            let listen = conn.listen.take().expect("checked above");
            if listen.deltas {
                conn.subscription = None;
            }
            if listen.resources {
                conn.resources = Default::default();
            }
            conn.cancels.finish(id);
        }
    }

    /// What a listen stream is owed: `tools/list_changed` once the skill set changed.
    pub(in crate::mcp) fn listen_notifications(&mut self, conn: &mut Connection) -> Vec<Value> {
        let generation = self.registry().generation();
        let Some(listen) = conn.listen.as_mut() else {
            return Vec::new();
        };
        if !listen.tools || listen.generation == generation {
            return Vec::new();
        }
        listen.generation = generation;
        vec![modern::tagged(
            jsonrpc::notification("notifications/tools/list_changed", json!({})),
            &listen.id,
        )]
    }
}
