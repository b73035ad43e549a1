//! `limina --mcp-stdio …`: configuration, the realm, the registry with its packages, then the
//! transport.

use crate::Cli;
use crate::cli::phases::Phases;
use anyhow::{Context, Result, bail};
use limina::config::Config;
use limina::identity::{IdentityConfig, Verifier};
use limina::join::holder::{self, Holder};
use limina::join::settings::Settings;
use limina::limits::{DEFAULT_HTTP_PORT, DEFAULT_WS_PORT};
use limina::limits::{TRACE_WINDOW, TRACE_WINDOW_DURABLE};
use limina::mcp::engine::Stopped;
use limina::mcp::transport::edge::{Admission, EdgeLimits, NetworkSettings};
use limina::mcp::transport::joined::ControlConfig;
use limina::mcp::transport::{http, ws};
use limina::mcp::{Clock, Engine, Guard, Inbound, Listen, Server, ServerConfig};
use limina::net::TlsRoots;
use limina::packages::{PackageSource, embedded, package_dirs};
use limina::persistence::{WorldConfig, WorldStore};
use limina::realm::{Realm, Rng};
use limina::registry::{Builtins, Registry};
use limina::sandbox::{CompileCache, PoolSettings, Sandbox};
use limina::state::StateStore;
use limina::telemetry::OtlpConfig;
use limina::trace::{FolderInUse, Tracer};
use limina::world::{World, WorldSettings};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// Starts the host as the flags say and serves until the transport closes.
pub fn serve(cli: Cli) -> Result<std::process::ExitCode> {
    let level = limina::log::parse_level(&cli.log_level).with_context(|| {
        format!(
            "--log-level must be debug, info, warn or error; got `{}`",
            cli.log_level
        )
    })?;
    limina::log::set_level(level);
    // A file-size limit (`ulimit -f`) makes a write fail with EFBIG, which the trace handles
    // (it refuses calls until it can write again), instead of killing the host.
    // SAFETY: setting a signal's disposition to ignore, before any thread starts.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    if !cli.mcp_stdio && !cli.mcp_ws && !cli.mcp_http {
        bail!(
            "choose a transport: `limina --mcp-stdio`, `--mcp-ws`, `--mcp-http`, or several (see `limina --help`)"
        );
    }
    let trace_dir = cli.trace_dir.clone().unwrap_or_else(default_trace_dir);
    // A durable world served by another live host: join it instead of failing.
    let joinable = !cli.ephemeral_trace;
    if joinable
        && let Holder::Held(held) = holder::probe(&trace_dir).with_context(|| {
            format!(
                "reading the lock of the trace folder {}",
                trace_dir.display()
            )
        })?
        && held.on_this_host()
    {
        return crate::cli::join::run(&cli, trace_dir, held.pid);
    }
    // Before any thread starts, so that all of them hold the signals (see telemetry/signals.rs):
    // a termination signal stops the engine cleanly (the world's last checkpoint, the last
    // spans) and the host then exits with 128 + its number, as it would have.
    limina::telemetry::signals::hold().context("holding termination signals")?;
    let mut stop_on_signals = Ok(());
    let started = run_host(&cli, cli.mcp_stdio, None, |engine| {
        stop_on_signals = limina::telemetry::signals::stop_on(move |signal| {
            engine.send(Inbound::Stop { signal });
        });
    });
    stop_on_signals.context("waiting for termination signals")?;
    match started {
        // Another host on this machine took the folder between the look above and this one's
        // start.
        Err(e)
            if joinable
                && e.downcast_ref::<FolderInUse>()
                    .is_some_and(FolderInUse::on_this_host) =>
        {
            let pid = e.downcast_ref::<FolderInUse>().and_then(|f| f.pid);
            crate::cli::join::run(&cli, trace_dir, pid)
        }
        Err(e) => Err(e),
        Ok(_) => Ok(std::process::ExitCode::SUCCESS),
    }
}

