//! How many connections may be open at once: in all, per peer address, and (WebSocket) not yet
//! initialized. A connection holds a [`Ticket`] for as long as it is open; one refused gets a
//! 503 naming the limit and its setting, and the host logs it once per peer address (not per
//! connection of a flood).

use super::settings::EdgeLimits;
use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Refused connections a listener answers at once; more are closed without an answer, so a
/// flood cannot make the answering itself a cost.
pub const MAX_REFUSING: usize = 64;

/// The seats of one listener.
#[derive(Debug)]
pub struct Gate {
    limits: EdgeLimits,
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    open: usize,
    by_address: HashMap<IpAddr, usize>,
    uninitialized: usize,
    /// Addresses told about a refusal, until they hold no connection again.
    warned: HashSet<IpAddr>,
}

/// A connection's seat: released when dropped.
#[derive(Debug)]
pub struct Ticket {
    gate: Arc<Gate>,
    address: IpAddr,
    /// Counted among the uninitialized until [`Ticket::initialized`].
    uninitialized: AtomicBool,
}

impl Gate {
    pub fn new(limits: EdgeLimits) -> Arc<Gate> {
        Arc::new(Gate {
            limits,
            counts: Mutex::default(),
        })
    }

    /// The limits it enforces (the transports also read the deadlines and budget).
    pub fn limits(&self) -> &EdgeLimits {
        &self.limits
    }

    /// A seat for a connection from `address`; `sessionless` connections (WebSocket, until
    /// they initialize) also count against the cap on uninitialized ones. The error is the
    /// message for the client.
    pub fn enter(self: &Arc<Gate>, address: IpAddr, sessionless: bool) -> Result<Ticket, String> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let here = counts.by_address.get(&address).copied().unwrap_or(0);
        let refusal = if counts.open >= self.limits.max_connections {
            Some(format!(
                "the host has {} connections open, its limit (`[network] maxConnections`); try again later",
                counts.open
            ))
        } else if here >= self.limits.max_connections_per_address {
            Some(format!(
                "{address} already has {here} connections open, the limit per address (`[network] maxConnectionsPerAddress`); close some first"
            ))
        } else if sessionless && counts.uninitialized >= self.limits.max_uninitialized {
            Some(format!(
                "{} connections have not initialized yet, the limit (`[network] maxUninitialized`); try again later",
                counts.uninitialized
            ))
        } else {
            None
        };
        if let Some(message) = refusal {
            if counts.warned.insert(address) {
                crate::log::warn(&format!(
                    "refusing connections from {address}: {message} (logged once until it has none open)"
                ));
            }
            return Err(message);
        }
        counts.open += 1;
        *counts.by_address.entry(address).or_default() += 1;
        if sessionless {
            counts.uninitialized += 1;
        }
        Ok(Ticket {
            gate: self.clone(),
            address,
            uninitialized: AtomicBool::new(sessionless),
        })
    }

    /// Open connections, in all and not yet initialized (for tests and logs).
    pub fn open(&self) -> (usize, usize) {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        (counts.open, counts.uninitialized)
    }

    fn leave_uninitialized(&self) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.uninitialized = counts.uninitialized.saturating_sub(1);
    }
}

impl Ticket {
    /// Its session is initialized: it no longer counts as a silent connection.
    pub fn initialized(&self) {
        if self.uninitialized.swap(false, Ordering::AcqRel) {
            self.gate.leave_uninitialized();
        }
    }

    /// Whether it has initialized a session.
    pub fn is_initialized(&self) -> bool {
        !self.uninitialized.load(Ordering::Acquire)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.initialized();
        let mut counts = self.gate.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.open = counts.open.saturating_sub(1);
        if let Some(n) = counts.by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                counts.by_address.remove(&self.address);
                counts.warned.remove(&self.address);
            }
        }
    }
}

/// Answers a connection the gate refused with `503` and a JSON-RPC error naming the limit,
/// then closes it. What the client already sent is read (briefly, a little) so the close
/// does not reset the connection before the answer arrives.
pub async fn refuse(mut stream: TcpStream, message: &str) {
    let body = crate::mcp::wire::jsonrpc::error(
        serde_json::Value::Null,
        crate::mcp::wire::jsonrpc::SERVER_BUSY,
        message,
        None,
    )
    .to_string();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        stream.write_all(response.as_bytes()),
    )
    .await;
    let _ = stream.shutdown().await;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_millis(500), async {
        let mut left = 16usize;
        while left > 0 && matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {
            left -= 1;
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(total: usize, per_address: usize, uninitialized: usize) -> EdgeLimits {
        EdgeLimits {
            max_connections: total,
            max_connections_per_address: per_address,
            max_uninitialized: uninitialized,
            ..EdgeLimits::default()
        }
    }

    #[test]
    fn seats_are_capped_per_address_in_all_and_before_initialize() {
        let gate = Gate::new(limits(4, 2, 3));
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let c: IpAddr = "127.0.0.4".parse().unwrap();
        let a1 = gate.enter(a, true).unwrap();
        let _a2 = gate.enter(a, true).unwrap();
        let err = gate.enter(a, true).unwrap_err();
        assert!(err.contains("maxConnectionsPerAddress"), "{err}");
        let b1 = gate.enter(b, true).unwrap();
        let err = gate.enter(b, true).unwrap_err();
        assert!(err.contains("maxUninitialized"), "{err}");
        a1.initialized();
        assert_eq!(gate.open(), (3, 2));
        let _b2 = gate.enter(b, true).unwrap();
        let err = gate.enter(c, false).unwrap_err();
        assert!(err.contains("maxConnections`"), "{err}");
        drop(a1);
        drop(b1);
        assert_eq!(gate.open(), (2, 2));
        let _c1 = gate.enter(c, false).unwrap();
        assert_eq!(
            gate.open(),
            (3, 2),
            "an HTTP connection is not counted as silent"
        );
    }
}
