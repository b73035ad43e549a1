//! `cargo xtask bench stdio`: the host against a bare `rmcp` server and a do-nothing responder,
//! over stdio, in one run (`peers/mcp-load` drives them; README, "Speed").
//!
//! Builds the three programs (`limina` and `mcp-load` in this workspace, `rmcp-echo` in its
//! own, into `target/peers`) in the release profile and runs the load client; `--smoke`
//! builds the dev profile instead and runs one short round, with no timing judged (CI).

use std::process::ExitCode;

use anyhow::{Result, bail};
use limina_guest_build::{process, repo, toolchain};

use crate::layout;

/// Builds `limina`, `rmcp-echo` and `mcp-load`, then runs `mcp-load` with `args` (its own
/// flags: `--smoke`, `--rounds N`, `--sequential N`, `--pipelined N`).
pub fn run(args: &[String]) -> Result<ExitCode> {
    let smoke = args.iter().any(|arg| arg == "--smoke");
    repo::build_all(&layout::repo(), &toolchain::guest_toolchain()?)?;
    let profile = if smoke { "debug" } else { "release" };
    let target = layout::target_dir();
    let mut host = layout::host_cargo();
    host.args(["build", "-p", "limina", "-p", "mcp-load"]);
    // rmcp-echo is a workspace of its own (its dependencies would otherwise change the host's
    // features and rebuild it), built into a folder of its own under target/.
    let peers = target.join("peers");
    let mut echo = layout::host_cargo();
    echo.args([
        "build",
        "--manifest-path",
        "peers/rmcp-echo/Cargo.toml",
        "--target-dir",
    ])
    .arg(&peers);
    for build in [&mut host, &mut echo] {
        if !smoke {
            build.arg("--release");
        }
        let code = process::status_code(build)?;
        if code != 0 {
            bail!(
                "building the stdio bench's programs failed (exit code {code}): {}",
                process::describe(build)
            );
        }
    }
    let bin = target.join(profile);
    let mut load = std::process::Command::new(bin.join("mcp-load"));
    load.arg("--limina")
        .arg(bin.join("limina"))
        .arg("--rmcp")
        .arg(peers.join(profile).join("rmcp-echo"))
        .args(args);
    let code = process::status_code(&mut load)?;
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}
