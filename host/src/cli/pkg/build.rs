//! `limina pkg build [DIR]`: the package's source → a component where its manifest says, with
//! the component's content hash pinned in `limina.toml`. A Rust crate builds with the guest
//! toolchain; Python, C, Zig and JavaScript packages with their pinned tools.

use super::{manifest_edit, read_manifest, wit_dir};
use anyhow::{Context, Result};
use limina::packages::{SignatureCheck, content_hash, verify};
use limina_guest_build::lang::{self, Lang};
use limina_guest_build::package::{PackageBuildRequest, build_package};
use limina_guest_build::toolchain;
use std::path::Path;
use std::process::ExitCode;

/// Sets up the toolchain when needed, builds, encodes, writes and pins the hash.
pub fn run(dir: &Path, target_dir: Option<&Path>) -> Result<ExitCode> {
    let (text, manifest) = read_manifest(dir)?;
    limina_guest_build::set_label("limina");
    let lang = Lang::of(dir).with_context(|| {
        format!(
            "{} holds limina.toml but no skills.py, skills.js, app.c, app.zig or Cargo.toml \
             (nor an older package's own app.py or app.js): nothing to build (`limina pkg new \
             NAME --lang …` scaffolds a package)",
            dir.display()
        )
    })?;
    let (component, bytes, changed) = if lang == Lang::Rust {
        let toolchain = toolchain::guest_toolchain().context(
            "setting up the guest toolchain (Rust with the wasm32-unknown-unknown target)",
        )?;
        let built = build_package(
            &toolchain,
            &PackageBuildRequest {
                dir,
                component: Path::new(&manifest.component),
                target_dir,
            },
        )?;
        (built.component, built.bytes, built.changed)
    } else {
        let wit = wit_dir(lang, dir)?;
        let bytes = lang::build_foreign(lang, dir, &wit)?;
        let output = dir.join(&manifest.component);
        let changed = limina_guest_build::files::write_if_changed(&output, &bytes)?;
        (output, bytes, changed)
    };
    let hash = content_hash(&bytes);
    if manifest.content_hash.as_deref() != Some(hash.as_str()) {
        let edited = manifest_edit::set_content_hash(&text, &hash)?;
        let path = dir.join("limina.toml");
        std::fs::write(&path, edited).with_context(|| format!("writing {}", path.display()))?;
    }
    println!(
        "built {} {} → {} ({} KiB, {})",
        manifest.name,
        manifest.version,
        component.display(),
        bytes.len().div_ceil(1024),
        if changed { "updated" } else { "unchanged" }
    );
    println!("content_hash = \"{hash}\"");
    if let Some(attestation) = &manifest.attestation
        && !matches!(
            verify(&hash, &attestation.public_key, &attestation.signature),
            SignatureCheck::Valid { .. }
        )
    {
        eprintln!(
            "limina: warning: the [attestation] in limina.toml signs an earlier build and no \
             longer matches; hosts will refuse the package until you run \
             `limina pkg sign --key FILE` again"
        );
    }
    Ok(ExitCode::SUCCESS)
}
