//! `[identity]` in the configuration file: the provider tokens come from, this server's
//! canonical URI, what a token must hold and how its claims map to agents and profiles. Every
//! value is checked here; an error names its key.
//!
//! ```toml
//! [identity]
//! issuer = "https://idp.example.com/realms/limina"  # `iss`, exactly; its metadata is discovered
//! resource = "https://mcp.example.com/mcp"           # this server's canonical URI: the `aud`
//! scopes = ["mcp:tools"]                             # every token must carry these
//! algorithms = ["RS256", "ES256"]                    # default: every asymmetric one the host knows
//! clockSkewSeconds = 30
//!
//! [identity.claims]
//! agent = "sub"          # the claim naming the agent
//! agentPrefix = "idp:"
//! groups = "groups"
//!
//! [[identity.profiles]]
//! profile = "builder.readWrite"
//! scope = "limina:build"   # or group / clientId / subject; all given must hold
//!
//! [[identity.profiles]]
//! profile = "system.readonly"   # no condition: every valid token
//!
//! [identity.introspection]    # opaque tokens (RFC 7662)
//! clientId = "limina"
//! clientSecretFile = "introspection.secret"
//! ```

use super::jws::Alg;
use super::mapping::{ClaimNames, ProfileRule};
use crate::limits::{
    IDENTITY_CLOCK_SKEW_SECONDS, IDENTITY_FETCH_TIMEOUT_MS, IDENTITY_INTROSPECTION_CACHE_SECONDS,
    IDENTITY_KEYS_MAX_AGE_SECONDS, IDENTITY_KEYS_MIN_INTERVAL_SECONDS,
    IDENTITY_MAX_CLOCK_SKEW_SECONDS,
};
use crate::policy::Profiles;
use serde::Deserialize;
use std::ops::Range;
use std::path::Path;
use std::time::Duration;
use toml::Spanned;

/// The parsed `[identity]` section.
#[derive(Debug, Clone)]
pub struct IdentityConfig {
    /// The provider's issuer identifier: `iss` must be exactly this.
    pub issuer: String,
    /// This server's canonical URI (RFC 8707): `aud` must hold it.
    pub resource: String,
    pub algorithms: Vec<Alg>,
    /// Scopes every token must carry.
    pub scopes: Vec<String>,
    pub clock_skew: u64,
    /// The key set's URL; discovered from the issuer's metadata when not given.
    pub jwks_uri: Option<String>,
    pub keys_max_age: Duration,
    pub keys_min_interval: Duration,
    pub fetch_timeout: Duration,
    /// `resource_name` in the metadata document.
    pub resource_name: Option<String>,
    /// `resource_documentation` in the metadata document.
    pub documentation: Option<String>,
    pub claims: ClaimNames,
    pub rules: Vec<ProfileRule>,
    pub introspection: Option<IntrospectionConfig>,
}

