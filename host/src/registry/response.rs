//! The engine's response to a call (its error codes are `crate::call`'s).

use crate::call::{Content, Failure};
use serde::Serialize;
use serde_json::Value;

/// Timing and trace of a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub execution_time_ms: f64,
    /// Ids of the trace events the call produced, in order.
    pub events_emitted: Vec<String>,
}

/// The engine response: `{success, result?, error?, metadata}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
    pub metadata: Metadata,
    /// Content blocks a successful call returned besides its result (images, sounds, links),
    /// in MCP's shape when serialized.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "mcp_blocks")]
    pub content: Vec<Content>,
}

fn mcp_blocks<S: serde::Serializer>(content: &[Content], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(content.iter().map(Content::to_mcp))
}

impl Response {
    pub fn ok(result: Value, metadata: Metadata) -> Self {
        Response {
            success: true,
            result: Some(result),
            error: None,
            metadata,
            content: Vec::new(),
        }
    }

    pub fn failed(failure: Failure, metadata: Metadata) -> Self {
        Response {
            success: false,
            result: None,
            error: Some(failure),
            metadata,
            content: Vec::new(),
        }
    }

    /// A call's response: its result, the time since it `started`, and its events.
    pub fn of(
        result: Result<Value, Failure>,
        started: std::time::Instant,
        events: Vec<String>,
    ) -> Self {
        let metadata = Metadata {
            execution_time_ms: started.elapsed().as_secs_f64() * 1000.0,
            events_emitted: events,
        };
        match result {
            Ok(output) => Response::ok(output, metadata),
            Err(failure) => Response::failed(failure, metadata),
        }
    }
}
