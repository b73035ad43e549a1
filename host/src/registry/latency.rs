//! Measured latency per skill: a rolling window of its last calls (wall time, CPU measured
//! from fuel for guests, and whether it failed), from which p50/p99, the error rate and the
//! skill's latency tier are read. Recording is a few stores per call, so it is always on;
//! percentiles are computed only when a listing asks.

use crate::limits::{ERROR_RATE_DEMOTION, LATENCY_MIN_SAMPLES, LATENCY_WINDOW};
use crate::packages::ExpectedLatency;
use crate::policy::{LatencyTier, TierThresholds};
use serde_json::{Value, json};

/// The last [`LATENCY_WINDOW`] calls of one skill.
#[derive(Debug, Clone)]
pub struct LatencyWindow {
    wall_ms: [f32; LATENCY_WINDOW],
    cpu_ms: [f32; LATENCY_WINDOW],
    /// Bit `i` set: the call in slot `i` failed.
    failed: u128,
    len: usize,
    next: usize,
    /// The thresholds `over` counts against (`None` before the first call).
    counted_for: Option<TierThresholds>,
    /// Calls in the window slower than the fast and than the standard threshold: the tier
    /// follows from them without sorting.
    over: [u8; 2],
}

impl Default for LatencyWindow {
    fn default() -> Self {
        LatencyWindow {
            wall_ms: [0.0; LATENCY_WINDOW],
            cpu_ms: [0.0; LATENCY_WINDOW],
            failed: 0,
            len: 0,
            next: 0,
            counted_for: None,
            over: [0, 0],
        }
    }
}

/// Which of the counts in `LatencyWindow::over` a call of `ms` adds to.
fn over(ms: f32, t: &TierThresholds) -> [u8; 2] {
    let ms = ms as f64;
    [u8::from(ms > t.fast_ms), u8::from(ms > t.standard_ms)]
}

/// Where the figures of a report come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencySource {
    /// At least [`LATENCY_MIN_SAMPLES`] measured calls.
    Measured,
    /// Too few calls yet: the package manifest's `[latency]`.
    Declared,
    /// Too few calls and nothing declared: the figures are what was measured so far, if
    /// anything, and the tier is a guess (`fast`).
    Unknown,
}

/// A skill's latency as listings show it.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyReport {
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// Median CPU time measured from fuel (0 for host built-ins).
    pub cpu_p50_ms: Option<f64>,
    pub samples: usize,
    /// Failed calls (handler errors and cut limits) over calls in the window.
    pub error_rate: f64,
    pub tier: LatencyTier,
    pub source: LatencySource,
}

impl LatencyWindow {
    /// Records one finished call; `thresholds` are the tiers' in force (when they moved since
    /// the last call, the window is recounted once).
    pub fn record(&mut self, wall_ms: f64, cpu_ms: f64, failed: bool, thresholds: &TierThresholds) {
        if self.counted_for != Some(*thresholds) {
            self.over = [0, 0];
            for ms in &self.wall_ms[..self.len] {
                let [f, s] = over(*ms, thresholds);
                self.over[0] += f;
                self.over[1] += s;
            }
            self.counted_for = Some(*thresholds);
        }
        let slot = self.next;
        if self.len == LATENCY_WINDOW {
            let [f, s] = over(self.wall_ms[slot], thresholds);
            self.over[0] -= f;
            self.over[1] -= s;
        }
        let [f, s] = over(wall_ms as f32, thresholds);
        self.over[0] += f;
        self.over[1] += s;
        self.wall_ms[slot] = wall_ms as f32;
        self.cpu_ms[slot] = cpu_ms as f32;
        let bit = 1u128 << slot;
        if failed {
            self.failed |= bit;
        } else {
            self.failed &= !bit;
        }
        self.next = (slot + 1) % LATENCY_WINDOW;
        self.len = (self.len + 1).min(LATENCY_WINDOW);
    }

    /// The calls in the window, oldest first: (wall ms, CPU ms, failed).
    pub fn calls(&self) -> Vec<(f32, f32, bool)> {
        let start = if self.len == LATENCY_WINDOW {
            self.next
        } else {
            0
        };
        (0..self.len)
            .map(|k| {
                let i = (start + k) % LATENCY_WINDOW;
                (
                    self.wall_ms[i],
                    self.cpu_ms[i],
                    self.failed & (1u128 << i) != 0,
                )
            })
            .collect()
    }

    /// Failed calls over calls in the window (0 for none).
    fn error_rate(&self) -> f64 {
        if self.len == 0 {
            0.0
        } else {
            self.failed.count_ones() as f64 / self.len as f64
        }
    }

