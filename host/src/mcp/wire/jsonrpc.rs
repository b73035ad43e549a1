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
    let message = match serde_json::from_str::<Message>(text) {
        Ok(Message::Object(members)) => members,
        Ok(Message::Array) => {
            return Incoming::Invalid(error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: batches are not supported; send one message per line",
                None,
            ));
        }
        Ok(Message::Other) => {
            return Incoming::Invalid(error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: a message must be a JSON object",
                None,
            ));
        }
        Err(e) => {
            return Incoming::Invalid(error(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {e}"),
                None,
            ));
        }
    };
    let Members {
        jsonrpc_2_0,
        id,
        method,
        params,
        result,
        error: failure,
    } = message;
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
    if !jsonrpc_2_0 {
        return Incoming::Invalid(error(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
            None,
        ));
    }
    let method = match method {
        Some(Value::String(m)) => m,
        Some(_) => {
            return Incoming::Invalid(error(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid Request: `method` must be a string",
                None,
            ));
        }
        None if result.is_some() || failure.is_some() => {
            let outcome = match failure {
                Some(failure) => Err(failure),
                None => Ok(result.unwrap_or(Value::Null)),
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
    let params = params.unwrap_or(Value::Null);
    match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method, params },
    }
}

/// A message as read: its members picked out as they are parsed, not gathered into a map
/// first (building and tearing down that map — a key string and a node per member — was most
/// of what reading a request's envelope cost).
enum Message {
    Object(Members),
    Array,
    Other,
}

/// The members JSON-RPC reads; the others are skipped. A member given twice keeps its last
/// value, as a parsed object does.
#[derive(Default)]
struct Members {
    /// `jsonrpc` is the string `"2.0"`.
    jsonrpc_2_0: bool,
    /// `Some(Value::Null)` for `"id": null`, `None` when there is no `id`.
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

/// A member's name, matched without copying it.
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    #[serde(other)]
    Other,
}

impl<'de> serde::Deserialize<'de> for Message {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> serde::de::Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        use serde::de::IgnoredAny;
        let mut members = Members::default();
        while let Some(key) = map.next_key::<Member>()? {
            match key {
                Member::Jsonrpc => members.jsonrpc_2_0 = map.next_value::<Value>()? == "2.0",
                Member::Id => members.id = Some(map.next_value()?),
                Member::Method => members.method = Some(map.next_value()?),
                Member::Params => members.params = Some(map.next_value()?),
                Member::Result => members.result = Some(map.next_value()?),
                Member::Error => members.error = Some(map.next_value()?),
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Message::Object(members))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Message, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Message::Array)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Message, E> {
        Ok(Message::Other)
    }
    fn visit_unit<E>(self) -> Result<Message, E> {
        Ok(Message::Other)
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

/// The reply to request `id` whose result `write_result` writes, as the line the reply's
/// tree (keys in code-point order, no whitespace) would serialize to. `result_bytes`: room to
/// reserve for the result.
pub fn result_line(
    id: &Value,
    result_bytes: usize,
    write_result: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>,
) -> String {
    let mut w = Vec::with_capacity(result_bytes + 64);
    w.extend_from_slice(b"{\"id\":");
    serde_json::to_writer(&mut w, id).expect("writing to memory cannot fail");
    w.extend_from_slice(b",\"jsonrpc\":\"2.0\",\"result\":");
    write_result(&mut w).expect("writing to memory cannot fail");
    w.push(b'}');
    String::from_utf8(w).expect("serde_json and the literals write UTF-8")
}

/// A notification to the client.
pub fn notification(method: &str, params: Value) -> Value {
    object([
        ("jsonrpc", "2.0".into()),
        ("method", method.into()),
        ("params", params),
    ])
}

/// A reply to request `id`.
pub fn reply(id: Value, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(value) => result(id, value),
        Err(RpcError {
            code,
            message,
            data,
        }) => error(id, code, &message, data),
    }
}

/// A JSON-RPC error on its way to the wire.
#[derive(Debug)]
pub struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    /// An error with `code` and a `message` that says what to change.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error carrying `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Its JSON-RPC code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// Its message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Its `data`, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code and message of an invalid message's reply, and the id it carries.
    fn refused(text: &str) -> (i64, String, Value) {
        match parse(text) {
            Incoming::Invalid(reply) => (
                reply["error"]["code"].as_i64().unwrap(),
                reply["error"]["message"].as_str().unwrap().to_string(),
                reply["id"].clone(),
            ),
            _ => panic!("`{text}` was accepted"),
        }
    }

