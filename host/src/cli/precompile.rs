//! `limina precompile --into DIR`: the compiled cache made ahead of time, for a container
//! image whose fresh containers must answer at once instead of compiling the core first.

use crate::Cli;
use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::process::ExitCode;

/// Loads the core packages (and those of --packages) with `into` as the compiled cache, so
/// each is compiled and described there, then reports what the folder holds.
pub fn run(mut cli: Cli, into: PathBuf) -> Result<ExitCode> {
    std::fs::create_dir_all(&into).with_context(|| format!("creating {}", into.display()))?;
    // An empty folder, so that what it holds afterwards is exactly what this build made.
    let held = std::fs::read_dir(&into)
        .with_context(|| format!("reading {}", into.display()))?
        .count();
    if held > 0 {
        bail!(
            "--into {} is not empty ({held} entries): precompile into an empty folder (remove it first)",
            into.display()
        );
    }
    cli.cache_dir = Some(into.clone());
    // Only what this run makes counts: no other folder stands in front of this one.
    cli.precompiled = None;
    cli.no_cache = false;
    if std::env::var_os("LIMINA_PRECOMPILED_DIR").is_some() {
        // SAFETY: no other thread runs yet (this is the command's first step after parsing).
        unsafe { std::env::remove_var("LIMINA_PRECOMPILED_DIR") };
    }
    // A scratch world: the trace need not outlive this run.
    let registry = super::serve::build_registry(&cli, false)?;
    let packages = registry.packages().len();
    let count = |suffix: &str| -> Result<usize> {
        Ok(std::fs::read_dir(&into)?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(suffix))
            .count())
    };
    let (compiled, described) = (count(".cwasm")?, count(".describe")?);
    if compiled != packages || described != packages {
        bail!(
            "{} holds {compiled} compiled components and {described} descriptions for {packages} packages",
            into.display()
        );
    }
    eprintln!(
        "limina: {packages} packages precompiled into {} ({compiled} components, {described} descriptions)",
        into.display()
    );
    Ok(ExitCode::SUCCESS)
}
