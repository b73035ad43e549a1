//! Python packages: `app.py` beside `limina.toml`, made a component by componentize-py.
//!
//! componentize-py comes from PyPI, pinned, installed on demand by [`crate::tools`].

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::lang;
use crate::tools::{self, Registry, Tool};

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
