//! `limina.toml`: what a package is, what it may touch and within which limits.

use crate::grants::{Grants, RawGrants};
use crate::limits::{MAX_PACKAGE_MEMORY_BYTES, PackageLimits};
use crate::policy::Permissions;
use serde::Deserialize;
use std::fmt;

/// A parsed, checked manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// Package name; its skills are all named `<name>.*`.
    pub name: String,
    /// Semver version.
    pub version: String,
    /// `core`, `skills`, …
    pub kind: String,
    pub description: String,
    /// Range of host versions the package works with, e.g. `>=0.1.0`.
    pub engine: String,
    /// Component file, relative to the package folder.
    pub component: String,
    /// Permissions the package's imports may use (further narrowed by each session).
    pub capabilities: Permissions,
    /// What it may reach outside the world (`[grants]`): network, files, secrets, state. Each
    /// family implies a permission ([`Grants::permissions`]) the session must also hold.
    pub grants: Grants,
    pub limits: PackageLimits,
    /// `sha256:<hex>` of the component, pinned by `limina pkg build`.
    pub content_hash: Option<String>,
    /// An ed25519 signature over the content hash, added by `limina pkg sign`.
    pub attestation: Option<Attestation>,
    /// How long its skills are expected to take (`[latency]`), used until enough calls have
    /// been measured.
    pub latency: Option<ExpectedLatency>,
}

/// The `[latency]` table: expected p50 and worst-case call time, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpectedLatency {
    pub p50_ms: f64,
    pub max_ms: f64,
}

/// The `[attestation]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attestation {
    /// Hex ed25519 public key.
    pub public_key: String,
    /// Hex ed25519 signature over the bytes of the content hash string.
    pub signature: String,
}

/// Why a manifest was refused; the message names the field and the fix.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestError(pub String);

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ManifestError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: String,
    version: String,
    #[serde(default = "default_kind")]
    kind: String,
    #[serde(default)]
    description: String,
    #[serde(default = "default_engine")]
    engine: String,
    component: Option<String>,
    #[serde(default)]
    capabilities: Vec<String>,
    #[serde(default)]
    limits: RawLimits,
    content_hash: Option<String>,
    attestation: Option<Attestation>,
    latency: Option<RawLatency>,
    #[serde(default)]
    grants: RawGrants,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLatency {
    p50_ms: f64,
    max_ms: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    fuel_per_call: Option<u64>,
    memory_bytes: Option<u64>,
    timeout_ms: Option<u64>,
}

fn default_kind() -> String {
    "skills".into()
}

fn default_engine() -> String {
    "*".into()
}

