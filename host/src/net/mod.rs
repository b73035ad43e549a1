//! Outbound HTTP for packages with network grants, through the standard `wasi:http`
//! outgoing handler (wasmtime-wasi-http). The crate parses what the guest builds; every
//! request is then sent by this room, never by the crate's own sender:
//!
//! 1. [`outgoing`] checks it on the calling thread: the session holds `net.outbound`, the URL
//!    (scheme, host, port, path) falls under a pattern the package declared *and* the host
//!    still gives, the call has requests left and the session's `budget.net` is not spent;
//! 2. on the runtime, the host resolves the name itself ([`resolve`], a seam tests fill) and
//!    checks every address ([`address`]): loopback, private, link-local, CGNAT, multicast,
//!    metadata and mapped forms are refused unless the grant names the address (or
//!    `localhost`);
//! 3. [`connect`] opens a connection to the checked address only (TLS with rustls, the
//!    Mozilla roots and any `[outbound] extraRoots` of [`tls`] for `https`), and [`body`] caps and counts both bodies and cuts them at
//!    the call's deadline or cancellation.
//!
//! Redirects are not followed: a 3xx answer goes back to the guest, and any request it then
//! makes is checked like the first. What happened to each request is kept in a [`ledger`]
//! the sandbox reads when the call ends: `net.request` events (no query, header values or
//! bodies), `security.permission.denied` for refusals, and the bytes and requests charged.

pub mod address;
mod body;
pub(crate) mod connect;
pub mod form;
pub mod http_url;
pub mod ledger;
pub mod outgoing;
mod reach;
pub mod resolve;
pub mod tls;

pub use http_url::HttpUrl;
pub use ledger::{NetUsage, Record};
pub use outgoing::{NetCall, NetHooks};
pub use reach::Reach;
pub use resolve::{HostResolver, Resolver};
pub use tls::TlsRoots;
