//! The `limina` command: flags → configuration → a transport.

use anyhow::{Context, Result, bail};
use clap::Parser;
use limina::config::Config;
use limina::limits::{DEFAULT_TICK_MS, MAX_ENTITIES, TRACE_WINDOW};
use limina::mcp::{Clock, Server, ServerConfig, stdio};
use limina::packages::{PackageSource, package_dirs};
use limina::policy::DEFAULT_PROFILE;
use limina::realm::{Realm, Rng};
use limina::registry::Registry;
use limina::sandbox::{CompileCache, Sandbox};
use limina::trace::Tracer;
use limina::world::{World, WorldSettings};
use std::path::PathBuf;
use std::process::ExitCode;

/// A WASM-sandboxed skill host: agents connect over MCP, discover skills and call them.
/// Every skill is a WebAssembly component run with fuel, memory and time limits.
#[derive(Parser, Debug)]
#[command(name = "limina", version, about, long_about = None)]
struct Cli {
    /// Serve MCP as newline-delimited JSON-RPC on stdin/stdout (logs go to stderr).
    #[arg(long)]
    mcp_stdio: bool,

    /// Configuration file (TOML): profiles and tool allow-lists, quotas, budgets, maxSessions,
    /// per-package limits. Without it, built-in defaults apply.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Profile for sessions whose `initialize` names none (least privilege by default).
    #[arg(long, default_value = DEFAULT_PROFILE)]
    profile: String,

    /// Folder of core packages [default: $LIMINA_CORE_DIR, else the build's target/core].
    #[arg(long, value_name = "DIR")]
    core_dir: Option<PathBuf>,

    /// Load every package folder (one holding a limina.toml) inside DIR. Repeatable.
    #[arg(long, value_name = "DIR")]
    packages: Vec<PathBuf>,

    /// Length of one world step in milliseconds of real time.
    #[arg(long, default_value_t = DEFAULT_TICK_MS, value_name = "MS")]
    tick_ms: u64,

    /// Do not advance the world with real time (steps only on request; for deterministic tests).
    #[arg(long)]
    manual_clock: bool,

    /// Seed for the randomness skills draw from the host.
    #[arg(long)]
    seed: Option<u64>,

    /// Most entities the world may hold.
    #[arg(long, default_value_t = MAX_ENTITIES)]
    max_entities: usize,

    /// Folder for the durable trace (`trace.jsonl`) and `trace.export` files
    /// [default: $XDG_STATE_HOME/limina/traces or ~/.local/state/limina/traces].
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,

    /// Folder for compiled components [default: $LIMINA_CACHE_DIR/compiled or ~/.cache/limina/compiled].
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,

    /// Compile every component at start-up instead of using the on-disk cache.
    #[arg(long)]
    no_cache: bool,

    /// Log level on stderr: debug, info, warn or error.
    #[arg(long, default_value = "info")]
    log_level: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            limina::log::error(&format!("{e:#}"));
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
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
    let realm = Realm {
        world: World::new(WorldSettings {
            max_entities: cli.max_entities,
            tick_seconds: cli.tick_ms as f32 / 1000.0,
        }),
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
    Ok(())
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
