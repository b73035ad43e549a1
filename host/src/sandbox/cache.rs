//! Compiled components on disk, keyed by the component's sha256 and the engine's
//! compatibility hash, so a restart deserializes in milliseconds instead of recompiling.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

/// A folder of precompiled components.
#[derive(Debug, Clone)]
pub struct CompileCache {
    dir: Option<PathBuf>,
}

impl CompileCache {
    /// A cache in `dir`; `None` compiles every time.
    pub fn new(dir: Option<PathBuf>) -> Self {
        CompileCache { dir }
    }

    /// The default place: `$LIMINA_CACHE_DIR`, `$XDG_CACHE_HOME/limina` or `~/.cache/limina`,
    /// then `compiled/`.
    pub fn default_dir() -> Option<PathBuf> {
        let base = std::env::var_os("LIMINA_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("limina")))
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/limina")))?;
        Some(base.join("compiled"))
    }

    /// The compiled component for `bytes`, from the cache when it holds a usable one.
    pub fn load(&self, engine: &Engine, bytes: &[u8], label: &str) -> Result<Component> {
        let Some(dir) = &self.dir else {
            return compile(engine, bytes, label);
        };
        let path = dir.join(format!(
            "{}-{:016x}.cwasm",
            content_hash(bytes),
            engine_key(engine)
        ));
        if path.exists() {
            // SAFETY: the file was written by `Component::serialize` for this engine
            // configuration (the key includes its compatibility hash) into the user's own
            // cache folder; wasmtime still checks the header and rejects a mismatch.
            match unsafe { Component::deserialize_file(engine, &path) } {
                Ok(component) => return Ok(component),
                Err(e) => crate::log::warn(&format!(
                    "ignoring unusable compiled cache entry {}: {e}",
                    path.display()
                )),
            }
        }
        let component = compile(engine, bytes, label)?;
        if let Err(e) = store(dir, &path, &component) {
            crate::log::warn(&format!(
                "could not write compiled cache {}: {e:#}",
                path.display()
            ));
        }
        Ok(component)
    }
}

fn compile(engine: &Engine, bytes: &[u8], label: &str) -> Result<Component> {
    crate::log::info(&format!("compiling {label} ({} KiB)…", bytes.len() / 1024));
    Component::new(engine, bytes)
        .map_err(anyhow::Error::from)
        .with_context(|| format!("{label} is not a valid component"))
}

fn store(dir: &Path, path: &Path, component: &Component) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let bytes = component.serialize().map_err(anyhow::Error::from)?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Hex sha256 of the component bytes: the package's content hash.
pub fn content_hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn engine_key(engine: &Engine) -> u64 {
    let mut h = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    h.finish()
}
