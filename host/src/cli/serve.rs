//! `limina --mcp-stdio …`: configuration, the realm, the registry with its packages, then the
//! transport.

use crate::Cli;
use anyhow::{Context, Result, bail};
use limina::config::Config;
use limina::limits::TRACE_WINDOW;
use limina::limits::{DEFAULT_HTTP_PORT, DEFAULT_WS_PORT};
use limina::mcp::{Clock, Engine, Guard, Listen, Server, ServerConfig, http, ws};
use limina::packages::{PackageSource, package_dirs};
use limina::realm::{Realm, Rng};
use limina::registry::Registry;
use limina::sandbox::{CompileCache, Sandbox};
use limina::telemetry::OtlpConfig;
use limina::trace::Tracer;
use limina::world::{World, WorldSettings};
use std::net::SocketAddr;
use std::path::PathBuf;

/// Starts the host as the flags say and serves until the transport closes.
pub fn serve(cli: Cli) -> Result<std::process::ExitCode> {
    let level = limina::log::parse_level(&cli.log_level).with_context(|| {
        format!(
            "--log-level must be debug, info, warn or error; got `{}`",
            cli.log_level
        )
    })?;
    limina::log::set_level(level);
    if !cli.mcp_stdio && !cli.mcp_ws && !cli.mcp_http {
        bail!(
            "choose a transport: `limina --mcp-stdio`, `--mcp-ws`, `--mcp-http`, or several (see `limina --help`)"
        );
    }
    let guard = guard(&cli)?;
    let otlp = OtlpConfig::from_env(cli.otlp_endpoint.as_deref()).map_err(anyhow::Error::msg)?;
    if otlp.is_some() {
        // Before any thread starts, so that all of them hold the signals (see telemetry/signals.rs).
        limina::telemetry::signals::hold().context("holding termination signals")?;
    }
    let ws_port = cli.port.unwrap_or(DEFAULT_WS_PORT);
    let http_port = cli
        .http_port
        .or(cli.port.filter(|_| !cli.mcp_ws))
        .unwrap_or(DEFAULT_HTTP_PORT);
    let registry = build_registry(&cli)?;
    let default_profile = cli.profile.clone();

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
            exporting.flush_on_termination()?;
            server.export_telemetry(recorder);
            Some(exporting)
        }
        None => None,
    };
    if cli.watch {
        if cli.packages.is_empty() {
            bail!("--watch needs at least one --packages DIR to watch");
        }
        server.watch(cli.packages.clone())?;
        limina::log::info("watching the package folders for changes");
    }
    let engine = Engine::new(server, cli.mcp_stdio).context("starting the engine")?;
    if cli.mcp_stdio {
        limina::log::info("serving MCP on stdio");
    }
    if cli.mcp_ws {
        let bind = SocketAddr::new(cli.bind, ws_port);
        let config = Listen {
            bind,
            guard: guard.clone(),
        };
        let local = ws::start(config, engine.handle())
            .with_context(|| format!("listening for WebSocket clients on {bind}"))?;
        engine.add_listener();
        limina::log::info(&format!("serving MCP over WebSocket on ws://{local}"));
    }
    if cli.mcp_http {
        let bind = SocketAddr::new(cli.bind, http_port);
        let config = Listen { bind, guard };
        let local = http::start(config, engine.handle())
            .with_context(|| format!("listening for HTTP clients on {bind}"))?;
        engine.add_listener();
        limina::log::info(&format!(
            "serving MCP Streamable HTTP on http://{local}/mcp"
        ));
    }
    engine.run().context("serving")?;
    // The engine (and with it every recorder) is gone: send the last spans and metrics.
    if let Some(exporting) = exporting {
        exporting.finish();
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The registry the flags describe: configuration, sandbox, realm, core and extra packages,
/// the scene, and any stored calibration.
pub fn build_registry(cli: &Cli) -> Result<Registry> {
    let config = match &cli.config {
        Some(path) => Config::load(path).map_err(anyhow::Error::msg)?,
        None => Config::default(),
    };
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
    let sandbox = Sandbox::new(CompileCache::new(cache_dir.clone()))?;
    let trace_dir = cli.trace_dir.clone().unwrap_or_else(default_trace_dir);
    let mut world = World::new(WorldSettings {
        max_entities: cli.max_entities,
        tick_seconds: cli.tick_ms as f32 / 1000.0,
    });
    world.set_assets_dir(cli.assets_dir.clone());
    let realm = Realm {
        world,
        tracer: open_trace(&trace_dir, cli.trace_dir.is_some(), config.trace)?,
        rng: cli.seed.map(Rng::seeded).unwrap_or_else(Rng::from_time),
    };
    let mut registry = Registry::new(sandbox, config.policy, realm);
    registry.set_limit_overrides(config.package_limits);
    registry.set_host_grants(config.grants);
    registry.set_resolver(
        limina::net::HostResolver::with_pins(&cli.resolve)
            .map_err(anyhow::Error::msg)?
            .into_shared(),
    );
    registry.set_traces_dir(trace_dir);

    let core_dir = cli.core_dir.clone().unwrap_or_else(default_core_dir);
    let core = package_dirs(&core_dir).with_context(|| {
        format!(
            "the core packages were not found in {} — build them with `cargo xtask build-guests` or point --core-dir at them",
            core_dir.display()
        )
    })?;
    // The core must load; a third-party package that cannot is refused (and traced) while
    // the host starts without it.
    let core = core
        .iter()
        .map(|d| PackageSource::read(d))
        .collect::<Result<Vec<_>>>()?;
    for source in newest_versions(core) {
        let dir = source.dir.clone();
        registry
            .load(source)
            .with_context(|| format!("loading the core package in {}", dir.display()))?;
    }
    let mut extras = Vec::new();
    for root in &cli.packages {
        extras.extend(package_dirs(root)?);
    }
    // Each package is read once (components can be large); unreadable ones are skipped.
    let extras = extras
        .into_iter()
        .filter_map(|dir| match PackageSource::read(&dir) {
            Ok(source) => Some(source),
            Err(e) => {
                limina::log::error(&format!("skipping the package in {}: {e:#}", dir.display()));
                None
            }
        });
    for source in newest_versions(extras) {
        let dir = source.dir.clone();
        if let Err(e) = registry.load(source) {
            limina::log::error(&format!("refused the package in {}: {e:#}", dir.display()));
        }
    }
    registry.set_package_roots(cli.packages.clone());
    if let Some(path) = &cli.config {
        registry.set_config_path(path.clone());
    }
    if let Some(scene) = &cli.scene {
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
    limina::log::info(&format!(
        "{} skills from {} packages ready",
        registry.skills().count(),
        registry.packages().len()
    ));
    Ok(registry)
}

/// Where calibration results live: beside the compiled-component cache.
fn calibration_file(cache_dir: &std::path::Path) -> Option<PathBuf> {
    Some(cache_dir.parent()?.join("calibration.json"))
}

/// Who may connect to the socket transports. Binding beyond loopback without a token is
/// refused: anyone who can reach the port could otherwise act on the world.
fn guard(cli: &Cli) -> Result<Guard> {
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
    if !cli.bind.is_loopback() && token.is_none() {
        bail!(
            "--bind {} is not a loopback address: also pass --auth-token-file FILE so only clients with the token can connect",
            cli.bind
        );
    }
    if !cli.bind.is_loopback() && cli.mcp_http && cli.allow_origin.is_empty() {
        bail!(
            "--bind {} with --mcp-http: also list the browser origins allowed to call it with --allow-origin (e.g. --allow-origin https://app.example); requests from other origins are refused",
            cli.bind
        );
    }
    Ok(Guard {
        token,
        allowed_origins: cli.allow_origin.clone(),
    })
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

/// The durable trace in `dir`. When the default folder is already used by another host, the
/// trace stays in memory (with a warning) rather than refusing to start; an explicit
/// `--trace-dir` that cannot be used is an error.
fn open_trace(
    dir: &std::path::Path,
    explicit: bool,
    retention: limina::trace::Retention,
) -> Result<Tracer> {
    match Tracer::open_with(dir, TRACE_WINDOW, retention) {
        Ok(tracer) => Ok(tracer),
        Err(e) if !explicit => {
            limina::log::warn(&format!("{e:#}; keeping this run's trace in memory only"));
            Ok(Tracer::new(TRACE_WINDOW))
        }
        Err(e) => Err(e),
    }
}

fn default_trace_dir() -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .map(|d| PathBuf::from(d).join("limina/traces"))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state/limina/traces"))
        })
        .unwrap_or_else(|| PathBuf::from("limina-traces"))
}

/// `$LIMINA_CORE_DIR`, else the folder `cargo xtask build-guests` fills in this checkout.
fn default_core_dir() -> PathBuf {
    std::env::var_os("LIMINA_CORE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/core")))
}
