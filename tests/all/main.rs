//! Integration tests: one binary, one module per feature. Most spawn the real `limina`
//! binary and speak MCP over its stdio.

mod hooks;
mod sandbox_limits;
mod scene;
mod stdio;
mod support;
