//! Compiled components on disk, keyed by the component's sha256 and the engine's
//! compatibility hash, so a restart deserializes in milliseconds instead of recompiling.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};
use wasmtime::Engine;
use wasmtime::component::Component;

/// How often a long compile reports that it is still going.
const PROGRESS_EVERY: Duration = Duration::from_secs(3);

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

/// Compiles a component, saying so on stderr; a compile that takes a while (an 18 MB Python
/// component takes seconds) reports every few seconds that it is still going, then its time.
fn compile(engine: &Engine, bytes: &[u8], label: &str) -> Result<Component> {
    crate::log::info(&format!("compiling {label} ({} KiB)…", bytes.len() / 1024));
    let started = Instant::now();
    let (done, finished) = mpsc::channel::<()>();
    let still = label.to_string();
    let ticker = std::thread::Builder::new()
        .name("limina-compile-progress".into())
        .spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(PROGRESS_EVERY) {
                crate::log::info(&format!(
                    "still compiling {still}… {}s",
                    started.elapsed().as_secs()
                ));
            }
        });
    let component = Component::new(engine, bytes)
        .map_err(anyhow::Error::from)
        .with_context(|| format!("{label} is not a valid component"));
    drop(done);
    if let Ok(ticker) = ticker {
        let _ = ticker.join();
    }
    let elapsed = started.elapsed();
    if elapsed >= PROGRESS_EVERY / 5 {
        crate::log::info(&format!(
            "compiled {label} in {:.1}s",
            elapsed.as_secs_f64()
        ));
    }
    component
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
