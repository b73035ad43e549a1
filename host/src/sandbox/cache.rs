//! Compiled components on disk, keyed by the component's sha256 and the engine's
//! compatibility hash, so a restart deserializes in milliseconds instead of recompiling.
//!
//! A read-only folder made ahead of time (`limina precompile`, baked into the container
//! image) may stand in front of the writable cache: its entries are read first, and what it
//! lacks is compiled into the writable cache as usual. Entries are named by the engine's
//! compatibility hash, which covers the CPU features the compiler used, so an image started
//! on a CPU lacking one of them finds no entry of its own there and compiles instead.

use super::bindings::PackageDescription;
use super::described;
use crate::limits::MAX_COMPILE_TIME;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};
use wasmtime::Engine;
use wasmtime::component::Component;

/// How often a long compile reports that it is still going.
const PROGRESS_EVERY: Duration = Duration::from_secs(3);
/// How long a host waits for another process compiling the same component.
const COMPILE_WAIT: Duration = Duration::from_secs(300);

/// A folder of precompiled components, for one engine (the sandbox's).
#[derive(Debug, Clone)]
pub struct CompileCache {
    dir: Option<PathBuf>,
    /// A read-only folder of entries made ahead of time, consulted before `dir`.
    precompiled: Option<PathBuf>,
    /// Worked out on first use: hashing the engine's settings costs more than reading a
    /// description, and a start reads one per package.
    keys: OnceLock<Keys>,
}

/// The parts of entry names that say which engine (and contract) wrote them.
#[derive(Debug, Clone, Copy)]
struct Keys {
    engine: u64,
    description: u64,
}

impl CompileCache {
    /// A cache in `dir`; `None` compiles every time.
    pub fn new(dir: Option<PathBuf>) -> Self {
        CompileCache {
            dir,
            precompiled: None,
            keys: OnceLock::new(),
        }
    }

    /// The same cache with a read-only folder of precompiled entries in front of it.
    pub fn with_precompiled(mut self, precompiled: Option<PathBuf>) -> Self {
        self.precompiled = precompiled;
        self
    }

    fn keys(&self, engine: &Engine) -> Keys {
        *self.keys.get_or_init(|| {
            let engine = engine_key(engine);
            if let Some(dir) = &self.precompiled {
                note_foreign(dir, engine);
            }
            Keys {
                engine,
                description: description_key(engine),
            }
        })
    }

