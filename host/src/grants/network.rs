//! Network grants: URL patterns (`https://api.example.com/v1/`, `http://*.example.org:8080`)
//! and the check of one request against them. Names only: which addresses a name may reach
//! is decided when the host resolves it (`crate::net`).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The host part of a pattern or a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// A DNS name, lowercase, without a trailing dot (`api.example.com`, `localhost`).
    Name(String),
    /// Every subdomain of a name (`*.example.com` matches `a.example.com`, not `example.com`).
    Subdomains(String),
    /// An IP address written as one (`127.0.0.1`, `[::1]`); only a pattern naming the address
    /// itself reaches it.
    Ip(IpAddr),
}

impl Host {
    /// Parses the host of a URL: a bracketed IPv6 address, an IPv4 address in any form a URL
    /// parser accepts (`2130706433`, `0x7f.1`, `0177.0.0.1` are all 127.0.0.1 to a browser, so
    /// they are read as the address they stand for), or a DNS name.
    pub fn parse(text: &str) -> Result<Host, String> {
        if let Some(inner) = text.strip_prefix('[') {
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| format!("`{text}`: an IPv6 address needs its closing `]`"))?;
            return inner
                .parse::<Ipv6Addr>()
                .map(|ip| Host::Ip(IpAddr::V6(ip)))
                .map_err(|_| format!("`{text}` is not an IPv6 address"));
        }
        let lower = text.trim_end_matches('.').to_ascii_lowercase();
        if lower.is_empty() {
            return Err("the host is empty".into());
        }
        if let Some(ip) = numeric_ipv4(&lower)? {
            return Ok(Host::Ip(IpAddr::V4(ip)));
        }
        if let Some(rest) = lower.strip_prefix("*.") {
            check_name(rest, text)?;
            return Ok(Host::Subdomains(rest.to_string()));
        }
        check_name(&lower, text)?;
        Ok(Host::Name(lower))
    }

    /// Whether this (pattern) host matches the request host `other`.
    fn matches(&self, other: &Host) -> bool {
        match (self, other) {
            (Host::Name(a), Host::Name(b)) => a == b,
            (Host::Subdomains(a), Host::Name(b)) => is_subdomain(b, a),
            (Host::Ip(a), Host::Ip(b)) => a == b,
            _ => false,
        }
    }

    /// Whether this (host-configured) pattern host covers the declared pattern host `other`.
    fn covers(&self, other: &Host) -> bool {
        match (self, other) {
            (Host::Subdomains(a), Host::Subdomains(b)) => a == b || is_subdomain(b, a),
            _ => self.matches(other),
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(n) => f.write_str(n),
            Host::Subdomains(n) => write!(f, "*.{n}"),
            Host::Ip(IpAddr::V4(ip)) => write!(f, "{ip}"),
            Host::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
        }
    }
}

fn is_subdomain(name: &str, parent: &str) -> bool {
    name.len() > parent.len() + 1
        && name.ends_with(parent)
        && name.as_bytes()[name.len() - parent.len() - 1] == b'.'
}

