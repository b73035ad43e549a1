//! Python packages: `app.py` beside `limina.toml`, made a component by componentize-py.
//!
//! componentize-py comes from PyPI, pinned, installed on demand into a virtual environment in
//! the user's cache (`<cache>/tools/componentize-py-<version>/`), never into the repository.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result, bail};

use crate::{files, layout, process};

/// The pinned componentize-py release.
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";
/// The module componentize-py wraps: `app.py` of the package.
pub const APP_MODULE: &str = "app";
/// The WIT world every package targets.
pub const WORLD: &str = "skill-package";

/// Written into the tool folder once its install was checked.
const MARKER: &str = ".limina-verified";

/// Whether `dir` holds a Python package (`app.py` beside `limina.toml`).
pub fn is_python_package(dir: &Path) -> bool {
    dir.join(format!("{APP_MODULE}.py")).is_file() && dir.join("limina.toml").is_file()
}

/// An installed componentize-py: the Python of its virtual environment.
#[derive(Debug, Clone)]
pub struct Componentize {
    python: PathBuf,
}

/// componentize-py from the cache, installed there first when missing (with a message on
/// stderr; about 70 MB, a few seconds with a warm pip cache).
pub fn componentize_py() -> Result<Componentize> {
    let dir = layout::cache_dir()?
        .join("tools")
        .join(format!("componentize-py-{COMPONENTIZE_PY_VERSION}"));
    let python = dir.join("bin").join("python3");
    if dir.join(MARKER).is_file() && python.is_file() {
        return Ok(Componentize { python });
    }
    install(&dir)?;
    Ok(Componentize { python })
}

/// Makes a venv in a staging folder, pip-installs the pinned release, checks it runs, then
/// moves it into place. The venv's Python finds its packages wherever the folder lives.
fn install(dir: &Path) -> Result<()> {
    let parent = dir.parent().expect("the tool folder has a parent");
    fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    crate::say!(
        "installing componentize-py {COMPONENTIZE_PY_VERSION} (Python guests) into {} (once)…",
        dir.display()
    );
    let started = Instant::now();
    let staging = parent.join(format!(
        ".componentize-py-{COMPONENTIZE_PY_VERSION}.partial-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&staging);
    process::run_quietly(Command::new("python3").args(["-m", "venv"]).arg(&staging)).context(
        "could not create a Python virtual environment: install python3 with its venv module \
         (Debian: apt-get install python3-venv)",
    )?;
    let python = staging.join("bin").join("python3");
    process::run_quietly(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-input",
            ])
            .arg(format!("componentize-py=={COMPONENTIZE_PY_VERSION}")),
    )
    .with_context(|| {
        format!("could not install componentize-py=={COMPONENTIZE_PY_VERSION} with pip")
    })?;
    let version = process::output_text(Command::new(&python).args([
        "-c",
        "import importlib.metadata as m; print(m.version('componentize-py'))",
    ]))?;
    if version.trim() != COMPONENTIZE_PY_VERSION {
        bail!(
            "pip installed componentize-py {}, expected {COMPONENTIZE_PY_VERSION}",
            version.trim()
        );
    }
    let _ = fs::remove_dir_all(dir); // a folder without the marker is a leftover
    if let Err(err) = fs::rename(&staging, dir) {
        let _ = fs::remove_dir_all(&staging);
        if dir.join(MARKER).is_file() {
            return Ok(()); // another run finished first
        }
        return Err(err).with_context(|| format!("moving the venv to {}", dir.display()));
    }
    fs::write(dir.join(MARKER), format!("{COMPONENTIZE_PY_VERSION}\n"))?;
    crate::say!(
        "componentize-py {COMPONENTIZE_PY_VERSION} ready in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

impl Componentize {
    /// Builds the package in `dir` (module `app`, world `skill-package` of the WIT in
    /// `wit`) into `output`; returns the component's bytes.
    pub fn build(&self, dir: &Path, wit: &Path, output: &Path) -> Result<Vec<u8>> {
        let started = Instant::now();
        crate::say!("componentize-py: building {}…", dir.display());
        let tmp = output.with_extension(format!("partial-{}.wasm", std::process::id()));
        let mut command = Command::new(&self.python);
        command
            .args([
                "-c",
                "import sys\nfrom componentize_py import script\nsys.argv[0] = 'componentize-py'\nsys.exit(script())",
            ])
            .arg("-d")
            .arg(wit)
            .args(["-w", WORLD, "componentize", APP_MODULE, "-p", "."])
            .arg("-o")
            .arg(&tmp)
            .current_dir(dir)
            // Only the package's own folder goes into the component.
            .env_remove("VIRTUAL_ENV")
            .env("PYTHONDONTWRITEBYTECODE", "1");
        let result = process::run_quietly(&mut command);
        let bytes = result.and_then(|()| {
            fs::read(&tmp).with_context(|| format!("componentize-py left no {}", tmp.display()))
        });
        let _ = fs::remove_file(&tmp);
        let bytes =
            bytes.with_context(|| format!("building the Python package {}", dir.display()))?;
        crate::say!(
            "componentize-py: {} KiB in {:.1}s",
            bytes.len().div_ceil(1024),
            started.elapsed().as_secs_f64()
        );
        Ok(bytes)
    }
}

/// Builds a Python package into `dir/component` (written only when its bytes changed).
/// Returns the bytes and whether the file changed.
pub fn build_package(
    componentize: &Componentize,
    dir: &Path,
    component: &Path,
    wit: &Path,
) -> Result<(PathBuf, Vec<u8>, bool)> {
    let output = dir.join(component);
    let bytes = componentize.build(dir, wit, &output)?;
    let changed = files::write_if_changed(&output, &bytes)?;
    Ok((output, bytes, changed))
}

/// Whether `output` is newer than every Python file of the package and every WIT file, so
/// that a repository build can skip componentize-py.
pub fn is_up_to_date(dir: &Path, wit: &Path, output: &Path) -> bool {
    let Some(built) = modified(output) else {
        return false;
    };
    let mut newest = SystemTime::UNIX_EPOCH;
    newest_source(dir, &mut newest);
    newest_source(wit, &mut newest);
    if let Some(manifest) = modified(&dir.join("limina.toml")) {
        newest = newest.max(manifest);
    }
    newest <= built
}

fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest `.py` or `.wit` file under `dir` (skipping caches and hidden folders).
fn newest_source(dir: &Path, newest: &mut SystemTime) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.') && name != "__pycache__" {
                newest_source(&path, newest);
            }
        } else if (name.ends_with(".py") || name.ends_with(".wit") || name.ends_with(".json"))
            && let Some(time) = modified(&path)
        {
            *newest = (*newest).max(time);
        }
    }
}
