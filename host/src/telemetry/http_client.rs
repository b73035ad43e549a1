//! The HTTP client the OTLP exporters post through: one HTTP/1.1 request per export over the
//! hyper and tokio this crate already uses for its transports. The exporter's default client
//! (reqwest, blocking) would add a second HTTP stack, its own runtime and a TLS library to a
//! build that already takes minutes, for a request every few seconds. Plain `http://` only:
//! a collector beside the host forwards over TLS where needed.
//!
//! The exporters call it from their own threads (the span export thread, the metric reader)
//! through a plain `block_on`, never from a tokio runtime, so each client drives its request
//! on a small current-thread runtime of its own.

use async_trait::async_trait;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use std::time::Duration;

/// Posts OTLP requests over plain HTTP/1.1, each within `timeout`.
#[derive(Debug)]
pub struct OtlpHttp {
    runtime: tokio::runtime::Runtime,
    timeout: Duration,
}

impl OtlpHttp {
    /// A client whose requests each get `timeout` to be answered.
    pub fn new(timeout: Duration) -> std::io::Result<OtlpHttp> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        Ok(OtlpHttp { runtime, timeout })
    }
}

#[async_trait]
impl HttpClient for OtlpHttp {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let timeout = self.timeout;
        self.runtime.block_on(async move {
            match tokio::time::timeout(timeout, post(request)).await {
                Ok(result) => result,
                Err(_) => Err(format!("no answer within {} ms", timeout.as_millis()).into()),
            }
        })
    }
}

/// Sends `request` on a fresh connection and reads the whole answer.
async fn post(request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
    let (mut parts, body) = request.into_parts();
    let host = parts
        .uri
        .host()
        .ok_or("the endpoint names no host")?
        .trim_matches(['[', ']'])
        .to_string();
    let port = parts.uri.port_u16().unwrap_or(80);
    let authority = parts
        .uri
        .authority()
        .map(|a| a.as_str().to_string())
        .unwrap_or_else(|| host.clone());
    let stream = tokio::net::TcpStream::connect((host.as_str(), port)).await?;
    stream.set_nodelay(true)?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    let driving = tokio::spawn(connection);
    // HTTP/1.1 requests name the path; the host goes in its header.
    parts.uri = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse()?;
    parts
        .headers
        .insert(hyper::header::HOST, authority.parse()?);
    let answer = sender
        .send_request(Request::from_parts(parts, Full::new(body)))
        .await?;
    let (parts, body) = answer.into_parts();
    let body = body.collect().await?.to_bytes();
    driving.abort();
    Ok(Response::from_parts(parts, body))
}
