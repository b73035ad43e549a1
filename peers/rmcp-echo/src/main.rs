//! `rmcp-echo`: the smallest honest MCP server, built on the official Rust SDK (`rmcp`).
//!
//! It speaks MCP over stdio through `rmcp::transport::stdio_pipes()` (non-blocking pipes when
//! both streams are pipes) and offers one tool, `echo`, which returns its `message` as text.
//! It does no other work, so it is the baseline a governed call is measured against
//! (`cargo xtask bench stdio`), and a plain upstream peer for tests that need a real MCP
//! server outside the host. Nothing in the host depends on it.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

/// What `echo` takes.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoRequest {
    /// The text to send back.
    message: String,
}

/// The server: one tool router holding `echo`.
#[derive(Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Returns `message` unchanged, as one text block.
    #[tool(description = "Returns `message` unchanged")]
    async fn echo(
        &self,
        Parameters(request): Parameters<EchoRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            request.message,
        )]))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// One thread, like the host's stdio transport reads one line at a time: the comparison is
/// between two single-connection servers, not between thread pools.
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let service = match Echo::new().serve(rmcp::transport::stdio_pipes()).await {
        Ok(service) => service,
        Err(err) => {
            eprintln!("rmcp-echo: the MCP handshake failed: {err}");
            std::process::exit(1);
        }
    };
    if let Err(err) = service.waiting().await {
        eprintln!("rmcp-echo: the server stopped with an error: {err}");
        std::process::exit(1);
    }
}
