//! `[world]` in the configuration: when checkpoints are written and how many are kept.
//!
//! ```toml
//! [world]
//! checkpointEverySeconds = 60   # while the world changes; 0 writes them only at shutdown and on demand
//! keepCheckpoints = 3
//! ```

use crate::limits::{WORLD_CHECKPOINT_EVERY_SECS, WORLD_CHECKPOINTS_KEPT};
use serde::Deserialize;
use std::ops::Range;
use std::time::Duration;
use toml::Spanned;

/// Checkpoint schedule and retention.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldConfig {
    /// How often a changing world is checkpointed (`None`: only at shutdown and on demand).
    pub every: Option<Duration>,
    /// Checkpoints kept (at least 1).
    pub keep: usize,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            every: Some(Duration::from_secs(WORLD_CHECKPOINT_EVERY_SECS)),
            keep: WORLD_CHECKPOINTS_KEPT,
        }
    }
}

/// `[world]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawWorld {
    checkpoint_every_seconds: Option<Spanned<f64>>,
    keep_checkpoints: Option<Spanned<i64>>,
}

/// `[world]` checked, each error naming its key, with the span to report it at.
pub fn parse_world_section(raw: Option<RawWorld>) -> Result<WorldConfig, (Range<usize>, String)> {
    let mut config = WorldConfig::default();
    let Some(raw) = raw else {
        return Ok(config);
    };
    if let Some(every) = raw.checkpoint_every_seconds {
        let (span, secs) = (every.span(), *every.get_ref());
        if !(secs.is_finite() && (0.0..=86_400.0).contains(&secs)) {
            return Err((
                span,
                format!(
                    "`world.checkpointEverySeconds` must be a number of seconds from 0 (only at \
                     shutdown and on demand) to 86400, got {secs}"
                ),
            ));
        }
        config.every = (secs > 0.0).then(|| Duration::from_secs_f64(secs));
    }
    if let Some(keep) = raw.keep_checkpoints {
        let (span, n) = (keep.span(), *keep.get_ref());
        if !(1..=100).contains(&n) {
            return Err((
                span,
                format!("`world.keepCheckpoints` must be from 1 to 100, got {n}"),
            ));
        }
        config.keep = n as usize;
    }
    Ok(config)
}
