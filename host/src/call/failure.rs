//! Why a call failed, in the words clients see: one code per kind of failure, and a message
//! a model can act on. Every room that runs or refuses a call says it this way; the wire
//! codes they become are mapped at the top (`mcp`).

use serde::Serialize;
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
