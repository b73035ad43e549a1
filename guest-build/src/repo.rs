//! Building the guest workspaces of the Limina repository and placing their components.
//!
//! Guest workspaces are separate cargo workspaces, excluded from the host's: `skills-core/`,
//! `tests/guests/` and every `packages/*/` with a `Cargo.toml`. They share one target folder,
//! `target/guests`, so common dependencies (wit-bindgen) compile once.
//!
//! Packages in other languages (`skills.py`, `app.c`, `app.zig` or `skills.js` beside
//! `limina.toml`) in `packages/*/` and `tests/guests-<lang>/*/` are built with their pinned
//! tools against the repository's `wit/`.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cargo::{self, Build};
use crate::lang::{self, Lang};
use crate::toolchain::GuestToolchain;
use crate::{component, placement};

/// A checkout of the Limina repository and where its guest builds go.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The folder holding the workspace `Cargo.toml`.
    pub root: PathBuf,
}

impl Repo {
    /// The repository rooted at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Repo { root: root.into() }
    }

    /// The cargo target directory shared by every guest workspace, so that dependencies such
    /// as wit-bindgen compile once.
    pub fn guest_target_dir(&self) -> PathBuf {
        self.root.join("target").join("guests")
    }

    /// Where the encoded components go, one `<crate>.wasm` per guest crate.
    pub fn component_dir(&self) -> PathBuf {
        self.root.join("target").join("components")
    }

    /// Where the core packages are assembled (manifest plus component); the host loads them
    /// here.
    pub fn core_package_dir(&self) -> PathBuf {
        self.root.join("target").join("core")
    }

    /// A path relative to the repository root when it lies inside it, for shorter messages.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// What a guest workspace holds, which decides where its components go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `skills-core/`: core packages, assembled into `target/core`.
    Core,
    /// `tests/guests/`: test guests, left in `target/components`.
    Test,
    /// `packages/<name>/`: example packages, copied next to their manifest.
    Package,
}

/// A cargo workspace (or standalone crate) of guests.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The folder holding its `Cargo.toml`.
    pub dir: PathBuf,
    /// What it holds.
    pub role: Role,
}

/// One guest crate: a cdylib built for wasm32 and encoded as a component.
#[derive(Debug, Clone)]
pub struct Guest {
    /// The library name (`-` turned to `_`), which names the `.wasm` files.
    pub crate_name: String,
    /// The folder holding the crate's `Cargo.toml`.
    pub crate_dir: PathBuf,
    /// The workspace it was built in.
    pub workspace: Workspace,
    /// `target/components/<crate_name>.wasm`.
    pub component: PathBuf,
}

impl fmt::Display for Guest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.crate_name, self.crate_dir.display())
    }
}

/// The guest workspaces present in the repository, in build order.
pub fn discover(repo: &Repo) -> Result<Vec<Workspace>> {
    let mut found = Vec::new();
    for (dir, role) in [
        (repo.root.join("skills-core"), Role::Core),
        (repo.root.join("tests").join("guests"), Role::Test),
    ] {
        if dir.join("Cargo.toml").is_file() {
            found.push(Workspace { dir, role });
        }
    }
    let packages = repo.root.join("packages");
    if packages.is_dir() {
        let mut dirs = Vec::new();
        for entry in fs::read_dir(&packages)? {
            let dir = entry?.path();
            if dir.join("Cargo.toml").is_file() {
                dirs.push(dir);
            }
        }
        dirs.sort();
        found.extend(dirs.into_iter().map(|dir| Workspace {
            dir,
            role: Role::Package,
        }));
    }
    Ok(found)
}

/// Builds every guest workspace, encodes every guest as a component, and places the
/// components where the host and the packages expect them. A workspace that fails does not
/// stop the others; the command fails at the end, naming every failed workspace.
pub fn build_all(repo: &Repo, toolchain: &GuestToolchain) -> Result<()> {
    let workspaces = discover(repo)?;
    if workspaces.is_empty() {
        crate::say!("no guest workspaces to build");
    }
    let mut guests = Vec::new();
    let mut failed = Vec::new();
    for workspace in &workspaces {
        match build_workspace(repo, toolchain, workspace) {
            Ok(built) => guests.extend(built),
            Err(err) => {
                crate::say!("error: {err:#}");
                failed.push(repo.display(&workspace.dir));
            }
        }
    }
    failed.extend(build_foreign(repo)?);
    if !failed.is_empty() {
        bail!("guest build failed in {}", failed.join(", "));
    }
    crate::viewer::assemble(repo)?;
    placement::prune_core(repo, &guests)
}

