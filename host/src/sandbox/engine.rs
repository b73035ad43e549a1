//! The wasmtime engine and linker every package shares.

use super::CompileCache;
use super::bindings::PackageDescription;
use super::bindings::{v01, v02};
use super::instance::{CompiledPackage, GuestState};
use super::pool::{PoolSettings, Seat, Seats};
use crate::limits::{EPOCH_TICK_MS, MAX_WASM_STACK_BYTES};
use anyhow::{Context, Result};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Config, Engine};

/// The engine, the linker with the host imports, and the compiled-component cache.
pub struct Sandbox {
    engine: Engine,
    linker: Linker<GuestState>,
    /// The same, with `wasi:http` added: only packages with network grants link against it.
    http_linker: Linker<GuestState>,
    cache: CompileCache,
    /// The instances alive now, against `[limits] instances` (`pool.rs`).
    seats: Arc<Seats>,
    ticker_stop: Arc<AtomicBool>,
}

/// The wasmtime engine: pooled instance slots when the address space allows reserving them,
/// else instances allocated one by one (see [`config`]).
fn engine(settings: &PoolSettings) -> Result<Engine> {
    match Engine::new(&config(settings)) {
        Ok(engine) => Ok(engine),
        Err(e) if !settings.pooled => {
            Err(anyhow::Error::from(e).context("creating the wasm engine"))
        }
        // The pool reserves its slots' address space up front (about 2 TiB, never touched);
        // `ulimit -v`, some containers and tools such as valgrind allow far less. Instances
        // made one by one keep every limit (the memory limiter caps each memory, the stack and
        // fuel are the engine's); only their creation costs a little more.
        Err(pooled) => {
            let one_by_one = PoolSettings {
                pooled: false,
                ..*settings
            };
            let engine = Engine::new(&config(&one_by_one))
                .map_err(anyhow::Error::from)
                .with_context(|| {
                    format!("creating the wasm engine (pooled instance slots failed too: {pooled})")
                })?;
            crate::log::warn(&format!(
                "no address space for pooled instance slots ({pooled}); instances are allocated one by one (raise `ulimit -v` to pool them)"
            ));
            Ok(engine)
        }
    }
}

/// The engine's configuration, its instances made as `settings` say.
fn config(settings: &PoolSettings) -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.consume_fuel(true);
    config.epoch_interruption(true);
    config.max_wasm_stack(MAX_WASM_STACK_BYTES);
    settings.apply(&mut config);
    config
}

impl Sandbox {
    /// An engine with fuel, epoch interruption and pooled instance slots where the address
    /// space allows ([`engine`]); a background thread advances the epoch every `EPOCH_TICK_MS`.
    pub fn new(cache: CompileCache) -> Result<Self> {
        Self::with_pool(cache, PoolSettings::default())
    }

    /// [`Sandbox::new`] with instances made as `settings` say (`[limits] instances`, and the
    /// alternatives the `instances` benchmark measures).
    pub fn with_pool(cache: CompileCache, settings: PoolSettings) -> Result<Self> {
        let engine = engine(&settings)?;
        let mut linker = Linker::new(&engine);
        add_imports(&mut linker).context("linking host imports")?;
        let mut http_linker = linker.clone();
        super::wasi::add_http_to_linker(&mut http_linker).context("linking wasi:http")?;

        let ticker_stop = Arc::new(AtomicBool::new(false));
        let (weak, stop) = (engine.weak(), ticker_stop.clone());
        std::thread::Builder::new()
            .name("limina-epoch".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(EPOCH_TICK_MS));
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })
            .context("starting the epoch thread")?;
        Ok(Sandbox {
            engine,
            linker,
            http_linker,
            cache,
            seats: Seats::new(settings.instances),
            ticker_stop,
        })
    }

    /// Compiles (or loads from cache) a component and resolves its imports against the host.
    /// A component importing something the host does not provide is refused here.
    pub fn compile(&self, bytes: &[u8], label: &str) -> Result<CompiledPackage> {
        self.compile_for(bytes, label, false)
    }

    /// [`Sandbox::compile`] for a package that may (`http`: it holds network grants) or may not
    /// import `wasi:http`: one without grants importing it is refused like any unknown import.
    pub fn compile_for(&self, bytes: &[u8], label: &str, http: bool) -> Result<CompiledPackage> {
        let component = self.cache.load(&self.engine, bytes, label)?;
        CompiledPackage::new(self.linker(http), &component, label, &self.seats)
    }

    /// The package compiled earlier from the component hashing to `content_hash`, read from
    /// the cache alone (no component bytes needed); `None` when the cache holds none.
    pub fn compile_cached(
        &self,
        content_hash: &str,
        label: &str,
        http: bool,
    ) -> Option<Result<CompiledPackage>> {
        let component = self.cache.cached_component(&self.engine, content_hash)?;
        Some(CompiledPackage::new(
            self.linker(http),
            &component,
            label,
            &self.seats,
        ))
    }

    /// What the component hashing to `content_hash` said of itself when this host build last
    /// described it, from the cache (see `described.rs`).
    pub fn cached_description(
        &self,
        content_hash: &str,
        http: bool,
    ) -> Option<(PackageDescription, super::Offered)> {
        self.cache.description(&self.engine, content_hash, http)
    }

    /// Keeps a package's description beside its compiled component for the next start.
    pub fn keep_description(
        &self,
        content_hash: &str,
        http: bool,
        d: &PackageDescription,
        offered: &super::Offered,
    ) {
        self.cache
            .keep_description(&self.engine, content_hash, http, d, offered);
    }

    /// The linker a package links against: with `wasi:http` only when it holds network grants.
    fn linker(&self, http: bool) -> &Linker<GuestState> {
        if http {
            &self.http_linker
        } else {
            &self.linker
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A place in the pool for one instance, taken ahead of making it (a call on the engine
    /// takes it before its decision, so a refusal changes nothing).
    pub fn seat(&self) -> Result<Seat, super::PoolFull> {
        self.seats.take()
    }

    /// Guest instances alive now (each runs a call, or describes a package), with the seats
    /// taken for instances about to be made.
    pub fn instances_alive(&self) -> u32 {
        self.seats.taken()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}

/// The host interfaces this host provides: ours, in both contract versions, and WASI
/// preview 2 (granting nothing) for guests in other languages. Any other import makes a
/// component fail to load, naming it.
fn add_imports(linker: &mut Linker<GuestState>) -> Result<()> {
    super::wasi::add_to_linker(linker)?;
    type D = HasSelf<GuestState>;
    // One list for both versions: the same host functions under each version's names.
    macro_rules! interfaces {
        ($v:ident) => {{
            use $v::limina::skill as wit;
            wit::scene::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::ecs::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::trace::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::log::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::random::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::progress::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::render::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::physics::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::assets::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::agents::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::ui::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::audio::add_to_linker::<GuestState, D>(linker, |s| s)?;
            wit::state::add_to_linker::<GuestState, D>(linker, |s| s)?;
        }};
    }
    interfaces!(v01);
    interfaces!(v02);
    // Pictures of the world came with 0.2.0.
    v02::limina::skill::camera::add_to_linker::<GuestState, D>(linker, |s| s)?;
    // `types` holds types only; 0.2.0's bindings share 0.1.0's, so its instance is named here.
    v01::limina::skill::types::add_to_linker::<GuestState, D>(linker, |s| s)?;
    linker.instance("limina:skill/types@0.2.0")?;
    Ok(())
}
