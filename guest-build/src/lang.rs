//! The languages a package may be written in, told apart by the file beside `limina.toml`,
//! and building the non-Rust ones with their pinned tools.

use std::fmt;
use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use anyhow::{Context, Result, bail};

use crate::{files, js, native, process, python};

/// The WIT world every package targets.
pub const WORLD: &str = "skill-package";
/// The world of a package that sends HTTP requests: `skill-package` plus `wasi:http`'s
/// outgoing handler. Chosen for a package whose `limina.toml` declares `[grants] network`.
pub const HTTP_WORLD: &str = "skill-package-http";

/// The world a package in `dir` builds against: [`HTTP_WORLD`] when its manifest declares
/// network grants, else [`WORLD`].
pub fn world_of_package(dir: &Path) -> &'static str {
    let Ok(text) = std::fs::read_to_string(dir.join("limina.toml")) else {
        return WORLD;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return WORLD;
    };
    let network = doc
        .get("grants")
        .and_then(|g| g.get("network"))
        .and_then(|n| n.as_array())
        .is_some_and(|a| !a.is_empty());
    if network { HTTP_WORLD } else { WORLD }
}

/// A version of the `limina:skill` contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contract {
    V01,
    V02,
}

impl Contract {
    /// The repository folder holding its WIT.
    pub fn folder(self) -> &'static str {
        match self {
            Contract::V01 => "wit-0.1",
            Contract::V02 => "wit",
        }
    }
}

/// A package's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// `Cargo.toml`: a crate on the Limina SDK.
    Rust,
    /// `skills.py` (or an older package's own `app.py`), through componentize-py.
    Python,
    /// `app.c`, through Zig's clang.
    C,
    /// `app.zig`.
    Zig,
    /// `skills.js` (or a package's own `app.js`), through componentize-qjs.
    Js,
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lang::Rust => "Rust",
            Lang::Python => "Python",
            Lang::C => "C",
            Lang::Zig => "Zig",
            Lang::Js => "JavaScript",
        })
    }
}

impl Lang {
    /// The language of the package in `dir`, from its entry file (`app.*`) or, where the SDK
    /// writes the entry, its skills file (`skills.py`, `skills.js`); `None` when `dir` holds
    /// no `limina.toml` or none of these.
    pub fn of(dir: &Path) -> Option<Lang> {
        if !dir.join("limina.toml").is_file() {
            return None;
        }
        [
            ("app.py", Lang::Python),
            ("app.c", Lang::C),
            ("app.zig", Lang::Zig),
            ("app.js", Lang::Js),
            ("skills.py", Lang::Python),
            ("skills.js", Lang::Js),
            ("Cargo.toml", Lang::Rust),
        ]
        .into_iter()
        .find(|(file, _)| dir.join(file).is_file())
        .map(|(_, lang)| lang)
    }

    /// The contract version the language's SDK glue builds against: `0.2.0` (the repository's
    /// `wit/`), or `0.1.0` (`wit-0.1/`) for glue not yet moved to 0.2.0 (the host runs
    /// both).
    pub fn contract(self, dir: &Path) -> Contract {
        match self {
            Lang::Rust => Contract::V02,
            // An older package keeping its own `app.py` implements 0.1.0's exports itself.
            Lang::Python if crate::python::entry_module(dir) == crate::python::SDK_ENTRY_MODULE => {
                Contract::V02
            }
            // A JavaScript package's own `app.js` builds on the SDK's `limina.js` too, whose
            // exports are 0.2.0's (`js::check_entry` refuses one still importing 0.1.0).
            Lang::Js | Lang::C | Lang::Zig => Contract::V02,
            Lang::Python => Contract::V01,
        }
    }

    /// The folder of `sdk/` whose glue a build of the language writes into `bindings/`.
    pub fn sdk_glue(self) -> &'static str {
        match self {
            Lang::Rust => "src",
            Lang::Python => "python",
            Lang::C => "c",
            Lang::Zig => "zig",
            Lang::Js => "js",
        }
    }

    /// The extensions of the files a build of the language reads from the package folder.
    pub fn source_extensions(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &["rs", "toml"],
            Lang::Python => &["py", "json"],
            Lang::C => &["c", "h"],
            Lang::Zig => &["zig", "c", "h"],
            Lang::Js => &["js", "mjs", "json"],
        }
    }
}

/// Builds a package that is not Rust into its component's bytes, installing its tool the
/// first time. `wit` is a folder holding the WIT contract.
pub fn build_foreign(lang: Lang, dir: &Path, wit: &Path) -> Result<Vec<u8>> {
    let tool_context = || format!("setting up the {lang} guest toolchain");
    match lang {
        Lang::Python => {
            let componentize = python::componentize_py().with_context(tool_context)?;
            componentize.build(dir, wit)
        }
        Lang::C | Lang::Zig => {
            let zig = native::zig().with_context(tool_context)?;
            native::build(&zig, lang, dir, wit)
        }
        Lang::Js => {
            js::check_world(dir)?;
            js::check_entry(dir)?;
            let qjs = js::componentize_qjs().with_context(tool_context)?;
            qjs.build(dir, wit)
        }
        Lang::Rust => unreachable!("Rust packages build with cargo (package::build_package)"),
    }
}

