//! The dispatcher shared by every transport: one message in, at most one reply out.

use super::clock::Clock;
use super::jsonrpc::{self, Incoming};
use super::session::Session;
use super::tools::ToolCache;
use crate::limits::TOOLS_PAGE_SIZE;
use crate::registry::{ErrorCode, Registry, Response};
use serde_json::{Value, json};

/// Server-wide settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Profile for sessions that name none.
    pub default_profile: String,
    pub clock: Clock,
}

/// The registry plus what the protocol layer memoizes.
pub struct Server {
    registry: Registry,
    config: ServerConfig,
    tools: ToolCache,
    pub(super) reloads: Option<super::reload::Reloads>,
}

/// One client's connection: its session, once bound.
#[derive(Default)]
pub struct Connection {
    pub session: Option<Session>,
    /// The registry generation this client last saw (for `tools/list_changed`).
    pub seen_generation: u64,
    /// The least severe guest log level passed on (`logging/setLevel`); warnings by default.
    pub log_level: Option<crate::log::Level>,
}

const INSTRUCTIONS: &str = "Limina hosts sandboxed skills acting on a shared 3D world. \
Call tools/list to see the skills your profile allows; each takes a JSON object matching its inputSchema. \
Failures come back as isError results whose text starts with the error code \
(invalid_input, forbidden, handler_error, capacity_exceeded) and says what to change.";

impl Server {
    pub fn new(registry: Registry, config: ServerConfig) -> Self {
        Server {
            registry,
            config,
            tools: ToolCache::default(),
            reloads: None,
        }
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// Handles one message; returns the reply to send, if any.
    pub fn handle(&mut self, conn: &mut Connection, text: &str) -> Option<Value> {
        self.apply_reloads();
        self.advance_clock();
        match jsonrpc::parse(text) {
            Incoming::Invalid(reply) => Some(reply),
            Incoming::Reply => None,
            Incoming::Notification { method, params } => {
                // Notifications never get a reply, not even an error.
                let _ = self.dispatch(conn, &method, params);
                None
            }
            Incoming::Request { id, method, params } => {
                Some(match self.dispatch(conn, &method, params) {
                    Ok(result) => jsonrpc::result(id, result),
                    Err(RpcError {
                        code,
                        message,
                        data,
                    }) => jsonrpc::error(id, code, &message, data),
                })
            }
        }
    }

    /// Writes buffered trace events out; transports call it when no input is waiting.
    pub fn flush(&mut self) {
        if let Err(e) = self.registry.realm_mut().tracer.flush() {
            crate::log::error(&format!("writing the trace failed: {e:#}"));
        }
    }

    /// Ends a connection's session (transport closed).
    pub fn disconnect(&mut self, conn: &mut Connection) {
        if let Some(session) = conn.session.take() {
            self.registry.end_session(&session.caller.session_id);
        }
    }

    pub(super) fn advance_clock(&mut self) {
        for _ in 0..self.config.clock.due_steps() {
            self.registry.realm_mut().world.step();
        }
    }

    fn dispatch(
        &mut self,
        conn: &mut Connection,
        method: &str,
        params: Value,
    ) -> Result<Value, RpcError> {
        match method {
            "initialize" => self.initialize(conn, &params),
            "notifications/initialized" | "notifications/cancelled" => Ok(Value::Null),
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
            "tools/list" => self.tools_list(conn, &params),
            "tools/call" => self.tools_call(conn, &params),
            "listTools" => {
                let caller = self.listing_caller(conn)?;
                Ok(self.tools.limina_tools(&self.registry, &caller))
            }
            "callTool" => self.call_tool(conn, &params),
            _ => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )),
        }
    }

    fn initialize(&mut self, conn: &mut Connection, params: &Value) -> Result<Value, RpcError> {
        let session = Session::bind(
            params,
            self.registry.profiles(),
            &self.config.default_profile,
        )
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
            "capabilities": {"tools": {"listChanged": true}, "logging": {}},
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
        Ok(reply)
    }

    fn tools_list(&mut self, conn: &Connection, params: &Value) -> Result<Value, RpcError> {
        let caller = self.listing_caller(conn)?;
        let tools = self.tools.mcp_tools(&self.registry, &caller);
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= tools.len())
                .ok_or_else(|| RpcError::new(jsonrpc::INVALID_PARAMS, format!("invalid cursor `{c}`: pass back a nextCursor from an earlier tools/list")))?,
            Some(_) => return Err(RpcError::new(jsonrpc::INVALID_PARAMS, "`cursor` must be a string")),
        };
        let end = (start + TOOLS_PAGE_SIZE).min(tools.len());
        let mut reply = json!({ "tools": &tools[start..end] });
        if end < tools.len() {
            reply["nextCursor"] = json!(end.to_string());
        }
        Ok(reply)
    }

    fn tools_call(&mut self, conn: &Connection, params: &Value) -> Result<Value, RpcError> {
        let session = conn.session.as_ref().ok_or_else(not_initialized)?;
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::new(jsonrpc::INVALID_PARAMS, "`name` (string) is required"))?;
        if self.registry.skill(name).is_none() {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!("Unknown tool: {name}"),
            ));
        }
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        let response = self.registry.invoke(&session.caller, name, arguments);
        Ok(mcp_result(response))
    }

    fn call_tool(&mut self, conn: &Connection, params: &Value) -> Result<Value, RpcError> {
        let session = conn.session.as_ref().ok_or_else(not_initialized)?;
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
        let response = self.registry.invoke(&session.caller, name, input);
        match &response.error {
            None => Ok(serde_json::to_value(&response).expect("responses serialize")),
            Some(failure) => Err(RpcError {
                code: engine_code(failure.code),
                message: format!("{}: {}", failure.code, failure.message),
                data: Some(serde_json::to_value(&response).expect("responses serialize")),
            }),
        }
    }
}

/// An engine response in the MCP `tools/call` result shape.
fn mcp_result(response: Response) -> Value {
    let mut meta = json!({
        "executionTimeMs": response.metadata.execution_time_ms,
        "eventsEmitted": response.metadata.events_emitted,
    });
    match (response.result, response.error) {
        (Some(result), None) => json!({
            "content": [{"type": "text", "text": result.to_string()}],
            "structuredContent": result,
            "isError": false,
            "_meta": meta,
        }),
        (_, failure) => {
            let failure = failure.expect("a failed response carries its failure");
            meta["error"] = json!({"code": failure.code, "message": failure.message});
            json!({
                "content": [{"type": "text", "text": format!("{}: {}", failure.code, failure.message)}],
                "isError": true,
                "_meta": meta,
            })
        }
    }
}

/// Engine error codes on the `callTool` alias.
fn engine_code(code: ErrorCode) -> i64 {
    match code {
        ErrorCode::NotFound => -32601,
        ErrorCode::InvalidInput => -32602,
        ErrorCode::Forbidden => -32001,
        ErrorCode::CapacityExceeded => -32002,
        ErrorCode::HandlerError => -32603,
    }
}

fn not_initialized() -> RpcError {
    RpcError::new(jsonrpc::NOT_INITIALIZED, "MCP session is not initialized")
}

struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
}

impl Server {
    /// Who a listing is for: the bound session, or before `initialize` a caller under the
    /// server's default profile.
    fn listing_caller(&self, conn: &Connection) -> Result<crate::registry::Caller, RpcError> {
        if let Some(session) = &conn.session {
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
