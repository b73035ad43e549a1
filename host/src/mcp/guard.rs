//! Who may talk to a socket transport: the bearer token (compared in constant time), the
//! browser Origin (loopback pages, local files and listed origins), and for HTTP the Host
//! header (loopback names), which together keep a web page from driving a local host
//! (DNS rebinding).

use subtle::ConstantTimeEq;

/// Access settings shared by the WebSocket and HTTP transports.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// Required as `Authorization: Bearer <token>` when set.
    pub token: Option<String>,
    /// Origins allowed besides loopback pages and local files.
    pub allowed_origins: Vec<String>,
}

impl Guard {
    /// Whether an `Authorization` header value carries the token (always, without one).
    pub fn authorized(&self, header: Option<&str>) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let given = header.and_then(|v| v.strip_prefix("Bearer ")).unwrap_or("");
        bool::from(given.as_bytes().ct_eq(token.as_bytes()))
    }

    /// Whether a request with this `Origin` header may proceed (none: not a browser).
    pub fn origin_allowed(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        if origin == "null" || self.allowed_origins.iter().any(|a| a == origin) {
            return true;
        }
        let Some(rest) = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
        else {
            return false;
        };
        is_loopback_name(rest)
    }
}

/// Whether `authority` (`host[:port]`) names this machine's loopback.
pub fn is_loopback_name(authority: &str) -> bool {
    let host = if authority.starts_with('[') {
        authority.split_inclusive(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_pages_and_listed_origins_are_allowed() {
        let guard = Guard::default();
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8443",
            "null",
        ] {
            assert!(guard.origin_allowed(Some(ok)), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "file://x",
        ] {
            assert!(!guard.origin_allowed(Some(bad)), "{bad}");
        }
        assert!(guard.origin_allowed(None), "not a browser");
        let listed = Guard {
            allowed_origins: vec!["https://app.example".into()],
            ..Guard::default()
        };
        assert!(listed.origin_allowed(Some("https://app.example")));
    }

    #[test]
    fn the_token_must_match_exactly() {
        let guard = Guard {
            token: Some("s3cret-token-0123456789".into()),
            ..Guard::default()
        };
        assert!(guard.authorized(Some("Bearer s3cret-token-0123456789")));
        for bad in [
            None,
            Some("Bearer s3cret"),
            Some("s3cret-token-0123456789"),
            Some("Bearer s3cret-token-01234567890"),
        ] {
            assert!(!guard.authorized(bad), "{bad:?}");
        }
        assert!(Guard::default().authorized(None));
    }
}
