//! Latency tiers: how long a skill takes, coarsely — what a session's latency budget (a voice
//! NPC must answer within half a second) can rely on — and how strictly a session is held to
//! its tier. Measuring is the registry's; deciding is here.

use crate::limits::{FAST_TIER_MS, STANDARD_TIER_MS};

/// How long a skill takes, coarsely: what a latency budget can rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LatencyTier {
    /// p50 ≤ 500 ms by default.
    Fast,
    /// p50 ≤ 1,500 ms by default.
    Standard,
    /// Everything slower.
    Deep,
}

impl LatencyTier {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LatencyTier::Fast => "fast",
            LatencyTier::Standard => "standard",
            LatencyTier::Deep => "deep",
        }
    }

    /// Parses a wire name; the error lists the tiers.
    pub fn parse(name: &str) -> Result<LatencyTier, String> {
        match name {
            "fast" => Ok(LatencyTier::Fast),
            "standard" => Ok(LatencyTier::Standard),
            "deep" => Ok(LatencyTier::Deep),
            other => Err(format!(
                "unknown latency tier `{other}`; the tiers are fast, standard and deep"
            )),
        }
    }

    /// The next slower tier (`deep` stays `deep`).
    pub fn slower(self) -> LatencyTier {
        match self {
            LatencyTier::Fast => LatencyTier::Standard,
            _ => LatencyTier::Deep,
        }
    }
}

/// Where a tier's upper bounds lie, in milliseconds of p50.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TierThresholds {
    pub fast_ms: f64,
    pub standard_ms: f64,
}

impl Default for TierThresholds {
    fn default() -> Self {
        TierThresholds {
            fast_ms: FAST_TIER_MS,
            standard_ms: STANDARD_TIER_MS,
        }
    }
}

impl TierThresholds {
    /// The tier a p50 falls in.
    pub fn tier_of(&self, p50_ms: f64) -> LatencyTier {
        if p50_ms <= self.fast_ms {
            LatencyTier::Fast
        } else if p50_ms <= self.standard_ms {
            LatencyTier::Standard
        } else {
            LatencyTier::Deep
        }
    }
}

/// What happens to a call to a skill beyond the session's tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TierEnforcement {
    /// Listings leave it out; a call by name still runs.
    #[default]
    Hide,
    /// Listings leave it out and a call is refused (`latency.tier`).
    Refuse,
}

impl TierEnforcement {
    /// Parses `hide` or `refuse`.
    pub fn parse(name: &str) -> Result<TierEnforcement, String> {
        match name {
            "hide" => Ok(TierEnforcement::Hide),
            "refuse" => Ok(TierEnforcement::Refuse),
            other => Err(format!(
                "unknown tier enforcement `{other}`; use \"hide\" or \"refuse\""
            )),
        }
    }
}

/// The latency part of the policy: where tiers end and how they are enforced.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LatencyPolicy {
    pub thresholds: TierThresholds,
    pub enforcement: TierEnforcement,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_names_parse_and_unknown_ones_are_refused() {
        for tier in [LatencyTier::Fast, LatencyTier::Standard, LatencyTier::Deep] {
            assert_eq!(LatencyTier::parse(tier.as_str()), Ok(tier));
        }
        let err = LatencyTier::parse("instant").unwrap_err();
        assert_eq!(
            err,
            "unknown latency tier `instant`; the tiers are fast, standard and deep"
        );
    }

    #[test]
    fn enforcement_parses_hide_and_refuse_only() {
        assert_eq!(TierEnforcement::parse("hide"), Ok(TierEnforcement::Hide));
        assert_eq!(
            TierEnforcement::parse("refuse"),
            Ok(TierEnforcement::Refuse)
        );
        assert_eq!(
            TierEnforcement::parse("warn").unwrap_err(),
            "unknown tier enforcement `warn`; use \"hide\" or \"refuse\""
        );
        assert_eq!(TierEnforcement::default(), TierEnforcement::Hide);
    }

    #[test]
    fn tiers_order_from_fast_to_deep() {
        assert!(
            LatencyTier::Fast < LatencyTier::Standard && LatencyTier::Standard < LatencyTier::Deep
        );
        assert_eq!(LatencyTier::Fast.slower(), LatencyTier::Standard);
        assert_eq!(LatencyTier::Deep.slower(), LatencyTier::Deep);
    }
}
