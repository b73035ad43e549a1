//! Python packages: `skills.py` beside `limina.toml`, made a component by componentize-py.
//!
//! componentize-py comes from PyPI, pinned, installed on demand by [`crate::tools`]. The
//! Python SDK's modules (`sdk/python`: the `Skill` record and errors, the component's entry
//! that exports `SKILLS`, the HTTP client over `wasi:http`) are written into the package's
//! `bindings/` on every build and put on the module path after the package's own folder, so
//! that a package is its skills and imports one copy of the glue. An older package that keeps
//! its own `app.py` (and `limina_skill.py`) is built from those: its folder comes first.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::tools::{self, Registry, Tool};
use crate::{files, lang, native};

/// The pinned componentize-py release.
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";
/// The entry module of an older package that keeps its own glue: `app.py`.
pub const OWN_ENTRY_MODULE: &str = "app";
/// The SDK's entry module, written into `bindings/`: exports the package's `skills.SKILLS`.
pub const SDK_ENTRY_MODULE: &str = "limina_app";

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
pub const SDK_MODULES: &[(&str, &str)] = &[
    (
        "limina_skill.py",
        include_str!("../../sdk/python/limina_skill.py"),
    ),
    (
        "limina_app.py",
        include_str!("../../sdk/python/limina_app.py"),
    ),
    (
        "limina_http.py",
        include_str!("../../sdk/python/limina_http.py"),
    ),
];

/// The module componentize-py wraps for the package in `dir`: its own `app.py` when it keeps
/// one, else the SDK's entry.
pub fn entry_module(dir: &Path) -> &'static str {
    if dir.join(format!("{OWN_ENTRY_MODULE}.py")).is_file() {
        OWN_ENTRY_MODULE
    } else {
        SDK_ENTRY_MODULE
    }
}

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
    /// Builds the package in `dir` (module [`entry_module`], world `skill-package` of the WIT in `wit`, or
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
                    entry_module(dir),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty folder of its own under the system's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("guest-build-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_package_is_built_from_the_sdk_entry_unless_it_keeps_its_own_app_py() {
        let dir = scratch("python-entry");
        std::fs::write(dir.join("skills.py"), "SKILLS = []\n").unwrap();
        assert_eq!(entry_module(&dir), SDK_ENTRY_MODULE);
        std::fs::write(dir.join("app.py"), "").unwrap();
        assert_eq!(entry_module(&dir), OWN_ENTRY_MODULE);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_bindings_hold_every_sdk_module() {
        let dir = scratch("python-bindings");
        let out = write_bindings(&dir).unwrap();
        for (name, text) in SDK_MODULES {
            assert_eq!(&std::fs::read_to_string(out.join(name)).unwrap(), text);
        }
        assert!(out.join(format!("{SDK_ENTRY_MODULE}.py")).is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