/// Builds the host the flags describe and serves until it stops: stdin ends (with `stdio`),
/// [`Inbound::Finish`], or a termination signal (a drain). `on_engine` is given the engine's
/// handle once every transport listens, the control socket included. `fronted`: the
/// transports of this process's own listeners when they already run in front of the world
/// (a joined process taking it over: they keep serving, through the control socket), else
/// `None` and the listeners the flags ask for are started here.
pub fn run_host(
    cli: &Cli,
    stdio: bool,
    fronted: Option<Vec<serde_json::Value>>,
    on_engine: impl FnOnce(limina::mcp::EngineHandle),
) -> Result<Stopped> {
    let mut phases = Phases::start();
    let guard = guard(cli)?;
    let config = load_config(cli)?;
    let network = config.network.clone();
    let identity = config
        .identity
        .clone()
        .map(|i| (i, config.outbound.clone()));
    let otlp = OtlpConfig::from_env(cli.otlp_endpoint.as_deref()).map_err(anyhow::Error::msg)?;
    phases.end("configuration");
    let registry = build_registry_from(cli, config, true, &mut phases)?;
    let default_profile = cli.profile.clone();
    let (admission, limits) = admission(
        cli,
        registry.profiles(),
        network,
        shared_token(cli)?,
        identity,
    )?;
    let profiles: Vec<String> = registry
        .profiles()
        .names()
        .into_iter()
        .map(str::to_string)
        .collect();
    let durable = registry.realm().tracer.is_durable();

    let clock = if cli.manual_clock {
        Clock::Manual
    } else {
        Clock::real_time(cli.tick_ms)
    };
    let mut server = Server::new(
        registry,
        ServerConfig {
            default_profile,
            clock,
        },
    );
    let exporting = match &otlp {
        Some(config) => {
            let (recorder, exporting) = limina::telemetry::start(config)?;
            server.export_telemetry(recorder);
            Some(exporting)
        }
        None => None,
    };
    if cli.watch {
        if cli.packages.is_empty() {
            bail!("--watch needs at least one --packages DIR to watch");
        }
        server.watch(super::extras::folders(&cli.packages))?;
        limina::log::info("watching the package folders for changes");
    }
    let mut engine = Engine::new(server, stdio).context("starting the engine")?;
    engine.set_drain_period(std::time::Duration::from_millis(cli.drain_ms));
    phases.end("engine");
    let mut transports = Vec::new();
    if stdio {
        limina::log::info("serving MCP on stdio");
    }
    // Also a process that took the world over: it relays its stdio client to itself.
    if cli.mcp_stdio {
        transports.push(serde_json::json!({"kind": "stdio"}));
    }
    let listen = fronted.is_none();
    transports.extend(fronted.unwrap_or_default());
    if listen {
        let started = listeners(cli, &guard, &admission, limits, engine.handle(), "")?;
        for _ in &started {
            engine.add_listener();
        }
        transports.extend(started);
    }
    // Other limina processes join this world through the control socket (a durable world
    // only: one kept in memory is this process's alone). Its file goes when this returns.
    let _control = if durable {
        let trace_dir = cli.trace_dir.clone().unwrap_or_else(default_trace_dir);
        let bound = limina::join::socket::bind(&trace_dir).with_context(|| {
            format!(
                "binding the control socket {}",
                limina::join::socket::path(&trace_dir).display()
            )
        })?;
        let config = ControlConfig {
            listener: bound.listener.try_clone()?,
            settings: settings(cli),
            transports,
            profiles,
            trace_dir,
        };
        limina::mcp::transport::joined::start(config, engine.handle())
            .context("serving the control socket")?;
        Some(bound)
    } else {
        None
    };
    phases.end("listeners");
    phases.log();
    on_engine(engine.handle());
    let stopped = engine.run().context("serving")?;
    // The engine (and with it every recorder) is gone: send the last spans and metrics.
    if let Some(exporting) = exporting {
        exporting.finish();
    }
    // Stopped by a signal, drained or cut short, the world's checkpoint is written: a
    // clean stop, as an orchestrator asked for it.
    limina::log::info(&format!("stopped: {stopped:?}"));
    Ok(stopped)
}

