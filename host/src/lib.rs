//! Limina: a WASM-sandboxed skill host with hot-reloadable packages, spoken to over MCP.
//!
//! # Floors
//!
//! The host is built in floors: each room uses only rooms on floors below its own, and rooms
//! on one floor do not use each other (a room in braces, `a::{b, c}`, is several modules that
//! count as one). A module belongs to the room with the longest name that contains it, so
//! `mcp::wire` is a room of its own, below the rest of `mcp`. The test in `floors.rs` reads
//! this table and fails, naming file and line, on any `crate::` or `super::` path outside test
//! code that climbs it.
//!
//! | floor | rooms | what they hold |
//! |---|---|---|
//! | 12 | `config` | `limina.toml`, each section parsed by the room it configures |
//! | 11 | `mcp`, `mcp::engine` | the engine thread: owns the dispatcher, reads stdio, applies every message in order |
//! | 10 | `mcp::dispatch`, `mcp::transport` | the one dispatcher (sessions, tools, tasks, approvals, sync, reload); stdio, WebSocket, HTTP |
//! | 9 | `mcp::engine::{inbox, outbox, relayed, cancel, clock, vitals}` | what transports, the dispatcher and the loop share: messages in, frames out (a joined process's client read and written by the engine itself), cancel flags, the world clock, the loop's pulse |
//! | 8 | `mcp::transport::edge` | the network edge: who may connect, how many, how much they send |
//! | 7 | `registry` | the call pipeline: resolve, validate, policy, hooks, handler, output check, emit |
//! | 6 | `packages` | manifests, package sources, the watcher that rebuilds them |
//! | 5 | `sandbox`, `upstream`, `identity`, `join` | wasmtime and the host imports; other MCP servers whose tools the registry mounts; who a token from an identity provider names (fetching the provider's keys through `net`); the control socket other `limina` processes join a world through, and a joined process's relay |
//! | 4 | `net`, `persistence`, `telemetry`, `viewer` | outbound HTTP for guests; world checkpoints; OpenTelemetry export; the viewer's files |
//! | 3 | `call`, `grants`, `files`, `realm` | a call's vocabulary (failures, control, interrupts, stages); grants and the paths they allow; volumes; the world with its trace and state |
//! | 2 | `ceilings`, `policy`, `state`, `trace`, `world`, `mcp::wire` | host ceilings; decisions, quotas, budgets; package state; the event trace; hecs + rapier; JSON-RPC and the MCP revisions (shared by server and client) |
//! | 1 | `limits`, `log`, `json` | every limit and its default; logging; JSON helpers |
//!
//! The binary (`main.rs`, `cli/`: flags → configuration → a transport) stands on top.

pub mod call;
pub mod ceilings;
pub mod config;
pub mod files;
#[cfg(test)]
mod floors;
pub mod grants;
pub mod identity;
pub mod join;
pub mod json;
pub mod limits;
pub mod log;
pub mod mcp;
pub mod net;
pub mod packages;
pub mod persistence;
pub mod policy;
pub mod realm;
pub mod registry;
pub mod sandbox;
pub mod state;
pub mod telemetry;
pub mod trace;
pub mod upstream;
pub mod viewer;
pub mod world;