/// Whether `output` is newer than every source of the package (outside the generated
/// `bindings/`), its manifest, the WIT and the SDK's glue in `sdk` (the repository's `sdk/`),
/// so that a repository build can skip the tool.
pub fn is_up_to_date(lang: Lang, dir: &Path, wit: &Path, sdk: &Path, output: &Path) -> bool {
    let Some(built) = files::modified(output) else {
        return false;
    };
    let newest = files::newest_source(dir, lang.source_extensions(), &[native::BINDINGS_DIR])
        .max(files::newest_source(wit, &["wit"], &[]))
        .max(files::newest_source(
            &sdk.join(lang.sdk_glue()),
            &["py", "h", "zig", "js"],
            &[],
        ))
        .max(files::modified(&dir.join("limina.toml")).unwrap_or(SystemTime::UNIX_EPOCH));
    newest <= built
}

/// Runs a tool that writes a component to the path it is given, and returns the component's
/// bytes (the file is a temporary one, removed whatever happens).
pub(crate) fn run_tool(
    tool: &str,
    dir: &Path,
    command: impl FnOnce(&Path) -> Command,
) -> Result<Vec<u8>> {
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let started = std::time::Instant::now();
    crate::say!("{tool}: building {}…", dir.display());
    let tmp = std::env::temp_dir().join(format!(
        "limina-build-{}-{}.wasm",
        std::process::id(),
        BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let result = process::run_quietly(&mut command(&tmp)).and_then(|()| {
        std::fs::read(&tmp).with_context(|| format!("{tool} left no {}", tmp.display()))
    });
    let _ = std::fs::remove_file(&tmp);
    let bytes = result.with_context(|| format!("building {}", dir.display()))?;
    crate::say!(
        "{tool}: {} KiB in {:.1}s",
        bytes.len().div_ceil(1024),
        started.elapsed().as_secs_f64()
    );
    Ok(bytes)
}

/// Runs the package's own tests natively, with output on the terminal; returns whether they
/// passed. Rust: `cargo test`; Python: `python3 -m unittest`; C: `test.c` compiled by Zig's
/// clang for this machine and run; Zig: `zig test app.zig`; JavaScript: `node --test`. The
/// glue in `bindings/` is written first, as a build would.
pub fn run_tests(lang: Lang, dir: &Path, wit: &Path) -> Result<bool> {
    // Absolute, since the runner starts in the package folder.
    let dir = &std::fs::canonicalize(dir).with_context(|| format!("reading {}", dir.display()))?;
    let mut command = match lang {
        Lang::Rust => {
            let mut command = Command::new("cargo");
            command.arg("test");
            command
        }
        Lang::Python => {
            // The SDK's modules, as a build puts them on the module path.
            let bindings = python::write_bindings(dir)?;
            let mut command = Command::new("python3");
            command.args(["-m", "unittest"]).env("PYTHONPATH", bindings);
            command
        }
        Lang::C => {
            let bindings = native::write_bindings(dir, wit)?;
            if !dir.join("test.c").is_file() {
                bail!(
                    "{} has no test.c: write one that includes app.c and checks your skills \
                     with limina_invoke (`limina pkg new NAME --lang c` shows how)",
                    dir.display()
                );
            }
            let zig = native::zig().with_context(|| format!("setting up the {lang} toolchain"))?;
            let binary = bindings.join("test");
            process::run_quietly(
                zig.command()
                    .args(["cc", "-std=c11", "-Wall", "-O1", "-g", "-I"])
                    .arg(&bindings)
                    .arg(dir.join("test.c"))
                    .args(["-lm", "-o"])
                    .arg(&binary),
            )
            .context("compiling test.c")?;
            Command::new(binary)
        }
        Lang::Zig => {
            let bindings = native::write_bindings(dir, wit)?;
            let zig = native::zig().with_context(|| format!("setting up the {lang} toolchain"))?;
            let mut command = zig.command();
            command
                .args(["test", "--dep", "limina"])
                .arg(format!("-Mroot={}", dir.join("app.zig").display()))
                .arg(format!(
                    "-Mlimina={}",
                    bindings.join("limina.zig").display()
                ));
            command
        }
        Lang::Js => {
            js::write_bindings(dir)?;
            let mut command = Command::new("node");
            command.arg("--test");
            command
        }
    };
    command.current_dir(dir);
    crate::say!("{lang} tests: {}", process::describe(&command));
    Ok(process::status_code(&mut command)? == 0)
}
