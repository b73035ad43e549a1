//! Python packages: `app.py` beside `limina.toml`, made a component by componentize-py.
//!
//! componentize-py comes from PyPI, pinned, installed on demand by [`crate::tools`]. The
//! Python SDK's modules (`sdk/python`: the HTTP client over `wasi:http`) are written into the
//! package's `bindings/` on every build and put on the module path, so that packages import
//! one copy instead of keeping their own.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::tools::{self, Registry, Tool};
use crate::{files, lang, native};

/// The pinned componentize-py release.
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";
/// The module componentize-py wraps: `app.py` of the package.
pub const APP_MODULE: &str = "app";

/// componentize-py, pinned.
pub const TOOL: Tool = Tool {
    package: "componentize-py",
    version: COMPONENTIZE_PY_VERSION,
    registry: Registry::PyPi,
    purpose: "Python guests",
    size: "70 MB",
    with: &[],
};

/// The Python SDK's modules, `(file, text)`: what a package imports beside the generated
/// `wit_world`.
pub const SDK_MODULES: &[(&str, &str)] = &[(
    "limina_http.py",
    include_str!("../../sdk/python/limina_http.py"),
)];

/// Writes the SDK's modules into `dir/bindings/` (only those whose bytes changed); returns
/// the folder, which goes on the module path of builds and native tests.
pub fn write_bindings(dir: &Path) -> Result<PathBuf> {
    let out = dir.join(native::BINDINGS_DIR);
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    for (name, text) in SDK_MODULES {
        files::write_if_changed(&out.join(name), text.as_bytes())?;
    }
    files::write_if_changed(&out.join("README.md"), native::BINDINGS_README.as_bytes())?;
    Ok(out)
}

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
    /// Builds the package in `dir` (module `app`, world `skill-package` of the WIT in `wit`, or
    /// `skill-package-http` when the manifest declares network grants); returns the
    /// component's bytes.
    pub fn build(&self, dir: &Path, wit: &Path) -> Result<Vec<u8>> {
        write_bindings(dir)?;
        lang::run_tool("componentize-py", dir, |output| {
            let mut command = Command::new(&self.python);
            command
                .args([
                    "-c",
                    "import sys\nfrom componentize_py import script\nsys.argv[0] = 'componentize-py'\nsys.exit(script())",
                ])
                .arg("-d")
                .arg(wit)
                .args([
                    "-w",
                    lang::world_of_package(dir),
                    "componentize",
                    APP_MODULE,
                    "-p",
                    ".",
                    "-p",
                    native::BINDINGS_DIR,
                ])
                .arg("-o")
                .arg(output)
                .current_dir(dir)
                // Only the package's own folder goes into the component.
                .env_remove("VIRTUAL_ENV")
                .env("PYTHONDONTWRITEBYTECODE", "1");
            command
        })
    }
}
