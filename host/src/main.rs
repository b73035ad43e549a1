//! The `limina` command: flags → configuration → a transport, or a tool subcommand.

mod cli;

use clap::{Parser, Subcommand};
use limina::limits::{DEFAULT_TICK_MS, MAX_ENTITIES};
use limina::policy::DEFAULT_PROFILE;
use std::path::PathBuf;
use std::process::ExitCode;

/// A WASM-sandboxed skill host: agents connect over MCP, discover skills and call them.
/// Every skill is a WebAssembly component run with fuel, memory and time limits.
#[derive(Parser, Debug)]
#[command(name = "limina", about, long_about = None, disable_version_flag = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Print the host version, the WIT contract and each built-in core package (name,
    /// version, content hash), then exit.
    #[arg(short = 'V', long)]
    version: bool,

    /// Serve MCP as newline-delimited JSON-RPC on stdin/stdout (logs go to stderr).
    #[arg(long)]
    mcp_stdio: bool,

    /// Serve MCP over WebSocket (one JSON-RPC message per text frame, subprotocol `mcp`), many
    /// clients on one world, with state sync (`state/subscribe`, `aoi/declare`). May run
    /// beside --mcp-stdio on the same world.
    #[arg(long)]
    mcp_ws: bool,

    /// Serve MCP Streamable HTTP at http://<bind>:<http-port>/mcp, for standard remote MCP
    /// clients (sessions, SSE streams, resumption). May run beside the other transports.
    #[arg(long)]
    mcp_http: bool,

    /// Port of the transport chosen (0 picks a free one; the address is logged): with
    /// --mcp-ws the WebSocket port [default: 8787], with --mcp-http alone the HTTP port.
    #[arg(long, value_name = "N")]
    port: Option<u16>,

    /// HTTP port when both --mcp-ws and --mcp-http run [default: 8788].
    #[arg(long, value_name = "N")]
    http_port: Option<u16>,

    /// Address to listen on. Anything but loopback needs --auth-token-file.
    #[arg(long, default_value = "127.0.0.1", value_name = "IP")]
    bind: std::net::IpAddr,

    /// File holding the bearer token WebSocket and HTTP clients must send
    /// (`Authorization: Bearer <token>`); required to bind beyond loopback.
    #[arg(long, value_name = "FILE")]
    auth_token_file: Option<PathBuf>,

    /// A browser Origin allowed to connect besides loopback pages (e.g. https://app.example).
    /// Repeatable. `null` (sandboxed iframes on any site, pages opened from files) is refused
    /// unless given here — which lets any such page drive this host.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,

    /// A profile WebSocket and HTTP clients may take at `initialize` besides --profile
    /// (also `[network] profiles` in --config). Repeatable. Without it a network client gets
    /// at most --profile; a token listed in `[[network.tokens]]` decides its own.
    #[arg(long, value_name = "PROFILE")]
    network_profile: Vec<String>,

    /// Configuration file (TOML): profiles and tool allow-lists, quotas, budgets, maxSessions,
    /// per-package limits. Without it, built-in defaults apply.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Profile for sessions whose `initialize` names none (least privilege by default).
    #[arg(long, default_value = DEFAULT_PROFILE)]
    profile: String,

    /// Folder of core packages to use instead of those built into this binary, e.g. target/core
    /// while working on one [default: $LIMINA_CORE_DIR, else the built-in core].
    #[arg(long, value_name = "DIR")]
    core_dir: Option<PathBuf>,

    /// Load every package folder (one holding a limina.toml) inside DIR; when several hold the
    /// same package, the highest version. Repeatable.
    #[arg(long, value_name = "DIR")]
    packages: Vec<PathBuf>,

    /// Watch the --packages folders and hot-reload a package when its component or manifest
    /// changes (compiled off the request path; a broken build keeps the old version).
    #[arg(long)]
    watch: bool,

    /// A scene file (JSONL of skill calls: {"skill": ..., "input": {...}}) replayed at
    /// start-up and by `dev.reload {target: "scene"}`.
    #[arg(long, value_name = "FILE")]
    scene: Option<PathBuf>,

    /// Length of one world step in milliseconds of real time.
    #[arg(long, default_value_t = DEFAULT_TICK_MS, value_name = "MS")]
    tick_ms: u64,

    /// Do not advance the world with real time (steps only on request; for deterministic tests).
    #[arg(long)]
    manual_clock: bool,

    /// Seed for the randomness skills draw from the host.
    #[arg(long)]
    seed: Option<u64>,
    /// Pin a name of outbound requests to addresses (NAME=IP[,IP…], repeatable), as curl's
    /// --resolve: the host connects there instead of asking the system's resolver. The address
    /// is still checked (a private or loopback one needs a grant naming it).
    #[arg(long, value_name = "NAME=IP")]
    resolve: Vec<String>,

    /// Profile of the browser viewer's session (`GET /` with --mcp-http); keep it read-only.
    #[arg(long, value_name = "PROFILE", default_value = "system.readonly")]
    viewer_profile: String,

    /// Folder `three.loadGLTF` reads glTF/GLB assets from; asset ids are paths inside it.
    #[arg(long, value_name = "DIR", default_value = "./assets")]
    assets_dir: PathBuf,

    /// Most entities the world may hold.
    #[arg(long, default_value_t = MAX_ENTITIES)]
    max_entities: usize,

    /// Folder for the durable trace (segments in `segments/`, their index `index.sqlite`) and
    /// `trace.export` files; segment size and retention are `[trace]` in --config
    /// [default: $XDG_STATE_HOME/limina/traces or ~/.local/state/limina/traces].
    #[arg(long, value_name = "DIR", global = true)]
    trace_dir: Option<PathBuf>,

    /// Keep this run's trace in memory only: nothing is recorded on disk and the history is
    /// lost when the host stops (for a second host beside one that holds the trace folder).
    #[arg(long, conflicts_with = "trace_dir")]
    ephemeral_trace: bool,
    /// Start with an empty world on purpose instead of the one kept in the trace folder (its
    /// checkpoints stay until newer ones replace them; the new world is kept from now on).
    #[arg(long)]
    fresh_world: bool,

    /// Folder for compiled components [default: $LIMINA_CACHE_DIR/compiled or ~/.cache/limina/compiled].
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,

    /// Where calibration results (`limina calibrate`, `skills.calibrate`) are kept and loaded
    /// from at start-up [default: calibration.json beside the compiled cache].
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,

    /// A read-only folder of compiled components made ahead of time by `limina precompile`
    /// (a container image bakes one in), read before the cache; entries made by another build
    /// of limina or for a CPU with other features are passed over and compiled instead
    /// [default: $LIMINA_PRECOMPILED_DIR].
    #[arg(long, value_name = "DIR")]
    precompiled: Option<PathBuf>,

    /// Compile every component at start-up instead of using the on-disk cache.
    #[arg(long)]
    no_cache: bool,

    /// Export OpenTelemetry spans (one per MCP request, with its policy decision, hooks and
    /// guest call) and the mcp.server.operation.duration metric over OTLP/HTTP to the
    /// collector at this base URL, e.g. http://127.0.0.1:4318 (/v1/traces and /v1/metrics
    /// are appended). Off by default; without the flag, the standard
    /// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns it on, and
    /// OTEL_SERVICE_NAME names the service [default: limina].
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,

    /// After a termination signal, how long calls in flight get to finish before the world is
    /// checkpointed and the host exits 0 (new calls are refused meanwhile; a second signal
    /// cuts it short). Keep it inside the orchestrator's grace period.
    #[arg(long, default_value_t = limina::limits::DEFAULT_DRAIN_MS, value_name = "MS")]
    drain_ms: u64,

    /// Log level on stderr: debug, info, warn or error.
    #[arg(long, default_value = "info")]
    log_level: String,
}

