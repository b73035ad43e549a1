//! Limina: a WASM-sandboxed skill host with hot-reloadable packages, spoken to over MCP.
//!
//! Layers, each using only those below it: `mcp` (JSON-RPC, sessions, transports) →
//! `registry` (the call pipeline) → `policy`, `trace`, `sandbox`, `world`. `telemetry`
//! (OpenTelemetry export) sits beside `mcp`, which feeds it; `upstream` (other MCP servers
//! whose tools the registry mounts) sits beside `sandbox`, below `registry`.

pub mod call;
pub mod ceilings;
pub mod config;
pub mod files;
pub mod grants;
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
