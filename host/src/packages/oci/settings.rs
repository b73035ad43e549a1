//! `[oci]` in the configuration: registry packages loaded at start, whether references must
//! pin a digest, and which registries are spoken to over plain `http`.
//!
//! ```toml
//! [oci]
//! packages = ["oci://registry.example/team/dice@sha256:…"]
//! requireDigest = true                 # refuse references that name only a tag
//! plainHttp = ["registry.internal:5000"]   # besides loopback registries
//! ```

use super::OciError;
use super::Reference;
use super::client::Client;
use serde::Deserialize;
use std::ops::Range;
use std::path::PathBuf;
use toml::Spanned;

/// `[oci]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawOci {
    #[serde(default)]
    packages: Vec<Spanned<String>>,
    #[serde(default)]
    require_digest: bool,
    #[serde(default)]
    plain_http: Vec<Spanned<String>>,
}

/// How this host fetches registry packages (`[oci]` in the configuration, `trustedKeys`,
/// `[outbound] extraRoots`, and where fetched packages are kept).
#[derive(Debug, Clone, Default)]
pub struct OciSettings {
    /// Registry packages loaded at start (`[oci] packages`).
    pub packages: Vec<String>,
    /// Refuse a reference that names a tag but no digest (`[oci] requireDigest`).
    pub require_digest: bool,
    /// Registries spoken to over plain `http` besides loopback ones (`[oci] plainHttp`).
    pub plain_http: Vec<String>,
    /// The keys a fetched package must be signed by, when any (`trustedKeys`).
    pub trusted_keys: Vec<String>,
    /// Where fetched packages are kept by digest (`None`: nowhere; each load fetches).
    pub cache: Option<PathBuf>,
    /// The roots `https` registries are checked against.
    pub tls: crate::net::TlsRoots,
}

impl OciSettings {
    /// Whether `registry` is spoken to over plain `http`: a loopback one, or one listed.
    pub(super) fn plain(&self, registry: &str) -> bool {
        let host = match registry.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => registry,
        };
        let host = host.trim_matches(['[', ']']);
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        loopback || self.plain_http.iter().any(|r| r == registry)
    }

    pub(super) fn client(&self, reference: &Reference) -> Result<Client, OciError> {
        Client::new(
            &reference.registry,
            self.plain(&reference.registry),
            self.tls.client_config(),
        )
    }
}

/// Checks `[oci]`: each package a reference (pinned when digests are required), each
/// plain-http entry a `host[:port]`. Errors carry the span of the bad value.
pub fn parse(
    raw: Option<RawOci>,
    trusted_keys: &[String],
    tls: &crate::net::TlsRoots,
) -> Result<OciSettings, (Range<usize>, String)> {
    let raw = raw.unwrap_or(RawOci {
        packages: Vec::new(),
        require_digest: false,
        plain_http: Vec::new(),
    });
    let mut settings = OciSettings {
        require_digest: raw.require_digest,
        trusted_keys: trusted_keys.to_vec(),
        tls: tls.clone(),
        ..OciSettings::default()
    };
    for package in raw.packages {
        let reference = Reference::parse(package.get_ref())
            .map_err(|e| (package.span(), format!("`oci.packages`: {e}")))?;
        if raw.require_digest && reference.digest.is_none() {
            return Err((
                package.span(),
                format!(
                    "`oci.packages`: `{reference}` names no digest, and `oci.requireDigest` is on: \
                     pin it as …@sha256:<digest>"
                ),
            ));
        }
        settings.packages.push(package.into_inner());
    }
    for registry in raw.plain_http {
        let ok = !registry.get_ref().is_empty()
            && !registry.get_ref().contains('/')
            && Reference::parse(&format!("oci://{}/x:y", registry.get_ref())).is_ok();
        if !ok {
            return Err((
                registry.span(),
                format!(
                    "`oci.plainHttp`: `{}` is not a registry host[:port] (no scheme, no path)",
                    registry.get_ref()
                ),
            ));
        }
        settings.plain_http.push(registry.into_inner());
    }
    Ok(settings)
}
