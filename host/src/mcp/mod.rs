//! MCP over JSON-RPC 2.0, in four rooms, each with a doc saying what it holds:
//!
//! - `wire/`: JSON-RPC framing, error codes and the protocol revisions' shapes — plain
//!   functions every other room uses.
//! - `transport/`: stdio, WebSocket, Streamable HTTP and the network edge; bytes in, messages
//!   to the engine's inbox, replies out of each connection's outbox.
//! - `dispatch/`: the one dispatcher every transport shares — sessions, tools, tasks,
//!   approvals, state sync, hot reload — over the registry.
//! - `engine/`: the thread that owns the dispatcher and applies every message in arrival
//!   order (its doc says how a message travels), plus the inbox, outbox and cancellation flags
//!   transports and the dispatcher share with it.
//!
//! Floors inside (see `crate`'s doc): `wire` ← the edge and the engine's shared pieces ←
//! `dispatch` and `transport` (neither imports the other) ← the engine loop. Wire error codes
//! are mapped in `wire/` and `dispatch/` and nowhere else.

mod dispatch;
pub mod engine;
pub mod transport;
pub(crate) mod wire;

pub use dispatch::server::{Connection, Server, ServerConfig};
pub use dispatch::session::Session;
pub use engine::clock::Clock;
pub use engine::{Engine, EngineHandle, Inbound};
pub use transport::{Guard, Listen};
