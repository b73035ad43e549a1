//! What the socket transports share: where to listen and who may connect, and a listener
//! served on a thread of its own by a single-threaded tokio runtime (sockets are I/O-bound;
//! the engine does the work).

use super::edge::{Admission, EdgeLimits};
use super::guard::Guard;
use std::future::Future;
use std::net::SocketAddr;
use tokio::net::TcpListener;

/// Where a socket transport listens and who may connect.
#[derive(Debug, Clone)]
pub struct Listen {
    pub bind: SocketAddr,
    pub guard: Guard,
    /// Tokens, identities and the profiles network clients may take.
    pub admission: std::sync::Arc<Admission>,
    /// Connection caps, deadlines and the budget for unfinished messages.
    pub limits: EdgeLimits,
}

/// Binds `bind` and runs `serve` on the listener on a thread named `name`; returns the
/// address bound (port 0 picks one).
pub(super) fn spawn<F, Fut>(name: &str, bind: SocketAddr, serve: F) -> std::io::Result<SocketAddr>
where
    F: FnOnce(TcpListener) -> Fut + Send + 'static,
    Fut: Future<Output = ()>,
{
    let listener = std::net::TcpListener::bind(bind)?;
    listener.set_nonblocking(true)?;
    let local = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let label = name.to_string();
    std::thread::Builder::new()
        .name(format!("limina-{name}"))
        .spawn(move || {
            runtime.block_on(async move {
                match TcpListener::from_std(listener) {
                    Ok(listener) => serve(listener).await,
                    Err(e) => crate::log::error(&format!("the {label} listener failed: {e}")),
                }
            })
        })?;
    Ok(local)
}
