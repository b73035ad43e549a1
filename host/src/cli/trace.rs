//! `limina trace verify FILE`.

use anyhow::Result;
use limina::trace::{VerifyError, verify_file};
use std::path::Path;
use std::process::ExitCode;

/// Verifies a trace file: prints the event count and last hash, or the first bad line.
pub fn verify(file: &Path) -> Result<ExitCode> {
    match verify_file(file) {
        Ok(report) => {
            println!(
                "ok: {} events, chain intact, last hash {}",
                report.events,
                report.last_hash.as_deref().unwrap_or("(none)")
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ VerifyError::BadLine { .. }) => {
            println!("{}: {e}", file.display());
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(anyhow::anyhow!("{}: {e}", file.display())),
    }
}