/// `[identity.introspection]`: how the host asks the provider about opaque tokens.
#[derive(Debug, Clone)]
pub struct IntrospectionConfig {
    /// Discovered (`introspection_endpoint`) when not given.
    pub endpoint: Option<String>,
    pub client_id: String,
    pub client_secret: String,
    pub cache: Duration,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RawIdentity {
    issuer: Spanned<String>,
    resource: Spanned<String>,
    algorithms: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    scopes: Vec<String>,
    clock_skew_seconds: Option<Spanned<i64>>,
    jwks_uri: Option<Spanned<String>>,
    keys_max_age_seconds: Option<Spanned<i64>>,
    keys_min_interval_seconds: Option<Spanned<i64>>,
    fetch_timeout_ms: Option<Spanned<i64>>,
    resource_name: Option<String>,
    documentation: Option<String>,
    claims: Option<RawClaims>,
    #[serde(default)]
    profiles: Vec<Spanned<RawRule>>,
    introspection: Option<Spanned<RawIntrospection>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawClaims {
    agent: Option<String>,
    agent_prefix: Option<String>,
    groups: Option<String>,
    scope: Option<String>,
    client_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawRule {
    profile: String,
    scope: Option<String>,
    group: Option<String>,
    client_id: Option<String>,
    subject: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawIntrospection {
    endpoint: Option<String>,
    client_id: String,
    client_secret_file: Option<String>,
    client_secret_env: Option<String>,
    cache_seconds: Option<i64>,
}

type Error = (Range<usize>, String);

/// Checks `[identity]`; relative files are read from `base` (the configuration's folder).
pub(crate) fn parse(
    raw: RawIdentity,
    profiles: &Profiles,
    base: Option<&Path>,
) -> Result<IdentityConfig, Error> {
    let issuer = checked_url(&raw.issuer, "issuer")?;
    let resource = raw.resource.get_ref().clone();
    check_resource(&resource)
        .map_err(|e| (raw.resource.span(), format!("`identity.resource`: {e}")))?;
    let algorithms = match raw.algorithms {
        None => Alg::ALL.to_vec(),
        Some(list) => {
            let span = list.span();
            let mut algs = Vec::new();
            for name in list.into_inner() {
                let alg = Alg::parse(&name)
                    .map_err(|e| (span.clone(), format!("`identity.algorithms`: {e}")))?;
                algs.push(alg);
            }
            if algs.is_empty() {
                return Err((
                    span,
                    "`identity.algorithms` must list at least one algorithm".into(),
                ));
            }
            algs
        }
    };
    let seconds = |v: Option<Spanned<i64>>, key: &str, default: u64, max: u64| match v {
        None => Ok(default),
        Some(v) if (0..=max as i64).contains(v.get_ref()) => Ok(*v.get_ref() as u64),
        Some(v) => Err((
            v.span(),
            format!("`identity.{key}` must be 0 to {max}, got {}", v.get_ref()),
        )),
    };
    let clock_skew = seconds(
        raw.clock_skew_seconds,
        "clockSkewSeconds",
        IDENTITY_CLOCK_SKEW_SECONDS,
        IDENTITY_MAX_CLOCK_SKEW_SECONDS,
    )?;
    let keys_max_age = seconds(
        raw.keys_max_age_seconds,
        "keysMaxAgeSeconds",
        IDENTITY_KEYS_MAX_AGE_SECONDS,
        86_400,
    )?;
    let keys_min_interval = seconds(
        raw.keys_min_interval_seconds,
        "keysMinIntervalSeconds",
        IDENTITY_KEYS_MIN_INTERVAL_SECONDS,
        3_600,
    )?;
    let fetch_timeout = seconds(
        raw.fetch_timeout_ms,
        "fetchTimeoutMs",
        IDENTITY_FETCH_TIMEOUT_MS,
        60_000,
    )?;
    if fetch_timeout == 0 {
        return Err((0..0, "`identity.fetchTimeoutMs` must be > 0".into()));
    }
    let jwks_uri = raw
        .jwks_uri
        .as_ref()
        .map(|u| checked_url(u, "jwksUri"))
        .transpose()?;
    let claims = raw.claims.map_or_else(ClaimNames::default, |c| {
        let d = ClaimNames::default();
        ClaimNames {
            agent: c.agent.unwrap_or(d.agent),
            agent_prefix: c.agent_prefix.unwrap_or(d.agent_prefix),
            groups: c.groups.unwrap_or(d.groups),
            scope: c.scope.unwrap_or(d.scope),
            client_id: c.client_id.unwrap_or(d.client_id),
        }
    });
    let mut rules = Vec::new();
    for spanned in raw.profiles {
        let span = spanned.span();
        let r = spanned.into_inner();
        profiles
            .get(&r.profile)
            .map_err(|e| (span.clone(), format!("`identity.profiles`: {e}")))?;
        rules.push(ProfileRule {
            profile: r.profile,
            scope: r.scope,
            group: r.group,
            client_id: r.client_id,
            subject: r.subject,
        });
    }
    if rules.is_empty() {
        return Err((
            raw.issuer.span(),
            "`[identity]` needs at least one `[[identity.profiles]]` rule: which profile a token gives (e.g. `profile = \"system.readonly\"` for every valid token)".into(),
        ));
    }
    let introspection = raw
        .introspection
        .map(|spanned| introspection(spanned, base))
        .transpose()?;
    Ok(IdentityConfig {
        issuer,
        resource,
        algorithms,
        scopes: raw.scopes,
        clock_skew,
        jwks_uri,
        keys_max_age: Duration::from_secs(keys_max_age),
        keys_min_interval: Duration::from_secs(keys_min_interval),
        fetch_timeout: Duration::from_millis(fetch_timeout),
        resource_name: raw.resource_name,
        documentation: raw.documentation,
        claims,
        rules,
        introspection,
    })
}

fn introspection(
    spanned: Spanned<RawIntrospection>,
    base: Option<&Path>,
) -> Result<IntrospectionConfig, Error> {
    let span = spanned.span();
    let raw = spanned.into_inner();
    let at = |msg: String| (span.clone(), format!("`identity.introspection`: {msg}"));
    if let Some(endpoint) = &raw.endpoint {
        check_url(endpoint).map_err(|e| at(format!("`endpoint`: {e}")))?;
    }
    let client_secret = match (&raw.client_secret_file, &raw.client_secret_env) {
        (Some(file), None) => {
            let path = base.map_or_else(|| Path::new(file).to_path_buf(), |b| b.join(file));
            let text = std::fs::read_to_string(&path).map_err(|e| {
                at(format!(
                    "`clientSecretFile`: cannot read {}: {e}",
                    path.display()
                ))
            })?;
            text.trim().to_string()
        }
        (None, Some(name)) => std::env::var(name).map_err(|_| {
            at(format!(
                "`clientSecretEnv`: the environment variable `{name}` is not set"
            ))
        })?,
        _ => {
            return Err(at(
                "give exactly one of `clientSecretFile` and `clientSecretEnv`".into(),
            ));
        }
    };
    if client_secret.is_empty() {
        return Err(at("the client secret is empty".into()));
    }
    let cache = match raw.cache_seconds {
        None => IDENTITY_INTROSPECTION_CACHE_SECONDS,
        Some(s) if (0..=3_600).contains(&s) => s as u64,
        Some(s) => return Err(at(format!("`cacheSeconds` must be 0 to 3600, got {s}"))),
    };
    Ok(IntrospectionConfig {
        endpoint: raw.endpoint,
        client_id: raw.client_id,
        client_secret,
        cache: Duration::from_secs(cache),
    })
}

fn checked_url(url: &Spanned<String>, key: &str) -> Result<String, Error> {
    check_url(url.get_ref()).map_err(|e| (url.span(), format!("`identity.{key}`: {e}")))?;
    Ok(url.get_ref().clone())
}

/// A provider URL: `https://`, or `http://` to a loopback address (a provider beside the host).
pub fn check_url(url: &str) -> Result<(), String> {
    let (scheme, host) = scheme_and_host(url)?;
    match scheme {
        "https" => Ok(()),
        "http" if is_loopback(host) => Ok(()),
        "http" => Err(format!(
            "`{url}` is plain http to `{host}`, beyond loopback; an identity provider is reached over https"
        )),
        other => Err(format!("`{url}` uses `{other}`; use https")),
    }
}

/// The canonical URI: absolute http(s) (plain http on loopback only), no fragment.
fn check_resource(uri: &str) -> Result<(), String> {
    if uri.contains('#') {
        return Err(format!(
            "`{uri}` has a fragment, which a resource identifier may not (RFC 8707)"
        ));
    }
    check_url(uri).map_err(|e| e.replace("an identity provider is reached", "a resource is served"))
}

fn scheme_and_host(url: &str) -> Result<(&str, &str), String> {
    let (scheme, rest) = url.split_once("://").ok_or_else(|| {
        format!("`{url}` is not an absolute URL; write e.g. `https://idp.example.com`")
    })?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    if host.is_empty() || authority.contains('@') {
        return Err(format!("`{url}` names no host (or carries credentials)"));
    }
    Ok((scheme, host))
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    const BASE: &str =
        "[identity]\nissuer = \"https://idp.example\"\nresource = \"https://mcp.example/mcp\"\n";

    #[test]
    fn identity_settings_parse_with_their_defaults() {
        let c = Config::parse(&format!(
            "{BASE}scopes = [\"mcp\"]\nalgorithms = [\"ES256\"]\n\n[identity.claims]\nagentPrefix = \"idp:\"\n\n[[identity.profiles]]\nprofile = \"builder.readWrite\"\nscope = \"build\"\n"
        ))
        .unwrap();
        let id = c.identity.unwrap();
        assert_eq!(id.issuer, "https://idp.example");
        assert_eq!(id.algorithms, [super::Alg::ES256]);
        assert_eq!(id.clock_skew, super::IDENTITY_CLOCK_SKEW_SECONDS);
        assert_eq!(id.claims.agent, "sub");
        assert_eq!(id.claims.agent_prefix, "idp:");
        assert_eq!(id.rules[0].scope.as_deref(), Some("build"));
        assert!(id.introspection.is_none());
        assert!(Config::parse("").unwrap().identity.is_none());
    }

    #[test]
    fn bad_identity_settings_name_their_key() {
        let rule = "\n[[identity.profiles]]\nprofile = \"system.readonly\"\n";
        let cases = [
            (format!("{BASE}algorithms = [\"none\"]\n{rule}"), "unsigned"),
            (format!("{BASE}algorithms = [\"HS256\"]\n{rule}"), "HMAC"),
            (
                format!("{BASE}algorithms = []\n{rule}"),
                "at least one algorithm",
            ),
            (
                format!("{BASE}clockSkewSeconds = 3600\n{rule}"),
                "`identity.clockSkewSeconds` must be 0 to 300",
            ),
            (BASE.to_string(), "at least one `[[identity.profiles]]`"),
            (
                format!("{BASE}\n[[identity.profiles]]\nprofile = \"root\"\n"),
                "unknown profile `root`",
            ),
            (
                format!(
                    "[identity]\nissuer = \"http://idp.example\"\nresource = \"https://m.example\"\n{rule}"
                ),
                "plain http to `idp.example`",
            ),
            (
                format!(
                    "[identity]\nissuer = \"https://idp.example\"\nresource = \"https://m.example/#x\"\n{rule}"
                ),
                "fragment",
            ),
            (
                format!(
                    "[identity]\nissuer = \"idp.example\"\nresource = \"https://m.example\"\n{rule}"
                ),
                "not an absolute URL",
            ),
            (
                format!("{BASE}{rule}\n[identity.introspection]\nclientId = \"x\"\n"),
                "exactly one of `clientSecretFile` and `clientSecretEnv`",
            ),
            (
                format!(
                    "{BASE}{rule}\n[identity.introspection]\nclientId = \"x\"\nclientSecretEnv = \"LIMINA_TEST_SURELY_UNSET\"\n"
                ),
                "`LIMINA_TEST_SURELY_UNSET` is not set",
            ),
        ];
        for (text, words) in cases {
            let err = Config::parse(&text).unwrap_err();
            assert!(err.contains(words), "expected `{words}` in: {err}");
        }
        // Plain http to the loopback is fine (a provider beside the host, tests).
        let local = format!(
            "[identity]\nissuer = \"http://127.0.0.1:9/\"\nresource = \"http://localhost:1/mcp\"\n{rule}"
        );
        assert!(Config::parse(&local).is_ok());
    }
}
