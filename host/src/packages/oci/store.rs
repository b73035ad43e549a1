//! Fetched packages kept by manifest digest: `<cache>/sha256-<hex>/` holding the package's
//! `limina.toml`, its component, and `source.txt` (the reference it was fetched as). A folder
//! appears whole (written beside, then renamed) and is trusted only while its component
//! still hashes to the content hash its limina.toml pins.

use super::Reference;
use crate::packages::{Manifest, PackageSource};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

fn folder(cache: &Path, digest: &str) -> PathBuf {
    cache.join(digest.replace(':', "-"))
}

/// The package kept for `digest`, when a sound one is.
pub(super) fn read(cache: Option<&Path>, digest: &str) -> Option<PackageSource> {
    let dir = folder(cache?, digest);
    if !dir.is_dir() {
        return None;
    }
    match PackageSource::read(&dir) {
        Ok(source) if source.hash_matches() == Some(true) => Some(source),
        Ok(_) | Err(_) => {
            crate::log::warn(&format!(
                "the kept registry package {} does not match its content hash; fetching it again",
                dir.display()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            None
        }
    }
}

/// Keeps a fetched package under `digest` and returns it as read from there (or, when no
/// cache is set or it cannot be written, from memory, saying so).
pub(super) fn keep(
    cache: Option<&Path>,
    digest: &str,
    reference: &Reference,
    manifest_text: &str,
    manifest: Manifest,
    component: Vec<u8>,
) -> Result<PackageSource, String> {
    let file = &manifest.component;
    let plain_name = Path::new(file)
        .file_name()
        .is_some_and(|name| name == std::ffi::OsStr::new(file));
    if !plain_name {
        return Err(format!(
            "its limina.toml names the component `{file}`; a fetched package's component must be a plain file name"
        ));
    }
    let Some(cache) = cache else {
        return Ok(in_memory(reference, manifest, component));
    };
    let dir = folder(cache, digest);
    let staging = cache.join(format!(
        ".{}.partial-{}",
        digest.replace(':', "-"),
        std::process::id()
    ));
    let written = (|| -> std::io::Result<()> {
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging)?;
        std::fs::write(staging.join("limina.toml"), manifest_text)?;
        std::fs::write(staging.join(file), &component)?;
        std::fs::write(staging.join("source.txt"), format!("{reference}\n"))?;
        if dir.exists() {
            std::fs::remove_dir_all(&staging)?;
            return Ok(()); // another host kept it first
        }
        std::fs::rename(&staging, &dir)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&staging);
        crate::log::warn(&format!(
            "could not keep {reference} in {}: {e}; it is loaded from memory and fetched again next time",
            cache.display()
        ));
        return Ok(in_memory(reference, manifest, component));
    }
    PackageSource::read(&dir).map_err(|e| format!("reading it back from {}: {e:#}", dir.display()))
}

/// A fetched package held only in memory; its `dir` names where it came from.
fn in_memory(reference: &Reference, manifest: Manifest, component: Vec<u8>) -> PackageSource {
    PackageSource::new(
        PathBuf::from(reference.to_string()),
        manifest,
        Cow::Owned(component),
        false,
    )
}