/// A joined process's own listeners (`--mcp-ws`, `--mcp-http`), run in front of the host
/// serving `trace_dir`: the same transports and network edge a serving host runs, with this
/// process's own admission rules (its flags and --config's `[network]` and `[identity]`),
/// each client forwarded to the serving host as a session of its own
/// (`limina::mcp::transport::front` says why admission happens here). Their transports, as
/// `limina status` lists them.
pub fn front_listeners(cli: &Cli, trace_dir: &std::path::Path) -> Result<Vec<serde_json::Value>> {
    let guard = guard(cli)?;
    let config = load_config(cli)?;
    let profiles = &config.policy.profiles;
    profiles
        .get(&cli.profile)
        .map_err(anyhow::Error::msg)
        .context("--profile")?;
    let identity = config
        .identity
        .clone()
        .map(|i| (i, config.outbound.clone()));
    let (admission, limits) = admission(
        cli,
        profiles,
        config.network.clone(),
        shared_token(cli)?,
        identity,
    )?;
    let engine = limina::mcp::transport::front::start(trace_dir.to_path_buf())
        .context("starting the forwarder of this process's listeners")?;
    let serving = format!("in front of the host serving {}: ", trace_dir.display());
    listeners(cli, &guard, &admission, limits, engine, &serving)
}

/// Starts the listeners the flags ask for (`--mcp-ws`, `--mcp-http`) on `engine`, behind this
/// process's network edge; their transports, as `limina status` lists them. `serving` begins
/// their log lines (a joined process names the host it serves in front of).
fn listeners(
    cli: &Cli,
    guard: &Guard,
    admission: &Arc<Admission>,
    limits: EdgeLimits,
    engine: limina::mcp::EngineHandle,
    serving: &str,
) -> Result<Vec<serde_json::Value>> {
    let listen = |port: u16| Listen {
        bind: SocketAddr::new(cli.bind, port),
        guard: guard.clone(),
        admission: admission.clone(),
        limits,
    };
    let mut transports = Vec::new();
    if cli.mcp_ws {
        let config = listen(cli.port.unwrap_or(DEFAULT_WS_PORT));
        let bind = config.bind;
        let local = ws::start(config, engine.clone())
            .with_context(|| format!("listening for WebSocket clients on {bind}"))?;
        limina::log::info(&format!(
            "{serving}serving MCP over WebSocket on ws://{local}"
        ));
        transports.push(serde_json::json!({"kind": "ws", "address": format!("ws://{local}")}));
    }
    if cli.mcp_http {
        // `--port` names the HTTP port too when it is the only socket transport.
        let port = cli.http_port.or(cli.port.filter(|_| !cli.mcp_ws));
        let config = listen(port.unwrap_or(DEFAULT_HTTP_PORT));
        let bind = config.bind;
        let viewer = limina::viewer::Viewer {
            profile: cli.viewer_profile.clone(),
            assets_dir: cli.assets_dir.clone(),
        };
        let local = http::start(config, viewer, engine)
            .with_context(|| format!("listening for HTTP clients on {bind}"))?;
        limina::log::info(&format!(
            "{serving}serving MCP Streamable HTTP on http://{local}/mcp"
        ));
        limina::log::info(&format!(
            "the world viewer: open http://{local}/ in a browser"
        ));
        transports
            .push(serde_json::json!({"kind": "http", "address": format!("http://{local}/mcp")}));
    }
    Ok(transports)
}

