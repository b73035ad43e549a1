//! Per-session budgets in calls, CPU milliseconds (measured from fuel) and peak memory.

use serde::Serialize;
use serde_json::{Value, json};

/// Limits per session; an absent dimension is unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BudgetLimits {
    pub calls: Option<u64>,
    pub cpu_ms: Option<f64>,
    pub mem_bytes: Option<u64>,
}

/// What a session has spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct BudgetUsage {
    pub calls: u64,
    pub cpu_ms: f64,
    pub mem_bytes: u64,
}

/// The dimension a budget ran out in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetDimension {
    Calls,
    Cpu,
    Mem,
}

impl BudgetDimension {
    /// The policy rule that denies for it.
    pub fn rule(self) -> &'static str {
        match self {
            BudgetDimension::Calls => "budget.calls",
            BudgetDimension::Cpu => "budget.cpu",
            BudgetDimension::Mem => "budget.mem",
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
    /// only held to the call count.
    pub fn exhausted(&self, metered: bool) -> Option<(BudgetDimension, String)> {
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

    /// `{calls?, cpuMs?, memBytes?: {used, limit}}` — bounded dimensions only.
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
        Value::Object(out)
    }
}
