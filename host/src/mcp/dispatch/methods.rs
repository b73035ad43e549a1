//! The dispatcher's method table: which method does what, `initialize`, tool listings and
//! tool calls (the standard `tools/call` and the Limina `callTool` alias), and who a call or
//! listing runs as. Methods of one revision only are in `stateless.rs` (2026-07-28), `tasks.rs`,
//! `approval.rs` and `sync.rs` around them.

use super::answer::{Answer, limina_result, not_initialized};
use super::call_result::CallResult;
use super::request::Request;
use super::server::{Connection, INSTRUCTIONS, Server};
use super::session::Session;
use super::tools::ToolListing;
use crate::call::CallControl;
use crate::limits::TOOLS_PAGE_SIZE;
use crate::mcp::wire::jsonrpc::{self, RpcError};
use crate::registry::{Invocation, Response};
use serde_json::{Value, json};

impl Server {
    pub(in crate::mcp) fn dispatch(
        &mut self,
        conn: &mut Connection,
        request: &mut Request,
        method: &str,
        params: Value,
    ) -> Result<Answer, RpcError> {
        match method {
            "tools/call" => self.tools_call(conn, request, params),
            "tools/list" => self.tools_list(conn, request, &params).map(Answer::Listing),
            _ => self
                .dispatch_other(conn, request, method, params)
                .map(Answer::Value),
        }
    }

