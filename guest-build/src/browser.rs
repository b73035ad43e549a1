//! Headless Chromium for the viewer tests: Debian's `chromium` package (installers that
//! download a browser of their own cannot run here), installed with apt when missing and this
//! process may install packages.

use anyhow::{Result, bail};
use std::path::PathBuf;
use std::process::Command;

/// Where Debian puts it.
const CHROMIUM: &str = "/usr/bin/chromium";

/// The Chromium binary, installing Debian's package first when it is missing (as root, with
/// apt-get). An error says why it cannot be had, for a test to skip with.
pub fn chromium() -> Result<PathBuf> {
    let path = PathBuf::from(CHROMIUM);
    if path.is_file() {
        return Ok(path);
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root || !PathBuf::from("/usr/bin/apt-get").is_file() {
        bail!(
            "{CHROMIUM} is missing and cannot be installed here (needs root and apt-get): `apt-get install chromium`"
        );
    }
    crate::say!("installing Debian's chromium (the viewer tests' browser, about 100 MB; once)…");
    let quiet = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    // The package lists may be missing or stale on a fresh machine: update once if needed.
    let installed = quiet(&["install", "-y", "-qq", "chromium"])
        || (quiet(&["update", "-qq"]) && quiet(&["install", "-y", "-qq", "chromium"]));
    if !installed {
        bail!("`apt-get install chromium` failed");
    }
    if !path.is_file() {
        bail!("chromium was installed but {CHROMIUM} is not there");
    }
    Ok(path)
}