/// The configuration this process's flags give, as the control socket's handshake carries
/// it: the serving host's is told to every joining process, which compares its own.
pub fn settings(cli: &Cli) -> Settings {
    let absolute = |p: &std::path::Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    let core_dir = cli
        .core_dir
        .clone()
        .or_else(|| std::env::var_os("LIMINA_CORE_DIR").map(PathBuf::from));
    Settings {
        // A folder by its absolute path; anything else (a package reference) as given.
        packages: cli
            .packages
            .iter()
            .map(|p| {
                if p.exists() {
                    absolute(p)
                } else {
                    p.display().to_string()
                }
            })
            .collect(),
        config: cli.config.as_deref().map(absolute),
        config_digest: cli
            .config
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .map(|bytes| hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes))),
        core_dir: core_dir.as_deref().map(absolute),
        watch: cli.watch,
        profile: cli.profile.clone(),
        max_entities: cli.max_entities,
        tick_ms: cli.tick_ms,
        manual_clock: cli.manual_clock,
    }
}

/// The registry the flags describe: configuration, sandbox, realm, core and extra packages,
/// the scene, and any stored calibration. Without `durable_trace` the trace stays in memory.
pub fn build_registry(cli: &Cli, durable_trace: bool) -> Result<Registry> {
    build_registry_from(cli, load_config(cli)?, durable_trace, &mut Phases::start())
}

/// The configuration --config names, or the defaults.
fn load_config(cli: &Cli) -> Result<Config> {
    match &cli.config {
        Some(path) => Config::load(path).map_err(anyhow::Error::msg),
        None => Ok(Config::default()),
    }
}

/// What network clients may take: `--profile`, plus `--network-profile`, `[network]
/// profiles` and (with --mcp-http) `--viewer-profile`, or what their token names; and the
/// connection limits.
fn admission(
    cli: &Cli,
    profiles: &limina::policy::Profiles,
    network: NetworkSettings,
    shared_token: Option<String>,
    identity: Option<(IdentityConfig, TlsRoots)>,
) -> Result<(Arc<Admission>, EdgeLimits)> {
    for name in &cli.network_profile {
        profiles
            .get(name)
            .map_err(anyhow::Error::msg)
            .context("--network-profile")?;
    }
    let mut also = network.profiles;
    also.extend(cli.network_profile.iter().cloned());
    if cli.mcp_http {
        // The browser viewer's own session (read-only unless the operator says otherwise).
        also.push(cli.viewer_profile.clone());
    }
    let mut admission = Admission::new(&cli.profile, &also, shared_token, network.tokens);
    if let Some((config, roots)) = identity {
        let issuer = config.issuer.clone();
        let verifier = Verifier::new(config, roots, admission.ceiling().to_vec())
            .map_err(anyhow::Error::msg)
            .context("[identity]")?;
        // The provider's keys are fetched now, off the start: a provider that is slow or down
        // delays no one (its tokens are refused, 503, until it answers).
        let warming = verifier.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the identity provider's first fetch")?;
        std::thread::Builder::new()
            .name("limina-identity".into())
            .spawn(move || runtime.block_on(warming.warm_up()))
            .context("starting the identity provider's first fetch")?;
        limina::log::info(&format!(
            "access tokens from the identity provider {issuer} are accepted for {}",
            verifier.metadata().resource()
        ));
        admission = admission.with_identity(verifier);
    }
    Ok((Arc::new(admission), network.limits))
}

