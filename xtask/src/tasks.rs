//! `test`, `run` and `bench`: the host's cargo commands, run after fresh guest builds.

use std::process::ExitCode;

use anyhow::Result;

use limina_guest_build::{process, repo, toolchain};

use crate::layout;

/// `cargo test --workspace <extra>` (without `--workspace` when `extra` picks packages).
pub fn test(extra: &[String]) -> Result<ExitCode> {
    let scope: &[&str] = if selects_packages(extra) {
        &[]
    } else {
        &["--workspace"]
    };
    with_guests("test", scope, extra)
}

/// `cargo bench -p limina <extra>` (without `-p limina` when `extra` picks packages).
pub fn bench(extra: &[String]) -> Result<ExitCode> {
    let scope: &[&str] = if selects_packages(extra) {
        &[]
    } else {
        &["-p", "limina"]
    };
    with_guests("bench", scope, extra)
}

/// `cargo run --quiet -p limina -- <args>`. The host owns stdout (MCP over stdio).
pub fn run(args: &[String]) -> Result<ExitCode> {
    with_guests("run", &["--quiet", "-p", "limina", "--"], args)
}

/// Sets up the guest toolchain, builds the guests, then runs the host's cargo
/// `subcommand scope extra` and returns its exit code.
fn with_guests(subcommand: &str, scope: &[&str], extra: &[String]) -> Result<ExitCode> {
    repo::build_all(&layout::repo(), &toolchain::guest_toolchain()?)?;
    let mut command = layout::host_cargo();
    command.arg(subcommand).args(scope).args(extra);
    let code = process::status_code(&mut command)?;
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// Whether cargo arguments (before any `--`) already choose packages.
fn selects_packages(args: &[String]) -> bool {
    args.iter().take_while(|arg| *arg != "--").any(|arg| {
        arg == "--workspace"
            || arg == "--all"
            || arg == "--manifest-path"
            || arg.starts_with("-p")
            || arg.starts_with("--package")
            || arg.starts_with("--manifest-path=")
    })
}

#[cfg(test)]
mod tests {
    use super::selects_packages;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn notices_package_selection_before_the_separator() {
        assert!(selects_packages(&args(&["-p", "xtask"])));
        assert!(selects_packages(&args(&["--package=limina", "mcp"])));
        assert!(!selects_packages(&args(&["mcp", "--", "-p"])));
        assert!(!selects_packages(&args(&["--release"])));
    }
}
