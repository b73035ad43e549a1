//! Packages: a folder holding a `limina.toml` manifest and a component. Core skills and
//! third-party packages load through the same path.

mod attestation;
pub mod embedded;
mod manifest;
pub mod oci;
pub mod watch;

pub use attestation::{SignatureCheck, content_hash, sign, verify};
pub use manifest::{Attestation, ExpectedLatency, Manifest, ManifestError};

use anyhow::{Context, Result};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A package read from disk, not yet compiled or admitted.
#[derive(Debug, Clone)]
pub struct PackageSource {
    /// The folder it was read from (`<embedded>/<folder>` for a core package built in).
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// The component: borrowed from the binary for a core package built in (not copied),
    /// read from the folder otherwise.
    pub component: Cow<'static, [u8]>,
    /// Built into the binary ([`embedded`]): there is no folder to read it again from.
    pub embedded: bool,
    /// The component's sha256, computed once when first asked for.
    hash: OnceLock<String>,
}

impl PackageSource {
    /// Reads `dir/limina.toml` and the component it names.
    pub fn read(dir: &Path) -> Result<PackageSource> {
        let manifest_path = dir.join("limina.toml");
        let text = std::fs::read_to_string(&manifest_path)
            .with_context(|| format!("reading {}", manifest_path.display()))?;
        let manifest =
            Manifest::parse(&text).with_context(|| format!("in {}", manifest_path.display()))?;
        let component_path = dir.join(&manifest.component);
        let component = std::fs::read(&component_path).with_context(|| {
            format!(
                "reading the component {} named by {} (build the package first)",
                component_path.display(),
                manifest_path.display()
            )
        })?;
        Ok(PackageSource::new(
            dir.to_path_buf(),
            manifest,
            Cow::Owned(component),
            false,
        ))
    }
}

impl PackageSource {
    /// A package from its parts (what [`PackageSource::read`] and the embedded core make).
    pub fn new(
        dir: PathBuf,
        manifest: Manifest,
        component: Cow<'static, [u8]>,
        embedded: bool,
    ) -> PackageSource {
        PackageSource {
            dir,
            manifest,
            component,
            embedded,
            hash: OnceLock::new(),
        }
    }

    /// The same, its component's hex sha256 known already (computed when it was embedded).
    pub fn with_hash(self, sha256_hex: &str) -> PackageSource {
        let _ = self.hash.set(format!("sha256:{sha256_hex}"));
        self
    }

    /// The component's `sha256:<hex>`, hashed once however often it is asked for.
    pub fn content_hash(&self) -> String {
        self.hash
            .get_or_init(|| content_hash(&self.component))
            .clone()
    }

    /// The hex sha256 alone (how the compiled cache and the registry name the component).
    pub fn content_hex(&self) -> String {
        let hash = self.content_hash();
        hash.strip_prefix("sha256:").unwrap_or(&hash).to_string()
    }

    /// Whether the component still matches the hash its manifest pins (`None`: none pinned).
    pub fn hash_matches(&self) -> Option<bool> {
        self.manifest
            .content_hash
            .as_ref()
            .map(|pinned| pinned.eq_ignore_ascii_case(&self.content_hash()))
    }

    /// The attestation, checked against the component as it is now.
    pub fn signature(&self) -> SignatureCheck {
        match &self.manifest.attestation {
            None => SignatureCheck::Absent,
            Some(a) => verify(&self.content_hash(), &a.public_key, &a.signature),
        }
    }
}

/// Every package folder directly inside `dir` (those holding a `limina.toml`), sorted.
pub fn package_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.join("limina.toml").is_file() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}