    #[test]
    fn requests_notifications_and_replies_are_told_apart_with_their_members() {
        let text = r#"{"params":{"name":"scene.queryEntities","arguments":{"near":[0,0,0]}},"jsonrpc":"2.0","extra":[1,{"x":2}],"method":"tools/call","id":7}"#;
        let Incoming::Request { id, method, params } = parse(text) else {
            panic!("not a request");
        };
        assert_eq!((id, method.as_str()), (json!(7), "tools/call"));
        assert_eq!(params["arguments"]["near"], json!([0, 0, 0]));

        // `"id": null` is a request with a null id; no `id` is a notification.
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Incoming::Request {
                id: Value::Null,
                ..
            }
        ));
        let Incoming::Notification { method, params } =
            parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        else {
            panic!("not a notification");
        };
        assert_eq!(
            (method.as_str(), params),
            ("notifications/initialized", Value::Null)
        );

        let Incoming::Reply { id, outcome } =
            parse(r#"{"jsonrpc":"2.0","id":"q1","result":{"action":"accept"}}"#)
        else {
            panic!("not a reply");
        };
        assert_eq!(
            (id, outcome),
            (json!("q1"), Ok(json!({"action": "accept"})))
        );
        let Incoming::Reply { outcome, .. } =
            parse(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}"#)
        else {
            panic!("not a reply");
        };
        assert_eq!(outcome, Err(json!({"code": -1, "message": "no"})));

        // A member given twice keeps its last value; an escaped name is still its name.
        let Incoming::Request { id, method, .. } =
            parse(r#"{"jsonrpc":"2.0","id":1,"id":2,"m\u0065thod":"ping"}"#)
        else {
            panic!("not a request");
        };
        assert_eq!((id, method.as_str()), (json!(2), "ping"));
    }

    #[test]
    fn what_is_not_a_message_is_refused_with_the_code_and_reason() {
        let (code, message, id) = refused("{not json");
        assert_eq!((code, id), (PARSE_ERROR, Value::Null));
        assert!(message.starts_with("Parse error: "), "{message}");
        assert_eq!(refused(r#"{"jsonrpc":"2.0","id":1} x"#).0, PARSE_ERROR);
        for text in [
            "[1,2]",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "[]",
        ] {
            assert_eq!(
                refused(text),
                (
                    INVALID_REQUEST,
                    "Invalid Request: batches are not supported; send one message per line".into(),
                    Value::Null
                )
            );
        }
        for text in ["3", "\"ping\"", "null", "true", "-1.5"] {
            assert_eq!(
                refused(text).1,
                "Invalid Request: a message must be a JSON object"
            );
        }
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#),
            (
                INVALID_REQUEST,
                "Invalid Request: `id` must be a string or a number".into(),
                Value::Null
            )
        );
        for version in [r#""1.0""#, "2.0", "null", r#"["2.0"]"#] {
            let text = format!(r#"{{"jsonrpc":{version},"id":9,"method":"ping"}}"#);
            assert_eq!(
                refused(&text),
                (
                    INVALID_REQUEST,
                    "Invalid Request: `jsonrpc` must be \"2.0\"".into(),
                    json!(9)
                )
            );
        }
        assert_eq!(
            refused(r#"{"id":9,"method":"ping"}"#).1,
            "Invalid Request: `jsonrpc` must be \"2.0\""
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":"a","method":4}"#),
            (
                INVALID_REQUEST,
                "Invalid Request: `method` must be a string".into(),
                json!("a")
            )
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":5,"params":{}}"#),
            (
                INVALID_REQUEST,
                "Invalid Request: `method` is missing".into(),
                json!(5)
            )
        );
    }
}
