//! Opening the connection a checked request goes over: TCP to the one address the host
//! checked (never a name), then TLS for `https` with rustls and the Mozilla roots compiled in
//! (`webpki-roots`), the server name checked against the granted host.
//!
//! A guard for tests: with `LIMINA_NET_LOOPBACK_ONLY` set in the environment (the test suites
//! set it for every host they start), connecting anywhere but loopback aborts the process, so a
//! check that let a request through by mistake fails the test instead of sending a packet off
//! the machine.

use std::net::SocketAddr;
use std::sync::{Arc, LazyLock};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// A connection, plain or TLS.
pub trait Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Stream for T {}

/// Whether the test guard is on.
static LOOPBACK_ONLY: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("LIMINA_NET_LOOPBACK_ONLY").is_some() || cfg!(test));

/// The client TLS configuration: web roots, HTTP/1.1.
static TLS: LazyLock<Arc<rustls::ClientConfig>> = LazyLock::new(|| {
    let roots = rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
});

/// Opens TCP to `addr` (already checked), and TLS over it when `tls_name` is given.
pub async fn open(addr: SocketAddr, tls_name: Option<&str>) -> Result<Box<dyn Stream>, String> {
    if *LOOPBACK_ONLY && !addr.ip().is_loopback() {
        crate::log::write(
            crate::log::Level::Error,
            &format!(
                "LIMINA_NET_LOOPBACK_ONLY: a connection to {addr} was attempted; aborting so the test fails"
            ),
        );
        std::process::abort();
    }
    let tcp = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connecting to {addr} failed: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let Some(name) = tls_name else {
        return Ok(Box::new(tcp));
    };
    let server = rustls::pki_types::ServerName::try_from(name.to_string())
        .map_err(|e| format!("`{name}` cannot be checked by TLS: {e}"))?;
    let tls = tokio_rustls::TlsConnector::from(TLS.clone())
        .connect(server, tcp)
        .await
        .map_err(|e| format!("TLS with {name} failed: {e}"))?;
    Ok(Box::new(tls))
}
