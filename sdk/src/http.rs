//! A small HTTP client over the standard `wasi:http` outgoing handler, for packages whose
//! manifest declares network grants:
//!
//! ```ignore
//! let response = limina_sdk::http::get("https://api.example.com/v1/items", &[("accept", "application/json")])?;
//! let items: Vec<Item> = response.json()?;
//! ```
//!
//! The host checks every request against the package's grants and the session's budget; a
//! refused request fails with the `wasi:http` error code (`HttpRequestDenied`,
//! `DestinationIpProhibited`, …) in [`FetchError`]. Redirects are not followed: a 3xx comes
//! back as it is, and a request to its `location` is checked like any other. A package that
//! never calls this module imports nothing of `wasi:http`.

use crate::SkillError;

/// Bindings of the standard `wasi:http` outgoing handler (the WASI packages in `wit/deps`).
mod wasi_bindings {
    wit_bindgen::generate!({
        path: "../wit",
        inline: "package limina:http-client;\nworld client { import wasi:http/outgoing-handler@0.2.12; }",
        world: "limina:http-client/client",
        generate_all,
    });
}

use wasi_bindings::wasi::http::outgoing_handler;
use wasi_bindings::wasi::http::types::{
    ErrorCode, Fields, IncomingBody, Method, OutgoingBody, OutgoingRequest, Scheme,
};
use wasi_bindings::wasi::io::streams::StreamError;

/// The most a response body is read to, unless [`Request::limit`] says otherwise.
pub const DEFAULT_LIMIT: usize = 1 << 20;
/// The most `blocking-write-and-flush` takes at once (`wasi:io/streams`).
const WRITE_CHUNK: usize = 4096;
/// The most one read asks for.
const READ_CHUNK: u64 = 64 * 1024;

/// Why a request failed: the `wasi:http` error code's name when the host or the server
/// refused it, or what was wrong with the request itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError(pub String);

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FetchError {}

/// A failed request fails the skill as a handler error naming the code.
impl From<FetchError> for SkillError {
    fn from(e: FetchError) -> Self {
        SkillError::HandlerError(format!("the request failed: {e}"))
    }
}

/// An answer: status, headers (values as Latin-1 text) and the body read up to the limit.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body, at most the request's limit.
    pub body: Vec<u8>,
}

impl Response {
    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body read as JSON into `T`.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, FetchError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| FetchError(format!("the response is not the JSON expected: {e}")))
    }

    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request, built up and then [sent](Request::send).
#[derive(Debug, Clone)]
pub struct Request<'a> {
    method: &'a str,
    url: &'a str,
    headers: Vec<(&'a str, &'a str)>,
    body: Option<&'a [u8]>,
    limit: usize,
}

/// `GET url` with `headers`.
pub fn get(url: &str, headers: &[(&str, &str)]) -> Result<Response, FetchError> {
    Request::new("GET", url).headers(headers).send()
}

/// `POST url` with `headers` and `body`.
pub fn post(url: &str, headers: &[(&str, &str)], body: &[u8]) -> Result<Response, FetchError> {
    Request::new("POST", url).headers(headers).body(body).send()
}

impl<'a> Request<'a> {
    /// A request with `method` (`GET`, `POST`, `PUT`, `DELETE`, `PATCH`, `HEAD`, `OPTIONS` or
    /// any other token) to an `http` or `https` `url`.
    pub fn new(method: &'a str, url: &'a str) -> Self {
        Request {
            method,
            url,
            headers: Vec::new(),
            body: None,
            limit: DEFAULT_LIMIT,
        }
    }

    /// Adds headers.
    pub fn headers(mut self, headers: &[(&'a str, &'a str)]) -> Self {
        self.headers.extend_from_slice(headers);
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: &'a [u8]) -> Self {
        self.body = Some(body);
        self
    }

    /// Reads at most `limit` bytes of the response body (the rest is left unread).
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Sends the request and reads the answer.
    pub fn send(self) -> Result<Response, FetchError> {
        let (scheme, authority, path) = split_url(self.url)?;
        let mut fields: Vec<(String, Vec<u8>)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect();
        // A body goes with its length, so servers that read none but `content-length` get it.
        if let Some(body) = self.body
            && !self
                .headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        {
            fields.push(("content-length".into(), body.len().to_string().into_bytes()));
        }
        let fields = Fields::from_list(&fields)
            .map_err(|e| FetchError(format!("a header is not allowed: {e:?}")))?;
        let request = OutgoingRequest::new(fields);
        let set = request
            .set_method(&method(self.method))
            .and(request.set_scheme(Some(&scheme)))
            .and(request.set_authority(Some(authority)))
            .and(request.set_path_with_query(Some(path)));
        if set.is_err() {
            return Err(FetchError(format!("`{}` is not a valid request", self.url)));
        }
        let outgoing = match self.body {
            Some(_) => Some(request.body().map_err(|()| FetchError("no request body".into()))?),
            None => None,
        };
        let future = outgoing_handler::handle(request, None).map_err(|e| code(&e))?;
        if let (Some(outgoing), Some(body)) = (outgoing, self.body) {
            write_body(outgoing, body)?;
        }
        let response = loop {
            match future.get() {
                Some(result) => break result,
                None => future.subscribe().block(),
            }
        };
        let response = response
            .map_err(|()| FetchError("the response was already taken".into()))?
            .map_err(|e| code(&e))?;
        let status = response.status();
        let headers = response
            .headers()
            .entries()
            .into_iter()
            .map(|(k, v)| (k, v.iter().map(|&b| b as char).collect()))
            .collect();
        let incoming = response
            .consume()
            .map_err(|()| FetchError("the response body was already taken".into()))?;
        let body = read_body(&incoming, self.limit)?;
        Ok(Response {
            status,
            headers,
            body,
        })
    }
}