impl Manifest {
    /// Parses and checks manifest text.
    pub fn parse(text: &str) -> Result<Manifest, ManifestError> {
        let raw: Raw =
            toml::from_str(text).map_err(|e| ManifestError(format!("limina.toml: {e}")))?;
        if !valid_name(&raw.name) {
            return Err(ManifestError(format!(
                "`name` must be lowercase letters, digits and '-', starting with a letter; got `{}`",
                raw.name
            )));
        }
        if !valid_semver(&raw.version) {
            return Err(ManifestError(format!(
                "`version` must be semver like `1.2.3`; got `{}`",
                raw.version
            )));
        }
        if let Err(e) = semver::VersionReq::parse(&raw.engine) {
            return Err(ManifestError(format!(
                "`engine` must be a semver range such as `>=0.1.0` or `^0.1`; got `{}` ({e})",
                raw.engine
            )));
        }
        if let Some(hash) = &raw.content_hash
            && !(hash.len() == 71
                && hash.starts_with("sha256:")
                && hash[7..].chars().all(|c| c.is_ascii_hexdigit()))
        {
            return Err(ManifestError(format!(
                "`content_hash` must be `sha256:` and 64 hex digits (run `limina pkg build` to write it); got `{hash}`"
            )));
        }
        let capabilities = Permissions::parse(&raw.capabilities)
            .map_err(|e| ManifestError(format!("`capabilities`: {e}")))?;
        let grants = Grants::parse(raw.grants).map_err(ManifestError)?;
        let defaults = PackageLimits::default();
        let limits = PackageLimits {
            fuel_per_call: raw.limits.fuel_per_call.unwrap_or(defaults.fuel_per_call),
            memory_bytes: raw.limits.memory_bytes.unwrap_or(defaults.memory_bytes),
            timeout_ms: raw.limits.timeout_ms.unwrap_or(defaults.timeout_ms),
        };
        if limits.memory_bytes == 0 || limits.memory_bytes > MAX_PACKAGE_MEMORY_BYTES {
            return Err(ManifestError(format!(
                "`limits.memory_bytes` must be > 0 and ≤ {MAX_PACKAGE_MEMORY_BYTES}; got {}",
                limits.memory_bytes
            )));
        }
        if limits.fuel_per_call == 0 || limits.timeout_ms == 0 {
            return Err(ManifestError(
                "`limits.fuel_per_call` and `limits.timeout_ms` must be > 0".into(),
            ));
        }
        let latency = match raw.latency {
            None => None,
            Some(l) => {
                let max_ms = l.max_ms.unwrap_or(l.p50_ms);
                if !(l.p50_ms.is_finite()
                    && l.p50_ms > 0.0
                    && max_ms.is_finite()
                    && max_ms >= l.p50_ms)
                {
                    return Err(ManifestError(format!(
                        "`latency.p50_ms` must be > 0 and `latency.max_ms` ≥ `latency.p50_ms` (milliseconds); got p50_ms = {} and max_ms = {max_ms}",
                        l.p50_ms
                    )));
                }
                Some(ExpectedLatency {
                    p50_ms: l.p50_ms,
                    max_ms,
                })
            }
        };
        let component = raw
            .component
            .unwrap_or_else(|| format!("{}.wasm", raw.name));
        Ok(Manifest {
            name: raw.name,
            version: raw.version,
            kind: raw.kind,
            description: raw.description,
            engine: raw.engine,
            component,
            capabilities,
            grants,
            limits,
            content_hash: raw.content_hash,
            attestation: raw.attestation,
            latency,
        })
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn valid_semver(v: &str) -> bool {
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<_> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "dice"
version = "1.2.0"
component = "dice.wasm"
capabilities = ["scene.read"]
[limits]
fuel_per_call = 1000
"#;

    #[test]
    fn a_good_manifest_parses_with_defaults_filled() {
        let m = Manifest::parse(GOOD).unwrap();
        assert_eq!(m.name, "dice");
        assert_eq!(m.limits.fuel_per_call, 1000);
        assert_eq!(m.limits.memory_bytes, PackageLimits::default().memory_bytes);
        assert_eq!(m.capabilities.names(), vec!["scene.read"]);
        assert_eq!(m.latency, None);
        assert!(m.grants.is_empty());
    }

    #[test]
    fn a_grants_table_declares_what_the_package_reaches_outside() {
        let m = Manifest::parse(&format!(
            "{GOOD}[grants]\nnetwork = [\"https://api.example.com/v1\"]\nsecrets = [\"KEY\"]\n"
        ))
        .unwrap();
        assert_eq!(m.grants.network[0].text, "https://api.example.com/v1");
        assert_eq!(m.grants.secrets, ["KEY"]);
        assert_eq!(
            m.grants.permissions().names(),
            ["net.outbound", "secrets.read"]
        );
        // Grants do not widen what the package's world imports may use.
        assert_eq!(m.capabilities.names(), vec!["scene.read"]);
    }

    #[test]
    fn a_latency_table_declares_the_expected_p50_and_max() {
        let m =
            Manifest::parse(&format!("{GOOD}[latency]\np50_ms = 800\nmax_ms = 2500\n")).unwrap();
        assert_eq!(
            m.latency,
            Some(ExpectedLatency {
                p50_ms: 800.0,
                max_ms: 2500.0
            })
        );
        // Without a max, the p50 is the best guess for it too.
        let m = Manifest::parse(&format!("{GOOD}[latency]\np50_ms = 40.5\n")).unwrap();
        assert_eq!(m.latency.map(|l| l.max_ms), Some(40.5));
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (GOOD.replace("\"dice\"", "\"Dice\""), "`name`"),
            (GOOD.replace("1.2.0", "1.2"), "`version`"),
            (GOOD.replace("scene.read", "scene.fly"), "`capabilities`"),
            (GOOD.replace("fuel_per_call", "fuel"), "fuel"),
            (format!("{GOOD}memory_bytes = 0\n"), "`limits.memory_bytes`"),
            (format!("engine = \"one\"\n{GOOD}"), "`engine`"),
            (
                format!("content_hash = \"md5:x\"\n{GOOD}"),
                "`content_hash`",
            ),
            (format!("{GOOD}[latency]\np50_ms = 0\n"), "`latency.p50_ms`"),
            (
                format!("{GOOD}[latency]\np50_ms = 200\nmax_ms = 100\n"),
                "`latency.max_ms`",
            ),
            (format!("{GOOD}[latency]\nmedian = 3\n"), "median"),
            (
                format!("{GOOD}[grants]\nnetwork = [\"example.com\"]\n"),
                "`grants.network[0]`",
            ),
            (
                format!("{GOOD}[grants]\nfiles = [\"read:/etc\"]\n"),
                "`grants.files[0]`",
            ),
        ];
        for (text, field) in cases {
            let err = Manifest::parse(&text).unwrap_err().to_string();
            assert!(err.contains(field), "{field} not in: {err}");
        }
    }
}
