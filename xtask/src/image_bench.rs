//! `cargo xtask bench image`: the container image's size and its cold start — from `podman
//! run` to the first `tools/list` answered — with the core packages precompiled into the image
//! against the same image compiling them at start (`--no-cache`), in one run, interleaved.
//! The bare binary outside any container (its own warm cache) is the floor.
//!
//! Goals (issue 46): at most 60 MB unpacked and 1 s to the first listing. `--smoke` takes the
//! dev build and one round, and checks each listing without judging any time.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use limina_guest_build::containers::Containers;

use crate::{image, layout};

/// The requests a client sends first: a session, then the listing.
const OPENING: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"},"profile":"builder.readWrite"}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
    "\n"
);

/// Longest a start may take before the bench gives up on it.
const START_LIMIT: Duration = Duration::from_secs(120);

/// Builds the image and measures it.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let smoke = args.iter().any(|a| a == "--smoke");
    let rounds = if smoke { 1 } else { 7 };
    let built = image::build(smoke, Some("localhost/limina:bench".into()))?;
    let containers = Containers::ensure(&layout::repo_root())?;
    let binary = layout::target_dir()
        .join("image")
        .join(if smoke { "debug" } else { "release" })
        .join("context/rootfs/usr/local/bin/limina");
    let host_cache = tempfile_dir("limina-bench-cache")?;
    // The bare binary's cache warmed once, so its starts read it like the image's.
    time_start(&mut bare(&binary, &host_cache))?;
    let mut precompiled = Vec::new();
    let mut compiling = Vec::new();
    let mut floor = Vec::new();
    for round in 0..rounds {
        precompiled.push(time_start(&mut container(&containers, &built.tag, false))?);
        compiling.push(time_start(&mut container(&containers, &built.tag, true))?);
        floor.push(time_start(&mut bare(&binary, &host_cache))?);
        eprintln!("xtask: round {} of {rounds} done", round + 1);
    }
    let _ = std::fs::remove_dir_all(&host_cache);
    let mib = built.size as f64 / (1024.0 * 1024.0);
    let (p, c, f) = (median(&precompiled), median(&compiling), median(&floor));
    println!(
        "image {} ({}): {mib:.1} MiB unpacked (goal: at most 60 MB)",
        built.tag,
        &built.id[..12]
    );
    println!("cold start, podman run to the first tools/list answered, median of {rounds}:");
    println!(
        "  precompiled in the image      {:>8.0} ms  (goal: at most 1000 ms)",
        ms(p)
    );
    println!(
        "  compiling at start (baseline) {:>8.0} ms  precompiled/baseline {:.2}x",
        ms(c),
        ms(p) / ms(c)
    );
    println!(
        "  the bare binary, warm cache   {:>8.0} ms  precompiled/bare {:.2}x",
        ms(f),
        ms(p) / ms(f)
    );
    if smoke {
        println!("(smoke run: dev build, one round; times not judged)");
    }
    Ok(ExitCode::SUCCESS)
}

/// `podman run` of the image over stdio with a fresh volume; `compile`: without the
/// precompiled folder (nor any cache), as a fresh container of an image without one.
fn container(containers: &Containers, tag: &str, compile: bool) -> Command {
    let mut command = containers.podman();
    command.args(["run", "--rm", "-i", "--network", "none", tag, "--mcp-stdio"]);
    if compile {
        command.arg("--no-cache");
    }
    command
}

/// The binary itself with its own cache and an in-memory trace.
fn bare(binary: &std::path::Path, cache: &std::path::Path) -> Command {
    let mut command = Command::new(binary);
    command
        .args(["--mcp-stdio", "--ephemeral-trace", "--cache-dir"])
        .arg(cache)
        .env_remove("LIMINA_PRECOMPILED_DIR");
    command
}

/// Spawns `command`, sends the opening requests and times until the listing's reply has
/// arrived (checked to list tools), then closes its input and waits for it to end.
fn time_start(command: &mut Command) -> Result<Duration> {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {command:?}"))?;
    let mut stdin = child.stdin.take().context("stdin")?;
    stdin.write_all(OPENING.as_bytes())?;
    stdin.flush()?;
    let mut lines = BufReader::new(child.stdout.take().context("stdout")?).lines();
    let elapsed = loop {
        let Some(line) = lines.next() else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("{command:?} ended before answering tools/list");
        };
        let line = line?;
        if line.contains(r#""id":2"#) {
            if !line.contains(r#""name":"scene.createEntity""#) {
                bail!("tools/list did not list scene.createEntity: {line}");
            }
            break started.elapsed();
        }
        if started.elapsed() > START_LIMIT {
            bail!("no tools/list reply within {START_LIMIT:?}");
        }
    };
    drop(stdin);
    let _ = child.wait();
    Ok(elapsed)
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A fresh folder under the system's temporary folder.
fn tempfile_dir(prefix: &str) -> Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
