//! `limina pkg test [DIR]`: the package's own tests, run natively with its language's test
//! runner (the C and Zig toolchain is the pinned Zig `limina pkg build` uses).

use super::{read_manifest, wit_dir};
use anyhow::{Context, Result};
use limina_guest_build::lang::{self, Lang};
use std::path::Path;
use std::process::ExitCode;

/// Runs the tests; exits 1 when they fail.
pub fn run(dir: &Path) -> Result<ExitCode> {
    let (_, manifest) = read_manifest(dir)?;
    limina_guest_build::set_label("limina");
    let lang = Lang::of(dir).with_context(|| {
        format!(
            "{} holds limina.toml but no skills.py, skills.js, app.c, app.zig or Cargo.toml \
             (nor an older package's own app.py or app.js): nothing to test",
            dir.display()
        )
    })?;
    let wit = wit_dir(lang, dir)?;
    if lang::run_tests(lang, dir, &wit)? {
        println!(
            "{} {}: {lang} tests passed",
            manifest.name, manifest.version
        );
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "{} {}: {lang} tests FAILED",
            manifest.name, manifest.version
        );
        Ok(ExitCode::from(1))
    }
}
