//! Where things live: the repository, its build outputs and the user's cache.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The guest target triple.
pub const GUEST_TARGET: &str = "wasm32-unknown-unknown";

/// The repository root (the folder holding the workspace `Cargo.toml`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the repository root")
        .to_path_buf()
}

/// The cargo target directory shared by every guest workspace, so that dependencies such as
/// wit-bindgen compile once.
pub fn guest_target_dir() -> PathBuf {
    repo_root().join("target").join("guests")
}

/// Where cargo leaves the guests' core wasm modules.
pub fn guest_module_dir() -> PathBuf {
    guest_target_dir().join(GUEST_TARGET).join("release")
}

/// Where the encoded components go, one `<crate>.wasm` per guest crate.
pub fn component_dir() -> PathBuf {
    repo_root().join("target").join("components")
}

/// Where the core packages are assembled (manifest plus component); the host loads them here.
pub fn core_package_dir() -> PathBuf {
    repo_root().join("target").join("core")
}

/// The user's cache folder for Limina: `$LIMINA_CACHE_DIR`, else `$XDG_CACHE_HOME/limina`,
/// else `$HOME/.cache/limina`.
pub fn cache_dir() -> Result<PathBuf> {
    if let Some(dir) = non_empty_env("LIMINA_CACHE_DIR") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = non_empty_env("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(dir).join("limina"));
    }
    let home = non_empty_env("HOME")
        .context("cannot find a cache folder: set LIMINA_CACHE_DIR, XDG_CACHE_HOME or HOME")?;
    Ok(PathBuf::from(home).join(".cache").join("limina"))
}

/// The value of an environment variable, unless it is unset or empty.
pub fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// A path relative to the repository root when it lies inside it, for shorter messages.
pub fn display(path: &Path) -> String {
    let root = repo_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}