/// Tools that work on files instead of serving.
#[derive(Subcommand, Debug)]
enum Command {
    /// Work with trace files.
    Trace {
        #[command(subcommand)]
        action: TraceAction,
    },
    /// Time every guest skill on a scratch world (never the live one) with inputs made from its
    /// schema, print each one's latency tier, and keep the results beside the compiled cache
    /// so a host started later lists tiers before the first real call. Takes the same
    /// --packages, --config, --core-dir and --cache-dir as serving.
    Calibrate {
        /// Calls per skill (at least 10).
        #[arg(long, default_value_t = 10)]
        runs: usize,
    },
    /// Compile the core packages (and those of --packages) into DIR ahead of time, with their
    /// descriptions, for `--precompiled DIR`: a container image built this way answers its
    /// first `tools/list` without compiling. Entries are for this build of limina on a CPU
    /// with this one's features.
    Precompile {
        /// The folder to fill (created when missing).
        #[arg(long, value_name = "DIR")]
        into: PathBuf,
    },
    /// Work with the world kept in a trace folder.
    World {
        #[command(subcommand)]
        action: WorldAction,
    },
    /// Who serves the world kept in --trace-dir: the serving process (pid, version, uptime,
    /// transports), the processes that joined it and every session, the world's entities and
    /// tick, and the trace's and checkpoints' sizes. Exits 3 when nobody serves the folder.
    Status {
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Author skill packages: new, build, sign, keygen, inspect.
    Pkg {
        #[command(subcommand)]
        action: cli::pkg::PkgAction,
    },
    /// Review and approve upstream tools whose definitions changed since they were pinned
    /// (kept in --trace-dir; a running host picks an approval up at once).
    Upstream {
        #[command(subcommand)]
        action: UpstreamAction,
    },
}

#[derive(Subcommand, Debug)]
enum UpstreamAction {
    /// Show each held change of the upstream NAME: the approved definition beside the one
    /// it lists now, field by field, with both digests (for `pin` in its [[upstream]] entry).
    Diff {
        /// The `name` of its [[upstream]] entry.
        name: String,
    },
    /// Accept the held changes of the upstream NAME: the listed definitions of TOOLs (all
    /// held ones when none is named) become their pins, removed tools lose theirs.
    Approve {
        /// The `name` of its [[upstream]] entry.
        name: String,
        /// The tools to accept (by their name at the server).
        tools: Vec<String>,
    },
}

#[derive(Subcommand, Debug)]
enum WorldAction {
    /// Write the world kept in --trace-dir (its newest checkpoint and the journal after it,
    /// read beside a running host or not) as a scene file: JSONL lines of {skill, input}
    /// that --scene and `dev.reload scene` replay.
    Export {
        /// Where to write the scene [default: stdout].
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
enum TraceAction {
    /// Replay a trace and check its hash chain end to end: a whole history (a --trace-dir or
    /// its segments folder, across segments and from a retention cut) or one JSONL file.
    /// Names the first bad line and why (invalid_json, partial_final_line, missing_integrity,
    /// previous_hash_mismatch, hash_mismatch, missing_history).
    Verify {
        /// A trace folder, e.g. ~/.local/state/limina/traces, or one segment or export file.
        path: PathBuf,
        /// Check only from the segment holding this event on (trusting the hash it chains from).
        #[arg(long, value_name = "SEQ")]
        from_seq: Option<u64>,
        /// Check only up to the segment holding this event.
        #[arg(long, value_name = "SEQ")]
        to_seq: Option<u64>,
    },
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    if cli.version {
        print!("{}", cli::version::text());
        return ExitCode::SUCCESS;
    }
    let result = match cli.command.take() {
        Some(Command::Trace {
            action:
                TraceAction::Verify {
                    path,
                    from_seq,
                    to_seq,
                },
        }) => cli::trace::verify(&path, from_seq, to_seq),
        Some(Command::Pkg { action }) => cli::pkg::run(action),
        Some(Command::Upstream { action }) => match action {
            UpstreamAction::Diff { name } => cli::upstream::diff(&cli, &name),
            UpstreamAction::Approve { name, tools } => cli::upstream::approve(&cli, &name, &tools),
        },
        Some(Command::World {
            action: WorldAction::Export { output },
        }) => cli::world::export(&cli, output.as_deref()),
        Some(Command::Calibrate { runs }) => cli::calibrate::run(&cli, runs),
        Some(Command::Precompile { into }) => cli::precompile::run(cli, into),
        Some(Command::Status { json }) => {
            let dir = cli
                .trace_dir
                .clone()
                .unwrap_or_else(cli::serve::default_trace_dir);
            cli::status::run(&dir, json)
        }
        None => cli::serve::serve(cli),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            limina::log::error(&format!("{e:#}"));
            ExitCode::from(1)
        }
    }
}
