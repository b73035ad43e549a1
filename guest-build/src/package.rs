//! Building one package folder (a Rust crate beside its `limina.toml`) into its component:
//! what `limina pkg build` does.

use std::fs;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cargo::{self, Build};
use crate::toolchain::GuestToolchain;
use crate::{component, files};

/// What to build.
#[derive(Debug, Clone)]
pub struct PackageBuildRequest<'a> {
    /// The package folder, holding `Cargo.toml` and `limina.toml`.
    pub dir: &'a Path,
    /// Where the component goes, relative to `dir` (the manifest's `component`).
    pub component: &'a Path,
    /// Cargo's target folder; `None` uses the package's own (`target/` in its workspace).
    pub target_dir: Option<&'a Path>,
}

/// A package built into a component.
#[derive(Debug, Clone)]
pub struct PackageBuild {
    /// The crate's library name, which names its core module.
    pub crate_name: String,
    /// The core module cargo produced.
    pub module: PathBuf,
    /// The component file written (`dir/component`).
    pub component: PathBuf,
    /// The component's bytes.
    pub bytes: Vec<u8>,
    /// Whether the component file changed.
    pub changed: bool,
}

/// Builds the package's crate for wasm32 with the guest toolchain, encodes its core module as a
/// component and writes it where the manifest says (only when its bytes changed, so a watching
/// host sees no spurious reload). Cargo decides what needs recompiling.
pub fn build_package(
    toolchain: &GuestToolchain,
    request: &PackageBuildRequest<'_>,
) -> Result<PackageBuild> {
    // Absolute: cargo runs inside the package folder, where a relative path means something else.
    let dir = &fs::canonicalize(request.dir)
        .with_context(|| format!("reading {}", request.dir.display()))?;
    if !dir.join("Cargo.toml").is_file() {
        bail!(
            "{} has no Cargo.toml: `limina pkg build` builds a Rust package (create one with \
             `limina pkg new NAME`); build packages in other languages with their own tools",
            dir.display()
        );
    }
    if !inside(request.component) {
        bail!(
            "`component = {:?}` must be a relative path inside the package",
            request.component.display().to_string()
        );
    }
    let metadata = cargo::metadata(toolchain, dir)?;
    let here = fs::canonicalize(dir).with_context(|| format!("reading {}", dir.display()))?;
    let cdylib = metadata
        .cdylibs
        .iter()
        .find(|c| fs::canonicalize(&c.crate_dir).is_ok_and(|d| d == here))
        .with_context(|| {
            format!(
                "{}/Cargo.toml builds no cdylib: add `[lib] crate-type = [\"cdylib\"]`",
                dir.display()
            )
        })?;
    cargo::build(
        toolchain,
        &Build {
            dir,
            workspace: false,
            target_dir: request.target_dir,
            label: &dir.display().to_string(),
        },
    )?;
    let target_dir = request
        .target_dir
        .map(Path::to_path_buf)
        .unwrap_or(metadata.target_directory);
    let module = cargo::module_path(&target_dir, &cdylib.crate_name);
    let core = fs::read(&module)
        .with_context(|| format!("cargo reported success but left no {}", module.display()))?;
    let bytes = component::encode(&core, &module.display().to_string())?;
    let output = dir.join(request.component);
    let changed = files::write_if_changed(&output, &bytes)?;
    Ok(PackageBuild {
        crate_name: cdylib.crate_name.clone(),
        module,
        component: output,
        bytes,
        changed,
    })
}

/// Whether a relative path stays inside the folder it is relative to.
fn inside(path: &Path) -> bool {
    !path.as_os_str().is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

#[cfg(test)]
mod tests {
    use super::inside;
    use std::path::Path;

    #[test]
    fn component_paths_must_stay_inside_the_package() {
        assert!(inside(Path::new("demo.wasm")));
        assert!(inside(Path::new("out/demo.wasm")));
        assert!(!inside(Path::new("../demo.wasm")));
        assert!(!inside(Path::new("/tmp/demo.wasm")));
        assert!(!inside(Path::new("")));
    }
}
