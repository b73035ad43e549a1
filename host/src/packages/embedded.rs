//! The core packages built into the binary, so that one `limina` file serves them anywhere.
//!
//! `host/build.rs` embeds every package folder `cargo xtask build-guests` assembled in
//! `target/core` (manifest and component). Serving uses them unless `--core-dir` or
//! `$LIMINA_CORE_DIR` names a folder to read instead. Compiled components are cached by
//! content hash as for any package, so only the first start on a machine compiles them.
//!
//! A developer who rebuilds a core guest gets it embedded by the next `cargo build` (cargo
//! reruns the build script when `target/core` changes; `cargo xtask run` and `test` build the
//! guests and then the host). A binary started without that rebuild notices that the folder it
//! was built from changed since and says so ([`stale_note`]).

use super::{Manifest, PackageSource};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// A package folder embedded at build time.
#[derive(Debug)]
pub struct EmbeddedPackage {
    /// The folder's name in `target/core` (`scene`, `ecs`, …).
    pub folder: &'static str,
    /// Its files, paths relative to the folder with `/` separators.
    pub files: &'static [EmbeddedFile],
}

/// One embedded file and how it looked on disk when it was embedded.
#[derive(Debug)]
pub struct EmbeddedFile {
    pub path: &'static str,
    pub bytes: &'static [u8],
    /// The hex sha256 of `bytes`, computed when they were embedded.
    pub sha256: &'static str,
    pub stamp: Stamp,
}

/// A file's size and modification time, to notice a later rebuild without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub secs: u64,
    pub nanos: u32,
}

// `BUILT_FROM` and `PACKAGES`, written by host/build.rs.
include!(concat!(env!("OUT_DIR"), "/core_packages.rs"));

/// The prefix of an embedded package's `dir`, which names no folder on disk.
const EMBEDDED_DIR: &str = "<embedded>";

/// The core packages embedded in this binary (none when it was built before the guests).
pub fn packages() -> &'static [EmbeddedPackage] {
    PACKAGES
}

/// The embedded core packages, ready to load; an error saying what to do when there are none.
pub fn sources() -> Result<Vec<PackageSource>> {
    sources_of(PACKAGES)
}

fn sources_of(packages: &[EmbeddedPackage]) -> Result<Vec<PackageSource>> {
    if packages.is_empty() {
        bail!(
            "no core packages were built into this binary (it was built before `cargo xtask build-guests`) — build them and then this binary again (`cargo xtask build-guests && cargo build -p limina`, or `cargo xtask dist`), or point --core-dir at a folder of core packages"
        );
    }
    packages.iter().map(EmbeddedPackage::source).collect()
}

impl EmbeddedPackage {
    /// The package as if read from its folder: its manifest parsed and checked, its component.
    pub fn source(&self) -> Result<PackageSource> {
        let label = format!("the embedded core package `{}`", self.folder);
        let manifest = self
            .file("limina.toml")
            .map(|f| f.bytes)
            .with_context(|| format!("{label} has no limina.toml"))?;
        let text = std::str::from_utf8(manifest)
            .with_context(|| format!("{label}: limina.toml is not UTF-8"))?;
        let manifest =
            Manifest::parse(text).with_context(|| format!("in {label}'s limina.toml"))?;
        let component = self.file(&manifest.component).with_context(|| {
            format!(
                "{label} has no component `{}` (its manifest names it)",
                manifest.component
            )
        })?;
        // Hashed at build time: a start with a warm cache never reads the component's bytes.
        Ok(PackageSource::new(
            Path::new(EMBEDDED_DIR).join(self.folder),
            manifest,
            std::borrow::Cow::Borrowed(component.bytes),
            true,
        )
        .with_hash(component.sha256))
    }

    /// The file at `path` (relative to the package folder).
    fn file(&self, path: &str) -> Option<&EmbeddedFile> {
        let wanted = path.trim_start_matches("./");
        self.files.iter().find(|f| f.path == wanted)
    }
}

/// A warning when the folder the core was embedded from is still there and changed since
/// (a core guest rebuilt without rebuilding the host); `None` on any other machine.
pub fn stale_note() -> Option<String> {
    if PACKAGES.is_empty() {
        return None;
    }
    let dir = Path::new(BUILT_FROM);
    changed_since(dir, PACKAGES).map(|what| {
        format!(
            "the core packages in {} changed after this binary was built ({what}); it serves the ones built into it — run `cargo build -p limina` (or `cargo xtask run`) to embed the new ones, or pass --core-dir {}",
            dir.display(),
            dir.display()
        )
    })
}

/// What differs between `dir` and the embedded `packages`, if `dir` exists: a package folder
/// added or removed, or a file whose size or modification time moved. Reads no file.
fn changed_since(dir: &Path, packages: &[EmbeddedPackage]) -> Option<String> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut on_disk: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("limina.toml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    on_disk.sort();
    let embedded: Vec<&str> = packages.iter().map(|p| p.folder).collect();
    if on_disk != embedded {
        return Some(format!(
            "packages now {}, embedded {}",
            on_disk.join(", "),
            embedded.join(", ")
        ));
    }
    for package in packages {
        for file in package.files {
            let path: PathBuf = dir.join(package.folder).join(file.path);
            if stamp_of(&path) != Some(file.stamp) {
                return Some(format!("{} was rebuilt", path.display()));
            }
        }
    }
    None
}

/// A file's stamp as it is now, `None` when it cannot be read.
fn stamp_of(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(Stamp {
        len: meta.len(),
        secs: modified.as_secs(),
        nanos: modified.subsec_nanos(),
    })
}

#[cfg(test)]
#[path = "embedded_tests.rs"]
mod tests;
