//! The policy's sections of the configuration: `[profiles.NAME]`, `[[quotas]]`, `[budgets]`,
//! `maxSessions` and `[latency]`. Each is checked on its own; an error names the key, the
//! value and the rule, tagged with where it is in the file.

use crate::policy::{
    BudgetLimits, LatencyPolicy, LatencyTier, Permission, Permissions, Profile, Profiles,
    QuotaRule, TierEnforcement,
};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use toml::Spanned;

/// A section's error: where it is in the file, and what is wrong.
type Refused = (Range<usize>, String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawProfile {
    permissions: Vec<Spanned<String>>,
    tools: Option<Vec<String>>,
    max_latency_tier: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawLatency {
    fast_ms: Option<f64>,
    standard_ms: Option<f64>,
    tier_enforcement: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawQuota {
    cap: Option<String>,
    #[serde(default = "yes")]
    per_session: bool,
    limit: i64,
    window_ms: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawBudget {
    calls: Option<i64>,
    cpu_ms: Option<f64>,
    mem_bytes: Option<i64>,
    net_requests: Option<i64>,
    net_bytes: Option<i64>,
    upstream_ms: Option<f64>,
}

fn yes() -> bool {
    true
}

/// `[profiles.NAME]`: the profiles, and the `upstream.NAME` capabilities each names (the
/// capability of a mounted MCP server, `crate::upstream`), kept apart from permissions.
pub(super) fn profiles(
    raw: BTreeMap<String, Spanned<RawProfile>>,
) -> Result<(Profiles, BTreeMap<String, BTreeSet<String>>), Refused> {
    let mut profiles = Profiles::default();
    let mut named_capabilities = BTreeMap::new();
    for (name, spanned) in raw {
        let span = spanned.span();
        let p = spanned.into_inner();
        let mut permissions = Permissions::NONE;
        for perm in p.permissions {
            let span = perm.span();
            if perm.get_ref().starts_with("upstream.") {
                named_capabilities
                    .entry(name.clone())
                    .or_insert_with(BTreeSet::new)
                    .insert(perm.into_inner());
                continue;
            }
            let parsed = Permission::parse(perm.get_ref())
                .map_err(|e| (span, format!("profile `{name}`: {e}")))?;
            permissions.insert(parsed);
        }
        if name.is_empty() {
            return Err((span, "a profile name must not be empty".into()));
        }
        let max_latency_tier = match p.max_latency_tier {
            None => None,
            Some(tier) => Some(LatencyTier::parse(tier.get_ref()).map_err(|e| {
                (
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
    Ok((profiles, named_capabilities))
}

/// `[[quotas]]`: each needs `limit` ≥ 0 and `windowMs` > 0.
pub(super) fn quotas(raw: Vec<Spanned<RawQuota>>) -> Result<Vec<QuotaRule>, Refused> {
    let mut quotas = Vec::new();
    for spanned in raw {
        let span = spanned.span();
        let q = spanned.into_inner();
        if q.limit < 0 || q.window_ms <= 0 {
            return Err((
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
    Ok(quotas)
}

/// `[budgets]`: every budget ≥ 0 (none when the section is absent).
pub(super) fn budget(raw: Option<Spanned<RawBudget>>) -> Result<BudgetLimits, Refused> {
    let Some(spanned) = raw else {
        return Ok(BudgetLimits::default());
    };
    let span = spanned.span();
    let b = spanned.into_inner();
    let negative = b.calls.is_some_and(|v| v < 0)
        || b.cpu_ms.is_some_and(|v| v < 0.0 || !v.is_finite())
        || b.mem_bytes.is_some_and(|v| v < 0)
        || b.net_requests.is_some_and(|v| v < 0)
        || b.net_bytes.is_some_and(|v| v < 0)
        || b.upstream_ms.is_some_and(|v| v < 0.0 || !v.is_finite());
    if negative {
        return Err((
            span,
            "budgets must be ≥ 0 (`calls`, `cpuMs`, `memBytes`, `netRequests`, `netBytes`, `upstreamMs`)"
                .into(),
        ));
    }
    Ok(BudgetLimits {
        calls: b.calls.map(|v| v as u64),
        cpu_ms: b.cpu_ms,
        mem_bytes: b.mem_bytes.map(|v| v as u64),
        net_requests: b.net_requests.map(|v| v as u64),
        net_bytes: b.net_bytes.map(|v| v as u64),
        upstream_ms: b.upstream_ms,
    })
}

/// `maxSessions`: ≥ 0 (0 admits no session); none when absent.
pub(super) fn max_sessions(raw: Option<Spanned<i64>>) -> Result<Option<usize>, Refused> {
    match raw {
        Some(m) if *m.get_ref() < 0 => Err((
            m.span(),
            format!(
                "`maxSessions` must be ≥ 0 (0 admits no session), got {}",
                m.get_ref()
            ),
        )),
        Some(m) => Ok(Some(*m.get_ref() as usize)),
        None => Ok(None),
    }
}

/// `[latency]`: the tier thresholds (`fastMs` > 0, `standardMs` ≥ `fastMs`) and how tiers
/// are enforced.
pub(super) fn latency(raw: Option<Spanned<RawLatency>>) -> Result<LatencyPolicy, Refused> {
    let mut latency = LatencyPolicy::default();
    let Some(spanned) = raw else {
        return Ok(latency);
    };
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
        return Err((
            span,
            format!(
                "latency tiers need `fastMs` > 0 and `standardMs` ≥ `fastMs` (milliseconds); got fastMs = {} and standardMs = {}",
                t.fast_ms, t.standard_ms
            ),
        ));
    }
    if let Some(e) = l.tier_enforcement {
        latency.enforcement =
            TierEnforcement::parse(&e).map_err(|e| (span, format!("`tierEnforcement`: {e}")))?;
    }
    Ok(latency)
}
