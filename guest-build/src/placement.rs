//! Putting components where packages are loaded from.
//!
//! A guest crate whose folder holds a `limina.toml` is a package. Core packages (from
//! `skills-core/`) are assembled into `target/core/<folder>/` (manifest plus component); a
//! package under `packages/<name>/` gets its component next to its manifest. In both cases the
//! component file is the manifest's `component = "…"` path, or `<folder>.wasm` without one.
//! A manifest that pins a `content_hash` gets the new component's hash, so a rebuilt package
//! is not refused for a stale pin.

use std::fs;
use std::path::{Component, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::files;
use crate::manifest::{self, MANIFEST};
use crate::repo::{Guest, Repo, Role};

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
    let component = fs::read(&guest.component)
        .with_context(|| format!("reading {}", guest.component.display()))?;
    let manifest = refresh_pinned_hash(&manifest, &component)
        .with_context(|| format!("in {}", manifest_path.display()))?;
    let (manifest_out, destination) = match guest.workspace.role {
        Role::Core => {
            let dir = repo.core_package_dir().join(folder);
            (dir.join(MANIFEST), dir.join(file))
        }
        _ => (manifest_path, guest.crate_dir.join(file)),
    };
    files::write_if_changed(&destination, &component)?;
    files::write_if_changed(&manifest_out, manifest.as_bytes())?;
    Ok(Some(destination))
}

/// The manifest text with a pinned `content_hash` moved to the hash of `component` (a
/// manifest that pins none is left alone). A stale `[attestation]` cannot be fixed without
/// the key: it is reported.
fn refresh_pinned_hash(text: &str, component: &[u8]) -> Result<String> {
    let hash = format!("sha256:{}", hex::encode(Sha256::digest(component)));
    match manifest::pinned_content_hash(text) {
        Some(pinned) if !pinned.eq_ignore_ascii_case(&hash) => {
            if manifest::has_attestation(text) {
                crate::say!(
                    "warning: the [attestation] signs an earlier build; sign again with \
                     `limina pkg sign --key FILE` or hosts will refuse the package"
                );
            }
            manifest::set_content_hash(text, &hash)
        }
        _ => Ok(text.to_string()),
    }
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
        let placed = place(&Repo::new(&dir), &dice_guest(&dir)).unwrap().unwrap();
        assert_eq!(placed, crate_dir.join("out/dice.wasm"));
        assert_eq!(fs::read(&placed).unwrap(), b"component bytes");
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The `dice` package guest in `dir/dice`, built to `dir/built.wasm`.
    fn dice_guest(dir: &std::path::Path) -> Guest {
        let crate_dir = dir.join("dice");
        Guest {
            crate_name: "dice".into(),
            crate_dir: crate_dir.clone(),
            workspace: Workspace {
                dir: crate_dir,
                role: Role::Package,
            },
            component: dir.join("built.wasm"),
        }
    }

    #[test]
    fn a_pinned_hash_follows_the_component() {
        let dir = std::env::temp_dir().join(format!("guest-build-pin-{}", std::process::id()));
        let crate_dir = dir.join("dice");
        fs::create_dir_all(&crate_dir).unwrap();
        let pinned = format!("content_hash = \"sha256:{}\" # pinned\n", "0".repeat(64));
        fs::write(
            crate_dir.join("limina.toml"),
            format!("name = \"dice\"\n{pinned}"),
        )
        .unwrap();
        fs::write(dir.join("built.wasm"), b"new bytes").unwrap();
        place(&Repo::new(&dir), &dice_guest(&dir)).unwrap();
        let manifest = fs::read_to_string(crate_dir.join("limina.toml")).unwrap();
        // sha256 of "new bytes"
        let expected = "sha256:11e2defd59f47c7f2aac84d6a5d6747e98e785afffb72c8bb7b05ec74e1d663c";
        let hash = crate::manifest::pinned_content_hash(&manifest);
        assert_eq!(hash.as_deref(), Some(expected), "{manifest}");
        assert!(manifest.starts_with("name = \"dice\"\n"), "{manifest}");
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