/// The registry the flags and `config` describe.
fn build_registry_from(
    cli: &Cli,
    config: Config,
    durable_trace: bool,
    phases: &mut Phases,
) -> Result<Registry> {
    config
        .policy
        .profiles
        .get(&cli.profile)
        .map_err(anyhow::Error::msg)
        .context("--profile")?;

    let cache_dir = if cli.no_cache {
        None
    } else {
        cli.cache_dir.clone().or_else(CompileCache::default_dir)
    };
    // The wasm engine and its linkers need nothing else and take about as long as the trace,
    // the world, the built-in skills and reading the core packages together: built on a
    // thread of their own meanwhile.
    let precompiled = cli
        .precompiled
        .clone()
        .or_else(|| std::env::var_os("LIMINA_PRECOMPILED_DIR").map(PathBuf::from))
        .filter(|_| !cli.no_cache);
    let cache = CompileCache::new(cache_dir.clone()).with_precompiled(precompiled);
    let pool = PoolSettings {
        instances: config.ceilings.instances,
        ..PoolSettings::default()
    };
    let sandbox = std::thread::Builder::new()
        .name("limina-sandbox".into())
        .spawn(move || Sandbox::with_pool(cache, pool))
        .context("starting the thread that builds the sandbox")?;
    let trace_dir = cli.trace_dir.clone().unwrap_or_else(default_trace_dir);
    let tracer = if durable_trace {
        open_trace(&trace_dir, cli, config.trace, config.trace_durability)?
    } else {
        Tracer::new(TRACE_WINDOW)
    };
    phases.end("trace");
    let (mut world, store, kept) = kept_world(cli, &tracer, &trace_dir, config.world)?;
    phases.end("world");
    world.set_assets_dir(cli.assets_dir.clone());
    let realm = Realm {
        world,
        tracer,
        rng: cli.seed.map(Rng::seeded).unwrap_or_else(Rng::from_time),
        // Opened below only when a package keeps state, else on its first use.
        state: StateStore::deferred(&trace_dir.join("state.sqlite")),
    };
    let builtins = Builtins::new();
    phases.end("built-in skills");
    let core = core_sources(cli.core_dir.clone())?;
    phases.end("core sources");
    let sandbox = sandbox
        .join()
        .map_err(|_| anyhow::anyhow!("building the sandbox panicked"))??;
    phases.end("sandbox");
    let mut oci = config.oci;
    // Fetched packages are kept beside the compiled cache (none with --no-cache).
    oci.cache = cache_dir
        .as_deref()
        .and_then(std::path::Path::parent)
        .map(|base| base.join("packages"));
    let mut registry = Registry::with_builtins(sandbox, config.policy, realm, builtins);
    registry.set_oci(oci);
    registry.set_limit_overrides(config.package_limits);
    registry.set_host_grants(config.grants);
    registry.set_ceilings(config.ceilings);
    registry.set_files(config.files);
    registry.set_tls_roots(config.outbound);
    registry.set_scan_results(config.scan_results);
    registry.set_resolver(
        limina::net::HostResolver::with_pins(&cli.resolve)
            .map_err(anyhow::Error::msg)?
            .into_shared(),
    );
    registry.set_traces_dir(trace_dir);

    // The core must load; a third-party package that cannot is refused (and traced) while
    // the host starts without it.
    let mut core_names = Vec::new();
    for source in newest_versions(core) {
        let dir = source.dir.clone();
        core_names.push(source.manifest.name.clone());
        registry
            .load(source)
            .with_context(|| format!("loading the core package in {}", dir.display()))?;
    }
    registry.set_core_packages(core_names);
    phases.end("core packages");
    for source in newest_versions(super::extras::sources(&cli.packages, registry.oci())?) {
        let dir = source.dir.clone();
        if let Err(e) = registry.load(source) {
            limina::log::error(&format!("refused the package in {}: {e:#}", dir.display()));
        }
    }
    registry.set_package_roots(super::extras::folders(&cli.packages));
    // The state store is opened now when a package keeps state, so a folder it cannot be
    // opened in stops the start instead of that package's first call.
    if registry
        .packages()
        .iter()
        .any(|p| p.manifest.grants.state.is_some())
    {
        registry.realm().state.ready().map_err(anyhow::Error::msg)?;
    }
    phases.end("packages");
    // Upstream MCP servers after the packages, so a name that would shadow one is refused.
    let upstreams =
        limina::upstream::Upstream::start_all(config.upstreams).map_err(anyhow::Error::msg)?;
    registry
        .mount_upstreams(upstreams)
        .map_err(anyhow::Error::msg)
        .context("[[upstream]]")?;
    if let Some(path) = &cli.config {
        registry.set_config_loader(limina::config::Config::loader(path.clone()));
    }
    let replay_scene = cli.scene.is_some() && !kept;
    if let (Some(scene), false) = (&cli.scene, replay_scene) {
        registry.set_scene_file(scene.clone());
        limina::log::info(&format!(
            "the kept world was restored, so {} is not replayed (it is on `dev.reload scene`, \
             or at a start with --fresh-world)",
            scene.display()
        ));
    }
    if let (Some(scene), true) = (&cli.scene, replay_scene) {
        registry.set_scene_file(scene.clone());
        let replayed = registry
            .replay_scene(None)
            .with_context(|| format!("replaying the scene {}", scene.display()))?;
        limina::log::info(&format!(
            "scene {}: {} calls replayed",
            scene.display(),
            replayed.len()
        ));
    }
    if let Some(store) = store {
        registry.keep_world(store)?;
        // A world not rebuilt from the folder (fresh on purpose, or a scene replayed into it)
        // is checkpointed at once: the journal before it no longer describes it.
        if cli.fresh_world || replay_scene {
            registry
                .checkpoint_replaced_world("start")
                .context("writing the starting world's checkpoint")?;
        }
    }
    // Latency measured by an earlier calibration (`limina calibrate`), kept beside the cache.
    let calibration = cli
        .calibration
        .clone()
        .or_else(|| cache_dir.as_deref().and_then(calibration_file));
    if let Some(file) = calibration {
        registry.set_calibration_file(file.clone());
        match registry.load_calibration() {
            Ok(0) => {}
            Ok(n) => limina::log::info(&format!(
                "latency of {n} skills from the calibration in {}",
                file.display()
            )),
            Err(e) => limina::log::warn(&format!("ignoring {}: {e:#}", file.display())),
        }
    }
    phases.end("upstreams, scene, calibration");
    limina::log::info(&format!(
        "{} skills from {} packages ready",
        registry.skills().count(),
        registry.packages().len()
    ));
    Ok(registry)
}