fn check_name(name: &str, original: &str) -> Result<(), String> {
    let ok = name.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    }) && name.len() <= 253;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{original}` is not a host name (letters, digits, `-` and dots; `*.` may start a pattern)"
        ))
    }
}

/// An IPv4 address in the forms the WHATWG URL standard reads as one: one to four parts,
/// each decimal, `0x` hex or `0`-prefixed octal, the last filling the remaining bytes.
/// `Ok(None)` when the text is not numeric at all (a name); an error when it looks numeric
/// but is no address (`1.2.3.4.5`, `999.1.1.1`).
fn numeric_ipv4(text: &str) -> Result<Option<Ipv4Addr>, String> {
    let last = text.rsplit('.').next().unwrap_or("");
    let numeric = |p: &str| {
        !p.is_empty()
            && (p.chars().all(|c| c.is_ascii_digit())
                || (p.starts_with("0x") && p[2..].chars().all(|c| c.is_ascii_hexdigit())))
    };
    if !numeric(last) {
        return Ok(None);
    }
    let bad = || format!("`{text}` looks like an IP address but is not one");
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() > 4 || !parts.iter().all(|p| numeric(p)) {
        return Err(bad());
    }
    let values = parts
        .iter()
        .map(|p| {
            if let Some(hex) = p.strip_prefix("0x") {
                if hex.is_empty() {
                    Ok(0)
                } else {
                    u64::from_str_radix(hex, 16)
                }
            } else if p.len() > 1 && p.starts_with('0') {
                u64::from_str_radix(&p[1..], 8)
            } else {
                p.parse::<u64>()
            }
        })
        .collect::<Result<Vec<u64>, _>>()
        .map_err(|_| bad())?;
    let (head, tail) = values.split_at(values.len() - 1);
    if head.iter().any(|v| *v > 255) || tail[0] >= 1u64 << (8 * (5 - values.len())) {
        return Err(bad());
    }
    let mut n: u64 = tail[0];
    for (i, v) in head.iter().enumerate() {
        n |= v << (8 * (3 - i));
    }
    Ok(Some(Ipv4Addr::from(n as u32)))
}

/// `http` or `https`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

impl Scheme {
    pub fn parse(text: &str) -> Result<Scheme, String> {
        match text.to_ascii_lowercase().as_str() {
            "http" => Ok(Scheme::Http),
            "https" => Ok(Scheme::Https),
            other => Err(format!("scheme `{other}` is not served; use http or https")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }

    /// The port a URL without one means.
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }
}

/// One granted URL pattern: scheme, host (or `*.host`), port (the scheme's default when the
/// pattern names none) and a path prefix (`/` when it names none), matched on whole segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPattern {
    pub scheme: Scheme,
    pub host: Host,
    pub port: u16,
    pub path: String,
    /// As written, for messages and listings.
    pub text: String,
}

impl UrlPattern {
    /// Parses `scheme://host[:port][/path]`; no user, query or fragment.
    pub fn parse(text: &str) -> Result<UrlPattern, String> {
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| format!("`{text}` needs a scheme: `https://host[:port][/path]`"))?;
        let scheme = Scheme::parse(scheme).map_err(|e| format!("`{text}`: {e}"))?;
        if rest.contains(['?', '#', '@']) {
            return Err(format!(
                "`{text}`: a pattern holds no user, query or fragment; grant `scheme://host[:port][/path]`"
            ));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (host, port) = split_port(authority).map_err(|e| format!("`{text}`: {e}"))?;
        if host == "*"
            || (host.contains('*') && !host.starts_with("*."))
            || host.get(1..).unwrap_or("").contains('*')
        {
            return Err(format!(
                "`{text}`: `*` may only start a host as `*.name`; name the hosts a package reaches"
            ));
        }
        let host = Host::parse(host).map_err(|e| format!("`{text}`: {e}"))?;
        // The prefix is held to the same rule as the paths it is compared with.
        let normalized = super::path::normalize(path).map_err(|e| format!("`{text}`: {e}"))?;
        if normalized != path {
            return Err(format!(
                "`{text}`: the path may not hold `.` or `..` segments; write it as `{normalized}`"
            ));
        }
        Ok(UrlPattern {
            port: port.unwrap_or(scheme.default_port()),
            scheme,
            host,
            path: path.to_string(),
            text: text.to_string(),
        })
    }

    /// Whether a request to `scheme://host:port/path` falls under this pattern; `path` is one
    /// [`super::path::normalize`] returned (the raw path of a request proves nothing).
    pub fn matches(&self, scheme: Scheme, host: &Host, port: u16, path: &str) -> bool {
        self.scheme == scheme
            && self.port == port
            && self.host.matches(host)
            && path_under(path, &self.path)
    }

    /// Whether every request this `declared` pattern allows is allowed by this one.
    pub fn covers(&self, declared: &UrlPattern) -> bool {
        self.scheme == declared.scheme
            && self.port == declared.port
            && self.host.covers(&declared.host)
            && path_under(&declared.path, &self.path)
    }

    /// Whether the pattern names this address itself (or `localhost`, for loopback ones):
    /// only then may a request reach a loopback, private or metadata address.
    pub fn names_address(&self, ip: IpAddr) -> bool {
        match &self.host {
            Host::Ip(a) => *a == ip,
            Host::Name(n) => n == "localhost" && ip.is_loopback(),
            Host::Subdomains(_) => false,
        }
    }
}

/// Splits `host[:port]` (a bracketed IPv6 host keeps its colons).
pub fn split_port(authority: &str) -> Result<(&str, Option<u16>), String> {
    let colon = if authority.starts_with('[') {
        authority
            .find(']')
            .map(|i| i + 1)
            .filter(|&i| i < authority.len())
    } else {
        authority.rfind(':')
    };
    match colon {
        None => Ok((authority, None)),
        Some(i) => {
            if authority.as_bytes()[i] != b':' {
                return Err(format!("`{authority}` is not `host[:port]`"));
            }
            let port = &authority[i + 1..];
            let port: u16 = port
                .parse()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| format!("the port `{port}` must be a number from 1 to 65535"))?;
            Ok((&authority[..i], Some(port)))
        }
    }
}

