//! Running the guest toolchain's cargo: building crates for wasm32 and finding their cdylibs.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::layout::GUEST_TARGET;
use crate::process;
use crate::toolchain::GuestToolchain;

/// One `cargo build --release --target wasm32-unknown-unknown`.
#[derive(Debug, Clone)]
pub struct Build<'a> {
    /// The folder holding the `Cargo.toml` to build (cargo runs there, so its
    /// `.cargo/config.toml` applies).
    pub dir: &'a Path,
    /// Build every member of the workspace at `dir` rather than only its root package.
    pub workspace: bool,
    /// Where cargo writes; `None` leaves cargo's own choice (the workspace's `target/`).
    pub target_dir: Option<&'a Path>,
    /// How the build is named in progress lines and errors.
    pub label: &'a str,
}

/// Runs the build with cargo's output on stderr, reporting how long it took.
pub fn build(toolchain: &GuestToolchain, request: &Build<'_>) -> Result<()> {
    let started = Instant::now();
    crate::say!("building {} for {GUEST_TARGET}…", request.label);
    let mut cargo = toolchain.cargo_command();
    cargo
        .current_dir(request.dir)
        .args(["build", "--release", "--target", GUEST_TARGET])
        .arg("--manifest-path")
        .arg(request.dir.join("Cargo.toml"));
    if request.workspace {
        cargo.arg("--workspace");
    }
    if let Some(target_dir) = request.target_dir {
        cargo.arg("--target-dir").arg(target_dir);
    }
    process::run_quietly(&mut cargo)
        .with_context(|| format!("building the guests in {}", request.label))?;
    crate::say!(
        "built {} in {:.1}s",
        request.label,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A guest crate: a `cdylib` target, whose core module cargo writes as `<crate_name>.wasm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cdylib {
    /// The library name with `-` turned to `_`, which names the `.wasm` files.
    pub crate_name: String,
    /// The folder holding the crate's `Cargo.toml`.
    pub crate_dir: PathBuf,
}

/// What `cargo metadata` says about a guest workspace.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// Cargo's target folder for this workspace (before any `--target-dir`).
    pub target_directory: PathBuf,
    /// Its cdylib crates, sorted by name.
    pub cdylibs: Vec<Cdylib>,
}

/// Reads the workspace at `dir` with `cargo metadata --no-deps`.
pub fn metadata(toolchain: &GuestToolchain, dir: &Path) -> Result<Metadata> {
    let mut cargo = toolchain.cargo_command();
    cargo
        .current_dir(dir)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"));
    let text = process::output_text(&mut cargo)?;
    let metadata: Value = serde_json::from_str(&text).context("parsing cargo metadata")?;
    let target_directory = metadata["target_directory"]
        .as_str()
        .context("cargo metadata: no target_directory")?
        .into();
    let mut cdylibs = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let manifest = package["manifest_path"]
            .as_str()
            .context("cargo metadata: a package without manifest_path")?;
        let crate_dir = Path::new(manifest)
            .parent()
            .context("a manifest path has a parent")?
            .to_path_buf();
        for target in package["targets"].as_array().into_iter().flatten() {
            if !has_kind(target, "cdylib") {
                continue;
            }
            let name = target["name"]
                .as_str()
                .context("cargo metadata: unnamed target")?;
            cdylibs.push(Cdylib {
                crate_name: name.replace('-', "_"),
                crate_dir: crate_dir.clone(),
            });
        }
    }
    cdylibs.sort_by(|a, b| a.crate_name.cmp(&b.crate_name));
    Ok(Metadata {
        target_directory,
        cdylibs,
    })
}

/// Where a release build into `target_dir` leaves the core module of `crate_name`.
pub fn module_path(target_dir: &Path, crate_name: &str) -> PathBuf {
    target_dir
        .join(GUEST_TARGET)
        .join("release")
        .join(format!("{crate_name}.wasm"))
}

/// Whether a cargo metadata target has the given kind.
fn has_kind(target: &Value, kind: &str) -> bool {
    target["kind"]
        .as_array()
        .is_some_and(|kinds| kinds.iter().any(|k| k.as_str() == Some(kind)))
}