/// The world to start with: the one kept in the trace folder (its newest checkpoint and the
/// journal after it), or an empty one with `--fresh-world` or an in-memory trace. Also the
/// store that keeps it from now on, and whether a kept world with a history was restored.
fn kept_world(
    cli: &Cli,
    tracer: &Tracer,
    trace_dir: &std::path::Path,
    config: WorldConfig,
) -> Result<(World, Option<WorldStore>, bool)> {
    let settings = WorldSettings {
        max_entities: cli.max_entities,
        tick_seconds: cli.tick_ms as f32 / 1000.0,
    };
    if !tracer.is_durable() {
        limina::log::warn("the trace is in memory, so the world is too: it ends with this run");
        return Ok((World::new(settings), None, false));
    }
    let mut store = WorldStore::new(trace_dir, config);
    if cli.fresh_world {
        limina::log::info(&format!(
            "starting an empty world on purpose (--fresh-world); it is kept in {} from now on",
            store.dir().display()
        ));
        return Ok((World::new(settings), Some(store), false));
    }
    let started = std::time::Instant::now();
    let (world, restored) = store.restore(settings)?;
    let kept = restored.checkpoint.is_some() || restored.records > 0;
    if kept {
        limina::log::info(&format!(
            "world restored in {:.1} ms: {} entities at tick {} from {} and {} journal records",
            started.elapsed().as_secs_f64() * 1000.0,
            world.entity_count(),
            world.tick(),
            restored
                .checkpoint
                .as_ref()
                .map_or("no checkpoint".to_string(), |p| p.display().to_string()),
            restored.records,
        ));
    }
    Ok((world, Some(store), kept))
}

/// Where calibration results live: beside the compiled-component cache.
fn calibration_file(cache_dir: &std::path::Path) -> Option<PathBuf> {
    Some(cache_dir.parent()?.join("calibration.json"))
}