/// The guests of the repository in languages other than Rust: example packages (built next to
/// their manifest) and test guests in `tests/guests-*/` (built into
/// `target/components/<folder>.wasm`).
pub fn discover_foreign(repo: &Repo) -> Result<Vec<(PathBuf, Lang, Role)>> {
    let mut parents = vec![(repo.root.join("packages"), Role::Package)];
    if let Ok(entries) = fs::read_dir(repo.root.join("tests")) {
        let mut tests: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("guests-"))
            })
            .collect();
        tests.sort();
        parents.extend(tests.into_iter().map(|dir| (dir, Role::Test)));
    }
    let mut found = Vec::new();
    for (parent, role) in parents {
        let Ok(entries) = fs::read_dir(&parent) else {
            continue;
        };
        let mut dirs: Vec<(PathBuf, Lang)> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter_map(|dir| Lang::of(&dir).map(|lang| (dir, lang)))
            .filter(|(_, lang)| *lang != Lang::Rust)
            .collect();
        dirs.sort_by(|a, b| a.0.cmp(&b.0));
        found.extend(dirs.into_iter().map(|(dir, lang)| (dir, lang, role)));
    }
    Ok(found)
}

/// Builds every non-Rust guest whose component is older than its sources (installing each
/// language's tool the first time one needs building). Returns the guests that failed.
fn build_foreign(repo: &Repo) -> Result<Vec<String>> {
    let mut failed = Vec::new();
    for (dir, lang, role) in discover_foreign(repo)? {
        let wit = repo.root.join(lang.contract(&dir).folder());
        let folder = dir
            .file_name()
            .and_then(|n| n.to_str())
            .context("a guest folder has no UTF-8 name")?
            .to_string();
        let output = match role {
            Role::Package => {
                let manifest = fs::read_to_string(dir.join("limina.toml"))?;
                dir.join(placement::component_file(&manifest, &folder)?)
            }
            _ => repo.component_dir().join(format!("{folder}.wasm")),
        };
        let shown = repo.display(&dir);
        if lang::is_up_to_date(lang, &dir, &wit, &repo.root.join("sdk"), &output) {
            crate::say!("{lang} guest {shown}: up to date");
            continue;
        }
        let built = lang::build_foreign(lang, &dir, &wit)
            .and_then(|bytes| crate::files::write_atomic(&output, &bytes));
        match built {
            Ok(()) => crate::say!("{lang} guest {shown}: built → {}", repo.display(&output)),
            Err(err) => {
                crate::say!("error: {lang} guest {shown}: {err:#}");
                failed.push(shown);
            }
        }
    }
    Ok(failed)
}

/// Builds one workspace and turns each of its guests into a placed component.
fn build_workspace(
    repo: &Repo,
    toolchain: &GuestToolchain,
    workspace: &Workspace,
) -> Result<Vec<Guest>> {
    let target_dir = repo.guest_target_dir();
    cargo::build(
        toolchain,
        &Build {
            dir: &workspace.dir,
            workspace: true,
            target_dir: Some(&target_dir),
            label: &repo.display(&workspace.dir),
        },
    )?;
    let guests: Vec<Guest> = cargo::metadata(toolchain, &workspace.dir)?
        .cdylibs
        .into_iter()
        .map(|cdylib| Guest {
            component: repo
                .component_dir()
                .join(format!("{}.wasm", cdylib.crate_name)),
            crate_name: cdylib.crate_name,
            crate_dir: cdylib.crate_dir,
            workspace: workspace.clone(),
        })
        .collect();
    for guest in &guests {
        let shown = format!("{} ({})", guest.crate_name, repo.display(&guest.crate_dir));
        let module = cargo::module_path(&target_dir, &guest.crate_name);
        if !module.is_file() {
            bail!("{shown}: cargo left no {}", repo.display(&module));
        }
        let encoded = component::encode_if_stale(&module, &guest.component)
            .with_context(|| format!("guest {shown}"))?;
        let size = fs::metadata(&guest.component)?.len();
        let placed = placement::place(repo, guest).with_context(|| format!("guest {shown}"))?;
        crate::say!(
            "guest {shown}: {}, {} KiB{}",
            if encoded { "encoded" } else { "up to date" },
            size.div_ceil(1024),
            placed
                .map(|p| format!(" → {}", repo.display(&p)))
                .unwrap_or_default()
        );
    }
    Ok(guests)
}
