//! `ui://limina/viewer`: the world viewer as an MCP App (`io.modelcontextprotocol/ui`). One
//! self-contained page (`viewer/app/`) that a client supporting MCP Apps renders inline next
//! to the results of the tools that name it (`_meta.ui.resourceUri`, see `mcp`'s tool
//! listing); it talks to the host only through the client's postMessage bridge, so it works
//! over stdio with no port open, and its CSP declares no outside origin at all.

use super::{Access, Contents, ResourceInfo, ResourceSource};
use crate::call::Failure;
use crate::limits::APP_TTL_MS;
use crate::registry::{Caller, Registry};
use crate::viewer::app::APP_HTML;
use serde_json::{Value, json};
use std::sync::Arc;

/// The app's URI.
pub const APP_URI: &str = "ui://limina/viewer";
/// The MIME type MCP Apps require of an HTML view.
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The app that shows `tool`'s results best, if any: the world viewer for the scene skills
/// (and `camera.capture`), whose results are changes to what it draws.
pub fn app_for(tool: &str) -> Option<&'static str> {
    (tool.starts_with("scene.") || tool == "camera.capture").then_some(APP_URI)
}

pub(super) fn source() -> Arc<dyn ResourceSource> {
    Arc::new(AppSource)
}

/// What the page asks of the client that renders it: no outside origin for anything
/// (scripts, styles, images, connections, frames), and a border.
fn ui_meta() -> Value {
    json!({"ui": {
        "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
        "prefersBorder": true,
    }})
}

struct AppSource;

impl ResourceSource for AppSource {
    fn name(&self) -> &str {
        "app"
    }
    fn access(&self) -> Access {
        Access {
            cap: "resource.app".into(),
            required: crate::policy::Permissions::NONE,
            package: None,
        }
    }
    fn claims(&self, uri: &str) -> bool {
        uri == APP_URI
    }
    fn list(&self, _: &Registry, after: Option<&str>, limit: usize) -> Vec<(String, ResourceInfo)> {
        if after.is_some() || limit == 0 {
            return Vec::new();
        }
        vec![(
            "0".into(),
            ResourceInfo {
                uri: APP_URI.into(),
                name: "viewer".into(),
                title: Some("Limina world viewer".into()),
                description: Some(
                    "The shared world drawn live, inline in the conversation (an MCP App): entities, lighting and panels, following the world as it changes."
                        .into(),
                ),
                mime_type: APP_MIME.into(),
                meta: Some(ui_meta()),
            },
        )]
    }
    fn read(&self, _: &mut Registry, _: &Caller, uri: &str) -> Result<Option<Contents>, Failure> {
        Ok(Some(Contents {
            uri: uri.into(),
            mime_type: APP_MIME.into(),
            text: APP_HTML.into(),
            blob: None,
            meta: Some(ui_meta()),
            ttl_ms: APP_TTL_MS,
            public: true,
        }))
    }
}
