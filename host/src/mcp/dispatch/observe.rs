//! What the dispatcher tells telemetry about a request: it notes the method, the tool and
//! the caller's trace context as the request arrives, and reads the outcome off the reply.
//! Only when export is on; otherwise nothing here runs.

use super::server::Connection;
use crate::call::CallStages;
use crate::telemetry::{Outcome, RequestRecord};
use serde_json::Value;
use std::time::{Instant, SystemTime};

/// A request being watched, from arrival to reply.
pub(in crate::mcp) struct Watch {
    method: String,
    tool: Option<String>,
    traceparent: Option<String>,
    tracestate: Option<String>,
    started_at: SystemTime,
    started: Instant,
    /// The session a `shutdown` ends: (id, protocol version), noted before it is gone.
    ending: Option<(String, String)>,
}

impl Watch {
    /// Notes a request as it arrives.
    pub(in crate::mcp) fn begin(method: &str, params: &Value, conn: &Connection) -> Watch {
        let text = |pointer: &str| params.pointer(pointer).and_then(Value::as_str);
        let tool = match method {
            "tools/call" => text("/name"),
            "callTool" => text("/name").or_else(|| text("/tool")),
            _ => None,
        };
        Watch {
            method: method.to_string(),
            tool: tool.map(str::to_string),
            traceparent: text("/_meta/traceparent").map(str::to_string),
            tracestate: text("/_meta/tracestate").map(str::to_string),
            started_at: SystemTime::now(),
            started: Instant::now(),
            ending: conn
                .session
                .as_ref()
                .filter(|_| method == "shutdown")
                .map(|s| (s.caller.session_id.clone(), s.protocol_version.clone())),
        }
    }

    /// The record of the request to `id`, answered with `reply` (`None`: cancelled).
    pub(in crate::mcp) fn end(
        self,
        id: &Value,
        conn: &Connection,
        reply: Option<&Value>,
        stages: CallStages,
    ) -> RequestRecord {
        let session = conn
            .session
            .as_ref()
            .map(|s| (s.caller.session_id.clone(), s.protocol_version.clone()))
            .or(self.ending);
        let (session_id, protocol_version) = session.unzip();
        RequestRecord {
            method: self.method,
            tool: self.tool,
            request_id: match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
            session_id: conn.transport_session.clone().or(session_id),
            protocol_version,
            transport: conn.transport,
            traceparent: self.traceparent,
            tracestate: self.tracestate,
            started_at: self.started_at,
            started: self.started,
            ended: Instant::now(),
            outcome: outcome(reply),
            stages,
        }
    }
}

/// How a reply says the request went.
fn outcome(reply: Option<&Value>) -> Outcome {
    let Some(reply) = reply else {
        return Outcome::Cancelled;
    };
    if let Some(code) = reply.pointer("/error/code").and_then(Value::as_i64) {
        return Outcome::RpcError(code);
    }
    if reply.pointer("/result/isError") == Some(&Value::Bool(true)) {
        let code = reply
            .pointer("/result/_meta/error/code")
            .and_then(Value::as_str)
            .unwrap_or("tool_error");
        return Outcome::ToolError(code.to_string());
    }
    Outcome::Ok
}
