//! `limina pkg keygen` and `limina pkg sign`: ed25519 attestations over a package's content
//! hash.

use super::{manifest_edit, read_manifest};
use anyhow::{Context, Result, anyhow};
use ed25519_dalek::SigningKey;
use limina::packages::{content_hash, sign};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Writes a fresh 32-byte seed as 64 hex digits to `out` (mode 0600, never over an existing
/// file) and prints its public key.
pub fn keygen(out: &Path) -> Result<ExitCode> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| anyhow!("no randomness from the system: {e}"))?;
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(out).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => anyhow!(
            "{} already exists; keygen never overwrites a key: choose another --out",
            out.display()
        ),
        _ => anyhow!("creating {}: {e}", out.display()),
    })?;
    file.write_all(format!("{}\n", hex::encode(seed)).as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    let public_key = hex::encode(SigningKey::from_bytes(&seed).verifying_key().to_bytes());
    println!(
        "wrote a new signing key to {} (keep it secret)",
        out.display()
    );
    println!("public key: {public_key}");
    println!("hosts that require signatures trust it when their policy lists it in trustedKeys");
    Ok(ExitCode::SUCCESS)
}

/// Signs the package's component: writes `content_hash` and `[attestation]` into its manifest.
pub fn run(dir: &Path, key: &Path) -> Result<ExitCode> {
    let (text, manifest) = read_manifest(dir)?;
    let component_path = dir.join(&manifest.component);
    let component = fs::read(&component_path).with_context(|| {
        format!(
            "reading the component {} (build it first with `limina pkg build {}`)",
            component_path.display(),
            dir.display()
        )
    })?;
    let seed = fs::read_to_string(key).with_context(|| {
        format!(
            "reading the signing key {} (make one with `limina pkg keygen --out {}`)",
            key.display(),
            key.display()
        )
    })?;
    let hash = content_hash(&component);
    if let Some(pinned) = &manifest.content_hash
        && pinned != &hash
    {
        eprintln!(
            "limina: warning: the component changed since its hash was pinned ({pinned}); \
             signing the component as it is now ({hash})"
        );
    }
    let (public_key, signature) = sign(&hash, &seed).map_err(|e| {
        anyhow!(
            "{}: {e}; make a key with `limina pkg keygen --out FILE`",
            key.display()
        )
    })?;
    let edited = manifest_edit::set_attestation(&text, &hash, &public_key, &signature)?;
    let path = dir.join("limina.toml");
    fs::write(&path, edited).with_context(|| format!("writing {}", path.display()))?;
    println!(
        "signed {} {}: content_hash {hash}",
        manifest.name, manifest.version
    );
    println!("public key: {public_key}");
    Ok(ExitCode::SUCCESS)
}
