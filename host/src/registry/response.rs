//! The engine's response to a call and its error codes.

use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// Why a call failed, as clients see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No skill by that name.
    NotFound,
    /// The input does not match the skill's schema (the message names the field and rule).
    InvalidInput,
    /// Policy refused the call.
    Forbidden,
    /// The handler failed, trapped or returned output that breaks its schema.
    HandlerError,
    /// A limit cut the call: fuel, deadline, memory, world capacity or budget.
    CapacityExceeded,
    /// The caller cancelled the call (`notifications/cancelled`); no reply is sent for it.
    Cancelled,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "not_found",
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::HandlerError => "handler_error",
            ErrorCode::CapacityExceeded => "capacity_exceeded",
            ErrorCode::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call: code and a message a model can act on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub code: ErrorCode,
    pub message: String,
}

impl Failure {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }
}

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
