//! Where the provider keeps its keys (and its introspection endpoint): read from its
//! authorization server metadata (RFC 8414) or OpenID Connect discovery document, tried at the
//! well-known URLs in the order the MCP authorization spec gives clients. The document must
//! name the configured issuer exactly (RFC 8414 §3.3), or it is not believed.

use super::config::check_url;
use super::fetch::Fetcher;
use serde_json::Value;

/// What the host needs from the provider's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    pub jwks_uri: String,
    pub introspection_endpoint: Option<String>,
}

/// The metadata URLs to try for `issuer`, in order.
pub fn candidates(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed.split_once("://") {
        Some((scheme, rest)) => match rest.find('/') {
            Some(slash) => (
                format!("{scheme}://{}", &rest[..slash]),
                rest[slash..].to_string(),
            ),
            None => (trimmed.to_string(), String::new()),
        },
        None => (trimmed.to_string(), String::new()),
    };
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Reads the first metadata document that answers for `issuer`.
pub async fn discover(fetcher: &Fetcher, issuer: &str) -> Result<Discovered, String> {
    let mut failures = Vec::new();
    for url in candidates(issuer) {
        match fetcher.json(&url).await {
            Ok(document) => return read(&document, issuer, &url),
            Err(e) => failures.push(e),
        }
    }
    Err(format!(
        "no metadata found for the issuer `{issuer}`: {}",
        failures.join("; ")
    ))
}

/// The fields the host uses, checked.
fn read(document: &Value, issuer: &str, url: &str) -> Result<Discovered, String> {
    let named = document.get("issuer").and_then(Value::as_str);
    if named != Some(issuer) {
        return Err(format!(
            "{url} names the issuer `{}`, not `{issuer}` (`[identity] issuer` must be exactly the provider's)",
            named.unwrap_or("(none)")
        ));
    }
    let jwks_uri = document
        .get("jwks_uri")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{url} names no `jwks_uri`; set `[identity] jwksUri`"))?;
    check_url(jwks_uri).map_err(|e| format!("{url}: `jwks_uri`: {e}"))?;
    let introspection_endpoint = document
        .get("introspection_endpoint")
        .and_then(Value::as_str)
        .filter(|u| check_url(u).is_ok())
        .map(str::to_string);
    Ok(Discovered {
        jwks_uri: jwks_uri.to_string(),
        introspection_endpoint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metadata_urls_follow_the_spec_order() {
        assert_eq!(
            candidates("https://idp.example"),
            [
                "https://idp.example/.well-known/oauth-authorization-server",
                "https://idp.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            candidates("https://idp.example/realms/a/"),
            [
                "https://idp.example/.well-known/oauth-authorization-server/realms/a",
                "https://idp.example/.well-known/openid-configuration/realms/a",
                "https://idp.example/realms/a/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn a_document_for_another_issuer_is_not_believed() {
        let doc = json!({"issuer": "https://evil.example", "jwks_uri": "https://evil.example/k"});
        let err = read(&doc, "https://idp.example", "u").unwrap_err();
        assert!(err.contains("not `https://idp.example`"), "{err}");
        let doc = json!({"issuer": "https://idp.example", "jwks_uri": "http://idp.example/k"});
        assert!(
            read(&doc, "https://idp.example", "u")
                .unwrap_err()
                .contains("plain http")
        );
        let doc = json!({"issuer": "https://idp.example", "jwks_uri": "https://idp.example/k",
                         "introspection_endpoint": "https://idp.example/i"});
        let found = read(&doc, "https://idp.example", "u").unwrap();
        assert_eq!(found.jwks_uri, "https://idp.example/k");
        assert_eq!(
            found.introspection_endpoint.as_deref(),
            Some("https://idp.example/i")
        );
    }
}
