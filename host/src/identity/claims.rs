//! The registered claims every access token must pass, signed (JWT) or introspected (RFC 7662):
//! the issuer exactly the configured one, the audience holding this server's canonical URI
//! (RFC 8707 — a token minted for another resource is refused, never passed on), `exp` in the
//! future and `nbf`/`iat` not in it (each within the configured skew), and no proof-of-possession
//! binding (`cnf`), which a bearer-only resource server cannot honour.

use super::refusal::{Refusal, quoted};
use serde_json::{Map, Value};

/// What the claims are checked against.
#[derive(Debug, Clone)]
pub struct Expected<'a> {
    /// The `iss` a token must carry, byte for byte.
    pub issuer: &'a str,
    /// This server's canonical URI, which `aud` must hold.
    pub resource: &'a str,
    /// Seconds of clock difference forgiven on `exp`, `nbf` and `iat`.
    pub skew: u64,
    /// Whether `iss` may be absent (an introspection answer; the provider answered itself).
    pub issuer_optional: bool,
}

/// Checks `claims` at `now` (Unix seconds); returns the token's expiry.
pub fn check(claims: &Map<String, Value>, expected: &Expected, now: u64) -> Result<u64, Refusal> {
    match claims.get("iss") {
        Some(Value::String(iss)) if iss == expected.issuer => {}
        Some(Value::String(iss)) => {
            return Err(Refusal::invalid(
                "issuer",
                format!(
                    "the token was issued by {}, not by {} (`[identity] issuer`)",
                    quoted(iss),
                    quoted(expected.issuer)
                ),
            ));
        }
        None if expected.issuer_optional => {}
        _ => {
            return Err(Refusal::invalid(
                "issuer",
                "the token names no issuer (`iss`)",
            ));
        }
    }
    check_audience(claims.get("aud"), expected.resource)?;
    let exp = time(claims, "exp")?.ok_or_else(|| {
        Refusal::invalid(
            "expiry",
            "the token has no expiry (`exp`); access tokens must expire",
        )
    })?;
    if now > exp.saturating_add(expected.skew) {
        return Err(Refusal::invalid(
            "expired",
            format!(
                "the token expired {} s ago (at {exp}; {} s of clock skew allowed): get a new one",
                now - exp,
                expected.skew
            ),
        ));
    }
    if let Some(nbf) = time(claims, "nbf")?
        && nbf > now.saturating_add(expected.skew)
    {
        return Err(Refusal::invalid(
            "not_yet_valid",
            format!(
                "the token is not valid before {nbf}, {} s from now ({} s of clock skew allowed)",
                nbf - now,
                expected.skew
            ),
        ));
    }
    if let Some(iat) = time(claims, "iat")?
        && iat > now.saturating_add(expected.skew)
    {
        return Err(Refusal::invalid(
            "not_yet_valid",
            format!(
                "the token says it was issued at {iat}, {} s in the future: the provider's clock or the token is wrong",
                iat - now
            ),
        ));
    }
    if claims.contains_key("cnf") {
        return Err(Refusal::invalid(
            "bound_token",
            "the token is bound to a key (`cnf`, DPoP or mutual TLS), which this host does not check; ask the provider for a bearer token",
        ));
    }
    Ok(exp)
}

/// `aud` must hold `resource` (a string, or one of an array).
fn check_audience(aud: Option<&Value>, resource: &str) -> Result<(), Refusal> {
    let listed: Vec<&str> = match aud {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => {
            return Err(Refusal::invalid(
                "audience",
                format!(
                    "the token names no audience (`aud`); ask the provider for a token for {} (the `resource` parameter, RFC 8707)",
                    quoted(resource)
                ),
            ));
        }
    };
    if listed.iter().any(|a| same_resource(a, resource)) {
        return Ok(());
    }
    Err(Refusal::invalid(
        "audience",
        format!(
            "the token is for {}, not for this server {}: ask the provider for a token with `resource={}` (RFC 8707)",
            listed
                .iter()
                .map(|a| quoted(a))
                .collect::<Vec<_>>()
                .join(", "),
            quoted(resource),
            resource
        ),
    ))
}

/// Whether two resource URIs are the same: scheme and host compare without case (RFC 3986
/// §6.2.2.1), and an empty path equals `/`; everything else byte for byte.
pub fn same_resource(a: &str, b: &str) -> bool {
    fn split(uri: &str) -> Option<(String, &str)> {
        let (scheme, rest) = uri.split_once("://")?;
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        let path = if path == "/" { "" } else { path };
        Some((
            format!(
                "{}://{}",
                scheme.to_ascii_lowercase(),
                authority.to_ascii_lowercase()
            ),
            path,
        ))
    }
    a == b || matches!((split(a), split(b)), (Some(x), Some(y)) if x == y)
}

