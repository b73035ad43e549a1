//! Python packages: `app.py` beside `limina.toml`, made a component by componentize-py.
//!
//! componentize-py comes from PyPI, pinned, installed on demand by [`crate::tools`].

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};

use crate::tools::{self, Registry, Tool};
use crate::{files, process};

/// The pinned componentize-py release.
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";
/// The module componentize-py wraps: `app.py` of the package.
pub const APP_MODULE: &str = "app";
/// The WIT world every package targets.
pub const WORLD: &str = "skill-package";

/// componentize-py, pinned.
pub const TOOL: Tool = Tool {
    package: "componentize-py",
    version: COMPONENTIZE_PY_VERSION,
    registry: Registry::PyPi,
    purpose: "Python guests",
    size: "70 MB",
};

/// An installed componentize-py: the Python of its virtual environment.
#[derive(Debug, Clone)]
pub struct Componentize {
    python: PathBuf,
}

/// componentize-py from the cache, installed there first when missing.
pub fn componentize_py() -> Result<Componentize> {
    Ok(Componentize {
        python: tools::venv_python(&TOOL.ensure()?),
    })
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

/// Whether `output` is newer than every Python file of the package, its manifest and every
/// WIT file, so that a repository build can skip componentize-py.
pub fn is_up_to_date(dir: &Path, wit: &Path, output: &Path) -> bool {
    let Some(built) = files::modified(output) else {
        return false;
    };
    let newest = files::newest_source(dir, &["py", "json"], &[])
        .max(files::newest_source(wit, &["wit"], &[]))
        .max(files::modified(&dir.join("limina.toml")).unwrap_or(SystemTime::UNIX_EPOCH));
    newest <= built
}
