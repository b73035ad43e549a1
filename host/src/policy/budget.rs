//! Per-session budgets in calls, CPU milliseconds (measured from fuel), peak memory and
//! outbound network use (requests and bytes, `budget.net`).

use serde::Serialize;
use serde_json::{Value, json};

/// Limits per session; an absent dimension is unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BudgetLimits {
    pub calls: Option<u64>,
    pub cpu_ms: Option<f64>,
    pub mem_bytes: Option<u64>,
    /// Outbound HTTP requests the session's calls may send in all.
    pub net_requests: Option<u64>,
    /// Bytes those requests may move in all (request and response bodies together).
    pub net_bytes: Option<u64>,
    /// Wall-clock milliseconds the session's calls to upstream MCP servers may take in all.
    pub upstream_ms: Option<f64>,
}

/// What a session has spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct BudgetUsage {
    pub calls: u64,
    pub cpu_ms: f64,
    pub mem_bytes: u64,
    pub net_requests: u64,
    pub net_bytes: u64,
    pub upstream_ms: f64,
}

/// The dimension a budget ran out in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetDimension {
    Calls,
    Cpu,
    Mem,
    /// Wall time spent in upstream MCP servers.
    Upstream,
}

impl BudgetDimension {
    /// The policy rule that denies for it.
    pub fn rule(self) -> &'static str {
        match self {
            BudgetDimension::Calls => "budget.calls",
            BudgetDimension::Cpu => "budget.cpu",
            BudgetDimension::Mem => "budget.mem",
            BudgetDimension::Upstream => "budget.upstream",
        }
    }
}

/// A session's budget: limits and spending.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budget {
    pub limits: BudgetLimits,
    pub used: BudgetUsage,
}

impl Budget {
    pub fn new(limits: BudgetLimits) -> Self {
        Budget {
            limits,
            used: BudgetUsage::default(),
        }
    }

    /// The first spent dimension with a reason, if any. Unmetered calls (host built-ins) are
    /// only held to the call count; calls to upstream servers also to their wall time.
    pub fn exhausted(&self, metered: bool, upstream: bool) -> Option<(BudgetDimension, String)> {
        if let Some(limit) = self.limits.calls
            && self.used.calls >= limit
        {
            return Some((
                BudgetDimension::Calls,
                format!(
                    "call budget spent: {} of {limit} calls used",
                    self.used.calls
                ),
            ));
        }
        if upstream
            && let Some(limit) = self.limits.upstream_ms
            && self.used.upstream_ms >= limit
        {
            return Some((
                BudgetDimension::Upstream,
                format!(
                    "upstream time budget spent: {:.3} of {limit} ms used in upstream servers",
                    self.used.upstream_ms
                ),
            ));
        }
        if !metered {
            return None;
        }
        if let Some(limit) = self.limits.cpu_ms
            && self.used.cpu_ms >= limit
        {
            return Some((
                BudgetDimension::Cpu,
                format!(
                    "CPU budget spent: {:.3} of {limit} ms used",
                    self.used.cpu_ms
                ),
            ));
        }
        if let Some(limit) = self.limits.mem_bytes
            && self.used.mem_bytes >= limit
        {
            return Some((
                BudgetDimension::Mem,
                format!(
                    "memory budget spent: peak {} of {limit} bytes",
                    self.used.mem_bytes
                ),
            ));
        }
        None
    }

    /// CPU milliseconds left, if bounded.
    pub fn cpu_ms_left(&self) -> Option<f64> {
        self.limits.cpu_ms.map(|l| (l - self.used.cpu_ms).max(0.0))
    }

    /// Memory bytes the session may still reach, if bounded.
    pub fn mem_bytes_limit(&self) -> Option<u64> {
        self.limits.mem_bytes
    }

    /// What the session may still send: `(requests, bytes)` left, each `None` when unbounded.
    /// A request is refused (`budget.net`) once either is spent.
    pub fn net_left(&self) -> (Option<u64>, Option<u64>) {
        (
            self.limits
                .net_requests
                .map(|l| l.saturating_sub(self.used.net_requests)),
            self.limits
                .net_bytes
                .map(|l| l.saturating_sub(self.used.net_bytes)),
        )
    }

    /// `{calls?, cpuMs?, memBytes?: {used, limit}, net?: {requests, bytes: {used, limit}}}` —
    /// bounded dimensions, and `net` once bounded or used (`limit` null when unbounded).
    pub fn snapshot(&self) -> Value {
        let mut out = serde_json::Map::new();
        if let Some(limit) = self.limits.calls {
            out.insert(
                "calls".into(),
                json!({"used": self.used.calls, "limit": limit}),
            );
        }
        if let Some(limit) = self.limits.cpu_ms {
            out.insert(
                "cpuMs".into(),
                json!({"used": self.used.cpu_ms, "limit": limit}),
            );
        }
        if let Some(limit) = self.limits.mem_bytes {
            out.insert(
                "memBytes".into(),
                json!({"used": self.used.mem_bytes, "limit": limit}),
            );
        }
        if let Some(limit) = self.limits.upstream_ms {
            out.insert(
                "upstreamMs".into(),
                json!({"used": self.used.upstream_ms, "limit": limit}),
            );
        }
        let net_bounded = self.limits.net_requests.is_some() || self.limits.net_bytes.is_some();
        if net_bounded || self.used.net_requests > 0 {
            out.insert(
                "net".into(),
                json!({
                    "requests": {"used": self.used.net_requests, "limit": self.limits.net_requests},
                    "bytes": {"used": self.used.net_bytes, "limit": self.limits.net_bytes},
                }),
            );
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_net_dimension_shows_once_bounded_or_used_and_says_what_is_left() {
        let mut b = Budget::new(BudgetLimits::default());
        assert_eq!(b.snapshot(), json!({}));
        assert_eq!(b.net_left(), (None, None));
        b.used.net_requests = 2;
        b.used.net_bytes = 300;
        assert_eq!(
            b.snapshot()["net"],
            json!({"requests": {"used": 2, "limit": null}, "bytes": {"used": 300, "limit": null}})
        );
        b.limits.net_requests = Some(3);
        b.limits.net_bytes = Some(100);
        assert_eq!(b.net_left(), (Some(1), Some(0)));
        // Network use never spends a call's other dimensions.
        assert_eq!(b.exhausted(true, false), None);
    }
}
