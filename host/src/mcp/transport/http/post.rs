//! `POST /mcp`: one JSON-RPC message. It is read and checked the same way in both revisions
//! ([`read`]); then a 2026-07-28 message is served on its own (`stateless.rs`) and any other
//! goes to its session ([`classic`]): a notification or response is handed over, a request
//! waits for its reply, sent as one JSON body ([`json_reply`]) or, when it asked for progress
//! or may be asked about (approval), as an SSE stream ([`streamed_reply`]).

use super::session::{
    HttpSession, end_session, forward, forward_request, open_session, session, with_session,
};
use super::{
    Body, READ_TIMEOUT, REPLY_TIMEOUT, Shared, empty, full, json_response, modern, rpc_error,
    sse_headers, stateless,
};
use crate::limits::{MAX_HTTP_BODY_BYTES, MAX_IN_FLIGHT_PER_CONNECTION};
use crate::mcp::engine::outbox::Frame as Text;
use crate::mcp::transport::edge::Grant;
use crate::mcp::wire::jsonrpc;
use bytes::Bytes;
use futures_util::stream;
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::Value;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use tokio::sync::mpsc;

/// A POSTed message, read and checked.
pub(super) struct Posted {
    /// The message, with the request's trace context moved into its `_meta`.
    pub message: Value,
    /// Its text as handed to the engine.
    pub text: String,
    /// Its id (`None`: a notification or a response).
    pub id: Option<Value>,
    /// The client takes an SSE response.
    pub streams: bool,
}

impl Posted {
    fn method(&self) -> Option<&str> {
        self.message.get("method").and_then(Value::as_str)
    }
}

pub(super) async fn post(
    shared: Arc<Shared>,
    request: Request<Incoming>,
    session_id: Option<String>,
    grant: Grant,
) -> Response<Body> {
    let headers = request.headers().clone();
    let posted = match read(&headers, request.into_body()).await {
        Ok(posted) => posted,
        Err(refused) => return refused,
    };
    if modern::speaks_modern(&headers, &posted.message) {
        return stateless::post(shared, grant, &headers, posted).await;
    }
    if let Some(refused) = modern::unknown_version(&headers) {
        return json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                posted.id.unwrap_or(Value::Null),
                refused.code,
                &refused.message,
                refused.data,
            ),
        );
    }
    classic(shared, posted, session_id, grant).await
}

/// The message of a POST: JSON by its content type, to a client that takes JSON or SSE,
/// whole within `READ_TIMEOUT` and `MAX_HTTP_BODY_BYTES`, one message (no batch). The error
/// is the response that says what is wrong.
async fn read(headers: &HeaderMap, body: Incoming) -> Result<Posted, Response<Body>> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type.starts_with("application/json") {
        return Err(rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32000,
            "send the JSON-RPC message with `Content-Type: application/json`",
        ));
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let accepts = |kind: &str| accept.contains(kind) || accept.contains("*/*");
    if !accepts("application/json") && !accepts("text/event-stream") {
        return Err(rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "the Accept header must list application/json and text/event-stream",
        ));
    }
    let body = match tokio::time::timeout(
        READ_TIMEOUT,
        Limited::new(body, MAX_HTTP_BODY_BYTES).collect(),
    )
    .await
    {
        Err(_) => {
            return Err(rpc_error(
                StatusCode::REQUEST_TIMEOUT,
                -32000,
                "the request body did not arrive in time",
            ));
        }
        Ok(Err(_)) => {
            return Err(rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32000,
                &format!("the request body is over {MAX_HTTP_BODY_BYTES} bytes"),
            ));
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    let mut message: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return Err(json_response(
                StatusCode::BAD_REQUEST,
                &jsonrpc::error(
                    Value::Null,
                    jsonrpc::PARSE_ERROR,
                    &format!("Parse error: {e}"),
                    None,
                ),
            ));
        }
    };
    if message.is_array() {
        return Err(json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(
                Value::Null,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: batches are not supported; send one message per POST",
                None,
            ),
        ));
    }
    let text = if carry_trace_context(headers, &mut message) {
        message.to_string()
    } else {
        String::from_utf8_lossy(&body).into_owned()
    };
    let id = message
        .get("id")
        .filter(|_| message.get("method").and_then(Value::as_str).is_some())
        .cloned();
    Ok(Posted {
        message,
        text,
        id,
        streams: accepts("text/event-stream"),
    })
}

