//! `--watch`: package folders are watched with `notify`; a changed component or manifest is
//! read and compiled on the watcher's own thread (off the request path), then handed to the
//! server, which admits it and swaps it into the registry between calls. Only a package's own
//! files count (its manifest and the component it names): logs, editor swap files or build
//! folders churning elsewhere under a root neither trigger nor delay a reload.

use super::{Manifest, PackageSource};
use crate::sandbox::{CompiledPackage, Sandbox};
use anyhow::{Context, Result};
use notify::{RecursiveMode, Watcher as _};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// How long a package's files must be quiet before a change is acted on: builds write several.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// The longest a change waits for quiet: a package whose files never stop changing is still
/// reloaded, at this pace.
const MAX_DELAY: Duration = Duration::from_secs(2);

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
        let watched = roots.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event
                    && counts(&event.kind)
                {
                    // Filtered here, so unrelated churn never reaches the debounce.
                    for dir in event.paths.iter().filter_map(|p| package_of(p, &watched)) {
                        let _ = tx.send(dir);
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
            .spawn(move || debounce_and_build(rx, &sandbox, &reloads))
            .context("starting the watcher thread")?;
        Ok(Watcher { _watcher: watcher })
    }
}

/// Gathers changed package folders until they are quiet for `DEBOUNCE` (or `MAX_DELAY` has
/// passed since the first), then reads and compiles each.
fn debounce_and_build(rx: Receiver<PathBuf>, sandbox: &Sandbox, reloads: &Sender<Reload>) {
    while let Ok(first) = rx.recv() {
        let deadline = Instant::now() + MAX_DELAY;
        let mut changed = BTreeSet::from([first]);
        loop {
            let wait = DEBOUNCE.min(deadline.saturating_duration_since(Instant::now()));
            match rx.recv_timeout(wait) {
                Ok(dir) => {
                    changed.insert(dir);
                }
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
                let compiled = sandbox.compile_for(
                    &source.component,
                    &label,
                    !source.manifest.grants.network.is_empty(),
                )?;
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

/// The package folder a changed path belongs to, if it is one of the package's own files: its
/// `limina.toml`, or the component that manifest names. The nearest folder above the path
/// holding a `limina.toml` (inside a root) is the package; every other path is churn.
fn package_of(path: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let root = roots.iter().find(|r| path.starts_with(r))?;
    let dir = path
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root))
        .find(|d| d.join("limina.toml").is_file())?;
    let manifest_path = dir.join("limina.toml");
    if path == manifest_path {
        return Some(dir.to_path_buf());
    }
    // A manifest that does not parse names nothing; fixing it is the change that counts.
    let text = std::fs::read_to_string(&manifest_path).ok()?;
    let manifest = Manifest::parse(&text).ok()?;
    (path == dir.join(&manifest.component)).then(|| dir.to_path_buf())
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
    fn only_a_packages_manifest_and_named_component_count() {
        let root = tempfile::tempdir().unwrap();
        let pkg = root.path().join("dice");
        std::fs::create_dir_all(pkg.join("src")).unwrap();
        std::fs::write(
            pkg.join("limina.toml"),
            "name = \"dice\"\nversion = \"1.0.0\"\ncomponent = \"build/dice.wasm\"\n",
        )
        .unwrap();
        let roots = vec![root.path().to_path_buf()];
        assert_eq!(
            package_of(&pkg.join("build/dice.wasm"), &roots),
            Some(pkg.clone())
        );
        assert_eq!(
            package_of(&pkg.join("build/./dice.wasm"), &roots),
            Some(pkg.clone())
        );
        assert_eq!(
            package_of(&pkg.join("limina.toml"), &roots),
            Some(pkg.clone())
        );
        for churn in [
            "dice.wasm",
            "build/old.wasm",
            "src/lib.rs",
            "target/x.wasm",
            ".limina.toml.swp",
            "trace.jsonl",
        ] {
            assert_eq!(package_of(&pkg.join(churn), &roots), None, "{churn}");
        }
        assert_eq!(package_of(&root.path().join("log.txt"), &roots), None);
        assert_eq!(
            package_of(&PathBuf::from("/elsewhere/limina.toml"), &roots),
            None
        );
    }

    #[test]
    fn with_a_manifest_that_does_not_parse_only_the_manifest_counts() {
        let root = tempfile::tempdir().unwrap();
        let pkg = root.path().join("dice");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("limina.toml"), "name = ").unwrap();
        let roots = vec![root.path().to_path_buf()];
        assert_eq!(package_of(&pkg.join("dice.wasm"), &roots), None);
        assert_eq!(package_of(&pkg.join("limina.toml"), &roots), Some(pkg));
    }
}
