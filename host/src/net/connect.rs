//! Opening the connection a checked request goes over: TCP to the one address the host
//! checked (never a name), then TLS for `https` with rustls and the roots of [`super::tls`]
//! (the Mozilla roots compiled in, plus any `[outbound] extraRoots`), the server name checked
//! against the granted host.
//!
//! A guard for tests: with `LIMINA_NET_LOOPBACK_ONLY` set in the environment (the test suites
//! set it for every host they start), connecting anywhere but loopback aborts the process, so a
//! check that let a request through by mistake fails the test instead of sending a packet off
//! the machine.

use std::net::SocketAddr;
use std::sync::{Arc, LazyLock};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use wasmtime_wasi_http::Error;

/// A connection, plain or TLS.
pub trait Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Stream for T {}

/// Whether the test guard is on.
static LOOPBACK_ONLY: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("LIMINA_NET_LOOPBACK_ONLY").is_some() || cfg!(test));

/// Why a connection could not be opened: what the request's record says, and the
/// `wasi:http` error the guest sees.
#[derive(Debug)]
pub struct Unopened {
    pub reason: String,
    pub code: Error,
}

/// TLS for one connection: the name the certificate must hold and the roots to trust.
pub struct Tls<'a> {
    pub name: &'a str,
    pub config: Arc<rustls::ClientConfig>,
}

/// Opens TCP to `addr` (already checked), and TLS over it when `tls` is given.
pub async fn open(addr: SocketAddr, tls: Option<Tls<'_>>) -> Result<Box<dyn Stream>, Unopened> {
    if *LOOPBACK_ONLY && !addr.ip().is_loopback() {
        crate::log::write(
            crate::log::Level::Error,
            &format!(
                "LIMINA_NET_LOOPBACK_ONLY: a connection to {addr} was attempted; aborting so the test fails"
            ),
        );
        std::process::abort();
    }
    let tcp = TcpStream::connect(addr).await.map_err(|e| Unopened {
        reason: format!("connecting to {addr} failed: {e}"),
        code: Error::ConnectionRefused,
    })?;
    let _ = tcp.set_nodelay(true);
    let Some(Tls { name, config }) = tls else {
        return Ok(Box::new(tcp));
    };
    let server =
        rustls::pki_types::ServerName::try_from(name.to_string()).map_err(|e| Unopened {
            reason: format!("`{name}` cannot be checked by TLS: {e}"),
            code: Error::TlsProtocolError,
        })?;
    let stream = tokio_rustls::TlsConnector::from(config)
        .connect(server, tcp)
        .await
        .map_err(|e| tls_failure(name, &e))?;
    Ok(Box::new(stream))
}

/// A failed handshake: a certificate the roots do not vouch for, or one that does not name
/// the host, is `TlsCertificateError`; anything else `TlsProtocolError`.
fn tls_failure(name: &str, e: &std::io::Error) -> Unopened {
    let rustls_error = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    match rustls_error {
        Some(rustls::Error::InvalidCertificate(why)) => Unopened {
            reason: format!(
                "TLS with {name} failed: the server's certificate is refused ({why:?})"
            ),
            code: Error::TlsCertificateError,
        },
        _ => Unopened {
            reason: format!("TLS with {name} failed: {e}"),
            code: Error::TlsProtocolError,
        },
    }
}
