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
/// How long a host waits for another process compiling the same component.
const COMPILE_WAIT: Duration = Duration::from_secs(300);

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
        if let Some(component) = cached(engine, &path) {
            return Ok(component);
        }
        // One process compiles a component; others starting at the same time (several hosts
        // loading one large package) wait for its result instead of compiling it again.
        let _lock = CompileLock::take(&path, label);
        if let Some(component) = cached(engine, &path) {
            return Ok(component);
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

/// The cache entry at `path`, when there is a usable one.
fn cached(engine: &Engine, path: &Path) -> Option<Component> {
    if !path.exists() {
        return None;
    }
    // SAFETY: the file was written by `Component::serialize` for this engine configuration
    // (the key includes its compatibility hash) into the user's own cache folder; wasmtime
    // still checks the header and rejects a mismatch.
    match unsafe { Component::deserialize_file(engine, path) } {
        Ok(component) => Some(component),
        Err(e) => {
            crate::log::warn(&format!(
                "ignoring unusable compiled cache entry {}: {e}",
                path.display()
            ));
            None
        }
    }
}

/// A lock file beside a cache entry, held while this process compiles it; removed on drop.
struct CompileLock(PathBuf);

impl CompileLock {
    /// Takes the lock for the entry at `path`. When another process holds it, waits (up to
    /// [`COMPILE_WAIT`]) for it to finish; returns `None` once the entry exists (or after the
    /// wait). A lock older than that is left over from a process that died, and is taken over.
    fn take(path: &Path, label: &str) -> Option<CompileLock> {
        let lock = path.with_extension("lock");
        if let Some(dir) = lock.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let started = Instant::now();
        let mut said = false;
        loop {
            if path.exists() {
                return None;
            }
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
            {
                Ok(_) => return Some(CompileLock(lock)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                // No lock can be had (a read-only cache): compile without one.
                Err(_) => return None,
            }
            let age = std::fs::metadata(&lock)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok());
            if age.is_some_and(|age| age > COMPILE_WAIT) {
                let _ = std::fs::remove_file(&lock);
                continue;
            }
            if started.elapsed() > COMPILE_WAIT {
                return None;
            }
            if !said {
                crate::log::info(&format!(
                    "waiting for another limina that is compiling {label}…"
                ));
                said = true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for CompileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
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
