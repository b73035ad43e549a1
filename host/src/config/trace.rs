//! The `[trace]` section: segment size and retention (`trace/retention`), and when the trace
//! syncs and what a write failure does (`trace/durability.rs`).

use crate::limits::MIN_TRACE_SEGMENT_BYTES;
use crate::trace::{Durability, Retention};
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawTrace {
    segment_bytes: Option<Spanned<i64>>,
    max_bytes: Option<Spanned<i64>>,
    max_age_days: Option<Spanned<f64>>,
    fsync: Option<Spanned<String>>,
    on_write_failure: Option<Spanned<String>>,
}

/// The whole section: retention and durability (both defaults when it is absent).
pub(super) fn section(
    raw: Option<RawTrace>,
) -> Result<(Retention, Durability), (Range<usize>, String)> {
    match raw {
        Some(mut t) => {
            let durability = trace_durability(&mut t)?;
            let retention = trace_retention(t)?;
            Ok((retention, durability))
        }
        None => Ok(Default::default()),
    }
}

/// `[trace] fsync` and `onWriteFailure` (parsed in `trace/durability.rs`).
fn trace_durability(t: &mut RawTrace) -> Result<Durability, (Range<usize>, String)> {
    use crate::trace::{Fsync, OnWriteFailure};
    let mut d = Durability::default();
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
