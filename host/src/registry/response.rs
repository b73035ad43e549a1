//! The engine's response to a call (its error codes are `crate::call`'s).

use crate::call::Failure;
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
}

impl Response {
    pub fn ok(result: Value, metadata: Metadata) -> Self {
        Response {
            success: true,
            result: Some(result),
            error: None,
            metadata,
        }
    }

    pub fn failed(failure: Failure, metadata: Metadata) -> Self {
        Response {
            success: false,
            result: None,
            error: Some(failure),
            metadata,
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
