//! Small file helpers: atomic writes and copy-if-changed, so that a host watching a folder
//! never sees a half-written component.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use anyhow::{Context, Result};

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("a file path has a parent")?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = path.file_name().context("a file path has a name")?;
    let temp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    fs::write(&temp, bytes).with_context(|| format!("writing {}", temp.display()))?;
    fs::rename(&temp, path).with_context(|| format!("replacing {}", path.display()))
}

/// Writes `bytes` to `path` unless it already holds exactly them. Returns whether it wrote.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool> {
    if fs::read(path).is_ok_and(|current| current == bytes) {
        return Ok(false);
    }
    write_atomic(path, bytes)?;
    Ok(true)
}

/// Copies `from` to `to` unless `to` already has the same content. Returns whether it wrote.
pub fn copy_if_changed(from: &Path, to: &Path) -> Result<bool> {
    let bytes = fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    write_if_changed(to, &bytes)
}

/// Whether `output` exists and is at least as new as `input`.
pub fn is_up_to_date(input: &Path, output: &Path) -> bool {
    match (modified(input), modified(output)) {
        (Some(input), Some(output)) => output >= input,
        _ => false,
    }
}

/// When `path` was last modified, if it exists.
pub fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest modification time of the files under `dir` whose extension is one of
/// `extensions`, skipping hidden folders, `__pycache__`, `node_modules` and the folders named in
/// `skip` (the epoch when there is none).
pub fn newest_source(dir: &Path, extensions: &[&str], skip: &[&str]) -> SystemTime {
    let mut newest = SystemTime::UNIX_EPOCH;
    let Ok(entries) = fs::read_dir(dir) else {
        return newest;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.')
                && name != "__pycache__"
                && name != "node_modules"
                && !skip.contains(&name.as_ref())
            {
                newest = newest.max(newest_source(&path, extensions, skip));
            }
        } else if path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
            && let Some(time) = modified(&path)
        {
            newest = newest.max(time);
        }
    }
    newest
}
