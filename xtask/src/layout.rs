//! Where the repository is, and the host's own cargo that runs in it.

use std::path::{Path, PathBuf};
use std::process::Command;

use limina_guest_build::repo::Repo;

/// The repository root (the folder holding the workspace `Cargo.toml`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the repository root")
        .to_path_buf()
}

/// This checkout, for building its guests.
pub fn repo() -> Repo {
    Repo::new(repo_root())
}

/// The cargo that runs xtask (`$CARGO`), in the repository root: the host's own toolchain.
pub fn host_cargo() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(repo_root());
    command
}

/// Cargo's target folder: `$CARGO_TARGET_DIR`, else `target` in the repository.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => repo_root().join(dir),
        None => repo_root().join("target"),
    }
}
