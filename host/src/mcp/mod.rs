//! MCP over JSON-RPC 2.0: one dispatcher for every transport, sessions bound at
//! `initialize`, the standard tool methods and the Limina aliases. Wire error codes are
//! mapped here and nowhere else.

mod clock;
mod jsonrpc;
mod reload;
mod server;
mod session;
pub mod stdio;
mod tools;

pub use clock::Clock;
pub use server::{Connection, Server, ServerConfig};
pub use session::Session;
