//! The configuration file (`--config FILE`, TOML): profiles with tool allow-lists, quotas,
//! budgets, `maxSessions`, per-package limits and grants (`[volumes]`, `[secrets]` and
//! `[packages.NAME.grants]`, parsed by `crate::grants`). Every part has a default, so the host runs
//! without one; a bad file is refused with its line and the reason. Each section is parsed on
//! its own — by the room it configures, or here (`policy.rs`, `trace.rs`) — into its value or
//! an error tagged with where it is; [`Config::parse`] runs them in order and names the line.

mod policy;
mod trace;

use crate::grants::{HostGrants, RawGrants, RawSecret};
use crate::limits::PackageLimits;
use crate::policy::PolicyConfig;
use crate::trace::Retention;
use policy::{RawBudget, RawLatency, RawProfile, RawQuota};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use trace::RawTrace;

/// The parsed configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub policy: PolicyConfig,
    /// Limits that override a package's manifest, by package name.
    pub package_limits: BTreeMap<String, PackageLimits>,
    /// Segment size and retention of the durable trace (`[trace]`).
    pub trace: Retention,
    /// When the trace syncs and what a write failure does (`[trace] fsync`, `onWriteFailure`).
    pub trace_durability: crate::trace::Durability,
    /// Volumes, secrets and what each package is given to reach outside the world.
    pub grants: HostGrants,
    /// The host's ceilings on package limits and the engine's call deadline (`[limits]`).
    pub ceilings: crate::ceilings::Ceilings,
    /// How much each package may write into its volumes (`[files]`, `crate::files`).
    pub files: crate::files::FilesConfig,
    /// What network clients may take and the connection limits (`[network]`).
    pub network: crate::mcp::transport::edge::NetworkSettings,
    /// World checkpoints (`[world]`, see `persistence/config.rs`).
    pub world: crate::persistence::WorldConfig,
    /// The roots outbound `https` trusts (`[outbound] extraRoots`, see `net/tls.rs`).
    pub outbound: crate::net::TlsRoots,
    /// What a credential in a package's or upstream's result does (`[outbound] scanResults`).
    pub scan_results: crate::grants::credentials::ScanResults,
    /// MCP servers whose tools are mounted as skills (`[[upstream]]`, `upstream/config.rs`).
    pub upstreams: Vec<crate::upstream::UpstreamConfig>,
    /// Packages from OCI registries (`[oci]`, with `trustedKeys` and the outbound roots).
    pub oci: crate::packages::oci::OciSettings,
    /// Tokens from an identity provider (`[identity]`, `identity/config.rs`).
    pub identity: Option<crate::identity::IdentityConfig>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Raw {
    max_sessions: Option<Spanned<i64>>,
    #[serde(default)]
    require_signatures: bool,
    #[serde(default)]
    trusted_keys: Vec<String>,
    #[serde(default)]
    profiles: BTreeMap<String, Spanned<RawProfile>>,
    #[serde(default)]
    quotas: Vec<Spanned<RawQuota>>,
    budgets: Option<Spanned<RawBudget>>,
    #[serde(default)]
    packages: BTreeMap<String, Spanned<RawPackage>>,
    latency: Option<Spanned<RawLatency>>,
    trace: Option<RawTrace>,
    files: Option<crate::files::RawFiles>,
    #[serde(default)]
    volumes: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    secrets: BTreeMap<String, Spanned<RawSecret>>,
    limits: Option<Spanned<crate::ceilings::RawCeilings>>,
    network: Option<crate::mcp::transport::edge::settings::RawNetwork>,
    world: Option<crate::persistence::RawWorld>,
    #[serde(default)]
    approve: Vec<Spanned<crate::policy::approve::RawApprove>>,
    outbound: Option<crate::net::tls::RawOutbound>,
    #[serde(default)]
    upstream: Vec<Spanned<crate::upstream::config::RawUpstream>>,
    oci: Option<crate::packages::oci::RawOci>,
    identity: Option<crate::identity::config::RawIdentity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPackage {
    fuel_per_call: Option<i64>,
    memory_bytes: Option<i64>,
    timeout_ms: Option<i64>,
    grants: Option<Spanned<RawGrants>>,
}

impl Config {
    /// A loader that re-reads the file at `path` for the registry's `data` reloads.
    pub fn loader(path: std::path::PathBuf) -> crate::registry::ConfigLoader {
        Box::new(move || {
            let config = Config::load(&path)?;
            Ok(crate::registry::Reconfiguration {
                policy: config.policy,
                package_limits: config.package_limits,
                grants: config.grants,
                ceilings: config.ceilings,
                files: config.files,
                outbound: config.outbound,
                scan_results: config.scan_results,
            })
        })
    }

    /// Reads and parses a file; errors start with `path:line:`.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the configuration: {e}", path.display()))?;
        Config::parse_in(&text, path.parent()).map_err(|e| format!("{}:{e}", path.display()))
    }

    /// Parses configuration text; errors start with `line:`.
    pub fn parse(text: &str) -> Result<Config, String> {
        Config::parse_in(text, None)
    }

    /// Parses configuration text whose relative paths start at `base`.
    fn parse_in(text: &str, base: Option<&Path>) -> Result<Config, String> {
        let raw: Raw = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            format!("{line}: {}", e.message())
        })?;
        let at =
            |(span, msg): (Range<usize>, String)| format!("{}: {msg}", line_of(text, span.start));
        let (profiles, named_capabilities) = policy::profiles(raw.profiles).map_err(at)?;
        let quotas = policy::quotas(raw.quotas).map_err(at)?;
        let budget = policy::budget(raw.budgets).map_err(at)?;
        let max_sessions = policy::max_sessions(raw.max_sessions).map_err(at)?;
        let (package_limits, package_grants) = packages(raw.packages).map_err(at)?;
        let latency = policy::latency(raw.latency).map_err(at)?;
        let grants = HostGrants::parse(raw.volumes, raw.secrets, package_grants).map_err(at)?;
        let (trace, trace_durability) = trace::section(raw.trace).map_err(at)?;
        let ceilings = match raw.limits {
            Some(l) => {
                let span = l.span();
                crate::ceilings::Ceilings::parse(l.into_inner()).map_err(|e| at((span, e)))?
            }
            None => Default::default(),
        };

        let files = crate::files::FilesConfig::parse(raw.files).map_err(at)?;

        let network = match raw.network {
            Some(n) => {
                crate::mcp::transport::edge::settings::parse(n, &profiles, base).map_err(at)?
            }
            None => Default::default(),
        };
        let identity = raw
            .identity
            .map(|i| crate::identity::config::parse(i, &profiles, base))
            .transpose()
            .map_err(at)?;
        let world = crate::persistence::parse_world_section(raw.world).map_err(at)?;
        let approvals = crate::policy::approve::parse(raw.approve, &profiles).map_err(at)?;
        let scan_results = match raw.outbound.as_ref().and_then(|o| o.scan_results.as_ref()) {
            Some(v) => crate::grants::credentials::ScanResults::parse(v.get_ref())
                .map_err(|e| at((v.span(), e)))?,
            None => Default::default(),
        };
        let outbound = crate::net::TlsRoots::parse(raw.outbound, base).map_err(at)?;
        let mut upstreams = crate::upstream::config::parse(raw.upstream, base).map_err(at)?;
        // An https upstream trusts what outbound https trusts.
        for upstream in &mut upstreams {
            upstream.roots = outbound.clone();
        }

        let oci = crate::packages::oci::parse_settings(raw.oci, &raw.trusted_keys, &outbound)
            .map_err(at)?;
        Ok(Config {
            oci,
            outbound,
            scan_results,
            network,
            identity,
            trace,
            trace_durability,
            grants,
            ceilings,
            files,
            world,
            upstreams,
            policy: PolicyConfig {
                profiles,
                quotas,
                budget,
                max_sessions,
                require_signatures: raw.require_signatures,
                trusted_keys: raw.trusted_keys,
                latency,
                approvals,
                named_capabilities,
            },
            package_limits,
        })
    }
}

