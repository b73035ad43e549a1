//! The official MCP client SDKs, pinned, that the host's transport tests drive it with (the
//! Python SDK's `websocket_client`, the TypeScript SDK's `WebSocketClientTransport`).
//! Installed on first use into the cache like every other tool.

use crate::tools::{Registry, Tool};

/// The official Python SDK with its WebSocket support.
pub const PYTHON_SDK: Tool = Tool {
    package: "mcp",
    version: "1.30.0",
    registry: Registry::PyPi,
    purpose: "the official Python MCP SDK, for the transport tests",
    size: "15 MB",
    with: &["websockets==15.0.1"],
};

/// The official TypeScript SDK.
pub const TYPESCRIPT_SDK: Tool = Tool {
    package: "@modelcontextprotocol/sdk",
    version: "1.32.2",
    registry: Registry::Npm,
    purpose: "the official TypeScript MCP SDK, for the transport tests",
    size: "10 MB",
    with: &[],
};
