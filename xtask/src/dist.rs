//! `cargo xtask dist`: the one file to install — the guests built, then the release host with
//! the core packages embedded in it, copied to `target/dist/limina`.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};
use limina_guest_build::{process, repo, toolchain};

use crate::layout;

/// Builds `target/dist/limina` and prints what it holds (`limina --version`) and its size.
pub fn dist(extra: &[String]) -> Result<ExitCode> {
    let out = build_with(extra)?;
    let version = process::output_text(Command::new(&out).arg("--version"))?;
    let size = fs::metadata(&out)?.len();
    eprint!("{version}");
    eprintln!(
        "xtask: {} ({:.1} MiB): copy it anywhere; it needs nothing else",
        out.display(),
        size as f64 / (1024.0 * 1024.0)
    );
    Ok(ExitCode::SUCCESS)
}

/// Builds `target/dist/limina` (the guests, then the release host) and returns its path.
pub fn build() -> Result<PathBuf> {
    build_with(&[])
}

fn build_with(extra: &[String]) -> Result<PathBuf> {
    repo::build_all(&layout::repo(), &toolchain::guest_toolchain()?)?;
    let mut build = layout::host_cargo();
    build
        .args(["build", "--release", "-p", "limina", "--bin", "limina"])
        .args(extra);
    process::run_quietly(&mut build)?;
    let target = layout::target_dir();
    let built = target.join("release").join("limina");
    let out_dir = target.join("dist");
    fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let out = out_dir.join("limina");
    // Copied to a new file and renamed over the old one, so a running copy keeps its file.
    let partial = out_dir.join(".limina.partial");
    fs::copy(&built, &partial)
        .with_context(|| format!("copying {} to {}", built.display(), partial.display()))?;
    fs::rename(&partial, &out).with_context(|| format!("writing {}", out.display()))?;
    let version = process::output_text(Command::new(&out).arg("--version"))?;
    if !version.contains("core packages built in (") {
        bail!(
            "{} was built without its core packages:\n{version}",
            out.display()
        );
    }
    Ok(out)
}
