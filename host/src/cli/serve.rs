//! `limina --mcp-stdio …`: configuration, the realm, the registry with its packages, then the
//! transport.

use crate::Cli;
use anyhow::{Context, Result, bail};
use limina::config::Config;
use limina::limits::TRACE_WINDOW;
use limina::mcp::{Clock, Server, ServerConfig, stdio};
use limina::packages::{PackageSource, package_dirs};
use limina::realm::{Realm, Rng};
use limina::registry::Registry;
use limina::sandbox::{CompileCache, Sandbox};
use limina::trace::Tracer;
use limina::world::{World, WorldSettings};
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
    if !cli.mcp_stdio {
        bail!("choose a transport: `limina --mcp-stdio` (see `limina --help`)");
    }
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

    let cache = if cli.no_cache {
        CompileCache::new(None)
    } else {
        CompileCache::new(cli.cache_dir.clone().or_else(CompileCache::default_dir))
    };
    let sandbox = Sandbox::new(cache)?;
    let trace_dir = cli.trace_dir.clone().unwrap_or_else(default_trace_dir);
    let mut world = World::new(WorldSettings {
        max_entities: cli.max_entities,
        tick_seconds: cli.tick_ms as f32 / 1000.0,
    });
    world.set_assets_dir(cli.assets_dir.clone());
    let realm = Realm {
        world,
        tracer: open_trace(&trace_dir, cli.trace_dir.is_some())?,
        rng: cli.seed.map(Rng::seeded).unwrap_or_else(Rng::from_time),
    };
    let mut registry = Registry::new(sandbox, config.policy, realm);
    registry.set_limit_overrides(config.package_limits);
    registry.set_traces_dir(trace_dir);

    let core_dir = cli.core_dir.clone().unwrap_or_else(default_core_dir);
    let mut dirs = package_dirs(&core_dir).with_context(|| {
        format!(
            "the core packages were not found in {} — build them with `cargo xtask build-guests` or point --core-dir at them",
            core_dir.display()
        )
    })?;
    for extra in &cli.packages {
        dirs.extend(package_dirs(extra)?);
    }
    for dir in dirs {
        let source = PackageSource::read(&dir)?;
        registry
            .load(source)
            .with_context(|| format!("loading the package in {}", dir.display()))?;
    }
    limina::log::info(&format!(
        "{} skills from {} packages ready; serving MCP on stdio",
        registry.skills().count(),
        registry.packages().len()
    ));

    let clock = if cli.manual_clock {
        Clock::Manual
    } else {
        Clock::real_time(cli.tick_ms)
    };
    let mut server = Server::new(
        registry,
        ServerConfig {
            default_profile: cli.profile,
            clock,
        },
    );
    stdio::serve(
        &mut server,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )
    .context("serving stdio")?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// The durable trace in `dir`. When the default folder is already used by another host, the
/// trace stays in memory (with a warning) rather than refusing to start; an explicit
/// `--trace-dir` that cannot be used is an error.
fn open_trace(dir: &std::path::Path, explicit: bool) -> Result<Tracer> {
    match Tracer::open(&dir.join("trace.jsonl"), TRACE_WINDOW) {
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
