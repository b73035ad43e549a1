//! Writing `content_hash` and `[attestation]` into a `limina.toml`, keeping the rest of the
//! file as the author left it, and refusing an edit that would make the manifest not load.

use anyhow::{Context, Result};
use limina::packages::Manifest;
use limina_guest_build::manifest;

/// The manifest text with `content_hash = "<hash>"` set.
pub fn set_content_hash(text: &str, hash: &str) -> Result<String> {
    checked(manifest::set_content_hash(text, hash)?)
}

/// The manifest text with `content_hash` and `[attestation]` set.
pub fn set_attestation(
    text: &str,
    hash: &str,
    public_key: &str,
    signature: &str,
) -> Result<String> {
    checked(manifest::set_attestation(
        text, hash, public_key, signature,
    )?)
}

/// The edited text, refused if the manifest it makes would not load.
fn checked(text: String) -> Result<String> {
    Manifest::parse(&text).context("the edited limina.toml would not load")?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_that_makes_the_manifest_unloadable_is_refused() {
        let hash = format!("sha256:{}", "0".repeat(64));
        let ok = set_content_hash("name = \"demo\"\nversion = \"0.1.0\"\n", &hash).unwrap();
        assert!(Manifest::parse(&ok).unwrap().content_hash == Some(hash.clone()));
        let err = set_content_hash("name = \"Demo\"\nversion = \"0.1.0\"\n", &hash)
            .unwrap_err()
            .to_string();
        assert!(err.contains("would not load"), "{err}");
    }
}
