//! JSON-RPC 2.0 framing: parsing one message and building replies.

use crate::json::object;
use serde_json::{Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// Limina: the connection has too many requests in flight.
pub const SERVER_BUSY: i64 = -32000;
/// Limina: the session is not initialized, or policy refused.
pub const NOT_INITIALIZED: i64 = -32001;

/// One incoming message.
pub enum Incoming {
    /// A request expecting a reply.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification: run it, reply nothing.
    Notification { method: String, params: Value },
    /// A reply from the client to a request we sent (an approval question): its id, and its
    /// result or error object.
    Reply {
        id: Value,
        outcome: Result<Value, Value>,
    },
    /// Not acceptable; the reply to send.
    Invalid(Value),
}

/// Parses one line of input.
pub fn parse(text: &str) -> Incoming {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid(error(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {e}"),
                None,
            ));
        }
    };
    let Value::Object(mut obj) = value else {
        let message = if value.is_array() {
            "Invalid Request: batches are not supported; send one message per line"
        } else {
            "Invalid Request: a message must be a JSON object"
        };
        return Incoming::Invalid(error(Value::Null, INVALID_REQUEST, message, None));
    };
    let id = obj.remove("id");
    if let Some(id) = &id
        && !(id.is_string() || id.is_number() || id.is_null())
    {
        return Incoming::Invalid(error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: `id` must be a string or a number",
            None,
        ));
    }
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Incoming::Invalid(error(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
            None,
        ));
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => {
            return Incoming::Invalid(error(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid Request: `method` must be a string",
                None,
            ));
        }
        None if obj.contains_key("result") || obj.contains_key("error") => {
            let outcome = match obj.remove("error") {
                Some(error) => Err(error),
                None => Ok(obj.remove("result").unwrap_or(Value::Null)),
            };
            return Incoming::Reply {
                id: id.unwrap_or(Value::Null),
                outcome,
            };
        }
        None => {
            return Incoming::Invalid(error(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid Request: `method` is missing",
                None,
            ));
        }
    };
    let params = obj.remove("params").unwrap_or(Value::Null);
    match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method, params },
    }
}

/// A success reply.
pub fn result(id: Value, result: Value) -> Value {
    object([("jsonrpc", "2.0".into()), ("id", id), ("result", result)])
}

/// An error reply.
pub fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut err = json!({"code": code, "message": message});
    if let Some(data) = data {
        err["data"] = data;
    }
    object([("jsonrpc", "2.0".into()), ("id", id), ("error", err)])
}

/// A notification to the client.
pub fn notification(method: &str, params: Value) -> Value {
    object([
        ("jsonrpc", "2.0".into()),
        ("method", method.into()),
        ("params", params),
    ])
}
