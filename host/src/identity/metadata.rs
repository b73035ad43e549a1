//! The protected resource metadata (RFC 9728) a client reads to learn which authorization
//! server issues tokens for this server: served at `/.well-known/oauth-protected-resource`
//! and at the form with the resource's path after it (§3.1), and named in every challenge
//! (`WWW-Authenticate: Bearer resource_metadata="…"`, §5.1).

use super::config::IdentityConfig;
use serde_json::{Value, json};

/// The metadata document and where it is served.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// This server's canonical URI.
    resource: String,
    document: String,
    /// The absolute URL challenges name (the path-suffixed form).
    url: String,
    /// Paths it is served at.
    paths: Vec<String>,
}

/// The well-known prefix of RFC 9728.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

impl Metadata {
    pub fn new(config: &IdentityConfig) -> Metadata {
        let (origin, path) = split(&config.resource);
        let mut scopes = config.scopes.clone();
        for scope in config.rules.iter().filter_map(|r| r.scope.as_ref()) {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        let mut document = json!({
            "resource": config.resource,
            "authorization_servers": [config.issuer],
            "bearer_methods_supported": ["header"],
        });
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        if let Some(name) = &config.resource_name {
            document["resource_name"] = Value::String(name.clone());
        }
        if let Some(docs) = &config.documentation {
            document["resource_documentation"] = Value::String(docs.clone());
        }
        let suffixed = format!("{WELL_KNOWN}{path}");
        let mut paths = vec![WELL_KNOWN.to_string()];
        if suffixed != WELL_KNOWN {
            paths.push(suffixed.clone());
        }
        Metadata {
            resource: config.resource.clone(),
            document: document.to_string(),
            url: format!("{origin}{suffixed}"),
            paths,
        }
    }

    /// The document, as JSON text.
    pub fn document(&self) -> &str {
        &self.document
    }

    /// This server's canonical URI (the resource tokens must be for).
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The URL challenges point at.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether `path` (no query) is where the document is served.
    pub fn serves(&self, path: &str) -> bool {
        self.paths.iter().any(|p| p == path)
    }
}

/// `scheme://authority` and the path (without a lone `/`, query or fragment).
fn split(resource: &str) -> (&str, &str) {
    let start = resource.find("://").map_or(0, |i| i + 3);
    let end = resource[start..]
        .find('/')
        .map_or(resource.len(), |i| start + i);
    let path = resource[end..].split(['?', '#']).next().unwrap_or("");
    let path = path.trim_end_matches('/');
    (&resource[..end], path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn metadata(resource: &str) -> Metadata {
        let text = format!(
            "[identity]\nissuer = \"https://idp.example\"\nresource = \"{resource}\"\nscopes = [\"mcp\"]\nresourceName = \"World\"\n\n[[identity.profiles]]\nprofile = \"builder.readWrite\"\nscope = \"build\"\n"
        );
        Metadata::new(&Config::parse(&text).unwrap().identity.unwrap())
    }

    #[test]
    fn the_document_names_the_resource_its_server_and_scopes() {
        let m = metadata("https://mcp.example/mcp");
        let doc: Value = serde_json::from_str(m.document()).unwrap();
        assert_eq!(doc["resource"], "https://mcp.example/mcp");
        assert_eq!(doc["authorization_servers"], json!(["https://idp.example"]));
        assert_eq!(doc["scopes_supported"], json!(["mcp", "build"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert_eq!(doc["resource_name"], "World");
        assert_eq!(
            m.url(),
            "https://mcp.example/.well-known/oauth-protected-resource/mcp"
        );
        assert!(m.serves(WELL_KNOWN));
        assert!(m.serves("/.well-known/oauth-protected-resource/mcp"));
        assert!(!m.serves("/.well-known/oauth-protected-resource/other"));
    }

    #[test]
    fn a_resource_at_the_root_is_served_once() {
        let m = metadata("https://mcp.example:8443");
        assert_eq!(
            m.url(),
            "https://mcp.example:8443/.well-known/oauth-protected-resource"
        );
        assert_eq!(m.paths.len(), 1);
    }
}