    /// The report: measured figures once the window holds [`LATENCY_MIN_SAMPLES`] calls,
    /// the declared ones before. A skill failing more than [`ERROR_RATE_DEMOTION`] of its
    /// measured calls is shown one tier slower until it recovers.
    pub fn report(
        &self,
        expected: Option<ExpectedLatency>,
        thresholds: &TierThresholds,
    ) -> LatencyReport {
        let n = self.len;
        let wall = percentiles(&self.wall_ms[..n]);
        let cpu = percentiles(&self.cpu_ms[..n]);
        let (p50, p99, source) = match (n >= LATENCY_MIN_SAMPLES, expected) {
            (true, _) => (
                wall.map(|w| w.0),
                wall.map(|w| w.1),
                LatencySource::Measured,
            ),
            (false, Some(e)) => (Some(e.p50_ms), Some(e.max_ms), LatencySource::Declared),
            (false, None) => (wall.map(|w| w.0), wall.map(|w| w.1), LatencySource::Unknown),
        };
        LatencyReport {
            p50_ms: p50,
            p99_ms: p99,
            cpu_p50_ms: cpu.map(|c| c.0),
            samples: n,
            error_rate: self.error_rate(),
            tier: self.tier_of(p50, source, thresholds),
            source,
        }
    }

    /// The tier alone, as [`LatencyWindow::report`] gives it but in constant time, from the
    /// counts of slow calls: cheap enough to check after every call.
    pub fn tier(
        &self,
        expected: Option<ExpectedLatency>,
        thresholds: &TierThresholds,
    ) -> LatencyTier {
        let n = self.len;
        if n < LATENCY_MIN_SAMPLES {
            return match expected {
                Some(e) => self.tier_of(Some(e.p50_ms), LatencySource::Declared, thresholds),
                None => self.tier_of(None, LatencySource::Unknown, thresholds),
            };
        }
        if self.counted_for != Some(*thresholds) {
            // Counted for other thresholds: sort, as a report does.
            return self.report(expected, thresholds).tier;
        }
        // The nearest-rank p50 is the `ceil(n/2)`th smallest call, so it is over a threshold
        // exactly when at most `ceil(n/2) - 1` calls are not.
        let at_most = n.div_ceil(2) - 1;
        let p50_over = |count: u8| n - count as usize <= at_most;
        let tier = if p50_over(self.over[1]) {
            LatencyTier::Deep
        } else if p50_over(self.over[0]) {
            LatencyTier::Standard
        } else {
            LatencyTier::Fast
        };
        if self.error_rate() > ERROR_RATE_DEMOTION {
            tier.slower()
        } else {
            tier
        }
    }

    fn tier_of(
        &self,
        p50: Option<f64>,
        source: LatencySource,
        thresholds: &TierThresholds,
    ) -> LatencyTier {
        let tier = match source {
            LatencySource::Unknown => LatencyTier::Fast,
            _ => thresholds.tier_of(p50.unwrap_or(0.0)),
        };
        if self.len >= LATENCY_MIN_SAMPLES && self.error_rate() > ERROR_RATE_DEMOTION {
            tier.slower()
        } else {
            tier
        }
    }
}

/// (p50, p99) by nearest rank, or `None` for no samples.
fn percentiles(samples: &[f32]) -> Option<(f64, f64)> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f32::total_cmp);
    let rank = |p: f64| sorted[((p * sorted.len() as f64).ceil() as usize).max(1) - 1] as f64;
    Some((rank(0.50), rank(0.99)))
}

impl LatencyReport {
    /// `{p50Ms, p99Ms, cpuP50Ms, samples, errorRate, tier, source}`, times rounded to 0.1 µs
    /// (a core skill's CPU time is a fraction of a microsecond).
    pub fn to_json(&self) -> Value {
        let ms = |v: Option<f64>| v.map(|v| (v * 10_000.0).round() / 10_000.0);
        json!({
            "p50Ms": ms(self.p50_ms),
            "p99Ms": ms(self.p99_ms),
            "cpuP50Ms": ms(self.cpu_p50_ms),
            "samples": self.samples,
            "errorRate": (self.error_rate * 1000.0).round() / 1000.0,
            "tier": self.tier.as_str(),
            "source": match self.source {
                LatencySource::Measured => "measured",
                LatencySource::Declared => "declared",
                LatencySource::Unknown => "none",
            },
        })
    }
}

