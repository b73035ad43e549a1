//! A 2026-07-28 POST: no session. Its headers are checked against its body
//! (`modern.rs`), then it gets an engine connection of its own for as long as it is
//! answered — one JSON reply, or an SSE response carrying its notifications and then the
//! reply, or, for `subscriptions/listen`, a stream that stays open. Closing the response
//! (the client hanging up) cancels the request and releases the connection. Who it runs as
//! is the edge's grant for its bearer token, turned into an identity by `dispatch/stateless.rs`.

use super::modern::{self, Refusal};
use super::post::Posted;
use super::session::{HttpSession, end_session, forward, forward_request, open_session};
use super::{Body, REPLY_TIMEOUT, Shared, empty, full, json_response, sse_headers};
use crate::mcp::engine::outbox::Frame as Text;
use crate::mcp::transport::edge::Grant;
use crate::mcp::wire::jsonrpc;
use bytes::Bytes;
use futures_util::stream;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::Value;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The engine connection of one stateless request: released when dropped, and the request
/// cancelled first if it was still unanswered (its client hung up).
struct Transient {
    shared: Arc<Shared>,
    session: Arc<HttpSession>,
    unanswered: Option<Value>,
}

impl Drop for Transient {
    fn drop(&mut self) {
        if let Some(id) = self.unanswered.take() {
            self.session.cancels.cancel(&id);
        }
        end_session(&self.shared, &self.session);
    }
}

/// Serves one 2026-07-28 message (its `id` is `None` for a notification).
pub(super) async fn post(
    shared: Arc<Shared>,
    grant: Grant,
    headers: &HeaderMap,
    posted: Posted,
) -> Response<Body> {
    let Posted {
        message,
        text,
        id,
        streams,
    } = posted;
    let message = &message;
    if let Err(Refusal {
        code,
        message: why,
        data,
    }) = modern::check(headers, message)
    {
        let id = id.unwrap_or(Value::Null);
        return json_response(
            StatusCode::BAD_REQUEST,
            &jsonrpc::error(id, code, &why, data),
        );
    }
    // No notification of this revision changes anything without a session to change.
    let Some(id) = id else {
        return empty(StatusCode::ACCEPTED);
    };
    let session = open_session(&shared, grant);
    session
        .routes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .stateless = true;
    let guard = Transient {
        shared: shared.clone(),
        session: session.clone(),
        unanswered: Some(id.clone()),
    };
    if message["method"] == "subscriptions/listen" {
        return listen(guard, &text);
    }
    let rx = forward_request(&shared, &session, &id, None, &text);
    if streams && message.pointer("/params/_meta/progressToken").is_some() {
        return streamed(guard, rx);
    }
    answered(guard, rx).await
}

/// The reply as one JSON body.
async fn answered(mut guard: Transient, mut rx: mpsc::Receiver<(bool, Text)>) -> Response<Body> {
    loop {
        match tokio::time::timeout(REPLY_TIMEOUT, rx.recv()).await {
            Ok(Some((true, reply))) => {
                guard.unanswered = None;
                let status = serde_json::from_str(reply.as_str())
                    .map(|r: Value| modern::status(&r))
                    .unwrap_or(StatusCode::OK);
                let mut response = Response::new(full(reply));
                *response.status_mut() = status;
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                return response;
            }
            Ok(Some((false, _))) => {}
            // Cancelled: no reply will come.
            Ok(None) => return empty(StatusCode::ACCEPTED),
            Err(_) => {
                return json_response(
                    StatusCode::GATEWAY_TIMEOUT,
                    &jsonrpc::error(Value::Null, -32000, "the call did not answer in time", None),
                );
            }
        }
    }
}

/// Notifications, then the reply, as an SSE response; dropping it cancels the request.
fn streamed(guard: Transient, rx: mpsc::Receiver<(bool, Text)>) -> Response<Body> {
    let body = stream::unfold(Some((rx, guard)), |state| async move {
        let (mut rx, mut guard) = state?;
        let (is_reply, message) = tokio::time::timeout(REPLY_TIMEOUT, rx.recv())
            .await
            .ok()??;
        if is_reply {
            guard.unanswered = None;
        }
        let frame = Frame::data(Bytes::from(format!("event: message\ndata: {message}\n\n")));
        Some((
            Ok::<_, Infallible>(frame),
            (!is_reply).then_some((rx, guard)),
        ))
    });
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(body)));
    sse_headers(&mut response);
    response
}

/// `subscriptions/listen`: everything the engine sends this connection goes on one SSE
/// response that stays open until the client closes it.
fn listen(guard: Transient, text: &str) -> Response<Body> {
    let (tx, rx) = mpsc::channel(256);
    guard
        .session
        .routes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .stream = Some(tx);
    forward(&guard.shared, &guard.session, text);
    let body = stream::unfold((rx, guard), |(mut rx, guard)| async move {
        let (_, message) = rx.recv().await?;
        let frame = Frame::data(Bytes::from(format!("event: message\ndata: {message}\n\n")));
        Some((Ok::<_, Infallible>(frame), (rx, guard)))
    });
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(body)));
    sse_headers(&mut response);
    response
}
