//! A request's result on its way to its reply: kept typed when it can be written straight
//! to its line, and the `callTool` alias's shapes with their JSON-RPC codes.

use super::call_result::CallResult;
use super::server::{Connection, Handled};
use super::tools::ToolListing;
use crate::call::ErrorCode;
use crate::mcp::wire::jsonrpc::{self, RpcError};
use crate::registry::Response;
use serde_json::Value;

/// An engine response in the `callTool` shape: the response, or an error carrying it.
pub(in crate::mcp) fn limina_result(response: Response) -> Result<Value, RpcError> {
    match &response.error {
        None => Ok(serde_json::to_value(&response).expect("responses serialize")),
        Some(failure) => Err(RpcError::new(
            engine_code(failure.code),
            format!("{}: {}", failure.code, failure.message),
        )
        .with_data(serde_json::to_value(&response).expect("responses serialize"))),
    }
}

/// A typed result's reply, written straight to its line (none when it was cancelled).
pub(super) fn framed(
    conn: &Connection,
    id: &Value,
    write: impl FnOnce(&Value) -> crate::mcp::engine::outbox::Frame,
) -> Handled {
    if conn.cancels.finish(id) {
        Handled::Reply(None)
    } else {
        Handled::Framed(write(id))
    }
}

/// An engine response in the MCP `tools/call` result shape.
pub(in crate::mcp) fn mcp_result(response: Response) -> Value {
    CallResult::from(response).into_value()
}

/// A request's result on its way to the reply: a JSON value, or a tool call's result or a
/// tool listing kept typed so that its reply can be written without building it as a tree.
pub(in crate::mcp) enum Answer {
    Value(Value),
    Call(CallResult),
    Listing(ToolListing),
}

impl Answer {
    pub(in crate::mcp) fn into_value(self) -> Value {
        match self {
            Answer::Value(value) => value,
            Answer::Call(result) => result.into_value(),
            Answer::Listing(listing) => listing.into_value(),
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
        // Never sent for a cancelled request; the code JSON-RPC peers use for it.
        ErrorCode::Cancelled => -32800,
    }
}

pub(in crate::mcp) fn not_initialized() -> RpcError {
    RpcError::new(jsonrpc::NOT_INITIALIZED, "MCP session is not initialized")
}
