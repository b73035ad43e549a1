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

/// What calls still running have been promised: the most they may spend, held back from the
/// budget when each is decided and given back when it completes and is charged what it used.
/// So a session's next call is decided without waiting for those in flight, and all of them
/// together can never spend more than the budget (`registry/detached.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Reservation {
    pub cpu_ms: f64,
    pub net_requests: u64,
    pub net_bytes: u64,
}

/// A session's budget: limits, spending, and what calls in flight hold.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budget {
    pub limits: BudgetLimits,
    pub used: BudgetUsage,
    pub reserved: Reservation,
}

impl Budget {
    pub fn new(limits: BudgetLimits) -> Self {
        Budget {
            limits,
            used: BudgetUsage::default(),
            reserved: Reservation::default(),
        }
    }

    /// What a call about to run off the engine may spend at most: the CPU it was given
    /// (`cpu_ms`) and, of the network, what is left — each only where the budget is bounded.
    pub fn reservation_for(&self, cpu_ms: f64) -> Reservation {
        let (requests, bytes) = self.net_left();
        Reservation {
            cpu_ms: if self.limits.cpu_ms.is_some() {
                cpu_ms
            } else {
                0.0
            },
            net_requests: requests.unwrap_or(0),
            net_bytes: bytes.unwrap_or(0),
        }
    }

    /// Holds `r` back for a call in flight.
    pub fn reserve(&mut self, r: Reservation) {
        self.reserved.cpu_ms += r.cpu_ms;
        self.reserved.net_requests += r.net_requests;
        self.reserved.net_bytes += r.net_bytes;
    }

    /// Gives `r` back once its call is charged what it used.
    pub fn release(&mut self, r: Reservation) {
        self.reserved.cpu_ms = (self.reserved.cpu_ms - r.cpu_ms).max(0.0);
        self.reserved.net_requests = self.reserved.net_requests.saturating_sub(r.net_requests);
        self.reserved.net_bytes = self.reserved.net_bytes.saturating_sub(r.net_bytes);
        if self.reserved.cpu_ms < 1e-9 {
            self.reserved.cpu_ms = 0.0;
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
            && self.used.cpu_ms + self.reserved.cpu_ms >= limit
        {
            let held = self.reserved.cpu_ms;
            let reason = if held > 0.0 {
                format!(
                    "CPU budget spent: {:.3} of {limit} ms used and {held:.3} ms held by calls still running; retry when they finish",
                    self.used.cpu_ms
                )
            } else {
                format!(
                    "CPU budget spent: {:.3} of {limit} ms used",
                    self.used.cpu_ms
                )
            };
            return Some((BudgetDimension::Cpu, reason));
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
        self.limits
            .cpu_ms
            .map(|l| (l - self.used.cpu_ms - self.reserved.cpu_ms).max(0.0))
    }

    /// Memory bytes the session may still reach, if bounded.
    pub fn mem_bytes_limit(&self) -> Option<u64> {
        self.limits.mem_bytes
    }

    /// What the session may still send: `(requests, bytes)` left, each `None` when unbounded.
    /// A request is refused (`budget.net`) once either is spent.
    pub fn net_left(&self) -> (Option<u64>, Option<u64>) {
        (
            self.limits.net_requests.map(|l| {
                l.saturating_sub(self.used.net_requests)
                    .saturating_sub(self.reserved.net_requests)
            }),
            self.limits.net_bytes.map(|l| {
                l.saturating_sub(self.used.net_bytes)
                    .saturating_sub(self.reserved.net_bytes)
            }),
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

    #[test]
    fn reservations_hold_back_cpu_and_network_until_released() {
        let mut b = Budget::new(BudgetLimits {
            cpu_ms: Some(10.0),
            net_requests: Some(4),
            ..BudgetLimits::default()
        });
        let r = b.reservation_for(6.0);
        assert_eq!(
            r,
            Reservation {
                cpu_ms: 6.0,
                net_requests: 4,
                net_bytes: 0
            }
        );
        b.reserve(r);
        assert_eq!(b.cpu_ms_left(), Some(4.0));
        assert_eq!(b.net_left(), (Some(0), None));
        // A second call may have only what the first does not hold.
        b.reserve(b.reservation_for(4.0));
        let (dimension, reason) = b.exhausted(true, false).expect("all of it is held");
        assert_eq!(dimension, BudgetDimension::Cpu);
        assert!(
            reason.contains("10.000 ms held by calls still running"),
            "{reason}"
        );
        // Settled: each gives its hold back and is charged what it used.
        b.release(r);
        b.used.cpu_ms += 1.5;
        b.release(Reservation {
            cpu_ms: 4.0,
            ..Reservation::default()
        });
        b.used.cpu_ms += 0.5;
        assert_eq!(b.reserved, Reservation::default());
        assert_eq!(b.cpu_ms_left(), Some(8.0));
        assert_eq!(b.exhausted(true, false), None);
    }

    #[test]
    fn an_unbounded_budget_reserves_nothing() {
        let b = Budget::new(BudgetLimits::default());
        assert_eq!(b.reservation_for(50.0), Reservation::default());
    }
}
