//! JavaScript packages: `app.js` (an ES module, with any modules it imports) beside
//! `limina.toml`, made a component by componentize-qjs (QuickJS; about 1 MB components).
//!
//! componentize-qjs comes from npm, pinned, installed on demand by [`crate::tools`]. It
//! builds with `--sync`: its default output uses the component-model async ABI, which the
//! host does not enable.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};

use crate::tools::{Registry, Tool};
use crate::{files, native, process};

/// The pinned componentize-qjs release.
pub const COMPONENTIZE_QJS_VERSION: &str = "0.4.5";
/// componentize-qjs, pinned.
pub const TOOL: Tool = Tool {
    package: "componentize-qjs",
    version: COMPONENTIZE_QJS_VERSION,
    registry: Registry::Npm,
    purpose: "JavaScript guests",
    size: "13 MB download",
};
/// The WIT world every package targets.
pub const WORLD: &str = "skill-package";
/// The Limina JavaScript glue, written into the package's `bindings/` on every build.
const LIMINA_JS: &str = include_str!("../../sdk/js/limina.js");

/// Writes the glue into `dir/bindings/` (only when it changed).
pub fn write_bindings(dir: &Path) -> Result<PathBuf> {
    let out = dir.join(native::BINDINGS_DIR);
    files::write_if_changed(&out.join("limina.js"), LIMINA_JS.as_bytes())?;
    files::write_if_changed(&out.join("README.md"), native::BINDINGS_README.as_bytes())?;
    Ok(out)
}

/// An installed componentize-qjs.
#[derive(Debug, Clone)]
pub struct ComponentizeQjs {
    cli: PathBuf,
}

/// componentize-qjs from the cache, installed there first when missing.
pub fn componentize_qjs() -> Result<ComponentizeQjs> {
    let dir = TOOL.ensure()?;
    Ok(ComponentizeQjs {
        cli: dir
            .join("node_modules")
            .join(".bin")
            .join("componentize-qjs"),
    })
}

impl ComponentizeQjs {
    /// Builds `dir/app.js` against the WIT in `wit`; returns the component's bytes.
    pub fn build(&self, dir: &Path, wit: &Path) -> Result<Vec<u8>> {
        let started = Instant::now();
        crate::say!("componentize-qjs: building {}…", dir.display());
        write_bindings(dir)?;
        let tmp = std::env::temp_dir().join(format!(
            "limina-js-{}-{}.wasm",
            std::process::id(),
            started.elapsed().as_nanos()
        ));
        let mut command = Command::new(&self.cli);
        command
            .arg("--wit")
            .arg(wit)
            .args([
                "--world",
                WORLD,
                "--js",
                "app.js",
                "--sync",
                "--opt-size",
                "-o",
            ])
            .arg(&tmp)
            .current_dir(dir);
        let result = process::run_quietly(&mut command);
        let bytes = result.and_then(|()| {
            fs::read(&tmp).with_context(|| format!("componentize-qjs left no {}", tmp.display()))
        });
        let _ = fs::remove_file(&tmp);
        let bytes =
            bytes.with_context(|| format!("building the JavaScript package {}", dir.display()))?;
        crate::say!(
            "componentize-qjs: {} KiB in {:.1}s",
            bytes.len().div_ceil(1024),
            started.elapsed().as_secs_f64()
        );
        Ok(bytes)
    }
}

/// Whether `output` is newer than every `.js` file of the package, its manifest and the WIT.
pub fn is_up_to_date(dir: &Path, wit: &Path, output: &Path) -> bool {
    let Some(built) = files::modified(output) else {
        return false;
    };
    files::newest_source(dir, &["js", "mjs", "json"], &[native::BINDINGS_DIR])
        .max(files::newest_source(wit, &["wit"], &[]))
        .max(files::modified(&dir.join("limina.toml")).unwrap_or(SystemTime::UNIX_EPOCH))
        <= built
}