/// `(scheme, authority, path with query)` of an `http(s)://` URL.
fn split_url(url: &str) -> Result<(Scheme, &str, &str), FetchError> {
    let not_http = || FetchError(format!("`{url}` is not an http(s) URL"));
    let (scheme, rest) = url.split_once("://").ok_or_else(not_http)?;
    let scheme = match scheme {
        "http" => Scheme::Http,
        "https" => Scheme::Https,
        _ => return Err(not_http()),
    };
    let cut = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(cut);
    if authority.is_empty() {
        return Err(not_http());
    }
    Ok((scheme, authority, if path.is_empty() { "/" } else { path }))
}

fn method(name: &str) -> Method {
    match name.to_ascii_uppercase().as_str() {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "DELETE" => Method::Delete,
        "OPTIONS" => Method::Options,
        "PATCH" => Method::Patch,
        _ => Method::Other(name.to_string()),
    }
}

/// The name of a `wasi:http` error code (`HttpRequestDenied`), as the host's refusals read.
fn code(e: &ErrorCode) -> FetchError {
    // wit-bindgen writes `ErrorCode::DnsError(DnsErrorPayload { .. })`.
    let debug = format!("{e:?}");
    let name = debug.split(['(', ' ', '{']).next().unwrap_or(&debug);
    FetchError(name.rsplit("::").next().unwrap_or(name).to_string())
}

fn write_body(outgoing: OutgoingBody, body: &[u8]) -> Result<(), FetchError> {
    {
        let stream = outgoing
            .write()
            .map_err(|()| FetchError("the request body was already taken".into()))?;
        for chunk in body.chunks(WRITE_CHUNK) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(|e| stream_error(&e, "the request body could not be sent"))?;
        }
        // The stream is dropped here, before the body is finished.
    }
    OutgoingBody::finish(outgoing, None).map_err(|e| code(&e))
}

fn read_body(incoming: &IncomingBody, limit: usize) -> Result<Vec<u8>, FetchError> {
    let stream = incoming
        .stream()
        .map_err(|()| FetchError("the response body was already taken".into()))?;
    let mut body = Vec::new();
    while body.len() < limit {
        let want = READ_CHUNK.min((limit - body.len()) as u64);
        match stream.blocking_read(want) {
            Ok(chunk) => body.extend_from_slice(&chunk),
            Err(StreamError::Closed) => break,
            Err(e) => return Err(stream_error(&e, "the response body could not be read")),
        }
    }
    Ok(body)
}

/// A stream failure: the `wasi:http` code behind it when there is one, else `what`.
fn stream_error(e: &StreamError, what: &str) -> FetchError {
    match e {
        StreamError::LastOperationFailed(error) => {
            match wasi_bindings::wasi::http::types::http_error_code(error) {
                Some(c) => code(&c),
                None => FetchError(what.to_string()),
            }
        }
        StreamError::Closed => FetchError(what.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_scheme_authority_and_path() {
        let (scheme, authority, path) = split_url("https://api.example.com:8443/v1?q=1").unwrap();
        assert!(matches!(scheme, Scheme::Https));
        assert_eq!((authority, path), ("api.example.com:8443", "/v1?q=1"));
        let (_, authority, path) = split_url("http://127.0.0.1?x").unwrap();
        assert_eq!((authority, path), ("127.0.0.1", "?x"));
        let (_, _, path) = split_url("http://h").unwrap();
        assert_eq!(path, "/");
    }

    #[test]
    fn other_schemes_and_empty_hosts_are_not_urls() {
        for url in ["ftp://h/x", "h/x", "http:///x", "file:///etc/passwd"] {
            assert_eq!(
                split_url(url).err(),
                Some(FetchError(format!("`{url}` is not an http(s) URL")))
            );
        }
    }

    #[test]
    fn error_codes_read_as_their_names() {
        assert_eq!(code(&ErrorCode::HttpRequestDenied).0, "HttpRequestDenied");
        assert_eq!(code(&ErrorCode::ConnectionTimeout).0, "ConnectionTimeout");
        assert_eq!(
            code(&ErrorCode::HttpResponseBodySize(Some(9))).0,
            "HttpResponseBodySize"
        );
    }
}
