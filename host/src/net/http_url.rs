//! The `http` and `https` URLs the host sends its own requests to (an identity provider, an
//! upstream MCP server), taken apart once for the connection and the request line.

/// An `http` or `https` URL, taken apart.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpUrl {
    pub https: bool,
    /// The host's name or address (an IPv6 address without its brackets).
    pub host: String,
    /// The port written, else the scheme's (443 or 80).
    pub port: u16,
    /// `host[:port]` as the `Host` header says it.
    pub authority: String,
    /// Path and query as written (`/` when there is none).
    pub path: String,
}

impl HttpUrl {
    /// Takes `url` apart; the error names it and says what is wrong with it.
    pub fn parse(url: &str) -> Result<HttpUrl, String> {
        let uri: hyper::Uri = url.parse().map_err(|e| format!("`{url}`: {e}"))?;
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(format!("`{url}` is neither http nor https")),
        };
        let host = uri
            .host()
            .ok_or_else(|| format!("`{url}` names no host"))?
            .trim_matches(['[', ']'])
            .to_string();
        Ok(HttpUrl {
            https,
            port: uri.port_u16().unwrap_or(if https { 443 } else { 80 }),
            authority: uri
                .authority()
                .map_or_else(|| host.clone(), |a| a.as_str().to_string()),
            path: uri.path_and_query().map_or("/", |p| p.as_str()).to_string(),
            host,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::HttpUrl;

    #[test]
    fn a_url_gives_its_scheme_host_port_authority_and_path() {
        let plain = HttpUrl::parse("http://127.0.0.1:9/mcp?x=1").unwrap();
        assert_eq!(
            plain,
            HttpUrl {
                https: false,
                host: "127.0.0.1".into(),
                port: 9,
                authority: "127.0.0.1:9".into(),
                path: "/mcp?x=1".into(),
            }
        );
        let tls = HttpUrl::parse("https://[::1]").unwrap();
        assert_eq!((tls.host.as_str(), tls.port), ("::1", 443));
        assert_eq!((tls.authority.as_str(), tls.path.as_str()), ("[::1]", "/"));
        assert_eq!(HttpUrl::parse("http://idp.example").unwrap().port, 80);
    }

    #[test]
    fn a_url_that_is_not_http_or_names_no_host_is_refused_by_name() {
        assert_eq!(
            HttpUrl::parse("ftp://idp.example/").unwrap_err(),
            "`ftp://idp.example/` is neither http nor https"
        );
        assert_eq!(
            HttpUrl::parse("/only/a/path").unwrap_err(),
            "`/only/a/path` is neither http nor https"
        );
        let bad = HttpUrl::parse("http://exa mple/").unwrap_err();
        assert!(bad.starts_with("`http://exa mple/`: "), "{bad}");
    }
}