/// The JSON Schema of [`LatencyReport::to_json`], for output schemas that carry it.
pub fn report_schema() -> Value {
    let ms = json!({"type": ["number", "null"], "minimum": 0});
    json!({
        "type": "object",
        "properties": {
            "p50Ms": ms, "p99Ms": ms, "cpuP50Ms": ms,
            "samples": {"type": "integer", "minimum": 0},
            "errorRate": {"type": "number", "minimum": 0, "maximum": 1},
            "tier": {"type": "string", "enum": ["fast", "standard", "deep"]},
            "source": {"type": "string", "enum": ["measured", "declared", "none"]}
        },
        "required": ["p50Ms", "p99Ms", "cpuP50Ms", "samples", "errorRate", "tier", "source"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(calls: impl IntoIterator<Item = (f64, bool)>) -> LatencyWindow {
        let mut w = LatencyWindow::default();
        for (ms, failed) in calls {
            w.record(ms, ms / 2.0, failed, &TierThresholds::default());
        }
        w
    }

    #[test]
    fn percentiles_are_nearest_rank_over_the_window() {
        let w = window((1..=100).map(|i| (i as f64, false)));
        let r = w.report(None, &TierThresholds::default());
        assert_eq!((r.p50_ms, r.p99_ms), (Some(50.0), Some(99.0)));
        assert_eq!(r.cpu_p50_ms, Some(25.0));
        assert_eq!((r.samples, r.error_rate), (100, 0.0));
        assert_eq!(
            (r.tier, r.source),
            (LatencyTier::Fast, LatencySource::Measured)
        );
    }

    #[test]
    fn the_window_keeps_only_the_last_hundred_calls() {
        // 100 slow calls, then 100 quick ones: only the quick ones remain.
        let w = window(
            (0..100)
                .map(|_| (2_000.0, true))
                .chain((0..100).map(|_| (1.0, false))),
        );
        let r = w.report(None, &TierThresholds::default());
        assert_eq!((r.samples, r.p99_ms, r.error_rate), (100, Some(1.0), 0.0));
        assert_eq!(r.tier, LatencyTier::Fast);
    }

    #[test]
    fn tiers_follow_the_p50_and_the_thresholds() {
        let t = TierThresholds::default();
        let tier = |ms: f64| window((0..20).map(|_| (ms, false))).report(None, &t).tier;
        assert_eq!(tier(500.0), LatencyTier::Fast);
        assert_eq!(tier(500.5), LatencyTier::Standard);
        assert_eq!(tier(1_500.0), LatencyTier::Standard);
        assert_eq!(tier(1_501.0), LatencyTier::Deep);
        let strict = TierThresholds {
            fast_ms: 10.0,
            standard_ms: 100.0,
        };
        let w = window((0..20).map(|_| (50.0, false)));
        assert_eq!(w.report(None, &strict).tier, LatencyTier::Standard);
    }

    #[test]
    fn declared_latency_stands_in_until_enough_calls_are_measured() {
        let declared = Some(ExpectedLatency {
            p50_ms: 800.0,
            max_ms: 3_000.0,
        });
        let t = TierThresholds::default();
        let few = window((0..LATENCY_MIN_SAMPLES - 1).map(|_| (1.0, false)));
        let r = few.report(declared, &t);
        assert_eq!((r.p50_ms, r.p99_ms), (Some(800.0), Some(3_000.0)));
        assert_eq!(
            (r.tier, r.source),
            (LatencyTier::Standard, LatencySource::Declared)
        );
        assert_eq!(r.samples, LATENCY_MIN_SAMPLES - 1);
        let enough = window((0..LATENCY_MIN_SAMPLES).map(|_| (1.0, false)));
        let r = enough.report(declared, &t);
        assert_eq!(
            (r.tier, r.source),
            (LatencyTier::Fast, LatencySource::Measured)
        );
        // Nothing measured and nothing declared: unknown, listed as fast.
        let r = LatencyWindow::default().report(None, &t);
        assert_eq!((r.p50_ms, r.samples, r.tier), (None, 0, LatencyTier::Fast));
        assert_eq!(r.source, LatencySource::Unknown);
    }

    #[test]
    fn the_quick_tier_agrees_with_the_report() {
        let t = TierThresholds::default();
        let declared = Some(ExpectedLatency {
            p50_ms: 2_000.0,
            max_ms: 2_000.0,
        });
        let mut w = LatencyWindow::default();
        for i in 0..150 {
            let ms = [1.0, 700.0, 1_600.0][i % 3] + i as f64;
            w.record(ms, 0.0, i % 4 == 0, &t);
            for expected in [None, declared] {
                assert_eq!(
                    w.tier(expected, &t),
                    w.report(expected, &t).tier,
                    "after {i} calls"
                );
            }
        }
    }

    #[test]
    fn moved_thresholds_are_recounted_on_the_next_call() {
        let mut w = LatencyWindow::default();
        let loose = TierThresholds::default();
        for _ in 0..20 {
            w.record(600.0, 0.0, false, &loose);
        }
        assert_eq!(w.tier(None, &loose), LatencyTier::Standard);
        let tight = TierThresholds {
            fast_ms: 700.0,
            standard_ms: 800.0,
        };
        w.record(600.0, 0.0, false, &tight);
        assert_eq!(w.tier(None, &tight), LatencyTier::Fast);
        assert_eq!(w.report(None, &tight).tier, LatencyTier::Fast);
    }

    #[test]
    fn a_failing_skill_is_shown_one_tier_slower_until_it_recovers() {
        let t = TierThresholds::default();
        // 31 failures in 100 calls: past 30 %.
        let mut w = window((0..100).map(|i| (1.0, i < 31)));
        let r = w.report(None, &t);
        assert_eq!((r.error_rate, r.tier), (0.31, LatencyTier::Standard));
        // Exactly 30 % is not past it.
        w.record(1.0, 0.0, false, &t);
        let r = w.report(None, &t);
        assert_eq!((r.error_rate, r.tier), (0.30, LatencyTier::Fast));
        let deep = window((0..20).map(|_| (2_000.0, true)));
        assert_eq!(deep.report(None, &t).tier, LatencyTier::Deep);
    }
}
