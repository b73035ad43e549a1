//! Containers on this machine: Debian's podman, buildah and runc (images built from scratch,
//! pods run from Kubernetes YAML) and Debian's `docker-registry` (distribution 2.8, the OCI
//! registry the fleet and package tests start on loopback). Installed with apt when missing,
//! at the versions pinned here where the archive still has them, once per machine.
//!
//! Every podman and buildah command runs with `CONTAINERS_CONF` pointing at the repository's
//! `deploy/podman/containers.conf` (runc, cgroupfs, explicit ulimits: what a sandboxed machine
//! without systemd needs), unless the caller set `CONTAINERS_CONF` itself.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Debian packages and the versions pinned (Debian 12's, as tested).
const PACKAGES: &[(&str, &str)] = &[
    ("podman", "4.3.1+ds1-8+deb12u1+b3"),
    ("buildah", "1.28.2+ds1-3+deb12u1+b3"),
    ("runc", "1.1.5+ds1-1+deb12u1"),
    ("containernetworking-plugins", "1.1.1+ds1-3+b5"),
    // The pause process of a pod's infra container (`podman kube play`).
    ("catatonit", "0.1.7-1+b2"),
    ("docker-registry", "2.8.2+ds1-1"),
];

/// Where Debian puts the registry's binary.
pub const REGISTRY_BINARY: &str = "/usr/bin/docker-registry";

/// podman and buildah, ready to run with the repository's containers.conf.
#[derive(Debug, Clone)]
pub struct Containers {
    conf: Option<PathBuf>,
}

impl Containers {
    /// The tools, installing the Debian packages first when any is missing (needs root and
    /// apt-get; an error says so, for a test to report). `repo` is the repository root.
    pub fn ensure(repo: &Path) -> Result<Containers> {
        install_missing()?;
        let conf = match std::env::var_os("CONTAINERS_CONF") {
            Some(_) => None,
            None => Some(repo.join("deploy/podman/containers.conf")),
        };
        Ok(Containers { conf })
    }

    /// `podman` with the containers.conf set.
    pub fn podman(&self) -> Command {
        self.command("podman")
    }

    /// `buildah` with the containers.conf set.
    pub fn buildah(&self) -> Command {
        self.command("buildah")
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        if let Some(conf) = &self.conf {
            command.env("CONTAINERS_CONF", conf);
        }
        command
    }
}

/// Whether `package` is installed, and at which version.
fn installed_version(package: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f", "${Status}\t${Version}", package])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (status, version) = text.split_once('\t')?;
    (out.status.success() && status.ends_with(" installed")).then(|| version.to_string())
}

/// Installs whichever of [`PACKAGES`] is missing: the pinned versions, else (when a point
/// release replaced them in the archive) the archive's, saying which were taken.
fn install_missing() -> Result<()> {
    let missing: Vec<(&str, &str)> = PACKAGES
        .iter()
        .copied()
        .filter(|(name, _)| installed_version(name).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = missing.iter().map(|(n, _)| *n).collect();
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root || !Path::new("/usr/bin/apt-get").is_file() {
        bail!(
            "{} missing and cannot be installed here (needs root and apt-get): `apt-get install {}`",
            names.join(", "),
            names.join(" ")
        );
    }
    // One installer at a time on this machine (tests may ask at once): apt's own lock
    // refuses a second rather than waiting.
    let lock_path = std::env::temp_dir().join("limina-apt.lock");
    let lock = std::fs::File::create(&lock_path)
        .with_context(|| format!("creating {}", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("locking {}", lock_path.display()))?;
    let still: Vec<(&str, &str)> = missing
        .into_iter()
        .filter(|(name, _)| installed_version(name).is_none())
        .collect();
    if still.is_empty() {
        return Ok(());
    }
    crate::say!(
        "installing Debian's {} (containers and the OCI registry for the image and fleet tests; once)…",
        names.join(", ")
    );
    let pinned: Vec<String> = still.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let unpinned: Vec<String> = still.iter().map(|(n, _)| n.to_string()).collect();
    let apt = |args: &[String]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    let install = |packages: &[String]| {
        let mut args: Vec<String> = ["install", "-y", "-qq", "--no-install-recommends"]
            .map(String::from)
            .to_vec();
        args.extend(packages.iter().cloned());
        apt(&args)
    };
    let update = || apt(&["update".to_string(), "-qq".to_string()]);
    if install(&pinned) || (update() && install(&pinned)) {
        return Ok(());
    }
    if !install(&unpinned) {
        bail!("`apt-get install {}` failed", unpinned.join(" "));
    }
    for (name, pin) in still {
        let got = installed_version(name).unwrap_or_else(|| "?".into());
        crate::say!("{name}: the pinned {pin} is no longer in the archive; installed {got}");
    }
    Ok(())
}

/// The Kubernetes schema validator the deploy manifests are checked with, offline (it carries
/// the schemas of each Kubernetes release).
pub const KUBERNETES_VALIDATE: crate::tools::Tool = crate::tools::Tool {
    package: "kubernetes-validate",
    version: "1.37.0",
    registry: crate::tools::Registry::PyPi,
    purpose: "the Kubernetes schemas, for the deploy manifests' test",
    size: "40 MB",
    with: &[],
};
