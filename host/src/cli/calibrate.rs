//! `limina calibrate`: the latency tiers of every guest skill, measured on a scratch world
//! before any client calls, printed and kept beside the compiled cache.

use crate::Cli;
use anyhow::Result;
use std::process::ExitCode;

/// Builds the registry the flags describe, calibrates it and reports.
pub fn run(cli: &Cli, runs: usize) -> Result<ExitCode> {
    // Calibration runs on a scratch world: its trace need not outlive it (and a host serving
    // the same trace folder may be running).
    let mut registry = super::serve::build_registry(cli, false)?;
    let (found, skipped) = registry.calibrate(runs);
    println!(
        "{:<32} {:>5} {:>7} {:>10}  tier",
        "skill", "runs", "failed", "p50 ms"
    );
    for c in &found {
        let p50 = c.p50_ms.map_or("-".to_string(), |ms| format!("{ms:.2}"));
        println!(
            "{:<32} {:>5} {:>7} {:>10}  {}",
            c.skill,
            c.runs,
            c.failed,
            p50,
            c.tier.as_str()
        );
    }
    if !skipped.is_empty() {
        println!(
            "no input could be made from the schema of: {}",
            skipped.join(", ")
        );
    }
    match registry.calibration_file() {
        Some(file) => eprintln!("kept in {}", file.display()),
        None => eprintln!("not kept: --no-cache was given"),
    }
    Ok(ExitCode::SUCCESS)
}
