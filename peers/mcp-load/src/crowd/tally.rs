//! What a crowd measured: each kind of call's latencies and failures, merged over agents, and
//! the report printed from them.

use std::collections::BTreeMap;
use std::time::Duration;

/// The kinds of call an agent makes, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Move,
    Query,
    Perceive,
    Remember,
    ThirdParty,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Move,
        Kind::Query,
        Kind::Perceive,
        Kind::Remember,
        Kind::ThirdParty,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Kind::Move => "move (three.setTransform)",
            Kind::Query => "query (scene.queryEntities r=3)",
            Kind::Perceive => "perceive (agent.getPerception)",
            Kind::Remember => "remember (memory.remember)",
            Kind::ThirdParty => "third party (dice.roll)",
        }
    }
}

/// One agent's (or the whole crowd's) record.
#[derive(Default)]
pub struct Tally {
    times: BTreeMap<Kind, Vec<Duration>>,
    failed: BTreeMap<Kind, usize>,
    /// Failures by their text (digits folded to `#`, so one cause is one line).
    failures: BTreeMap<String, usize>,
}

impl Tally {
    pub fn done(&mut self, kind: Kind, took: Duration) {
        self.times.entry(kind).or_default().push(took);
    }

    pub fn failed(&mut self, kind: Kind, why: &str) {
        *self.failed.entry(kind).or_default() += 1;
        *self.failures.entry(fold(why)).or_default() += 1;
    }

    /// A failure outside any call (connecting, initializing, setting up the agent's body).
    pub fn setup_failed(&mut self, why: &str) {
        *self
            .failures
            .entry(format!("setup: {}", fold(why)))
            .or_default() += 1;
    }

    pub fn merge(&mut self, other: Tally) {
        for (kind, times) in other.times {
            self.times.entry(kind).or_default().extend(times);
        }
        for (kind, n) in other.failed {
            *self.failed.entry(kind).or_default() += n;
        }
        for (why, n) in other.failures {
            *self.failures.entry(why).or_default() += n;
        }
    }

    /// Calls answered without error.
    pub fn ok(&self) -> usize {
        self.times.values().map(Vec::len).sum()
    }

    /// Calls and setups that failed.
    pub fn failures(&self) -> usize {
        self.failures.values().sum()
    }

    /// Per kind: (calls, failed, p50, p95, p99 in ms).
    pub fn rows(&mut self) -> Vec<(Kind, usize, usize, f64, f64, f64)> {
        Kind::ALL
            .iter()
            .map(|&kind| {
                let times = self.times.entry(kind).or_default();
                times.sort();
                let failed = self.failed.get(&kind).copied().unwrap_or(0);
                let q = |p: f64| percentile_ms(times, p);
                (kind, times.len(), failed, q(0.50), q(0.95), q(0.99))
            })
            .collect()
    }

    /// The failure texts, most frequent first.
    pub fn failure_lines(&self) -> Vec<(usize, &str)> {
        let mut lines: Vec<(usize, &str)> = self
            .failures
            .iter()
            .map(|(w, n)| (*n, w.as_str()))
            .collect();
        lines.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        lines
    }
}

/// The `p` quantile of sorted durations in ms (NaN when there are none).
fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3
}

/// A failure's text as one report line: the first line, at most 160 characters, each run of
/// digits as `#` (ids, counts and addresses differ between otherwise equal failures).
fn fold(why: &str) -> String {
    let line = why.lines().next().unwrap_or("");
    let mut out = String::new();
    let mut in_digits = false;
    for c in line.chars().take(160) {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_fold_digits_and_merge_by_text() {
        let mut a = Tally::default();
        a.failed(Kind::Move, "handler_error: limit of 512 reached\nmore");
        let mut b = Tally::default();
        b.failed(Kind::Query, "handler_error: limit of 1024 reached");
        b.done(Kind::Query, Duration::from_millis(3));
        a.merge(b);
        assert_eq!(
            a.failure_lines(),
            [(2, "handler_error: limit of # reached")]
        );
        assert_eq!((a.ok(), a.failures()), (1, 2));
        let rows = a.rows();
        assert_eq!(rows[1].1, 1);
        assert_eq!(rows[1].2, 1);
        assert!((rows[1].3 - 3.0).abs() < 1e-9);
        assert!(rows[0].3.is_nan(), "no answered moves");
    }
}
