//! `cargo xtask bench crowd`: a crowd of agents in one host (`mcp-load crowd`), on worlds of
//! 10,000 and 100,000 entities, at several crowd sizes; with `--baseline PATH` the same runs
//! on an older `limina` binary, interleaved, in the same run.
//!
//! Each run starts a fresh host (its own trace folder) serving WebSocket and HTTP with the
//! `memory` and `dice` packages, seeded by a scene file of `scene.createEntity` lines at 0.1
//! entities per m² (the host's own start-up replay: every entity made by the skill agents
//! use). Half the agents come over WebSocket, half over stateless HTTP, each with its own
//! bearer token. `--smoke` builds the dev profile and runs a tiny crowd on a small world with
//! every reply checked and no timing judged (CI).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use limina_guest_build::{process, repo, toolchain};
use sha2::{Digest, Sha256};

use crate::layout;

/// Entities per square metre of the seeded worlds (agents' radius-3 queries find about 3).
const DENSITY: f64 = 0.1;
const WS_TOKEN: &str = "crowd-shared-token";
const HTTP_TOKEN_PREFIX: &str = "crowd-token-";
/// Longest a host may take to seed its world and start listening.
const START_TIMEOUT: Duration = Duration::from_secs(300);

struct Options {
    smoke: bool,
    baseline: Option<PathBuf>,
    agents: Vec<usize>,
    entities: Vec<usize>,
    rate: String,
    seconds: String,
    /// Cargo profile of this build: `release` (whole-program LTO, as shipped), or `bench`
    /// (the benches' settings, whose dependencies a `cargo bench` already built).
    profile: String,
}

fn list(text: &str, flag: &str) -> Result<Vec<usize>> {
    text.split(',')
        .map(|n| match n.trim().replace('_', "").parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => bail!("{flag} takes whole numbers > 0 separated by commas, got `{text}`"),
        })
        .collect()
}

fn options(args: &[String]) -> Result<Options> {
    let mut o = Options {
        smoke: false,
        baseline: None,
        agents: vec![100, 200, 1000],
        entities: vec![10_000, 100_000],
        rate: "2".into(),
        seconds: "20".into(),
        profile: "release".into(),
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .with_context(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--smoke" => o.smoke = true,
            "--baseline" => o.baseline = Some(PathBuf::from(value()?)),
            "--agents" => o.agents = list(&value()?, flag)?,
            "--entities" => o.entities = list(&value()?, flag)?,
            "--rate" => o.rate = value()?,
            "--seconds" => o.seconds = value()?,
            "--cargo-profile" => match value()?.as_str() {
                p @ ("release" | "bench") => o.profile = p.into(),
                p => bail!("--cargo-profile takes `release` or `bench`, got `{p}`"),
            },
            other => bail!(
                "bench crowd: unknown argument `{other}` (--smoke, --baseline PATH, --agents N,N, --entities N,N, --rate HZ, --seconds S, --cargo-profile release|bench)"
            ),
        }
    }
    if o.smoke {
        (o.agents, o.entities, o.rate, o.seconds) = (vec![4], vec![300], "4".into(), "2".into());
    }
    if let Some(path) = &o.baseline
        && !path.is_file()
    {
        bail!(
            "--baseline {} is not a file: give an older limina binary",
            path.display()
        );
    }
    Ok(o)
}

