//! The network edge: what stands between a socket and a session, for WebSocket and HTTP.
//!
//! - `admission`: who a network client is and how much it may ask for — the bearer tokens the
//!   configuration maps to `{agentId, profile}`, and the profiles network clients may take
//!   (the ceiling; by default only the server's `--profile`). stdio has no ceiling: the
//!   process's owner started it.
//! - `gate`: how many connections may be open at once (in all, per peer address, and not yet
//!   initialized); a connection holds a seat for as long as it is open.
//! - `meter`: reads a WebSocket connection's bytes as they arrive and counts those held in
//!   unfinished messages against one budget for all connections, refusing a message that does
//!   not fit before it is buffered; it also times out a message that stops arriving.
//! - `settings`: the `[network]` section of the configuration file and its checks.

pub mod admission;
pub mod gate;
pub mod meter;
pub mod settings;

pub use admission::{Admission, Grant, Transport};
pub use gate::{Gate, Ticket};
pub use settings::{EdgeLimits, NetworkSettings};