    /// The folders entries are read from, the precompiled one first.
    fn readable(&self) -> impl Iterator<Item = &PathBuf> {
        self.precompiled.iter().chain(self.dir.iter())
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

    /// The compiled component for `bytes`, from the cache when it holds a usable one. A
    /// component over the size cap or using a refused wasm feature is refused first.
    pub fn load(&self, engine: &Engine, bytes: &[u8], label: &str) -> Result<Component> {
        super::precheck::check(bytes, label)?;
        if self.precompiled.is_none() && self.dir.is_none() {
            return compile(engine, bytes, label);
        }
        let hash = content_hash(bytes);
        if let Some(component) = self.cached_component(engine, &hash) {
            return Ok(component);
        }
        let Some(dir) = &self.dir else {
            return compile(engine, bytes, label);
        };
        let path = entry_path(dir, &hash, self.keys(engine));
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

    /// The compiled component whose content hash is `content_hash`, from the cache alone
    /// (no bytes needed): `None` when the cache holds no usable entry for it.
    pub fn cached_component(&self, engine: &Engine, content_hash: &str) -> Option<Component> {
        let keys = self.keys(engine);
        self.readable()
            .find_map(|dir| cached(engine, &entry_path(dir, content_hash, keys)))
    }

    /// What the component hashing to `content_hash` said of itself when it was last
    /// described by this host build (`http`: linked with `wasi:http`), if the cache holds a
    /// sound entry.
    pub fn description(
        &self,
        engine: &Engine,
        content_hash: &str,
        http: bool,
    ) -> Option<(PackageDescription, super::Offered)> {
        let key = self.keys(engine).description;
        self.readable()
            .find_map(|dir| described::read(&described::path(dir, content_hash, key, http)))
    }

    /// Keeps `description` for the next start; a cache that cannot be written is reported
    /// and otherwise ignored (the next start describes the package again).
    pub fn keep_description(
        &self,
        engine: &Engine,
        content_hash: &str,
        http: bool,
        description: &PackageDescription,
        offered: &super::Offered,
    ) {
        let Some(dir) = &self.dir else { return };
        let path = described::path(dir, content_hash, self.keys(engine).description, http);
        if let Err(e) = described::write(&path, description, offered) {
            crate::log::warn(&format!(
                "could not write the description cache {}: {e}",
                path.display()
            ));
        }
    }
}

/// Where the compiled form of the component hashing to `content_hash` is kept in `dir`.
fn entry_path(dir: &Path, content_hash: &str, keys: Keys) -> PathBuf {
    dir.join(format!("{content_hash}-{:016x}.cwasm", keys.engine))
}

/// Says once why a precompiled folder holding entries none of which this engine can use is
/// passed over: it was made by another build of the host or for a CPU with other features.
fn note_foreign(dir: &Path, engine: u64) {
    let suffix = format!("-{engine:016x}.cwasm");
    let Ok(entries) = std::fs::read_dir(dir) else {
        crate::log::warn(&format!(
            "the precompiled folder {} cannot be read; components are compiled instead",
            dir.display()
        ));
        return;
    };
    let names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cwasm"))
        .collect();
    if !names.is_empty() && !names.iter().any(|n| n.ends_with(&suffix)) {
        crate::log::warn(&format!(
            "the precompiled components in {} were made by another build of limina or for a CPU \
             with other features than this one; components are compiled instead (once, into the \
             writable cache)",
            dir.display()
        ));
    }
}

/// Compiles a component, saying so on stderr; a compile that takes a while (an 18 MB Python
/// component takes seconds) reports every few seconds that it is still going, then its time.
/// A compile running past `MAX_COMPILE_TIME` is refused: the host stops waiting for it (the
/// compiler finishes on its own thread and its result is dropped).
fn compile(engine: &Engine, bytes: &[u8], label: &str) -> Result<Component> {
    crate::log::info(&format!("compiling {label} ({} KiB)…", bytes.len() / 1024));
    let started = Instant::now();
    let (engine_copy, bytes_copy) = (engine.clone(), bytes.to_vec());
    let outcome = within(
        MAX_COMPILE_TIME,
        || {
            crate::log::info(&format!(
                "still compiling {label}… {}s",
                started.elapsed().as_secs()
            ))
        },
        move || Component::new(&engine_copy, &bytes_copy).map_err(anyhow::Error::from),
    );
    let Some(component) = outcome else {
        anyhow::bail!(
            "compiling {label} took longer than the host's {} s cap; the package was refused",
            MAX_COMPILE_TIME.as_secs()
        );
    };
    let component = component.with_context(|| format!("{label} is not a valid component"));
    let elapsed = started.elapsed();
    if elapsed >= PROGRESS_EVERY / 5 {
        crate::log::info(&format!(
            "compiled {label} in {:.1}s",
            elapsed.as_secs_f64()
        ));
    }
    component
}

/// Runs `work` on its own thread and waits at most `limit` for it, calling `progress` every
/// `PROGRESS_EVERY` meanwhile; `None` when the limit passed first (or the thread died).
fn within<T: Send + 'static>(
    limit: Duration,
    mut progress: impl FnMut(),
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("limina-compile".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .ok()?;
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        match rx.recv_timeout(left.min(PROGRESS_EVERY)) {
            Ok(value) => return Some(value),
            Err(RecvTimeoutError::Timeout) => progress(),
            Err(RecvTimeoutError::Disconnected) => return None,
        }
    }
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

/// The key of description entries: the engine's, and the WIT contract the host links guests
/// against (what a component imports and exports is checked against it).
fn description_key(engine_key: u64) -> u64 {
    let mut h = DefaultHasher::new();
    engine_key.hash(&mut h);
    super::bindings::wit_text().hash(&mut h);
    described::MAGIC.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::within;
    use std::time::Duration;

    #[test]
    fn work_past_its_limit_is_given_up_on_and_work_within_it_is_returned() {
        let mut ticks = 0;
        let late = within(
            Duration::from_millis(50),
            || ticks += 1,
            || std::thread::sleep(Duration::from_secs(2)),
        );
        assert!(late.is_none());
        assert_eq!(within(Duration::from_secs(5), || {}, || 7), Some(7));
    }
}
