//! The wire: JSON-RPC 2.0 framing and error codes (`jsonrpc`), and the MCP revisions — the
//! 2025-11-25 family bound at `initialize` (`classic`) and the 2026-07-28 revision where each
//! request carries its own version (`modern`): their names, envelopes and result shapes, and
//! the one [`Revision`] value the code matches on where they differ.
//!
//! Plain functions over JSON: nothing here knows a connection, the engine or the registry,
//! so every other room (and the client side, `crate::upstream`) may use it.

pub mod classic;
pub mod jsonrpc;
pub mod modern;
mod revision;

pub use revision::Revision;
