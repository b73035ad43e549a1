//! The registry's HTTP API (OCI distribution): manifests and blobs by digest, uploads, and
//! the anonymous bearer-token challenge public registries answer pulls with. Blocking: each
//! request runs on a small current-thread runtime of the client's own, within a deadline.
//!
//! `https` with the Mozilla roots (and `[outbound] extraRoots`) by default; plain `http` only
//! for a loopback registry or one listed in `[oci] plainHttp`. Connections go through
//! `net::connect`, so a test host with `LIMINA_NET_LOOPBACK_ONLY` never leaves the machine.

use super::OciError;
use crate::net::connect::{self, Tls};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::{Method, Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long one request (connection, answer and body) may take.
const REQUEST_LIMIT: Duration = Duration::from_secs(60);
/// Redirects followed for one download (registries send blobs from storage elsewhere).
const MAX_REDIRECTS: usize = 5;

/// A registry's answer.
pub struct Answer {
    pub status: StatusCode,
    pub headers: header::HeaderMap,
    pub body: Vec<u8>,
}

/// One registry, spoken to over `http` or `https`.
pub struct Client {
    runtime: tokio::runtime::Runtime,
    tls: Arc<rustls::ClientConfig>,
    /// `http://host[:port]` or `https://host[:port]`.
    base: String,
    /// A bearer token the registry's challenge handed out, reused for later requests.
    token: Mutex<Option<String>>,
}

impl Client {
    /// A client for `registry` (`host[:port]`); `plain`: over `http`.
    pub fn new(
        registry: &str,
        plain: bool,
        tls: Arc<rustls::ClientConfig>,
    ) -> Result<Client, OciError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| OciError::unreachable(format!("starting the registry client: {e}")))?;
        let scheme = if plain { "http" } else { "https" };
        Ok(Client {
            runtime,
            tls,
            base: format!("{scheme}://{registry}"),
            token: Mutex::new(None),
        })
    }

    /// Sends a request to `path` (on this registry) or an absolute URL, following redirects
    /// for reads and answering one bearer challenge; the body is read up to `limit` bytes.
    pub fn send(
        &self,
        method: Method,
        target: &str,
        headers: &[(header::HeaderName, String)],
        body: Vec<u8>,
        limit: usize,
    ) -> Result<Answer, OciError> {
        let mut url = self.absolute(target);
        let mut challenged = false;
        for _ in 0..=MAX_REDIRECTS {
            let token = self.token.lock().expect("not poisoned").clone();
            let mut all = headers.to_vec();
            // Credentials go only to the registry itself, never to where it redirects.
            if let Some(token) = token.filter(|_| url.starts_with(&self.base)) {
                all.push((header::AUTHORIZATION, format!("Bearer {token}")));
            }
            let answer = self.once(method.clone(), &url, &all, body.clone(), limit)?;
            if answer.status == StatusCode::UNAUTHORIZED && !challenged {
                challenged = true;
                let token = self.answer_challenge(&answer)?;
                *self.token.lock().expect("not poisoned") = Some(token);
                continue;
            }
            if answer.status.is_redirection() && matches!(method, Method::GET | Method::HEAD) {
                let location = answer
                    .headers
                    .get(header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| {
                        OciError::refused("the registry redirected without a Location")
                    })?;
                let next = self.absolute_from(&url, location);
                if url.starts_with("https://") && next.starts_with("http://") {
                    return Err(OciError::refused(format!(
                        "the registry redirected from https to plain http ({next}); refused"
                    )));
                }
                url = next;
                continue;
            }
            return Ok(answer);
        }
        Err(OciError::refused(format!(
            "more than {MAX_REDIRECTS} redirects from {}",
            self.absolute(target)
        )))
    }

    /// The URL of `target`: absolute as given, else on this registry.
    pub fn absolute(&self, target: &str) -> String {
        if target.starts_with("http://") || target.starts_with("https://") {
            target.to_string()
        } else {
            format!("{}{target}", self.base)
        }
    }

    /// `location` as an absolute URL, relative to `current`'s origin when it is a path.
    fn absolute_from(&self, current: &str, location: &str) -> String {
        if location.starts_with("http://") || location.starts_with("https://") {
            return location.to_string();
        }
        let origin_end = current
            .find("://")
            .and_then(|s| current[s + 3..].find('/').map(|p| s + 3 + p))
            .unwrap_or(current.len());
        format!("{}{location}", &current[..origin_end])
    }

    /// Fetches an anonymous token as a `WWW-Authenticate: Bearer realm=…,service=…,scope=…`
    /// challenge asks (how public registries let anyone pull).
    fn answer_challenge(&self, answer: &Answer) -> Result<String, OciError> {
        let challenge = answer
            .headers
            .get(header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let Some(params) = challenge.strip_prefix("Bearer ") else {
            return Err(OciError::refused(format!(
                "the registry asks for credentials ({}), which this host does not hold; \
                 use a registry or repository that allows anonymous reads",
                if challenge.is_empty() {
                    "401"
                } else {
                    challenge
                }
            )));
        };
        let field = |name: &str| {
            params.split(',').find_map(|part| {
                let (key, value) = part.trim().split_once('=')?;
                (key == name).then(|| value.trim_matches('"').to_string())
            })
        };
        let realm = field("realm")
            .ok_or_else(|| OciError::refused("the registry's bearer challenge names no realm"))?;
        let mut query = Vec::new();
        for key in ["service", "scope"] {
            if let Some(value) = field(key) {
                query.push(format!("{key}={}", encode_query(&value)));
            }
        }
        let url = if query.is_empty() {
            realm
        } else {
            format!("{realm}?{}", query.join("&"))
        };
        let reply = self.once(Method::GET, &url, &[], Vec::new(), 64 << 10)?;
        if !reply.status.is_success() {
            return Err(OciError::refused(format!(
                "the registry's token service answered {} for an anonymous token",
                reply.status
            )));
        }
        let value: serde_json::Value = serde_json::from_slice(&reply.body)
            .map_err(|e| OciError::refused(format!("the token service's answer: {e}")))?;
        value["token"]
            .as_str()
            .or(value["access_token"].as_str())
            .map(str::to_string)
            .ok_or_else(|| OciError::refused("the token service answered no token"))
    }

    /// One request to an absolute URL, within [`REQUEST_LIMIT`].
    fn once(
        &self,
        method: Method,
        url: &str,
        headers: &[(header::HeaderName, String)],
        body: Vec<u8>,
        limit: usize,
    ) -> Result<Answer, OciError> {
        let work = request(self.tls.clone(), method, url, headers, body, limit);
        self.runtime
            .block_on(async { tokio::time::timeout(REQUEST_LIMIT, work).await })
            .unwrap_or_else(|_| {
                Err(OciError::unreachable(format!(
                    "{url} did not answer within {} s",
                    REQUEST_LIMIT.as_secs()
                )))
            })
    }
}

