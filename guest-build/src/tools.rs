//! Pinned guest tools installed on demand into the user's cache, never into the repository:
//! Python packages from PyPI (componentize-py, ziglang) each in its own virtual environment,
//! npm packages (componentize-qjs) each under its own prefix, crates (mdbook) compiled by
//! `cargo install` each into its own root.
//!
//! An install happens in a staging folder, is checked, then renamed into place and marked, so
//! an interrupted install is never taken for a finished one and two builds racing end with
//! one folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::{layout, process};

/// Written into a tool folder once its install was checked.
const MARKER: &str = ".limina-verified";

/// Where a registry's package comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registry {
    /// PyPI, installed with pip into a virtual environment.
    PyPi,
    /// The npm registry, installed with `npm install --prefix`.
    Npm,
    /// crates.io, compiled by `cargo install --locked --root` (the build's own toolchain).
    Crates,
}

/// A pinned tool: a registry package at an exact version.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The package name in its registry.
    pub package: &'static str,
    /// The exact version.
    pub version: &'static str,
    /// Its registry.
    pub registry: Registry,
    /// What it is for, shown while it installs (`C and Zig guests`).
    pub purpose: &'static str,
    /// Its rough download size, shown while it installs (`70 MB`).
    pub size: &'static str,
    /// Other pinned packages installed beside it (`name==version` or `name@version`); for a
    /// crate, more `cargo install` arguments (`--no-default-features`).
    pub with: &'static [&'static str],
}

impl Tool {
    /// The tool's folder in the cache: `<cache>/tools/<package>-<version>`.
    pub fn dir(&self) -> Result<PathBuf> {
        let name = self.package.trim_start_matches('@').replace('/', "-");
        Ok(layout::cache_dir()?
            .join("tools")
            .join(format!("{name}-{}", self.version)))
    }

    /// The tool's folder, installing it first when it is missing (with a message on stderr).
    pub fn ensure(&self) -> Result<PathBuf> {
        let dir = self.dir()?;
        if dir.join(MARKER).is_file() {
            return Ok(dir);
        }
        self.install(&dir).with_context(|| {
            format!(
                "installing {} {} ({}) from {}",
                self.package,
                self.version,
                self.purpose,
                match self.registry {
                    Registry::PyPi => "PyPI",
                    Registry::Npm => "the npm registry",
                    Registry::Crates => "crates.io",
                }
            )
        })?;
        Ok(dir)
    }

    fn install(&self, dir: &Path) -> Result<()> {
        let parent = dir.parent().expect("a tool folder has a parent");
        fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        crate::say!(
            "installing {} {} ({}, about {}) into {} (once)…",
            self.package,
            self.version,
            self.purpose,
            self.size,
            dir.display()
        );
        let started = Instant::now();
        // One staging folder per install, even for two threads of one process (tests).
        static INSTALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let staging = parent.join(format!(
            ".{}.partial-{}-{}",
            dir.file_name().expect("named").to_string_lossy(),
            std::process::id(),
            INSTALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&staging);
        let installed = match self.registry {
            Registry::PyPi => self.pip_install(&staging),
            Registry::Npm => self.npm_install(&staging),
            Registry::Crates => self.cargo_install(&staging),
        };
        if let Err(err) = installed {
            let _ = fs::remove_dir_all(&staging);
            return Err(err);
        }
        // The marker goes in before the move, so the folder is never seen half-made.
        fs::write(staging.join(MARKER), format!("{}\n", self.version))?;
        if dir.join(MARKER).is_file() {
            let _ = fs::remove_dir_all(&staging);
            return Ok(()); // another install finished first
        }
        let _ = fs::remove_dir_all(dir); // a folder without the marker is a leftover
        if let Err(err) = fs::rename(&staging, dir) {
            let _ = fs::remove_dir_all(&staging);
            if dir.join(MARKER).is_file() {
                return Ok(()); // another build finished first
            }
            return Err(err).with_context(|| format!("moving the tool to {}", dir.display()));
        }
        crate::say!(
            "{} {} ready in {:.1}s",
            self.package,
            self.version,
            started.elapsed().as_secs_f64()
        );
        Ok(())
    }

    /// A virtual environment holding exactly the pinned release. The venv's Python finds its
    /// packages wherever the folder is later moved.
    fn pip_install(&self, staging: &Path) -> Result<()> {
        process::run_quietly(Command::new("python3").args(["-m", "venv"]).arg(staging)).context(
            "could not create a Python virtual environment: install python3 with its venv \
             module (Debian: apt-get install python3-venv)",
        )?;
        let python = staging.join("bin").join("python3");
        process::run_quietly(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "--no-input",
                ])
                .arg(format!("{}=={}", self.package, self.version))
                .args(self.with),
        )
        .with_context(|| format!("pip could not install {}=={}", self.package, self.version))?;
        let version = process::output_text(Command::new(&python).args([
            "-c",
            &format!(
                "import importlib.metadata as m; print(m.version({:?}))",
                self.package
            ),
        ]))?;
        if version.trim() != self.version {
            bail!(
                "pip installed {} {}, expected {}",
                self.package,
                version.trim(),
                self.version
            );
        }
        Ok(())
    }

    /// `npm install --prefix <staging> <package>@<version>`, exact, without scripts' noise.
    fn npm_install(&self, staging: &Path) -> Result<()> {
        fs::create_dir_all(staging)?;
        process::run_quietly(
            Command::new("npm")
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--save-exact",
                    "--loglevel=error",
                    "--prefix",
                ])
                .arg(staging)
                .arg(format!("{}@{}", self.package, self.version))
                .args(self.with),
        )
        .with_context(|| {
            format!(
                "npm could not install {}@{} (needs Node.js 18 or newer and npm on PATH)",
                self.package, self.version
            )
        })?;
        let manifest = staging
            .join("node_modules")
            .join(self.package)
            .join("package.json");
        let text = fs::read_to_string(&manifest)
            .with_context(|| format!("npm left no {}", manifest.display()))?;
        let installed: serde_json::Value = serde_json::from_str(&text)?;
        if installed["version"].as_str() != Some(self.version) {
            bail!(
                "npm installed {} {}, expected {}",
                self.package,
                installed["version"],
                self.version
            );
        }
        Ok(())
    }

    /// `cargo install --locked --root <staging> <crate>@<version>`: the crate's own lock file,
    /// so the same dependencies build everywhere; then its record of what it installed is read.
    fn cargo_install(&self, staging: &Path) -> Result<()> {
        fs::create_dir_all(staging)?;
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        process::run_quietly(
            Command::new(cargo)
                .args(["install", "--quiet", "--locked", "--root"])
                .arg(staging)
                .arg(format!("{}@{}", self.package, self.version))
                .args(self.with),
        )
        .with_context(|| {
            format!(
                "cargo could not install {}@{} from crates.io",
                self.package, self.version
            )
        })?;
        let record = staging.join(".crates.toml");
        let text = fs::read_to_string(&record)
            .with_context(|| format!("cargo left no {}", record.display()))?;
        let installed = format!("\"{} {} (registry", self.package, self.version);
        if !text.contains(&installed) {
            bail!(
                "cargo installed something else than {} {}: {}",
                self.package,
                self.version,
                text.trim()
            );
        }
        Ok(())
    }
}

/// The Python of a PyPI tool's virtual environment.
pub fn venv_python(dir: &Path) -> PathBuf {
    dir.join("bin").join("python3")
}