    /// Every method but `tools/call` and `tools/list`, whose results stay typed
    /// ([`Answer::Call`], [`Answer::Listing`]).
    fn dispatch_other(
        &mut self,
        conn: &mut Connection,
        request: &mut Request,
        method: &str,
        params: Value,
    ) -> Result<Value, RpcError> {
        match method {
            "initialize" => self.initialize(conn, &params),
            "notifications/initialized" => Ok(Value::Null),
            "notifications/cancelled" => {
                if let Some(id) = params.get("requestId") {
                    conn.cancels.cancel(id);
                    self.end_listen(conn, id);
                    if conn.asking.as_ref().is_some_and(|a| &a.request_id == id) {
                        self.withdraw(conn, "the client cancelled the call while it waited");
                    }
                }
                Ok(Value::Null)
            }
            "state/subscribe" => self.subscribe(conn, request, &params),
            "resources/list" => self.resources_list(conn, request, &params),
            "resources/templates/list" => self.resources_templates(conn, request, &params),
            "resources/read" => self.resources_read(conn, request, &params),
            "resources/subscribe" => self.resources_subscribe(conn, request, &params),
            "resources/unsubscribe" => self.resources_unsubscribe(conn, request, &params),
            "prompts/list" => self.prompts_list(conn, request, &params),
            "prompts/get" => self.prompts_get(conn, request, &params),
            "completion/complete" => self.completion_complete(conn, request, &params),
            "aoi/declare" => self.declare_aoi(conn, request, &params),
            "ping" => Ok(json!({})),
            "logging/setLevel" => {
                let name = params
                    .get("level")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let level = crate::log::Level::from_mcp(name).ok_or_else(|| {
                    RpcError::new(
                        jsonrpc::INVALID_PARAMS,
                        format!("`level` must be one of debug, info, notice, warning, error, critical, alert, emergency; got `{name}`"),
                    )
                })?;
                conn.log_level = Some(level);
                Ok(json!({}))
            }
            "shutdown" => {
                self.disconnect(conn);
                Ok(json!({"ok": true}))
            }
            "listTools" => {
                let caller = self.listing_caller(conn, request)?;
                Ok(super::tools::limina_tools(&self.registry, &caller))
            }
            "callTool" => self.call_tool(conn, request, &params),
            m if m.starts_with("tasks/") => self
                .dispatch_tasks(conn, request, m, &params)
                .unwrap_or_else(|| {
                    Err(RpcError::new(
                        jsonrpc::METHOD_NOT_FOUND,
                        format!("Method not found: {m}"),
                    ))
                }),
            _ => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )),
        }
    }

    fn initialize(&mut self, conn: &mut Connection, params: &Value) -> Result<Value, RpcError> {
        let mut params = params.clone();
        if let Some(grant) = &conn.grant
            && let Err(reason) = grant.apply(&mut params)
        {
            self.registry.refuse_admission(&params, &reason);
            return Err(RpcError::new(jsonrpc::NOT_INITIALIZED, reason));
        }
        let params = &params;
        let default_profile = conn
            .default_profile
            .as_deref()
            .unwrap_or(&self.config.default_profile);
        let session = Session::bind(params, self.registry.profiles(), default_profile)
            .map_err(|m| RpcError::new(jsonrpc::INVALID_PARAMS, m))?;
        let tier = self.requested_tier(params, &session.caller.profile)?;
        self.disconnect(conn);
        self.registry
            .admit_session(&session.caller)
            .map_err(|m| RpcError::new(jsonrpc::NOT_INITIALIZED, m))?;
        let tier = self
            .registry
            .set_session_tier(&session.caller, tier)
            .map_err(|m| RpcError::new(jsonrpc::INVALID_PARAMS, m))?;
        let mut reply = json!({
            "protocolVersion": session.protocol_version,
            "capabilities": {
                "tools": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "prompts": {"listChanged": true},
                "completions": {},
                "logging": {},
                "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
            },
            "serverInfo": {"name": "limina", "version": env!("CARGO_PKG_VERSION")},
            "instructions": INSTRUCTIONS,
            "session": session.describe(),
        });
        reply["session"]["latencyTier"] = json!(tier.as_str());
        crate::log::debug(&format!(
            "session {} bound: agent {}, profile {}",
            session.caller.session_id, session.caller.agent_id, session.caller.profile
        ));
        conn.seen_generation = self.registry.generation();
        conn.session = Some(session);
        if let Some(ticket) = &conn.ticket {
            ticket.initialized();
        }
        Ok(reply)
    }

    fn tools_list(
        &mut self,
        conn: &Connection,
        request: &Request,
        params: &Value,
    ) -> Result<ToolListing, RpcError> {
        let caller = self.listing_caller(conn, request)?;
        let visible: Vec<_> = self.registry.visible_skills(&caller).collect();
        let count = visible.len();
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= count)
                .ok_or_else(|| RpcError::new(jsonrpc::INVALID_PARAMS, format!("invalid cursor `{c}`: pass back a nextCursor from an earlier tools/list")))?,
            Some(_) => return Err(RpcError::new(jsonrpc::INVALID_PARAMS, "`cursor` must be a string")),
        };
        let end = (start + TOOLS_PAGE_SIZE).min(count);
        let next = (end < count).then_some(end);
        Ok(ToolListing::new(&self.registry, &visible[start..end], next))
    }

    /// Runs a call for `request` on `conn`, cancellable through the request's flag;
    /// remembers the call's events for the deltas it causes. `None`: it was detached (left in
    /// `request.detached`).
    pub(super) fn invoke(
        &mut self,
        conn: &mut Connection,
        request: &mut Request,
        name: &str,
        input: Value,
        approval: Option<crate::policy::Approval>,
    ) -> Option<Response> {
        let progress = request
            .progress
            .take()
            .and_then(|token| conn.progress_sink(token));
        let control = CallControl {
            cancel: request.cancel.clone().unwrap_or_default(),
            progress,
            approval,
        };
        let session = request.session(conn).expect("checked by the caller");
        // Only a request, which someone waits for, may leave the engine, or leave its events
        // for the batch's write.
        let response = if request.cancel.is_some() {
            // The permission is closed after dispatch (`close_deferring`), also when the call
            // leaves for a worker and never asks for it.
            self.allow_deferral();
            match self
                .registry
                .invoke_or_detach(&session.caller, name, input, control)
            {
                Invocation::Done(response) => response,
                Invocation::Detached(call) => {
                    request.detached = Some(call);
                    return None;
                }
            }
        } else {
            self.registry
                .invoke_with(&session.caller, name, input, control)
        };
        conn.last_events = response.metadata.events_emitted.clone();
        Some(response)
    }

    fn tools_call(
        &mut self,
        conn: &mut Connection,
        request: &mut Request,
        mut params: Value,
    ) -> Result<Answer, RpcError> {
        request.session(conn).ok_or_else(not_initialized)?;
        // Moved out, not copied: nothing after this reads them from `params`.
        let arguments = params.get_mut("arguments").map_or(Value::Null, Value::take);
        let params = &params;
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::new(jsonrpc::INVALID_PARAMS, "`name` (string) is required"))?;
        // A held upstream tool is no skill, but the registry answers for it (`forbidden`,
        // naming what changed), not the protocol.
        if self.registry.skill(name).is_none() && self.registry.held_tool(name).is_none() {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!("Unknown tool: {name}"),
            ));
        }
        let approval = match self.gate(conn, request, name, &arguments, params)? {
            super::approval::Gate::Run(approval) => approval,
            super::approval::Gate::Reply(reply) => return Ok(Answer::Value(reply)),
        };
        if self.wants_task(request, name, params) {
            return self
                .start_task(conn, request, name, arguments, approval)
                .map(Answer::Value);
        }
        Ok(self
            .invoke(conn, request, name, arguments, approval)
            .map_or(Answer::Value(Value::Null), |r| {
                Answer::Call(CallResult::from(r))
            }))
    }

    fn call_tool(
        &mut self,
        conn: &mut Connection,
        request: &mut Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        request.session(conn).ok_or_else(not_initialized)?;
        let name = params
            .get("name")
            .or_else(|| params.get("tool"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::new(
                    jsonrpc::INVALID_PARAMS,
                    "`name` (or `tool`) string is required",
                )
            })?;
        let input = params
            .get("arguments")
            .or_else(|| params.get("input"))
            .cloned()
            .unwrap_or(Value::Null);
        // A `context` in the request never overrides the bound identity.
        match self.invoke(conn, request, name, input, None) {
            Some(response) => limina_result(response),
            None => Ok(Value::Null),
        }
    }
    /// Who a listing is for: the bound session, or before `initialize` a caller under the
    /// server's default profile.
    pub(in crate::mcp) fn listing_caller(
        &self,
        conn: &Connection,
        request: &Request,
    ) -> Result<crate::registry::Caller, RpcError> {
        if let Some(session) = request.session(conn) {
            return Ok(session.caller.clone());
        }
        let profile = self
            .registry
            .profiles()
            .get(&self.config.default_profile)
            .map_err(|m| RpcError::new(jsonrpc::INTERNAL_ERROR, m))?;
        Ok(crate::registry::Caller {
            agent_id: String::new(),
            session_id: String::new(),
            profile: profile.name.clone(),
            permissions: profile.permissions,
        })
    }

    /// The `latencyTier` an `initialize` asks for, checked against the profile's ceiling.
    fn requested_tier(
        &self,
        params: &Value,
        profile: &str,
    ) -> Result<Option<crate::policy::LatencyTier>, RpcError> {
        let invalid =
            |m: String| RpcError::new(jsonrpc::INVALID_PARAMS, format!("`latencyTier`: {m}"));
        let tier = match params.get("latencyTier") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(name)) => {
                crate::policy::LatencyTier::parse(name).map_err(invalid)?
            }
            Some(other) => {
                return Err(invalid(format!(
                    "must be \"fast\", \"standard\" or \"deep\", got {other}"
                )));
            }
        };
        self.registry
            .policy()
            .check_tier(profile, tier)
            .map_err(invalid)?;
        Ok(Some(tier))
    }
}
