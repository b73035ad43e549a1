//! Building the guest workspaces for wasm32 and encoding each guest as a component.
//!
//! Guest workspaces are separate cargo workspaces, excluded from the host's: `skills-core/`,
//! `tests/guests/` and every `packages/*/` with a `Cargo.toml`. They share one target folder,
//! `target/guests`, so common dependencies (wit-bindgen) compile once.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::layout::{self, GUEST_TARGET, display, guest_module_dir, guest_target_dir, repo_root};
use crate::toolchain::GuestToolchain;
use crate::{components, packages, process};

/// What a guest workspace holds, which decides where its components go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `skills-core/`: core packages, assembled into `target/core`.
    Core,
    /// `tests/guests/`: test guests, left in `target/components`.
    Test,
    /// `packages/<name>/`: example packages, copied next to their manifest.
    Package,
}

/// A cargo workspace (or standalone crate) of guests.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The folder holding its `Cargo.toml`.
    pub dir: PathBuf,
    pub role: Role,
}

/// One guest crate: a cdylib built for wasm32 and encoded as a component.
#[derive(Debug, Clone)]
pub struct Guest {
    /// The library name (`-` turned to `_`), which names the `.wasm` files.
    pub crate_name: String,
    /// The folder holding the crate's `Cargo.toml`.
    pub crate_dir: PathBuf,
    /// The workspace it was built in.
    pub workspace: Workspace,
    /// `target/components/<crate_name>.wasm`.
    pub component: PathBuf,
}

impl fmt::Display for Guest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.crate_name, display(&self.crate_dir))
    }
}

/// The guest workspaces present in the repository, in build order.
pub fn discover() -> Result<Vec<Workspace>> {
    let root = repo_root();
    let mut found = Vec::new();
    for (dir, role) in [
        (root.join("skills-core"), Role::Core),
        (root.join("tests").join("guests"), Role::Test),
    ] {
        if dir.join("Cargo.toml").is_file() {
            found.push(Workspace { dir, role });
        }
    }
    let packages = root.join("packages");
    if packages.is_dir() {
        let mut dirs = Vec::new();
        for entry in fs::read_dir(&packages)? {
            let dir = entry?.path();
            if dir.join("Cargo.toml").is_file() {
                dirs.push(dir);
            }
        }
        dirs.sort();
        found.extend(dirs.into_iter().map(|dir| Workspace {
            dir,
            role: Role::Package,
        }));
    }
    Ok(found)
}

/// Builds every guest workspace, encodes every guest as a component, and places the
/// components where the host and the packages expect them. A workspace that fails does not
/// stop the others; the command fails at the end, naming every failed workspace.
pub fn build_all(toolchain: &GuestToolchain) -> Result<()> {
    let workspaces = discover()?;
    if workspaces.is_empty() {
        eprintln!("xtask: no guest workspaces to build");
    }
    let mut guests = Vec::new();
    let mut failed = Vec::new();
    for workspace in &workspaces {
        match build_workspace(toolchain, workspace) {
            Ok(built) => guests.extend(built),
            Err(err) => {
                eprintln!("xtask: error: {err:#}");
                failed.push(display(&workspace.dir));
            }
        }
    }
    if !failed.is_empty() {
        bail!("guest build failed in {}", failed.join(", "));
    }
    packages::prune_core(&guests)
}

/// Builds one workspace and turns each of its guests into a placed component.
fn build_workspace(toolchain: &GuestToolchain, workspace: &Workspace) -> Result<Vec<Guest>> {
    build(toolchain, workspace)?;
    let guests = guest_crates(toolchain, workspace)?;
    for guest in &guests {
        let module = guest_module_dir().join(format!("{}.wasm", guest.crate_name));
        if !module.is_file() {
            bail!("{guest}: cargo left no {}", display(&module));
        }
        let encoded = components::encode_if_stale(&module, &guest.component)
            .with_context(|| format!("guest {guest}"))?;
        let size = fs::metadata(&guest.component)?.len();
        let placed = packages::place(guest).with_context(|| format!("guest {guest}"))?;
        eprintln!(
            "xtask: guest {guest}: {}, {} KiB{}",
            if encoded { "encoded" } else { "up to date" },
            size.div_ceil(1024),
            placed
                .map(|p| format!(" → {}", display(&p)))
                .unwrap_or_default()
        );
    }
    Ok(guests)
}

/// Runs the guest cargo build for one workspace.
fn build(toolchain: &GuestToolchain, workspace: &Workspace) -> Result<()> {
    let started = Instant::now();
    eprintln!(
        "xtask: building {} for {GUEST_TARGET}…",
        display(&workspace.dir)
    );
    let mut cargo = toolchain.cargo_command();
    cargo
        .current_dir(&workspace.dir)
        .args([
            "build",
            "--release",
            "--workspace",
            "--target",
            GUEST_TARGET,
        ])
        .arg("--manifest-path")
        .arg(workspace.dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(guest_target_dir());
    process::run_quietly(&mut cargo)
        .with_context(|| format!("building the guests in {}", display(&workspace.dir)))?;
    eprintln!(
        "xtask: built {} in {:.1}s",
        display(&workspace.dir),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The cdylib crates of a workspace, from `cargo metadata`.
fn guest_crates(toolchain: &GuestToolchain, workspace: &Workspace) -> Result<Vec<Guest>> {
    let mut cargo = toolchain.cargo_command();
    cargo
        .current_dir(&workspace.dir)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(workspace.dir.join("Cargo.toml"));
    let text = process::output_text(&mut cargo)?;
    let metadata: Value = serde_json::from_str(&text).context("parsing cargo metadata")?;
    let mut guests = Vec::new();
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
            let crate_name = name.replace('-', "_");
            guests.push(Guest {
                component: layout::component_dir().join(format!("{crate_name}.wasm")),
                crate_name,
                crate_dir: crate_dir.clone(),
                workspace: workspace.clone(),
            });
        }
    }
    guests.sort_by(|a, b| a.crate_name.cmp(&b.crate_name));
    Ok(guests)
}

/// Whether a cargo metadata target has the given kind.
fn has_kind(target: &Value, kind: &str) -> bool {
    target["kind"]
        .as_array()
        .is_some_and(|kinds| kinds.iter().any(|k| k.as_str() == Some(kind)))
}
