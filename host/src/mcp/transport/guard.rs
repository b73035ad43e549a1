//! Which browser pages may talk to a socket transport: the Origin (loopback pages and listed
//! origins), and for HTTP the Host header (loopback names), which together keep a web page
//! from driving a local host (DNS rebinding). `Origin: null` — a sandboxed iframe on any
//! site, a page opened from a file, some redirects — is refused unless listed
//! (`--allow-origin null`). Who the client is (tokens) is `edge::admission`'s.

/// Access settings shared by the WebSocket and HTTP transports.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// Origins allowed besides loopback pages (`null` only when listed).
    pub allowed_origins: Vec<String>,
}

impl Guard {
    /// Whether a request with this `Origin` header may proceed (none: not a browser).
    pub fn origin_allowed(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        if self.allowed_origins.iter().any(|a| a == origin) {
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
        ] {
            assert!(guard.origin_allowed(Some(ok)), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "file://x",
            "null",
        ] {
            assert!(!guard.origin_allowed(Some(bad)), "{bad}");
        }
        assert!(guard.origin_allowed(None), "not a browser");
        let listed = Guard {
            allowed_origins: vec!["https://app.example".into()],
        };
        assert!(listed.origin_allowed(Some("https://app.example")));
        assert!(!listed.origin_allowed(Some("null")));
        let null = Guard {
            allowed_origins: vec!["null".into()],
        };
        assert!(null.origin_allowed(Some("null")), "only when listed");
    }
}
