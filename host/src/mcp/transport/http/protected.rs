//! The answers HTTP gives as a protected resource (RFC 9728, RFC 6750): the metadata document
//! at `/.well-known/oauth-protected-resource` (and the form with `/mcp` after it), public and
//! readable from any page; and a refused bearer token as 401/403/503 with its challenge and a
//! JSON-RPC error body saying why.

use super::super::bearer;
use super::super::edge::Transport;
use super::{Body, Shared, full, rpc_error, text};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

/// The metadata document, for a GET (or HEAD).
pub(super) fn metadata<B>(shared: &Shared, request: &Request<B>) -> Response<Body> {
    let Some(metadata) = shared.config.admission.metadata() else {
        return text(StatusCode::NOT_FOUND, "not found: MCP is served at /mcp");
    };
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "the metadata is read with GET",
        );
    }
    let mut response = Response::new(full(metadata.document().to_string()));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // Public data a browser-based client reads from another origin.
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=300"),
    );
    response
}

/// Whether `path` is where the metadata document is served.
pub(super) fn serves(shared: &Shared, path: &str) -> bool {
    shared
        .config
        .admission
        .metadata()
        .is_some_and(|m| m.serves(path))
}

/// A refused token's answer (after reporting it).
pub(super) fn refused(shared: &Shared, refusal: &crate::identity::Refusal) -> Response<Body> {
    let answer = bearer::refused(
        &shared.config.admission,
        &shared.engine,
        Transport::Http,
        refusal,
    );
    let mut response = rpc_error(answer.status, -32000, &answer.message);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, answer.challenge);
    if answer.status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    response
}
