//! One request to the identity provider, as a tokio task at the edge: the name resolved off the
//! runtime's thread, the address checked (plain `http` reaches loopback only, a cloud metadata
//! address never), TCP then TLS for `https` (`crate::net::connect`, the web roots and any
//! `[outbound] extraRoots`), the answer read whole up to a cap — and all of it within one
//! deadline, so a provider that does not answer refuses a request instead of holding it.

use crate::limits::IDENTITY_MAX_DOCUMENT_BYTES;
use crate::net::{HttpUrl, TlsRoots};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use serde_json::Value;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// Where requests go and what they trust.
#[derive(Debug, Clone)]
pub struct Fetcher {
    pub roots: TlsRoots,
    pub timeout: Duration,
}

/// A form POST's body and its `Authorization` header.
pub struct Form {
    pub body: String,
    pub authorization: String,
}

impl Fetcher {
    /// GETs `url` and reads a JSON object from a 200 answer.
    pub async fn json(&self, url: &str) -> Result<Value, String> {
        self.within(url, self.send(url, None)).await
    }

    /// POSTs `form` to `url` and reads a JSON object from a 200 answer.
    pub async fn post(&self, url: &str, form: Form) -> Result<Value, String> {
        self.within(url, self.send(url, Some(form))).await
    }

    async fn within(
        &self,
        url: &str,
        request: impl std::future::Future<Output = Result<Value, String>>,
    ) -> Result<Value, String> {
        match tokio::time::timeout(self.timeout, request).await {
            Ok(answer) => answer,
            Err(_) => Err(format!(
                "{url} did not answer within {} ms (`[identity] fetchTimeoutMs`)",
                self.timeout.as_millis()
            )),
        }
    }

    async fn send(&self, url: &str, form: Option<Form>) -> Result<Value, String> {
        let target = HttpUrl::parse(url)?;
        let addr = address(&target).await?;
        let tls = target.https.then(|| crate::net::connect::Tls {
            name: target.host.as_str(),
            config: self.roots.client_config(),
        });
        let stream = crate::net::connect::open(addr, tls)
            .await
            .map_err(|e| format!("{url}: {}", e.reason))?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .map_err(|e| format!("{url}: HTTP failed: {e}"))?;
        tokio::spawn(connection);
        let builder = Request::builder()
            .uri(target.path.as_str())
            .header("host", &target.authority)
            .header("accept", "application/json");
        let request = match form {
            None => builder.method("GET").body(Full::new(Bytes::new())),
            Some(form) => builder
                .method("POST")
                .header("content-type", "application/x-www-form-urlencoded")
                .header("authorization", form.authorization)
                .body(Full::new(Bytes::from(form.body))),
        }
        .map_err(|e| format!("{url}: {e}"))?;
        let answer = sender
            .send_request(request)
            .await
            .map_err(|e| format!("{url} did not answer: {e}"))?;
        let status = answer.status();
        let mut body = answer.into_body();
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| format!("{url}: reading the answer failed: {e}"))?;
            if let Ok(data) = frame.into_data() {
                bytes.extend_from_slice(&data);
                if bytes.len() > IDENTITY_MAX_DOCUMENT_BYTES {
                    return Err(format!(
                        "{url}: the answer is over {IDENTITY_MAX_DOCUMENT_BYTES} bytes"
                    ));
                }
            }
        }
        if !status.is_success() {
            return Err(format!("{url} answered {status}"));
        }
        match serde_json::from_slice(&bytes) {
            Ok(Value::Object(map)) => Ok(Value::Object(map)),
            _ => Err(format!("{url} did not answer a JSON object")),
        }
    }
}

/// The first address of `target` the host may reach, resolved without blocking the runtime.
async fn address(target: &HttpUrl) -> Result<SocketAddr, String> {
    let ips: Vec<IpAddr> = match target.host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => tokio::net::lookup_host((target.host.as_str(), target.port))
            .await
            .map_err(|e| format!("`{}` could not be resolved: {e}", target.host))?
            .map(|a| a.ip())
            .collect(),
    };
    let reachable = |ip: &IpAddr| {
        crate::net::address::special(*ip) != Some("a cloud metadata address")
            && (target.https || ip.is_loopback())
    };
    let ip = ips.into_iter().find(reachable).ok_or_else(|| {
        format!(
            "`{}` resolves to no address the host may reach (plain http reaches loopback only)",
            target.host
        )
    })?;
    Ok(SocketAddr::new(ip, target.port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetcher(ms: u64) -> Fetcher {
        Fetcher {
            roots: TlsRoots::default(),
            timeout: Duration::from_millis(ms),
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_provider_that_never_answers_is_given_up_on_at_the_deadline() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/jwks", listener.local_addr().unwrap());
        let started = std::time::Instant::now();
        let err = runtime().block_on(fetcher(200).json(&url)).unwrap_err();
        assert!(err.contains("did not answer within 200 ms"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(listener);
    }

    #[test]
    fn refusals_name_the_url_and_the_status() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/jwks", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 1024];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}");
        });
        let err = runtime().block_on(fetcher(2_000).json(&url)).unwrap_err();
        assert!(err.contains("/jwks answered 404"), "{err}");
        let closed = "http://127.0.0.1:1/jwks";
        let err = runtime().block_on(fetcher(2_000).json(closed)).unwrap_err();
        assert!(err.contains("127.0.0.1:1"), "{err}");
    }
}