/// A section's refusal: where in the file, and why.
type Refusal = (Range<usize>, String);

/// What `[packages.NAME]` gives: limits by package, and each package's grants still to check.
type PackageSections = (
    BTreeMap<String, PackageLimits>,
    Vec<(String, Spanned<RawGrants>)>,
);

/// `[packages.NAME]`: limits that override a package's manifest (each > 0), and the grants
/// the host gives it (checked with the volumes and secrets, `crate::grants`).
fn packages(raw: BTreeMap<String, Spanned<RawPackage>>) -> Result<PackageSections, Refusal> {
    let mut package_limits = BTreeMap::new();
    let mut package_grants = Vec::new();
    for (name, spanned) in raw {
        let span = spanned.span();
        let mut p = spanned.into_inner();
        if let Some(g) = p.grants.take() {
            package_grants.push((name.clone(), g));
        }
        if p.fuel_per_call.is_none() && p.memory_bytes.is_none() && p.timeout_ms.is_none() {
            // Only grants: the manifest's limits stand.
            continue;
        }
        let d = PackageLimits::default();
        let positive = |v: Option<i64>, field: &str, default: u64| -> Result<u64, Refusal> {
            match v {
                None => Ok(default),
                Some(v) if v > 0 => Ok(v as u64),
                Some(v) => Err((
                    span.clone(),
                    format!("package `{name}`: `{field}` must be > 0, got {v}"),
                )),
            }
        };
        let limits = PackageLimits {
            fuel_per_call: positive(p.fuel_per_call, "fuelPerCall", d.fuel_per_call)?,
            memory_bytes: positive(p.memory_bytes, "memoryBytes", d.memory_bytes)?,
            timeout_ms: positive(p.timeout_ms, "timeoutMs", d.timeout_ms)?,
        };
        package_limits.insert(name, limits);
    }
    Ok((package_limits, package_grants))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{BudgetLimits, LatencyPolicy, LatencyTier, TierEnforcement};

    const GOOD: &str = r#"
maxSessions = 4

[profiles.scout]
permissions = ["scene.read"]
tools = ["scene.query*", "skills.*"]

[[quotas]]
cap = "scene.createEntity"
limit = 3
windowMs = 1000

[budgets]
calls = 10
cpuMs = 25.5
netRequests = 5

[packages.dice]
fuelPerCall = 1000
"#;

    #[test]
    fn a_full_file_parses() {
        let c = Config::parse(GOOD).unwrap();
        assert_eq!(c.policy.max_sessions, Some(4));
        let scout = c.policy.profiles.get("scout").unwrap();
        assert_eq!(scout.permissions.names(), vec!["scene.read"]);
        assert_eq!(scout.tools.as_ref().unwrap().len(), 2);
        assert!(
            c.policy.profiles.get("builder.readWrite").is_ok(),
            "built-ins stay"
        );
        assert_eq!(c.policy.quotas[0].limit, 3);
        assert!(c.policy.quotas[0].per_session);
        assert_eq!(c.policy.budget.calls, Some(10));
        assert_eq!(c.policy.budget.mem_bytes, None);
        assert_eq!(c.policy.budget.net_requests, Some(5));
        assert_eq!(c.policy.budget.net_bytes, None);
        assert_eq!(c.package_limits["dice"].fuel_per_call, 1000);
    }

    #[test]
    fn latency_tiers_their_enforcement_and_a_profile_ceiling_parse() {
        let c = Config::parse(
            "[latency]\nfastMs = 200\nstandardMs = 900\ntierEnforcement = \"refuse\"\n\n[profiles.npc]\npermissions = []\nmaxLatencyTier = \"fast\"\n",
        )
        .unwrap();
        assert_eq!(c.policy.latency.thresholds.fast_ms, 200.0);
        assert_eq!(c.policy.latency.thresholds.standard_ms, 900.0);
        assert_eq!(c.policy.latency.enforcement, TierEnforcement::Refuse);
        let npc = c.policy.profiles.get("npc").unwrap();
        assert_eq!(npc.max_latency_tier, Some(LatencyTier::Fast));
        let defaults = Config::parse("").unwrap();
        assert_eq!(defaults.policy.latency, LatencyPolicy::default());
        assert_eq!(defaults.policy.latency.thresholds.fast_ms, 500.0);
        assert_eq!(defaults.policy.latency.thresholds.standard_ms, 1500.0);
    }

    #[test]
    fn bad_latency_settings_give_the_line_and_the_reason() {
        let cases = [
            ("[latency]\nfastMs = 0\n", "1:", "`fastMs` > 0"),
            (
                "[latency]\nfastMs = 900\nstandardMs = 800\n",
                "1:",
                "`standardMs` ≥ `fastMs`",
            ),
            (
                "\n[latency]\ntierEnforcement = \"warn\"\n",
                "2:",
                "unknown tier enforcement `warn`",
            ),
            (
                "[profiles.npc]\npermissions = []\nmaxLatencyTier = \"instant\"\n",
                "3:",
                "profile `npc`: `maxLatencyTier`: unknown latency tier `instant`",
            ),
        ];
        for (text, line, words) in cases {
            let err = Config::parse(text).unwrap_err();
            assert!(err.starts_with(line), "expected line {line} in: {err}");
            assert!(err.contains(words), "expected `{words}` in: {err}");
        }
    }

    #[test]
    fn trace_retention_parses_and_bad_values_name_their_key_and_line() {
        let c = Config::parse("[trace]\nsegmentBytes = 8192\nmaxBytes = 65536\nmaxAgeDays = 0.5\n")
            .unwrap();
        assert_eq!(c.trace.segment_bytes, 8192);
        assert_eq!(c.trace.max_bytes, Some(65536));
        let keep_all = Config::parse("[trace]\nmaxBytes = 0\n").unwrap();
        assert_eq!(keep_all.trace.max_bytes, None);
        let big = Config::parse("[trace]\nsegmentBytes = 4294967296\n").unwrap();
        assert_eq!(big.trace.max_bytes, Some(4 << 30));
        assert_eq!(
            c.trace.max_age,
            Some(std::time::Duration::from_secs(43_200))
        );
        assert_eq!(Config::parse("").unwrap().trace, Retention::default());
        for (text, want) in [
            (
                "[trace]\nsegmentBytes = 10\n",
                "2: `trace.segmentBytes` must be at least 4096",
            ),
            (
                "[trace]\n\nmaxBytes = -1\n",
                "3: `trace.maxBytes` must be ≥ 0",
            ),
            (
                "[trace]\nmaxBytes = 5000\n",
                "2: `trace.maxBytes` (5000) must be at least `trace.segmentBytes`",
            ),
            (
                "[trace]\nmaxAgeDays = -1\n",
                "2: `trace.maxAgeDays` must be a number of days > 0",
            ),
            ("[trace]\nmaxAgeDays = \"week\"\n", "2: invalid type"),
            ("[trace]\nmaxSize = 1\n", "2: unknown field `maxSize`"),
        ] {
            let err = Config::parse(text).unwrap_err();
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn package_grants_volumes_and_secrets_parse_and_grants_alone_leave_limits_be() {
        let c = Config::parse(
            "[volumes]\nrules = \"/srv/rules\"\n\n[secrets]\nHOME_DIR = { env = \"PATH\" }\n\n[packages.weather.grants]\nnetwork = [\"https://api.example.com\"]\nfiles = [\"read:rules\"]\nsecrets = [\"HOME_DIR\"]\n",
        )
        .unwrap();
        let given = c.grants.given("weather");
        assert_eq!(given.network[0].text, "https://api.example.com");
        assert_eq!(given.secrets, ["HOME_DIR"]);
        assert!(
            !c.package_limits.contains_key("weather"),
            "grants alone override no limit"
        );
        let err = Config::parse("\n[packages.weather.grants]\nsecrets = [\"NOPE\"]\n").unwrap_err();
        assert!(
            err.starts_with("2:") && err.contains("the secret `NOPE` is not defined"),
            "{err}"
        );
        let err =
            Config::parse("[packages.weather.grants]\nnetwork = [\"ftp://x\"]\n").unwrap_err();
        assert!(
            err.contains("`packages.weather`: `grants.network[0]`"),
            "{err}"
        );
    }

    #[test]
    fn zero_max_sessions_admits_no_session() {
        let c = Config::parse("maxSessions = 0\n").unwrap();
        assert_eq!(c.policy.max_sessions, Some(0));
    }

    #[test]
    fn an_empty_file_is_all_defaults() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.policy.budget, BudgetLimits::default());
        assert_eq!(c.policy.max_sessions, None);
    }

    #[test]
    fn errors_give_the_line_and_the_reason() {
        let cases = [
            (
                GOOD.replace("\"scene.read\"]", "\"scene.fly\"]"),
                "5:",
                "scene.fly",
            ),
            (GOOD.replace("limit = 3", "limit = -1"), "8:", "limit"),
            (
                GOOD.replace("maxSessions = 4", "maxSessions = -1"),
                "2:",
                "maxSessions",
            ),
            (GOOD.replace("cpuMs", "cpuSeconds"), "", "cpuSeconds"),
            (GOOD.replace("[budgets]", "[budgets"), "13:", "expected"),
        ];
        for (text, line, word) in cases {
            let err = Config::parse(&text).unwrap_err();
            assert!(err.starts_with(line), "expected line {line} in: {err}");
            assert!(err.contains(word), "expected `{word}` in: {err}");
            assert!(
                err.split(':').next().unwrap().parse::<usize>().is_ok(),
                "no line number: {err}"
            );
        }
    }
}
