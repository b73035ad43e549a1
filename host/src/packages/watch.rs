//! `--watch`: package folders are watched with `notify`; a changed component or manifest is
//! read and compiled on the watcher's own thread (off the request path), then handed to the
//! server, which admits it and swaps it into the registry between calls.

use super::PackageSource;
use crate::sandbox::{CompiledPackage, Sandbox};
use anyhow::{Context, Result};
use notify::{RecursiveMode, Watcher as _};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

/// How long the folder must be quiet before a change is acted on: builds write several files.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// A package that changed on disk, ready to swap in — or why it could not be read or built.
pub struct Reload {
    pub dir: PathBuf,
    pub result: Result<(PackageSource, CompiledPackage)>,
}

/// Keeps the file watcher alive; dropping it stops watching.
pub struct Watcher {
    _watcher: notify::RecommendedWatcher,
}

impl Watcher {
    /// Watches every folder in `roots` (each holding package folders) and sends a `Reload` for
    /// each package whose `limina.toml` or component changed.
    pub fn start(
        roots: Vec<PathBuf>,
        sandbox: Arc<Sandbox>,
        reloads: Sender<Reload>,
    ) -> Result<Watcher> {
        // notify reports absolute paths: relative roots (`--packages ..`) must be made so too.
        let roots: Vec<PathBuf> = roots
            .into_iter()
            .map(|r| std::fs::canonicalize(&r).unwrap_or(r))
            .collect();
        let (tx, rx) = channel::<PathBuf>();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event
                    && counts(&event.kind)
                {
                    for path in event.paths {
                        let _ = tx.send(path);
                    }
                }
            })
            .context("starting the package watcher")?;
        for root in &roots {
            watcher
                .watch(root, RecursiveMode::Recursive)
                .with_context(|| format!("watching {}", root.display()))?;
        }
        std::thread::Builder::new()
            .name("limina-watch".into())
            .spawn(move || debounce_and_build(rx, &roots, &sandbox, &reloads))
            .context("starting the watcher thread")?;
        Ok(Watcher { _watcher: watcher })
    }
}

fn debounce_and_build(
    rx: Receiver<PathBuf>,
    roots: &[PathBuf],
    sandbox: &Sandbox,
    reloads: &Sender<Reload>,
) {
    while let Ok(first) = rx.recv() {
        let mut changed = BTreeSet::new();
        changed.extend(package_of(&first, roots));
        loop {
            match rx.recv_timeout(DEBOUNCE) {
                Ok(path) => changed.extend(package_of(&path, roots)),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        for dir in changed {
            let result = PackageSource::read(&dir).and_then(|source| {
                let label = format!(
                    "package `{}` {}",
                    source.manifest.name, source.manifest.version
                );
                let compiled = sandbox.compile(&source.component, &label)?;
                Ok((source, compiled))
            });
            if reloads.send(Reload { dir, result }).is_err() {
                return;
            }
        }
    }
}

/// Whether an event can mean new content. Reads are not changes: the host's own reading of a
/// package it reloads would otherwise be seen as a change and reload it again, forever.
fn counts(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, EventKind};
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// The package folder a changed path belongs to, if the change matters: a manifest or a
/// `.wasm` directly inside a package folder (sources and build output are ignored).
fn package_of(path: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    if !(name == "limina.toml" || name.ends_with(".wasm")) {
        return None;
    }
    let dir = path.parent()?;
    if !dir.join("limina.toml").is_file() {
        return None;
    }
    roots
        .iter()
        .any(|r| dir.starts_with(r))
        .then(|| dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::{counts, package_of};
    use std::path::PathBuf;

    #[test]
    fn reading_a_package_is_not_a_change_but_writing_one_is() {
        use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};
        assert!(!counts(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!counts(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(counts(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(counts(&EventKind::Modify(ModifyKind::Any)));
        assert!(counts(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn only_manifests_and_components_of_package_folders_count() {
        let root = tempfile::tempdir().unwrap();
        let pkg = root.path().join("dice");
        std::fs::create_dir_all(pkg.join("src")).unwrap();
        std::fs::write(pkg.join("limina.toml"), "").unwrap();
        let roots = vec![root.path().to_path_buf()];
        assert_eq!(
            package_of(&pkg.join("dice.wasm"), &roots),
            Some(pkg.clone())
        );
        assert_eq!(
            package_of(&pkg.join("limina.toml"), &roots),
            Some(pkg.clone())
        );
        assert_eq!(package_of(&pkg.join("src/lib.rs"), &roots), None);
        assert_eq!(package_of(&pkg.join("target/x.wasm"), &roots), None);
        assert_eq!(
            package_of(&PathBuf::from("/elsewhere/limina.toml"), &roots),
            None
        );
    }
}