/// Sends one HTTP/1.1 request on a fresh connection and reads the answer.
async fn request(
    tls: Arc<rustls::ClientConfig>,
    method: Method,
    url: &str,
    headers: &[(header::HeaderName, String)],
    body: Vec<u8>,
    limit: usize,
) -> Result<Answer, OciError> {
    let uri: hyper::Uri = url
        .parse()
        .map_err(|e| OciError::refused(format!("`{url}` is not a URL: {e}")))?;
    let https = uri.scheme_str() == Some("https");
    let host = uri
        .host()
        .ok_or_else(|| OciError::refused(format!("`{url}` names no host")))?
        .trim_matches(['[', ']'])
        .to_string();
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let addr = tokio::net::lookup_host((host.as_str(), port))
        .await
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| OciError::unreachable(format!("the name `{host}` cannot be resolved")))?;
    let tls = https.then_some(Tls {
        name: &host,
        config: tls,
    });
    let stream = connect::open(addr, tls)
        .await
        .map_err(|e| OciError::unreachable(e.reason))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| OciError::unreachable(format!("{url}: {e}")))?;
    let driving = tokio::spawn(connection);
    let authority = uri.authority().map(|a| a.to_string()).unwrap_or(host);
    let mut builder = Request::builder()
        .method(method)
        .uri(uri.path_and_query().map_or("/", |p| p.as_str()))
        .header(header::HOST, authority)
        .header(
            header::USER_AGENT,
            concat!("limina/", env!("CARGO_PKG_VERSION")),
        );
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| OciError::refused(format!("building the request to {url}: {e}")))?;
    let answer = sender
        .send_request(request)
        .await
        .map_err(|e| OciError::unreachable(format!("{url}: {e}")))?;
    let (parts, body) = answer.into_parts();
    let body = Limited::new(body, limit)
        .collect()
        .await
        .map_err(|e| {
            OciError::refused(format!(
                "{url}: the answer's body (at most {limit} bytes): {e}"
            ))
        })?
        .to_bytes()
        .to_vec();
    driving.abort();
    Ok(Answer {
        status: parts.status,
        headers: parts.headers,
        body,
    })
}

/// Percent-encodes a query value (RFC 3986 unreserved characters kept).
fn encode_query(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::encode_query;

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(
            encode_query("repository:team/dice:pull"),
            "repository%3Ateam%2Fdice%3Apull"
        );
    }
}
