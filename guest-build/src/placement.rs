//! Putting components where packages are loaded from.
//!
//! A guest crate whose folder holds a `limina.toml` is a package. Core packages (from
//! `skills-core/`) are assembled into `target/core/<folder>/` (manifest plus component); a
//! package under `packages/<name>/` gets its component next to its manifest. In both cases the
//! component file is the manifest's `component = "…"` path, or `<folder>.wasm` without one.

use std::fs;
use std::path::{Component, PathBuf};

use anyhow::{Context, Result, bail};

use crate::files;
use crate::repo::{Guest, Repo, Role};

/// The manifest file name of a package.
pub const MANIFEST: &str = "limina.toml";

/// Copies a guest's component to where its package is loaded from, when it is a package.
/// Returns where the component went.
pub fn place(repo: &Repo, guest: &Guest) -> Result<Option<PathBuf>> {
    let manifest_path = guest.crate_dir.join(MANIFEST);
    if guest.workspace.role == Role::Test || !manifest_path.is_file() {
        return Ok(None);
    }
    let manifest = fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?;
    let folder = folder_name(guest)?;
    let file = component_file(&manifest, folder)
        .with_context(|| format!("in {}", manifest_path.display()))?;
    let destination = match guest.workspace.role {
        Role::Core => {
            let dir = repo.core_package_dir().join(folder);
            files::write_if_changed(&dir.join(MANIFEST), manifest.as_bytes())?;
            dir.join(file)
        }
        _ => guest.crate_dir.join(file),
    };
    files::copy_if_changed(&guest.component, &destination)?;
    Ok(Some(destination))
}

/// Removes folders of `target/core` that no current core guest produced (a removed or
/// renamed core package must not keep loading).
pub fn prune_core(repo: &Repo, guests: &[Guest]) -> Result<()> {
    let dir = repo.core_package_dir();
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(());
    };
    let mut keep = Vec::new();
    for guest in guests {
        if guest.workspace.role == Role::Core && guest.crate_dir.join(MANIFEST).is_file() {
            keep.push(folder_name(guest)?.to_string());
        }
    }
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_dir() && !keep.contains(&name) {
            crate::say!("removing stale core package target/core/{name}");
            fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(())
}

/// The name of the folder holding a guest crate.
fn folder_name(guest: &Guest) -> Result<&str> {
    guest
        .crate_dir
        .file_name()
        .and_then(|name| name.to_str())
        .context("a guest crate folder has a UTF-8 name")
}

/// The component path a manifest names (relative to the manifest), or `<folder>.wasm`.
pub fn component_file(manifest: &str, folder: &str) -> Result<PathBuf> {
    let Some(value) = component_key(manifest) else {
        return Ok(PathBuf::from(format!("{folder}.wasm")));
    };
    let path = PathBuf::from(&value);
    let inside = path
        .components()
        .all(|component| matches!(component, Component::Normal(_) | Component::CurDir));
    if value.is_empty() || !inside {
        bail!("`component = {value:?}` must be a relative path inside the package");
    }
    Ok(path)
}

/// The string value of a `component = "…"` line, read with a small line parse.
fn component_key(manifest: &str) -> Option<String> {
    manifest.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("component")?.trim_start();
        let value = rest.strip_prefix('=')?.trim_start();
        let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let value = &value[1..];
        Some(value[..value.find(quote)?].to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::{component_file, component_key, place};
    use crate::repo::{Guest, Repo, Role, Workspace};
    use std::fs;
    use std::path::Path;

    #[test]
    fn places_a_package_component_next_to_its_manifest() {
        let dir = std::env::temp_dir().join(format!("guest-build-place-{}", std::process::id()));
        let crate_dir = dir.join("dice");
        fs::create_dir_all(&crate_dir).unwrap();
        fs::write(
            crate_dir.join("limina.toml"),
            "component = \"out/dice.wasm\"\n",
        )
        .unwrap();
        fs::write(dir.join("built.wasm"), b"component bytes").unwrap();
        let guest = Guest {
            crate_name: "dice".into(),
            crate_dir: crate_dir.clone(),
            workspace: Workspace {
                dir: crate_dir.clone(),
                role: Role::Package,
            },
            component: dir.join("built.wasm"),
        };
        let placed = place(&Repo::new(&dir), &guest).unwrap().unwrap();
        assert_eq!(placed, crate_dir.join("out/dice.wasm"));
        assert_eq!(fs::read(&placed).unwrap(), b"component bytes");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_the_component_key() {
        let manifest = "name = \"dice\"\ncomponent = \"build/dice.wasm\" # built by xtask\n";
        assert_eq!(component_key(manifest).as_deref(), Some("build/dice.wasm"));
        assert_eq!(component_key("components = \"x\"\n"), None);
        assert_eq!(
            component_key("component='a.wasm'\n").as_deref(),
            Some("a.wasm")
        );
    }

    #[test]
    fn defaults_and_rejects_escaping_paths() {
        let default = component_file("name = \"dice\"\n", "dice").unwrap();
        assert_eq!(default, Path::new("dice.wasm"));
        assert!(component_file("component = \"../x.wasm\"\n", "dice").is_err());
        assert!(component_file("component = \"/x.wasm\"\n", "dice").is_err());
    }
}
