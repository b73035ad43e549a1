//! MCP over JSON-RPC 2.0: one dispatcher for every transport, sessions bound at
//! `initialize`, the standard tool methods and the Limina aliases, state sync. The engine
//! (`engine.rs`) owns the dispatcher and says how a message travels. Wire error codes are
//! mapped here and nowhere else.

mod aoi;
mod approval;
mod call_result;
mod cancel;
mod clock;
mod deferred;
pub mod edge;
pub mod engine;
mod guard;
pub mod http;
mod jsonrpc;
mod listener;
mod modern;
mod modern_http;
mod observe;
mod outbox;
mod reload;
mod server;
mod session;
mod spin;
mod stateless;
pub mod stdio;
mod stdout;
mod sync;
mod tasks;
#[cfg(test)]
mod test_server;
mod tools;
#[cfg(test)]
mod unsynced_tests;
mod workers;
pub mod ws;

pub use clock::Clock;
pub use engine::{Engine, EngineHandle, Inbound};
pub use guard::Guard;
pub use listener::Listen;
/// The 2026-07-28 wire names, shared with the client side (`crate::upstream`).
pub use modern::{CAPABILITIES_KEY, SERVER_INFO_KEY, VERSION as MODERN_VERSION, VERSION_KEY};
pub use server::{Connection, Server, ServerConfig};
pub use session::Session;
