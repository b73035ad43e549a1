//! The configuration file (`--config FILE`, TOML): profiles with tool allow-lists, quotas,
//! budgets, `maxSessions`, per-package limits and grants (`[volumes]`, `[secrets]` and
//! `[packages.NAME.grants]`, parsed by `crate::grants`). Every part has a default, so the host runs
//! without one; a bad file is refused with its line and the reason.

use crate::grants::{HostGrants, RawGrants, RawSecret};
use crate::limits::{MIN_TRACE_SEGMENT_BYTES, PackageLimits};
use crate::policy::{
    BudgetLimits, LatencyPolicy, LatencyTier, Permissions, PolicyConfig, Profile, Profiles,
    QuotaRule, TierEnforcement,
};
use crate::trace::Retention;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

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
struct RawTrace {
    segment_bytes: Option<Spanned<i64>>,
    max_bytes: Option<Spanned<i64>>,
    max_age_days: Option<Spanned<f64>>,
    fsync: Option<Spanned<String>>,
    on_write_failure: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawProfile {
    permissions: Vec<Spanned<String>>,
    tools: Option<Vec<String>>,
    max_latency_tier: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawLatency {
    fast_ms: Option<f64>,
    standard_ms: Option<f64>,
    tier_enforcement: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawQuota {
    cap: Option<String>,
    #[serde(default = "yes")]
    per_session: bool,
    limit: i64,
    window_ms: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawBudget {
    calls: Option<i64>,
    cpu_ms: Option<f64>,
    mem_bytes: Option<i64>,
    net_requests: Option<i64>,
    net_bytes: Option<i64>,
    upstream_ms: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPackage {
    fuel_per_call: Option<i64>,
    memory_bytes: Option<i64>,
    timeout_ms: Option<i64>,
    grants: Option<Spanned<RawGrants>>,
}

fn yes() -> bool {
    true
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
        let at = |span: Range<usize>, msg: String| format!("{}: {msg}", line_of(text, span.start));

        let mut profiles = Profiles::default();
        let mut named_capabilities = BTreeMap::new();
        for (name, spanned) in raw.profiles {
            let span = spanned.span();
            let p = spanned.into_inner();
            let mut permissions = Permissions::NONE;
            for perm in p.permissions {
                let span = perm.span();
                // `upstream.NAME`: the capability of a mounted MCP server (`crate::upstream`).
                if perm.get_ref().starts_with("upstream.") {
                    named_capabilities
                        .entry(name.clone())
                        .or_insert_with(std::collections::BTreeSet::new)
                        .insert(perm.into_inner());
                    continue;
                }
                let parsed = crate::policy::Permission::parse(perm.get_ref())
                    .map_err(|e| at(span, format!("profile `{name}`: {e}")))?;
                permissions.insert(parsed);
            }
            if name.is_empty() {
                return Err(at(span, "a profile name must not be empty".into()));
            }
            let max_latency_tier = match p.max_latency_tier {
                None => None,
                Some(tier) => Some(LatencyTier::parse(tier.get_ref()).map_err(|e| {
                    at(
                        tier.span(),
                        format!("profile `{name}`: `maxLatencyTier`: {e}"),
                    )
                })?),
            };
            profiles.insert(Profile {
                name,
                permissions,
                tools: p.tools,
                max_latency_tier,
            });
        }

        let mut quotas = Vec::new();
        for spanned in raw.quotas {
            let span = spanned.span();
            let q = spanned.into_inner();
            if q.limit < 0 || q.window_ms <= 0 {
                return Err(at(
                    span,
                    format!(
                        "a quota needs `limit` ≥ 0 and `windowMs` > 0; got limit {} and windowMs {}",
                        q.limit, q.window_ms
                    ),
                ));
            }
            quotas.push(QuotaRule {
                cap: q.cap,
                per_session: q.per_session,
                limit: q.limit.min(u32::MAX as i64) as u32,
                window_ms: q.window_ms as u64,
            });
        }

        let mut budget = BudgetLimits::default();
        if let Some(spanned) = raw.budgets {
            let span = spanned.span();
            let b = spanned.into_inner();
            let negative = b.calls.is_some_and(|v| v < 0)
                || b.cpu_ms.is_some_and(|v| v < 0.0 || !v.is_finite())
                || b.mem_bytes.is_some_and(|v| v < 0)
                || b.net_requests.is_some_and(|v| v < 0)
                || b.net_bytes.is_some_and(|v| v < 0)
                || b.upstream_ms.is_some_and(|v| v < 0.0 || !v.is_finite());
            if negative {
                return Err(at(
                    span,
                    "budgets must be ≥ 0 (`calls`, `cpuMs`, `memBytes`, `netRequests`, `netBytes`, `upstreamMs`)"
                        .into(),
                ));
            }
            budget = BudgetLimits {
                calls: b.calls.map(|v| v as u64),
                cpu_ms: b.cpu_ms,
                mem_bytes: b.mem_bytes.map(|v| v as u64),
                net_requests: b.net_requests.map(|v| v as u64),
                net_bytes: b.net_bytes.map(|v| v as u64),
                upstream_ms: b.upstream_ms,
            };
        }

        let max_sessions = match raw.max_sessions {
            Some(m) if *m.get_ref() < 0 => {
                return Err(at(
                    m.span(),
                    format!(
                        "`maxSessions` must be ≥ 0 (0 admits no session), got {}",
                        m.get_ref()
                    ),
                ));
            }
            Some(m) => Some(*m.get_ref() as usize),
            None => None,
        };

        let mut package_limits = BTreeMap::new();
        let mut package_grants = Vec::new();
        for (name, spanned) in raw.packages {
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
            let positive = |v: Option<i64>, field: &str, default: u64| -> Result<u64, String> {
                match v {
                    None => Ok(default),
                    Some(v) if v > 0 => Ok(v as u64),
                    Some(v) => Err(at(
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

        let mut latency = LatencyPolicy::default();
        if let Some(spanned) = raw.latency {
            let span = spanned.span();
            let l = spanned.into_inner();
            let t = &mut latency.thresholds;
            t.fast_ms = l.fast_ms.unwrap_or(t.fast_ms);
            t.standard_ms = l.standard_ms.unwrap_or(t.standard_ms);
            if !(t.fast_ms.is_finite()
                && t.fast_ms > 0.0
                && t.standard_ms.is_finite()
                && t.standard_ms >= t.fast_ms)
            {
                return Err(at(
                    span,
                    format!(
                        "latency tiers need `fastMs` > 0 and `standardMs` ≥ `fastMs` (milliseconds); got fastMs = {} and standardMs = {}",
                        t.fast_ms, t.standard_ms
                    ),
                ));
            }
            if let Some(e) = l.tier_enforcement {
                latency.enforcement = TierEnforcement::parse(&e)
                    .map_err(|e| at(span, format!("`tierEnforcement`: {e}")))?;
            }
        }

        let grants = HostGrants::parse(raw.volumes, raw.secrets, package_grants)
            .map_err(|(span, msg)| at(span, msg))?;

        let (trace, trace_durability) = match raw.trace {
            Some(mut t) => {
                let durability = trace_durability(&mut t).map_err(|(span, msg)| at(span, msg))?;
                let retention = trace_retention(t).map_err(|(span, msg)| at(span, msg))?;
                (retention, durability)
            }
            None => Default::default(),
        };

        let ceilings = match raw.limits {
            Some(l) => {
                let span = l.span();
                crate::ceilings::Ceilings::parse(l.into_inner()).map_err(|e| at(span, e))?
            }
            None => Default::default(),
        };

        let files =
            crate::files::FilesConfig::parse(raw.files).map_err(|(span, msg)| at(span, msg))?;

        let network = match raw.network {
            Some(n) => crate::mcp::transport::edge::settings::parse(n, &profiles, base)
                .map_err(|(span, msg)| at(span, msg))?,
            None => Default::default(),
        };
        let identity = raw
            .identity
            .map(|i| crate::identity::config::parse(i, &profiles, base))
            .transpose()
            .map_err(|(span, msg)| at(span, msg))?;
        let world =
            crate::persistence::parse_world_section(raw.world).map_err(|(s, m)| at(s, m))?;
        let approvals = crate::policy::approve::parse(raw.approve, &profiles)
            .map_err(|(span, msg)| at(span, msg))?;
        let scan_results = match raw.outbound.as_ref().and_then(|o| o.scan_results.as_ref()) {
            Some(v) => crate::grants::credentials::ScanResults::parse(v.get_ref())
                .map_err(|e| at(v.span(), e))?,
            None => Default::default(),
        };
        let outbound =
            crate::net::TlsRoots::parse(raw.outbound, base).map_err(|(s, m)| at(s, m))?;
        let mut upstreams =
            crate::upstream::config::parse(raw.upstream, base).map_err(|(s, m)| at(s, m))?;
        // An https upstream trusts what outbound https trusts.
        for upstream in &mut upstreams {
            upstream.roots = outbound.clone();
        }

        let oci = crate::packages::oci::parse_settings(raw.oci, &raw.trusted_keys, &outbound)
            .map_err(|(s, m)| at(s, m))?;
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

/// `[trace] fsync` and `onWriteFailure` (parsed in `trace/durability.rs`).
fn trace_durability(t: &mut RawTrace) -> Result<crate::trace::Durability, (Range<usize>, String)> {
    use crate::trace::{Fsync, OnWriteFailure};
    let mut d = crate::trace::Durability::default();
    if let Some(v) = t.fsync.take() {
        d.fsync = Fsync::parse(v.get_ref()).map_err(|e| (v.span(), e))?;
    }
    if let Some(v) = t.on_write_failure.take() {
        d.on_write_failure = OnWriteFailure::parse(v.get_ref()).map_err(|e| (v.span(), e))?;
    }
    Ok(d)
}

/// `[trace]`: each value checked, the error naming its key.
fn trace_retention(t: RawTrace) -> Result<Retention, (Range<usize>, String)> {
    let mut r = Retention::default();
    if let Some(v) = t.segment_bytes {
        if *v.get_ref() < MIN_TRACE_SEGMENT_BYTES as i64 {
            return Err((
                v.span(),
                format!(
                    "`trace.segmentBytes` must be at least {MIN_TRACE_SEGMENT_BYTES} (bytes), got {}",
                    v.get_ref()
                ),
            ));
        }
        r.segment_bytes = *v.get_ref() as u64;
    }
    if let Some(v) = t.max_bytes {
        if *v.get_ref() < 0 {
            return Err((
                v.span(),
                format!(
                    "`trace.maxBytes` must be ≥ 0 (bytes of trace kept in all; 0 keeps everything), got {}",
                    v.get_ref()
                ),
            ));
        }
        if *v.get_ref() == 0 {
            r.max_bytes = None;
        } else if (*v.get_ref() as u64) < r.segment_bytes {
            return Err((
                v.span(),
                format!(
                    "`trace.maxBytes` ({}) must be at least `trace.segmentBytes` ({}): the newest segment is always kept",
                    v.get_ref(),
                    r.segment_bytes
                ),
            ));
        } else {
            r.max_bytes = Some(*v.get_ref() as u64);
        }
    } else {
        // The default limit never keeps less than a segment.
        r.max_bytes = r.max_bytes.map(|max| max.max(r.segment_bytes));
    }
    if let Some(v) = t.max_age_days {
        let days = *v.get_ref();
        if !(days.is_finite() && days > 0.0) {
            return Err((
                v.span(),
                format!("`trace.maxAgeDays` must be a number of days > 0, got {days}"),
            ));
        }
        r.max_age = Some(std::time::Duration::from_secs_f64(days * 86_400.0));
    }
    Ok(r)
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

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
