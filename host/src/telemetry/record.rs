//! What the MCP layer tells telemetry about one JSON-RPC request: plain data, made on the
//! engine thread and turned into spans on the export thread.

use crate::call::CallStages;
use std::time::{Instant, SystemTime};

/// The transport a request came over (`network.transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NetworkTransport {
    /// stdio.
    Pipe,
    /// WebSocket and Streamable HTTP.
    #[default]
    Tcp,
}

impl NetworkTransport {
    /// Its `network.transport` value.
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkTransport::Pipe => "pipe",
            NetworkTransport::Tcp => "tcp",
        }
    }
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A result that is not an error.
    Ok,
    /// A `tools/call` result with `isError: true`; the engine's error code (`forbidden`, …).
    ToolError(String),
    /// A JSON-RPC error reply with this code.
    RpcError(i64),
    /// Cancelled by the client: no reply was sent.
    Cancelled,
}

/// One request from arrival to reply.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    /// `mcp.method.name`.
    pub method: String,
    /// The tool a `tools/call` (or `callTool`) named (`gen_ai.tool.name`).
    pub tool: Option<String>,
    /// `jsonrpc.request.id`, as text.
    pub request_id: String,
    /// `mcp.session.id`, once a session is bound.
    pub session_id: Option<String>,
    /// `mcp.protocol.version`, once negotiated.
    pub protocol_version: Option<String>,
    pub transport: NetworkTransport,
    /// The caller's W3C `traceparent` (and `tracestate`) from `params._meta`, unchecked.
    pub traceparent: Option<String>,
    pub tracestate: Option<String>,
    /// Wall-clock time it arrived (spans carry wall-clock timestamps).
    pub started_at: SystemTime,
    /// The same moment on the monotonic clock, which the stages are measured on.
    pub started: Instant,
    pub ended: Instant,
    pub outcome: Outcome,
    /// What its call went through in the registry (empty for other methods).
    pub stages: CallStages,
}

impl RequestRecord {
    /// `instant` on the wall clock.
    pub fn wall_time(&self, instant: Instant) -> SystemTime {
        self.started_at + instant.saturating_duration_since(self.started)
    }

    /// The span name: `{mcp.method.name} {target}`, the target being the tool for a call.
    pub fn span_name(&self) -> String {
        match &self.tool {
            Some(tool) => format!("{} {tool}", self.method),
            None => self.method.clone(),
        }
    }

    /// `error.type`, when it failed.
    pub fn error_type(&self) -> Option<String> {
        match &self.outcome {
            Outcome::Ok => None,
            Outcome::ToolError(_) => Some("tool_error".into()),
            Outcome::RpcError(code) => Some(code.to_string()),
            Outcome::Cancelled => Some("cancelled".into()),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A successful `tools/call scene.createEntity` over stdio that took 3 ms.
    pub(in crate::telemetry) fn sample() -> RequestRecord {
        let started = Instant::now();
        RequestRecord {
            method: "tools/call".into(),
            tool: Some("scene.createEntity".into()),
            request_id: "7".into(),
            session_id: Some("sess_1".into()),
            protocol_version: Some("2025-06-18".into()),
            transport: NetworkTransport::Pipe,
            traceparent: None,
            tracestate: None,
            started_at: SystemTime::now(),
            started,
            ended: started + std::time::Duration::from_millis(3),
            outcome: Outcome::Ok,
            stages: CallStages::default(),
        }
    }

    #[test]
    fn names_and_error_types_follow_the_conventions() {
        let mut record = sample();
        assert_eq!(record.span_name(), "tools/call scene.createEntity");
        assert_eq!(record.error_type(), None);
        record.outcome = Outcome::ToolError("forbidden".into());
        assert_eq!(record.error_type().as_deref(), Some("tool_error"));
        record.outcome = Outcome::RpcError(-32602);
        assert_eq!(record.error_type().as_deref(), Some("-32602"));
        record.tool = None;
        record.method = "tools/list".into();
        assert_eq!(record.span_name(), "tools/list");
    }
}