/// A 2025-11-25 POST: its session (opened by `initialize`), then a notification or response
/// handed over, or a request answered.
async fn classic(
    shared: Arc<Shared>,
    posted: Posted,
    session_id: Option<String>,
    grant: Grant,
) -> Response<Body> {
    let method = posted.method();
    let session = match (session_id, method) {
        (None, Some("initialize")) => open_session(&shared, grant),
        (None, _) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                -32000,
                "missing Mcp-Session-Id: send `initialize` first and echo the id it returns",
            );
        }
        (Some(sid), _) => match session(&shared, &sid, &grant) {
            Some(s) => s,
            None => {
                return rpc_error(
                    StatusCode::NOT_FOUND,
                    -32001,
                    "unknown or ended session: initialize a new one",
                );
            }
        },
    };
    *session.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    let Some(id) = posted.id.clone() else {
        if method == Some("initialize") {
            // `initialize` sent as a notification opens nothing.
            end_session(&shared, &session);
            return rpc_error(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "`initialize` is a request: give it an `id`",
            );
        }
        // A notification or a response: hand it over, nothing to wait for.
        forward(&shared, &session, &posted.text);
        return empty(StatusCode::ACCEPTED);
    };
    if session.in_flight.load(Ordering::Acquire) >= MAX_IN_FLIGHT_PER_CONNECTION {
        return json_response(
            StatusCode::OK,
            &jsonrpc::error(
                id,
                jsonrpc::SERVER_BUSY,
                &format!(
                    "too many requests in flight on this session (at most {MAX_IN_FLIGHT_PER_CONNECTION}); wait for replies before sending more"
                ),
                None,
            ),
        );
    }
    let token = posted
        .message
        .pointer("/params/_meta/progressToken")
        .map(Value::to_string);
    let initialized = method == Some("initialize");
    if initialized {
        let elicits = posted
            .message
            .pointer("/params/capabilities")
            .is_some_and(crate::mcp::wire::classic::declares_elicitation);
        session.elicits.store(elicits, Ordering::Relaxed);
    }
    // A call may be put to a person (approval): its response must be able to carry the question.
    let asks = method == Some("tools/call") && session.elicits.load(Ordering::Relaxed);
    let stream = (token.is_some() || asks) && posted.streams;
    let rx = forward_request(&shared, &session, &id, token, &posted.text);
    if stream {
        let response = streamed_reply(rx);
        return with_session(response, &shared, &session, initialized);
    }
    json_reply(rx, &shared, &session, initialized).await
}

/// The request's progress and log notifications, then its reply, as an SSE response.
fn streamed_reply(rx: mpsc::Receiver<(bool, Text)>) -> Response<Body> {
    let body = stream::unfold(Some(rx), |rx| async move {
        let mut rx = rx?;
        let (is_reply, message) = tokio::time::timeout(REPLY_TIMEOUT, rx.recv())
            .await
            .ok()??;
        let frame = Frame::data(Bytes::from(format!("event: message\ndata: {message}\n\n")));
        Some((Ok::<_, Infallible>(frame), (!is_reply).then_some(rx)))
    });
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(body)));
    sse_headers(&mut response);
    response
}

/// The reply as one JSON body (the request's notifications other than progress go to the
/// session's stream); a failed `initialize` opens no session.
async fn json_reply(
    mut rx: mpsc::Receiver<(bool, Text)>,
    shared: &Shared,
    session: &Arc<HttpSession>,
    initialized: bool,
) -> Response<Body> {
    let reply = loop {
        match tokio::time::timeout(REPLY_TIMEOUT, rx.recv()).await {
            Ok(Some((is_reply, message))) => {
                if is_reply {
                    break Some(message);
                }
            }
            Ok(None) => break None,
            Err(_) => {
                return rpc_error(
                    StatusCode::GATEWAY_TIMEOUT,
                    -32000,
                    "the call did not answer in time",
                );
            }
        }
    };
    match reply {
        Some(reply) => {
            let failed_initialize = initialized
                && serde_json::from_str::<Value>(&reply).is_ok_and(|m| m.get("error").is_some());
            let mut response = Response::new(full(reply));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            if failed_initialize {
                end_session(shared, session);
                return response;
            }
            with_session(response, shared, session, initialized)
        }
        // Cancelled: no reply will come.
        None => empty(StatusCode::ACCEPTED),
    }
}

/// Moves a request's W3C trace context from its HTTP headers (`traceparent`, `tracestate`, as
/// instrumented HTTP clients send it) into `params._meta`, where the MCP conventions carry it,
/// unless the message has its own. Whether the message changed.
fn carry_trace_context(headers: &header::HeaderMap, message: &mut Value) -> bool {
    let Some(traceparent) = headers.get("traceparent").and_then(|v| v.to_str().ok()) else {
        return false;
    };
    if message.get("id").is_none() || message.get("method").is_none() {
        return false;
    }
    let params = message
        .as_object_mut()
        .expect("a message with an id is an object")
        .entry("params")
        .or_insert_with(|| Value::Object(Default::default()));
    let Some(meta) = params.as_object_mut().map(|p| {
        p.entry("_meta")
            .or_insert_with(|| Value::Object(Default::default()))
    }) else {
        return false;
    };
    let Some(meta) = meta.as_object_mut() else {
        return false;
    };
    if meta.contains_key("traceparent") {
        return false;
    }
    meta.insert("traceparent".into(), Value::String(traceparent.into()));
    if let Some(state) = headers.get("tracestate").and_then(|v| v.to_str().ok()) {
        meta.insert("tracestate".into(), Value::String(state.into()));
    }
    true
}