/// A NumericDate claim (seconds; fractions dropped), if present.
fn time(claims: &Map<String, Value>, name: &str) -> Result<Option<u64>, Refusal> {
    match claims.get(name) {
        None => Ok(None),
        Some(Value::Number(n)) => match n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(|f| f as u64)
        }) {
            Some(t) => Ok(Some(t)),
            None => Err(Refusal::invalid(
                "malformed",
                format!("`{name}` is not a time in seconds"),
            )),
        },
        Some(_) => Err(Refusal::invalid(
            "malformed",
            format!("`{name}` is not a time in seconds"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: u64 = 1_000_000;

    fn expected() -> Expected<'static> {
        Expected {
            issuer: "https://idp.example",
            resource: "https://mcp.example/mcp",
            skew: 30,
            issuer_optional: false,
        }
    }

    fn claims(extra: Value) -> Map<String, Value> {
        let mut base = json!({"iss": "https://idp.example", "aud": "https://mcp.example/mcp", "exp": NOW + 60});
        for (k, v) in extra.as_object().unwrap() {
            if v.is_null() {
                base.as_object_mut().unwrap().remove(k);
            } else {
                base[k] = v.clone();
            }
        }
        base.as_object().unwrap().clone()
    }

    fn refused(extra: Value) -> Refusal {
        check(&claims(extra), &expected(), NOW).unwrap_err()
    }

    #[test]
    fn a_good_token_passes_and_gives_its_expiry() {
        assert_eq!(check(&claims(json!({})), &expected(), NOW), Ok(NOW + 60));
        let many = claims(json!({"aud": ["https://other.example", "HTTPS://MCP.example/mcp"]}));
        assert!(check(&many, &expected(), NOW).is_ok());
        // Within the skew either way.
        assert!(check(&claims(json!({"exp": NOW - 29})), &expected(), NOW).is_ok());
        assert!(
            check(
                &claims(json!({"nbf": NOW + 29, "iat": NOW + 29})),
                &expected(),
                NOW
            )
            .is_ok()
        );
    }

    #[test]
    fn each_claim_refuses_with_its_own_code_and_reason() {
        let cases = [
            (
                json!({"iss": "https://evil.example"}),
                "issuer",
                "`https://evil.example`",
            ),
            (json!({"iss": "https://idp.example/"}), "issuer", "not by"),
            (json!({"iss": null}), "issuer", "names no issuer"),
            (
                json!({"aud": "https://other.example/mcp"}),
                "audience",
                "resource=https://mcp.example/mcp",
            ),
            (json!({"aud": ["a", "b"]}), "audience", "`a`, `b`"),
            (json!({"aud": null}), "audience", "names no audience"),
            (
                json!({"aud": "https://mcp.example/mcp/extra"}),
                "audience",
                "not for this server",
            ),
            (json!({"exp": null}), "expiry", "no expiry"),
            (json!({"exp": NOW - 31}), "expired", "expired 31 s ago"),
            (
                json!({"exp": "tomorrow"}),
                "malformed",
                "`exp` is not a time",
            ),
            (json!({"nbf": NOW + 31}), "not_yet_valid", "31 s from now"),
            (json!({"iat": NOW + 3600}), "not_yet_valid", "in the future"),
            (json!({"cnf": {"jkt": "abc"}}), "bound_token", "DPoP"),
        ];
        for (extra, code, words) in cases {
            let refusal = refused(extra.clone());
            assert_eq!(refusal.code(), code, "{extra}: {refusal:?}");
            assert!(
                refusal.reason().contains(words),
                "{extra}: {}",
                refusal.reason()
            );
        }
    }

    #[test]
    fn an_introspection_answer_may_leave_the_issuer_out() {
        let e = Expected {
            issuer_optional: true,
            ..expected()
        };
        assert!(check(&claims(json!({"iss": null})), &e, NOW).is_ok());
        assert_eq!(
            check(&claims(json!({"iss": "https://evil.example"})), &e, NOW)
                .unwrap_err()
                .code(),
            "issuer"
        );
    }

    #[test]
    fn resources_compare_scheme_and_host_without_case() {
        assert!(same_resource("https://A.example", "https://a.example/"));
        assert!(same_resource(
            "HTTPS://a.example:8443/mcp",
            "https://a.example:8443/mcp"
        ));
        assert!(!same_resource(
            "https://a.example/MCP",
            "https://a.example/mcp"
        ));
        assert!(!same_resource(
            "https://a.example:1/mcp",
            "https://a.example/mcp"
        ));
        assert!(!same_resource("a.example", "https://a.example"));
    }
}
