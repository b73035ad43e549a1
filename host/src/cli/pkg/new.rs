//! `limina pkg new NAME [--lang rust|python|c|zig|js]`: a skill package that builds, tests and loads as
//! generated.

use super::{Lang, templates, templates_lang, templates_python};
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Names a package may not take: Rust's own crates and keywords (cargo refuses them), the
/// scaffold's dependencies, and the core and system skill namespaces (the host refuses them).
const RESERVED: &[&str] = &[
    "std",
    "core",
    "alloc",
    "test",
    "proc-macro",
    "self",
    "super",
    "crate",
    "fn",
    "mod",
    "type",
    "use",
    "let",
    "match",
    "impl",
    "trait",
    "struct",
    "enum",
    "async",
    "await",
    "dyn",
    "serde",
    "schemars",
    "limina",
    "limina-sdk",
    "wit-bindgen",
    "scene",
    "ecs",
    "three",
    "physics",
    "agent",
    "ui",
    "audio",
    "social",
    "camera",
    "skills",
    "trace",
    "audit",
    "inspector",
    "dev",
    "package",
    "world",
];

/// Creates `dir/name` (default `./name`) holding a package with one example skill.
pub fn run(name: &str, lang: Lang, dir: Option<&Path>, sdk: Option<&Path>) -> Result<ExitCode> {
    check_name(name)?;
    let sdk = match lang {
        Lang::Rust => Some(sdk_dir(sdk)?),
        _ => None,
    };
    let root = dir.unwrap_or(Path::new(".")).join(name);
    if root.exists() {
        bail!(
            "{} already exists; pick another NAME or --dir (nothing was overwritten)",
            root.display()
        );
    }
    let files = match (lang, &sdk) {
        (Lang::Rust, Some(sdk)) => templates::files(name, sdk),
        (Lang::Python, _) => templates_python::files(name),
        _ => templates_lang::files(lang, name),
    };
    for (file, text) in files {
        let path = root.join(file);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(sdk) = &sdk {
        seed_lockfile(sdk, &root);
    }
    let shown = root.display();
    println!(
        "created {} package `{name}` in {shown}",
        super::lang_name(lang)
    );
    println!(
        "  skill:  {name}.hello {{name}} -> {{greeting}}  ({})",
        templates_lang::skill_file(lang)
    );
    match lang {
        Lang::Rust => println!("  test:   cargo test --manifest-path {shown}/Cargo.toml"),
        _ => println!("  test:   limina pkg test {shown}"),
    }
    println!("  build:  limina pkg build {shown}");
    println!(
        "  serve:  limina --mcp-stdio --packages {}",
        root.parent().unwrap_or(Path::new(".")).display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Refuses names that are not package names, with the rule.
pub fn check_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let valid = matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        bail!(
            "`{name}` is not a package name: use lowercase letters, digits and '-', starting \
             with a letter (e.g. `dice` or `weather-2`)"
        );
    }
    if RESERVED.contains(&name) || RESERVED.contains(&name.replace('-', "_").as_str()) {
        bail!(
            "`{name}` is reserved (a Rust crate or keyword, or a core skill namespace); pick another name"
        );
    }
    Ok(())
}

/// The Rust guest SDK to depend on: `--sdk`, else the `sdk/` folder of the checkout this
/// binary was built from.
fn sdk_dir(explicit: Option<&Path>) -> Result<PathBuf> {
    let dir = match explicit {
        Some(dir) => dir.to_path_buf(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("sdk"),
    };
    if !dir.join("Cargo.toml").is_file() {
        bail!(
            "the Limina Rust SDK is not at {} (this limina was built from a checkout that has \
             moved or is gone): pass --sdk DIR with the sdk/ folder of a Limina checkout",
            dir.display()
        );
    }
    fs::canonicalize(&dir).with_context(|| format!("resolving {}", dir.display()))
}

/// Starts the package's `Cargo.lock` from the one of the example `dice` package beside the SDK,
/// when there is one: the new package then builds with the dependency versions this checkout
/// builds its own packages with (cargo drops what the package does not use). Best effort.
fn seed_lockfile(sdk: &Path, root: &Path) {
    if let Some(checkout) = sdk.parent() {
        let lock = checkout.join("packages").join("dice").join("Cargo.lock");
        if lock.is_file() {
            let _ = fs::copy(lock, root.join("Cargo.lock"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn names_follow_the_manifest_rule() {
        for good in ["demo", "dice", "weather-2", "a"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["Demo", "2dice", "-x", "x_y", "", "dé"] {
            let err = check_name(bad).unwrap_err().to_string();
            assert!(err.contains("lowercase letters"), "{bad}: {err}");
        }
        for reserved in ["scene", "test", "serde", "limina-sdk"] {
            let err = check_name(reserved).unwrap_err().to_string();
            assert!(err.contains("reserved"), "{reserved}: {err}");
        }
    }
}