/// `path` is `prefix` or lies below it, on a segment boundary (`/v1` covers `/v1/a`, not `/v10`).
fn path_under(path: &str, prefix: &str) -> bool {
    if prefix == "/" || path == prefix {
        return true;
    }
    path.starts_with(prefix)
        && (prefix.ends_with('/') || path.as_bytes().get(prefix.len()) == Some(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str) -> UrlPattern {
        UrlPattern::parse(t).unwrap()
    }

    fn host(t: &str) -> Host {
        Host::parse(t).unwrap()
    }

    #[test]
    fn a_pattern_matches_scheme_host_port_and_path_prefix_on_segments() {
        let api = p("https://api.example.com/v1");
        assert!(api.matches(Scheme::Https, &host("api.example.com"), 443, "/v1"));
        assert!(api.matches(Scheme::Https, &host("API.example.com."), 443, "/v1/x"));
        assert!(!api.matches(Scheme::Https, &host("api.example.com"), 443, "/v10"));
        assert!(!api.matches(Scheme::Http, &host("api.example.com"), 80, "/v1"));
        assert!(!api.matches(Scheme::Https, &host("api.example.com"), 8443, "/v1"));
        assert!(!api.matches(Scheme::Https, &host("evil.com"), 443, "/v1"));
        let any = p("http://*.example.org:8080");
        assert!(any.matches(Scheme::Http, &host("a.b.example.org"), 8080, "/"));
        assert!(!any.matches(Scheme::Http, &host("example.org"), 8080, "/"));
        assert!(!any.matches(Scheme::Http, &host("badexample.org"), 8080, "/"));
    }

    #[test]
    fn numeric_hosts_are_read_as_the_address_a_url_parser_sees() {
        let loopback = Host::Ip("127.0.0.1".parse().unwrap());
        for form in [
            "127.0.0.1",
            "2130706433",
            "0x7f000001",
            "0177.0.0.1",
            "127.1",
            "0x7f.1",
        ] {
            assert_eq!(host(form), loopback, "{form}");
        }
        assert_eq!(host("[::1]"), Host::Ip("::1".parse().unwrap()));
        assert!(Host::parse("1.2.3.4.5").is_err());
        assert!(Host::parse("256.1.1.1").is_err());
        assert!(Host::parse("4294967296").is_err());
        assert_eq!(host("v1.example.com"), Host::Name("v1.example.com".into()));
    }

    #[test]
    fn bad_patterns_say_what_to_write() {
        for (text, words) in [
            ("api.example.com", "needs a scheme"),
            ("ftp://x.com", "scheme `ftp`"),
            ("https://*", "`*.name`"),
            ("https://a.*.com", "`*.name`"),
            ("https://x.com/?q=1", "no user, query or fragment"),
            ("https://u@x.com", "no user, query or fragment"),
            ("https://x.com:0", "port"),
            ("https://x.com:http", "port"),
            ("https://x.com/a/../b", "`..`"),
            ("https://x.com/a/%2e%2e/b", "path.encodedDot"),
            ("https://x.com/a/..;x/b", "path.dotParameter"),
            ("https://[::1", "closing"),
            ("https://exa mple.com", "not a host name"),
        ] {
            let err = UrlPattern::parse(text).unwrap_err();
            assert!(err.contains(words), "{text}: {err}");
        }
    }

    #[test]
    fn a_host_pattern_covers_narrower_declared_ones_only() {
        let host_side = p("https://*.example.com/api");
        assert!(host_side.covers(&p("https://a.example.com/api/v2")));
        assert!(host_side.covers(&p("https://*.b.example.com/api")));
        assert!(!host_side.covers(&p("https://example.com/api")));
        assert!(!host_side.covers(&p("https://a.example.com/")));
        assert!(!host_side.covers(&p("http://a.example.com/api")));
        assert!(!host_side.covers(&p("https://a.example.com:444/api")));
        assert!(p("http://127.0.0.1:9000").covers(&p("http://2130706433:9000/x")));
    }

    #[test]
    fn only_a_pattern_naming_an_address_or_localhost_reaches_it() {
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(p("http://127.0.0.1:8000").names_address(lo));
        assert!(p("http://localhost:8000").names_address(lo));
        assert!(!p("http://localhost:8000").names_address("10.0.0.1".parse().unwrap()));
        assert!(!p("http://api.example.com").names_address(lo));
        assert!(!p("http://*.example.com").names_address(lo));
    }
}
