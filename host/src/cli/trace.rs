//! `limina trace verify PATH`.

use anyhow::Result;
use limina::trace::{VerifyError, verify_dir, verify_file};
use std::path::Path;
use std::process::ExitCode;

/// Verifies a trace folder or file: prints what was checked, or the first bad line.
pub fn verify(path: &Path, from_seq: Option<u64>, to_seq: Option<u64>) -> Result<ExitCode> {
    let result = if path.is_dir() {
        verify_dir(path, from_seq, to_seq).map(|r| {
            let span = match (r.first_seq, r.last_seq) {
                (Some(first), Some(last)) => format!("events {first}..={last}"),
                _ => "no events".into(),
            };
            let cut = r.cut_at.map_or(String::new(), |c| {
                format!(", starting at the retention cut (event {c})")
            });
            format!(
                "ok: {} events in {} segments ({span}), chain intact{cut}, last hash {}",
                r.events,
                r.segments,
                r.last_hash.as_deref().unwrap_or("(none)")
            )
        })
    } else {
        verify_file(path).map(|r| {
            format!(
                "ok: {} events, chain intact, last hash {}",
                r.events,
                r.last_hash.as_deref().unwrap_or("(none)")
            )
        })
    };
    match result {
        Ok(line) => {
            println!("{line}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ (VerifyError::BadLine { .. } | VerifyError::BadSegment { .. })) => {
            println!("{}: {e}", path.display());
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(anyhow::anyhow!("{}: {e}", path.display())),
    }
}
