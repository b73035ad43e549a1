//! `cargo xtask image`: the container image, from scratch around the host with its core
//! packages compiled ahead of time (`limina_guest_build::image`).

use std::process::ExitCode;

use anyhow::{Result, bail};
use limina_guest_build::containers::Containers;
use limina_guest_build::{image, process, repo, toolchain};

use crate::{dist, layout};

/// Builds the image: the release host (`cargo xtask dist`) unless `--debug` takes the dev
/// build; tagged `--tag T` or `localhost/limina:VERSION` (`…:dev` for `--debug`).
pub fn image(args: &[String]) -> Result<ExitCode> {
    let mut debug = false;
    let mut tag = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--debug" => debug = true,
            "--tag" => match rest.next() {
                Some(t) => tag = Some(t.clone()),
                None => bail!("image: --tag needs a name, e.g. --tag registry.example/limina:1"),
            },
            other => bail!("image: unexpected argument `{other}` (see `cargo xtask help`)"),
        }
    }
    let built = build(debug, tag)?;
    eprintln!(
        "xtask: image {} ({}): {:.1} MiB unpacked",
        built.tag,
        &built.id[..12.min(built.id.len())],
        built.size as f64 / (1024.0 * 1024.0)
    );
    Ok(ExitCode::SUCCESS)
}

/// Builds the host and the image around it; what `bench image` measures too.
pub fn build(debug: bool, tag: Option<String>) -> Result<image::Built> {
    let containers = Containers::ensure(&layout::repo_root())?;
    let target = layout::target_dir();
    let binary = if debug {
        repo::build_all(&layout::repo(), &toolchain::guest_toolchain()?)?;
        process::run_quietly(
            layout::host_cargo().args(["build", "-p", "limina", "--bin", "limina"]),
        )?;
        target.join("debug/limina")
    } else {
        dist::build()?
    };
    let tag = tag.unwrap_or_else(|| {
        let version = if debug {
            "dev"
        } else {
            env!("CARGO_PKG_VERSION")
        };
        format!("localhost/limina:{version}")
    });
    let work = target
        .join("image")
        .join(if debug { "debug" } else { "release" });
    std::fs::create_dir_all(&work)?;
    image::build(&containers, &binary, &tag, &work)
}
