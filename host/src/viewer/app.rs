//! The viewer as an MCP App: one HTML page with its script and style inline, drawing the
//! world on a 2D canvas, so that it needs nothing from anywhere (the registry serves it as
//! `ui://limina/viewer`). It speaks the MCP Apps postMessage protocol to the client that
//! renders it: `ui/initialize`, tool inputs and results pushed to it, and `tools/call` and
//! `resources/read` relayed by the client to the host.

/// The page, with its script and style inlined.
pub const APP_HTML: &str = concat!(
    include_str!("app/head.html"),
    "<style>",
    include_str!("app/app.css"),
    "</style>",
    include_str!("app/body.html"),
    "<script>",
    include_str!("app/app.js"),
    "</script></body></html>\n"
);
