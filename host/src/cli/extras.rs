//! The packages beside the core: each `--packages` entry is a folder of package folders or
//! an `oci://` registry reference, and `[oci] packages` adds references. A package that
//! cannot be read or fetched is skipped, saying why; the host starts without it.

use anyhow::Result;
use limina::packages::oci::{self, OciSettings, Reference};
use limina::packages::{PackageSource, package_dirs};
use std::path::PathBuf;

/// Every package the entries and `settings.packages` name, read or fetched.
pub fn sources(entries: &[PathBuf], settings: &OciSettings) -> Result<Vec<PackageSource>> {
    let mut dirs = Vec::new();
    let mut references: Vec<String> = settings.packages.clone();
    for entry in entries {
        match entry.to_str().filter(|e| Reference::is_oci(e)) {
            Some(reference) => references.push(reference.to_string()),
            None => dirs.extend(package_dirs(entry)?),
        }
    }
    let mut found = Vec::new();
    // Each package is read once (components can be large); unreadable ones are skipped.
    for dir in dirs {
        match PackageSource::read(&dir) {
            Ok(source) => found.push(source),
            Err(e) => {
                limina::log::error(&format!("skipping the package in {}: {e:#}", dir.display()))
            }
        }
    }
    for text in references {
        let fetched = Reference::parse(&text)
            .map_err(|e| oci::OciError {
                kind: oci::OciErrorKind::Refused,
                message: e,
            })
            .and_then(|reference| oci::fetch(&reference, settings));
        match fetched {
            Ok(source) => {
                limina::log::info(&format!(
                    "package `{}` {} from {text}",
                    source.manifest.name, source.manifest.version
                ));
                found.push(source);
            }
            Err(e) => limina::log::error(&format!("skipping the package {text}: {e}")),
        }
    }
    Ok(found)
}

/// The entries that are folders (what `package.load` and `--watch` look in).
pub fn folders(entries: &[PathBuf]) -> Vec<PathBuf> {
    entries
        .iter()
        .filter(|e| !e.to_str().is_some_and(Reference::is_oci))
        .cloned()
        .collect()
}