/// Who may connect to the socket transports. Binding beyond loopback without a token is
/// refused: anyone who can reach the port could otherwise act on the world.
fn guard(cli: &Cli) -> Result<Guard> {
    if !cli.bind.is_loopback() && cli.auth_token_file.is_none() && !has_tokens(cli) {
        bail!(
            "--bind {} is not a loopback address: also pass --auth-token-file FILE (or list `[[network.tokens]]` or an `[identity]` provider in --config) so only clients with a token can connect",
            cli.bind
        );
    }
    if !cli.bind.is_loopback() && cli.mcp_http && cli.allow_origin.is_empty() {
        bail!(
            "--bind {} with --mcp-http: also list the browser origins allowed to call it with --allow-origin (e.g. --allow-origin https://app.example); requests from other origins are refused",
            cli.bind
        );
    }
    if cli.allow_origin.iter().any(|o| o == "null") {
        limina::log::warn(
            "--allow-origin null: pages in sandboxed iframes on any website, and pages opened from files, may now connect",
        );
    }
    Ok(Guard {
        allowed_origins: cli.allow_origin.clone(),
    })
}

/// Whether --config lists tokens or an identity provider (read again only when binding beyond
/// loopback).
fn has_tokens(cli: &Cli) -> bool {
    load_config(cli).is_ok_and(|c| !c.network.tokens.is_empty() || c.identity.is_some())
}

/// `--auth-token-file`'s token: one every client shares.
fn shared_token(cli: &Cli) -> Result<Option<String>> {
    let token = match &cli.auth_token_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--auth-token-file: reading {}", path.display()))?;
            let token = text.trim().to_string();
            if token.len() < 16 {
                bail!(
                    "--auth-token-file: the token in {} is {} characters; use at least 16 (e.g. `openssl rand -hex 32`)",
                    path.display(),
                    token.len()
                );
            }
            Some(token)
        }
        None => None,
    };
    Ok(token)
}

/// The packages, keeping only the highest version of each name.
fn newest_versions(sources: impl IntoIterator<Item = PackageSource>) -> Vec<PackageSource> {
    let mut newest: std::collections::BTreeMap<String, PackageSource> = Default::default();
    for source in sources {
        let version = |s: &PackageSource| semver::Version::parse(&s.manifest.version).ok();
        let keep = match newest.get(&source.manifest.name) {
            Some(current) => version(&source) > version(current),
            None => true,
        };
        if keep {
            newest.insert(source.manifest.name.clone(), source);
        }
    }
    newest.into_values().collect()
}

/// The durable trace in `dir`, or with `--ephemeral-trace` one in memory only. A folder that
/// cannot be used (another host holds it) stops the start: there is no silent memory-only mode.
fn open_trace(
    dir: &std::path::Path,
    cli: &Cli,
    retention: limina::trace::Retention,
    durability: limina::trace::Durability,
) -> Result<Tracer> {
    if cli.ephemeral_trace {
        limina::log::warn(
            "--ephemeral-trace: this run's trace is kept in memory only and is lost when the \
             host stops",
        );
        return Ok(Tracer::new(TRACE_WINDOW));
    }
    Tracer::open_durable(dir, TRACE_WINDOW_DURABLE, retention, durability)
}

pub fn default_trace_dir() -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .map(|d| PathBuf::from(d).join("limina/traces"))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state/limina/traces"))
        })
        .unwrap_or_else(|| PathBuf::from("limina-traces"))
}

/// The core packages: read from `--core-dir` or `$LIMINA_CORE_DIR` when one is given (for
/// working on them), else those built into this binary.
fn core_sources(flag: Option<PathBuf>) -> Result<Vec<PackageSource>> {
    let Some(core_dir) = flag.or_else(|| std::env::var_os("LIMINA_CORE_DIR").map(PathBuf::from))
    else {
        if let Some(note) = embedded::stale_note() {
            limina::log::warn(&note);
        }
        return embedded::sources();
    };
    let core = package_dirs(&core_dir).with_context(|| {
        format!(
            "the core packages were not found in {} — build them with `cargo xtask build-guests` or point --core-dir at them",
            core_dir.display()
        )
    })?;
    limina::log::info(&format!(
        "core packages from {} (not the ones built in)",
        core_dir.display()
    ));
    core.iter().map(|d| PackageSource::read(d)).collect()
}
