//! Where things live outside any one repository: the guest target and the user's cache.

use std::path::PathBuf;

use anyhow::{Context, Result};

/// The guest target triple.
pub const GUEST_TARGET: &str = "wasm32-unknown-unknown";

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
