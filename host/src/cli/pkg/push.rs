//! `limina pkg push DIR oci://HOST/REPO:TAG`.

use anyhow::{Context, Result};
use limina::packages::oci::{self, OciSettings, Reference};
use std::path::Path;
use std::process::ExitCode;

/// Pushes the package and prints the reference to pin it by.
pub fn run(dir: &Path, reference: &str, plain_http: bool) -> Result<ExitCode> {
    let reference = Reference::parse(reference).map_err(anyhow::Error::msg)?;
    let settings = OciSettings {
        plain_http: if plain_http {
            vec![reference.registry.clone()]
        } else {
            Vec::new()
        },
        ..OciSettings::default()
    };
    let pushed = oci::push(dir, &reference, &settings)
        .with_context(|| format!("pushing {} to {reference}", dir.display()))?;
    println!("pushed {} ({} bytes sent)", pushed.pinned, pushed.uploaded);
    println!("digest {}", pushed.digest);
    println!(
        "pin it: --packages oci://{}/{}@{}",
        reference.registry, reference.repository, pushed.digest
    );
    Ok(ExitCode::SUCCESS)
}
