//! `limina pkg …`: authoring skill packages — scaffold, test, build, sign, inspect.
//!
//! Everything here reports to people on stdout; errors go to stderr (exit code 1) and name
//! the fix.

mod build;
mod inspect;
mod manifest_edit;
mod new;
mod push;
mod sign;
mod templates;
mod templates_lang;
mod templates_python;
mod test;

use anyhow::{Context, Result};
use clap::Subcommand;
use limina::packages::Manifest;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The `limina pkg` subcommands.
#[derive(Subcommand, Debug)]
pub enum PkgAction {
    /// Create a skill package in DIR/NAME with one example skill, `NAME.hello`.
    New {
        /// Package name: lowercase letters, digits and '-', starting with a letter.
        name: String,
        /// The language to write it in.
        #[arg(long, value_enum, default_value_t = Lang::Rust)]
        lang: Lang,
        /// Folder to create the package in [default: the current folder].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The Limina Rust SDK (`sdk/` of a checkout) to depend on [default: the one this
        /// limina was built from].
        #[arg(long, value_name = "DIR")]
        sdk: Option<PathBuf>,
    },
    /// Build the package into its component (setting up the guest toolchain the first time)
    /// and pin the component's content_hash in limina.toml.
    Build {
        /// The package folder.
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Cargo target folder for the wasm build [default: the package's own target/].
        #[arg(long, value_name = "DIR")]
        target_dir: Option<PathBuf>,
    },
    /// Run the package's own tests natively: `cargo test` (Rust), `python3 -m unittest`
    /// (Python), test.c compiled for this machine (C), `zig test app.zig` (Zig), `node --test`
    /// (JavaScript).
    Test {
        /// The package folder.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Sign the package's component: writes content_hash and [attestation] into limina.toml.
    Sign {
        /// The package folder.
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// File holding the ed25519 seed (64 hex digits), made by `limina pkg keygen`.
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
    },
    /// Write a fresh ed25519 signing key (mode 0600) and print its public key.
    Keygen {
        /// Where to write the key; an existing file is never overwritten.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Push a built package to an OCI registry as a WebAssembly component artifact and print
    /// the digest hosts pin it by (`oci://HOST/REPO@sha256:…` in --packages, `[oci]
    /// packages` or `package.load`).
    Push {
        /// The package folder (built: its limina.toml pins the component's content_hash).
        dir: PathBuf,
        /// Where to: oci://HOST[:PORT]/REPO:TAG.
        reference: String,
        /// Speak plain http to this registry (loopback registries always are).
        #[arg(long)]
        plain_http: bool,
    },
    /// Print a component's skills, schemas, hooks, imports and exports; for a package folder
    /// also its manifest, limits, and whether its hash and signature verify.
    Inspect {
        /// A component (.wasm) or a package folder.
        file: PathBuf,
    },
}

/// The languages `limina pkg new` scaffolds.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// A Rust crate on the Limina SDK, built for wasm32 and encoded as a component.
    Rust,
    /// Python, made a component by componentize-py.
    Python,
    /// C, compiled by Zig's clang against the C bindings of the WIT contract.
    C,
    /// Zig, through the same C bindings (`zig translate-c`).
    Zig,
    /// JavaScript (an ES module), made a component by componentize-qjs.
    Js,
}

impl Lang {
    /// The builder's name for the language.
    pub fn build_lang(self) -> limina_guest_build::lang::Lang {
        use limina_guest_build::lang::Lang as Build;
        match self {
            Lang::Rust => Build::Rust,
            Lang::Python => Build::Python,
            Lang::C => Build::C,
            Lang::Zig => Build::Zig,
            Lang::Js => Build::Js,
        }
    }
}

/// The language's name in messages ("JavaScript").
pub fn lang_name(lang: Lang) -> String {
    lang.build_lang().to_string()
}

/// Runs one `limina pkg` subcommand.
pub fn run(action: PkgAction) -> Result<ExitCode> {
    match action {
        PkgAction::New {
            name,
            lang,
            dir,
            sdk,
        } => new::run(&name, lang, dir.as_deref(), sdk.as_deref()),
        PkgAction::Build { dir, target_dir } => build::run(&dir, target_dir.as_deref()),
        PkgAction::Test { dir } => test::run(&dir),
        PkgAction::Sign { dir, key } => sign::run(&dir, &key),
        PkgAction::Keygen { out } => sign::keygen(&out),
        PkgAction::Inspect { file } => inspect::run(&file),
        PkgAction::Push {
            dir,
            reference,
            plain_http,
        } => push::run(&dir, &reference, plain_http),
    }
}

/// The text of `dir/limina.toml` and the manifest it holds.
fn read_manifest(dir: &Path) -> Result<(String, Manifest)> {
    let path = dir.join("limina.toml");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "reading {}: not a package folder (a package holds limina.toml; create one with \
             `limina pkg new NAME`)",
            path.display()
        )
    })?;
    let manifest = Manifest::parse(&text).with_context(|| format!("in {}", path.display()))?;
    Ok((text, manifest))
}

/// The WIT contract this limina speaks, written out for the non-Rust toolchains.
const SKILL_WIT: &str = include_str!("../../../../wit/skill.wit");
/// Its 0.1.0 version, for the languages whose SDK glue still builds against it.
const SKILL_WIT_01: &str = include_str!("../../../../wit-0.1/skill.wit");

/// The standard WASI packages the `skill-package-http` world refers to (`wit/deps/`).
const WIT_DEPS: [(&str, &str); 7] = [
    ("cli.wit", include_str!("../../../../wit/deps/cli.wit")),
    (
        "clocks.wit",
        include_str!("../../../../wit/deps/clocks.wit"),
    ),
    (
        "filesystem.wit",
        include_str!("../../../../wit/deps/filesystem.wit"),
    ),
    ("http.wit", include_str!("../../../../wit/deps/http.wit")),
    ("io.wit", include_str!("../../../../wit/deps/io.wit")),
    (
        "random.wit",
        include_str!("../../../../wit/deps/random.wit"),
    ),
    (
        "sockets.wit",
        include_str!("../../../../wit/deps/sockets.wit"),
    ),
];

/// A folder holding the WIT `lang`'s glue builds against, as this binary was built with, in
/// the user's cache (keyed by its hash, so hosts of different versions do not share one).
fn wit_dir(lang: limina_guest_build::lang::Lang, dir: &std::path::Path) -> Result<PathBuf> {
    let text = match lang.contract(dir) {
        limina_guest_build::lang::Contract::V01 => SKILL_WIT_01,
        limina_guest_build::lang::Contract::V02 => SKILL_WIT,
    };
    let hash = limina::packages::content_hash(text.as_bytes());
    let short = hash
        .trim_start_matches("sha256:")
        .get(..16)
        .unwrap_or("wit");
    let dir = limina_guest_build::layout::cache_dir()?
        .join("wit")
        .join(short);
    let file = dir.join("skill.wit");
    if std::fs::read_to_string(&file).ok().as_deref() != Some(text) {
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        limina_guest_build::files::write_atomic(&file, text.as_bytes())?;
    }
    let deps = dir.join("deps");
    for (name, text) in WIT_DEPS {
        let file = deps.join(name);
        if std::fs::read_to_string(&file).ok().as_deref() != Some(text) {
            std::fs::create_dir_all(&deps)
                .with_context(|| format!("creating {}", deps.display()))?;
            limina_guest_build::files::write_atomic(&file, text.as_bytes())?;
        }
    }
    Ok(dir)
}
