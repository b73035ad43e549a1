//! `cargo xtask …`: project automation for Limina.
//!
//! Installs the guest toolchain, builds the guests into components, and wraps the host's test,
//! run and bench commands so that they always see fresh guests. Everything xtask prints goes to
//! stderr: `cargo xtask run -- --mcp-stdio` must leave stdout to the host's MCP stream.

mod book;
mod crowd_bench;
mod dist;
mod hot_functions;
mod image;
mod image_bench;
mod layout;
mod links;
mod stdio_bench;
mod tasks;

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use limina_guest_build::{component, repo, toolchain};

/// The text of `cargo xtask --help`.
const HELP: &str = "\
cargo xtask <command> [args]

Commands:
  setup [--pypi]            provide a Rust toolchain able to build wasm32-unknown-unknown guests
                            (--pypi: skip rustup and use the pinned toolchain from PyPI)
  build-guests              build every guest crate and encode it as a component
                            (target/components, target/core, packages/*), and every
                            Python, C, Zig and JS guest with its pinned tool, installed on demand
  test [-- <cargo args>]    setup, build-guests, then `cargo test --workspace <cargo args>`
                            (no --workspace when the args pick packages with -p)
  run [-- <limina args>]    setup, build-guests, then `cargo run --quiet -p limina -- <args>`
  bench [-- <cargo args>]   setup, build-guests, then `cargo bench -p limina <cargo args>`
  bench stdio [--smoke]     limina against a bare rmcp server and a do-nothing responder over
                            stdio, fresh processes, interleaved rounds (release builds;
                            --smoke: dev builds, one short round, every reply checked)
  bench crowd [--baseline PATH] [--agents 100,200,1000] [--entities 10000,100000]
              [--rate HZ] [--seconds S] [--cargo-profile release|bench] [--smoke]
                            a crowd of agents (half WebSocket sessions, half stateless HTTP)
                            moving, querying, perceiving, remembering and rolling dice in one
                            release host on seeded worlds; --baseline runs an older binary in
                            the same run (--cargo-profile bench: the benches' faster-to-build
                            settings instead of the shipped LTO build; --smoke: dev build, tiny
                            crowd, every reply checked)
  bench image [--smoke]     the container image's size and cold start (podman run to the first
                            tools/list) precompiled against compiling at start (release build;
                            --smoke: the dev build, one round, no timing judged)
  book                      build the book in docs/ with a pinned mdBook (installed on first
                            use into the tool cache) into target/book, then check every
                            relative link and #heading of the book and the README
  dist [-- <cargo args>]    setup, build-guests, then the release host with the core packages
                            built in, copied to target/dist/limina: one file to install
  image [--debug] [--tag T] the container image: from scratch around the release host (--debug:
                            the dev build) with the core packages precompiled, built with
                            Debian's buildah (installed when missing); tag localhost/limina:VERSION
  hot-functions             run the release host under valgrind (lackey) through a start and a
                            round of calls and write host/build/hot-functions.txt, the
                            functions it ran, which the release link packs together
  encode <module> <out>     encode one core wasm module as a component
  inspect <component.wasm>  print the WIT world a component imports and exports
  help, --help, -h          this text

Examples:
  cargo xtask test -- -p limina mcp -- --nocapture
  cargo xtask run -- --mcp-stdio

Environment:
  LIMINA_GUEST_TOOLCHAIN    a toolchain prefix (with bin/cargo) to build guests with
  LIMINA_CACHE_DIR          where the downloaded toolchain lives
                            (default $XDG_CACHE_HOME/limina or ~/.cache/limina)
";

fn main() -> ExitCode {
    limina_guest_build::set_label("xtask");
    match dispatch(std::env::args().skip(1).collect()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the subcommand named by the first argument and returns the exit code to use.
fn dispatch(args: Vec<String>) -> Result<ExitCode> {
    let Some((command, rest)) = args.split_first() else {
        eprint!("{HELP}");
        return Ok(ExitCode::FAILURE);
    };
    let rest = passthrough(rest);
    match command.as_str() {
        "setup" => {
            let force_pypi = match rest {
                [] => false,
                [flag] if flag == "--pypi" => true,
                other => bail!("setup: unexpected arguments {other:?}"),
            };
            let toolchain = toolchain::setup(force_pypi)?;
            eprintln!("xtask: guest toolchain: {toolchain}");
            Ok(ExitCode::SUCCESS)
        }
        "build-guests" => {
            no_args("build-guests", rest)?;
            repo::build_all(&layout::repo(), &toolchain::guest_toolchain()?)?;
            Ok(ExitCode::SUCCESS)
        }
        "test" => tasks::test(rest),
        "bench" => match rest.split_first() {
            Some((first, flags)) if first == "stdio" => stdio_bench::run(flags),
            Some((first, flags)) if first == "crowd" => crowd_bench::run(flags),
            Some((first, flags)) if first == "image" => image_bench::run(flags),
            _ => tasks::bench(rest),
        },
        "run" => tasks::run(rest),
        "dist" => dist::dist(rest),
        "book" => book::run(rest),
        "image" => image::image(rest),
        "hot-functions" => hot_functions::run(rest),
        "encode" => match rest {
            [module, output] => {
                component::encode_if_stale(module.as_ref(), output.as_ref())?;
                inspect(output.as_ref())?;
                Ok(ExitCode::SUCCESS)
            }
            _ => bail!("usage: cargo xtask encode <module.wasm> <component.wasm>"),
        },
        "inspect" => match rest {
            [path] => {
                inspect(path.as_ref())?;
                Ok(ExitCode::SUCCESS)
            }
            _ => bail!("usage: cargo xtask inspect <component.wasm>"),
        },
        "help" | "--help" | "-h" => {
            eprint!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        other => {
            eprint!("{HELP}");
            bail!("unknown command `{other}`")
        }
    }
}

/// Drops one leading `--`, so that `cargo xtask test -- -p limina` and
/// `cargo xtask test -p limina` mean the same.
fn passthrough(args: &[String]) -> &[String] {
    match args.split_first() {
        Some((first, rest)) if first == "--" => rest,
        _ => args,
    }
}

/// Fails when a command that takes no arguments got some.
fn no_args(command: &str, args: &[String]) -> Result<()> {
    if !args.is_empty() {
        bail!("{command}: unexpected arguments {args:?}");
    }
    Ok(())
}

/// Prints a component's imports and exports (to stderr, like everything xtask says).
fn inspect(path: &Path) -> Result<()> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let world = component::world_of(&bytes)?;
    eprintln!("{} ({} bytes)", path.display(), bytes.len());
    for (label, entries) in [("import", world.imports), ("export", world.exports)] {
        for entry in entries {
            eprintln!("  {label} {}", entry.name);
            for function in entry.functions {
                eprintln!("      {function}");
            }
        }
    }
    Ok(())
}