/// Builds the guests, `limina` and `mcp-load`, then runs every world size × crowd size on
/// this build (and the baseline, when given).
pub fn run(args: &[String]) -> Result<ExitCode> {
    let o = options(args)?;
    let root = layout::repo_root();
    repo::build_all(&layout::repo(), &toolchain::guest_toolchain()?)?;
    let mut build = layout::host_cargo();
    build.args(["build", "-p", "limina", "-p", "mcp-load"]);
    if !o.smoke {
        // Both profiles build into `release`.
        build.args(["--profile", &o.profile]);
    }
    if process::status_code(&mut build)? != 0 {
        bail!(
            "building limina and mcp-load failed: {}",
            process::describe(&build)
        );
    }
    let bin = layout::target_dir().join(if o.smoke { "debug" } else { "release" });
    let work = layout::target_dir().join("crowd");
    let _ = std::fs::remove_dir_all(&work);
    let most_http = o.agents.iter().map(|a| a - a / 2).max().unwrap_or(0);
    prepare(&work, &root, most_http)?;
    let mut hosts = vec![("this build", bin.join("limina"))];
    if let Some(path) = &o.baseline {
        hosts.push(("baseline", path.clone()));
    }
    eprintln!(
        "xtask: load when the crowd bench starts: {} (cargo profile {})",
        load(),
        if o.smoke { "dev" } else { &o.profile }
    );
    let mut failed = false;
    for &entities in &o.entities {
        let scene = work.join(format!("scene-{entities}.jsonl"));
        let side = write_scene(&scene, entities)?;
        for &agents in &o.agents {
            for (label, binary) in &hosts {
                let host = Host::start(binary, &work, &scene, entities + agents + 16)?;
                let mut load = Command::new(bin.join("mcp-load"));
                load.arg("crowd")
                    .args(["--ws-url", &host.ws, "--ws-token", WS_TOKEN])
                    .args(["--ws", &(agents / 2).to_string()])
                    .args([
                        "--http-url",
                        &host.http,
                        "--http-token-prefix",
                        HTTP_TOKEN_PREFIX,
                    ])
                    .args(["--http", &(agents - agents / 2).to_string()])
                    .args(["--rate", &o.rate, "--seconds", &o.seconds])
                    .args(["--side", &side.to_string()])
                    .args(["--host-pid", &host.child.id().to_string()])
                    .args(["--label", &format!("{label}, {entities} entities")]);
                if o.smoke {
                    load.arg("--smoke");
                }
                let code = process::status_code(&mut load)?;
                failed |= code != 0;
                host.stop();
            }
        }
    }
    eprintln!("xtask: load when the crowd bench ended: {}", load());
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The machine's load averages, to print beside the figures.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The host's configuration (a profile with what the agents call, the network limits raised
/// for the crowd, one token per HTTP agent, the memory package's state grant) and a packages
/// folder holding `memory` and `dice`.
fn prepare(work: &Path, root: &Path, http_agents: usize) -> Result<()> {
    let packages = work.join("packages");
    std::fs::create_dir_all(&packages)?;
    for name in ["memory", "dice"] {
        let from = root.join("packages").join(name);
        if !from.join(format!("{name}.wasm")).is_file() {
            bail!("packages/{name}/{name}.wasm is missing: the guest build did not make it");
        }
        std::os::unix::fs::symlink(&from, packages.join(name))?;
    }
    std::fs::write(work.join("ws.token"), WS_TOKEN)?;
    let mut config = String::from(
        "[profiles.crowd]\n\
         permissions = [\"scene.read\", \"scene.write\", \"ecs.read\", \"ecs.modify\", \"agent.read\", \"agent.write\", \"state.read\", \"state.write\"]\n\n\
         [network]\nprofiles = [\"crowd\"]\nmaxConnections = 4096\nmaxConnectionsPerAddress = 4096\nmaxUninitialized = 256\n\n\
         [packages.memory.grants]\nstate = { keys = 10000, bytes = 4194304 }\n",
    );
    for i in 0..http_agents {
        let digest = hex::encode(Sha256::digest(format!("{HTTP_TOKEN_PREFIX}{i}").as_bytes()));
        write!(
            config,
            "\n[[network.tokens]]\nsha256 = \"{digest}\"\nagentId = \"crowd-h{i}\"\nprofile = \"crowd\"\n"
        )?;
    }
    std::fs::write(work.join("config.toml"), config)?;
    Ok(())
}

/// A scene of `entities` render-only boxes spread over a square at [`DENSITY`]; returns the
/// square's side.
fn write_scene(path: &Path, entities: usize) -> Result<f64> {
    let side = (entities as f64 / DENSITY).sqrt().round();
    let mut state = 0x5eed_u64;
    let mut unit = || {
        // splitmix64: the same world every run.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut text = String::with_capacity(entities * 90);
    for _ in 0..entities {
        let (x, z) = (unit() * side, unit() * side);
        writeln!(
            text,
            r#"{{"skill":"scene.createEntity","input":{{"position":[{x:.2},0,{z:.2}],"size":0.5}}}}"#
        )?;
    }
    std::fs::write(path, text)?;
    Ok(side)
}

/// A running host and the addresses it serves.
struct Host {
    child: Child,
    ws: String,
    http: String,
    traces: PathBuf,
}

impl Host {
    fn start(binary: &Path, work: &Path, scene: &Path, max_entities: usize) -> Result<Host> {
        let traces = work.join(format!("traces-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&traces);
        let mut child = Command::new(binary)
            .args(["--mcp-ws", "--mcp-http", "--port", "0", "--http-port", "0"])
            .arg("--config")
            .arg(work.join("config.toml"))
            .arg("--auth-token-file")
            .arg(work.join("ws.token"))
            .args(["--profile", "crowd", "--log-level", "info"])
            .arg("--packages")
            .arg(work.join("packages"))
            .arg("--scene")
            .arg(scene)
            .args(["--max-entities", &max_entities.to_string()])
            .arg("--trace-dir")
            .arg(&traces)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                for prefix in ["ws://", "http://"] {
                    if let Some(at) = line.find(prefix)
                        && !line.contains("viewer")
                    {
                        let _ = tx.send(line[at..].trim().to_string());
                    }
                }
                if line.contains("ERROR") || line.contains("error") {
                    eprintln!("host: {line}");
                }
            }
        });
        let (mut ws, mut http) = (None, None);
        while ws.is_none() || http.is_none() {
            let line = rx
                .recv_timeout(START_TIMEOUT)
                .with_context(|| format!("{} did not start serving", binary.display()))?;
            if line.starts_with("ws://") {
                ws = Some(line);
            } else {
                http = Some(line);
            }
        }
        Ok(Host {
            child,
            ws: ws.expect("seen"),
            http: http.expect("seen"),
            traces,
        })
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.traces);
    }
}
