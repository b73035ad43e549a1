//! JavaScript packages: `skills.js` (an ES module exporting `skills`, with any modules it
//! imports) beside `limina.toml`, made a component by componentize-qjs (QuickJS; about 1 MB
//! components). The SDK's entry, `bindings/app.js`, exports the skills and hands them the host
//! imports, and exports its `resources` and `prompts` when `skills.js` has them (contract 0.2.0);
//! a package that keeps its own `app.js` is built from that instead.
//!
//! componentize-qjs comes from npm, pinned, installed on demand by [`crate::tools`]. It
//! builds with `--sync`: its default output uses the component-model async ABI, which the
//! host does not enable.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};

use crate::lang::{self, HTTP_WORLD, WORLD};
use crate::tools::{Registry, Tool};
use crate::{files, native};

/// The pinned componentize-qjs release.
pub const COMPONENTIZE_QJS_VERSION: &str = "0.4.5";
/// componentize-qjs, pinned.
pub const TOOL: Tool = Tool {
    package: "componentize-qjs",
    version: COMPONENTIZE_QJS_VERSION,
    registry: Registry::Npm,
    purpose: "JavaScript guests",
    size: "13 MB download",
    with: &[],
};
/// The Limina JavaScript glue, `(file, text)`, written into the package's `bindings/` on every
/// build: the skill helpers and errors, and the component's entry.
const SDK_MODULES: &[(&str, &str)] = &[
    ("limina.js", include_str!("../../sdk/js/limina.js")),
    ("app.js", include_str!("../../sdk/js/app.js")),
];
/// A package's own entry, kept by a package that wires the host imports itself.
const OWN_ENTRY: &str = "app.js";

/// Writes the glue into `dir/bindings/` (only when it changed).
pub fn write_bindings(dir: &Path) -> Result<PathBuf> {
    let out = dir.join(native::BINDINGS_DIR);
    for (name, text) in SDK_MODULES {
        files::write_if_changed(&out.join(name), text.as_bytes())?;
    }
    files::write_if_changed(&out.join("README.md"), native::BINDINGS_README.as_bytes())?;
    Ok(out)
}

/// Refuses a package that declares network grants, before any tool runs: componentize-qjs
/// cannot build a component that imports `wasi:http` (its build-time snapshot links
/// `wasi:http/types` with stand-ins whose stream types do not match `wasi:io`'s, so the build
/// fails with "mismatched resource types"), and QuickJS has no `fetch`.
pub fn check_world(dir: &Path) -> Result<()> {
    if lang::world_of_package(dir) == HTTP_WORLD {
        bail!(
            "{}: a JavaScript package cannot declare `[grants] network` yet: componentize-qjs \
             {COMPONENTIZE_QJS_VERSION}, the JavaScript toolchain, cannot build a component that \
             imports `wasi:http`. Write the part that reaches the network in Rust, Python or C \
             (each SDK has an HTTP client), or remove `network` from `[grants]` in limina.toml",
            dir.join("limina.toml").display()
        );
    }
    Ok(())
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

/// Refuses a package's own `app.js` written for contract 0.1.0, before any tool runs: it
/// builds on the SDK's `limina.js`, whose exports are 0.2.0's.
pub fn check_entry(dir: &Path) -> Result<()> {
    let own = dir.join(OWN_ENTRY);
    let Ok(text) = std::fs::read_to_string(&own) else {
        return Ok(());
    };
    if text.contains("limina:skill/") && text.contains("@0.1.0") {
        bail!(
            "{}: imports `limina:skill/…@0.1.0`, but the JavaScript SDK builds against \
             contract 0.2.0: import `@0.2.0` and export `resources` and `prompts` beside \
             `skill` (`exportResources(resources, host)`, `exportPrompts(prompts, host)` from \
             ./bindings/limina.js), or remove app.js to build from the SDK's entry",
            own.display()
        );
    }
    Ok(())
}

/// The module componentize-qjs starts from for the package in `dir`, relative to it: its own
/// `app.js` when it keeps one, else the SDK's `bindings/app.js`.
pub fn entry(dir: &Path) -> String {
    if dir.join(OWN_ENTRY).is_file() {
        OWN_ENTRY.to_string()
    } else {
        format!("{}/{OWN_ENTRY}", native::BINDINGS_DIR)
    }
}

impl ComponentizeQjs {
    /// Builds the package in `dir` from its [`entry`] against the WIT in `wit`; returns the
    /// component's bytes.
    pub fn build(&self, dir: &Path, wit: &Path) -> Result<Vec<u8>> {
        write_bindings(dir)?;
        let entry = entry(dir);
        lang::run_tool("componentize-qjs", dir, |output| {
            let mut command = Command::new(&self.cli);
            command
                .arg("--wit")
                .arg(wit)
                .args([
                    "--world",
                    WORLD,
                    "--js",
                    &entry,
                    "--sync",
                    "--opt-size",
                    "-o",
                ])
                .arg(output)
                .current_dir(dir);
            command
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_built_from_the_sdk_entry_unless_it_keeps_its_own_app_js() {
        let dir = std::env::temp_dir().join(format!("guest-build-js-entry-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("skills.js"), "export const skills = [];\n").unwrap();
        assert_eq!(entry(&dir), "bindings/app.js");
        let out = write_bindings(&dir).unwrap();
        assert!(out.join("app.js").is_file() && out.join("limina.js").is_file());
        std::fs::write(dir.join("app.js"), "").unwrap();
        assert_eq!(entry(&dir), "app.js");
        check_entry(&dir).unwrap();
        std::fs::write(
            dir.join("app.js"),
            "import agents from \"limina:skill/agents@0.1.0\";\n",
        )
        .unwrap();
        let refused = check_entry(&dir).unwrap_err().to_string();
        assert!(refused.contains("import `@0.2.0`"), "{refused}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
