//! Writing `content_hash` and `[attestation]` into a `limina.toml` while keeping everything
//! else in the file (comments, order, formatting) as the author left it.

use anyhow::{Context, Result};
use limina::packages::Manifest;
use toml_edit::{DocumentMut, Item, Table, value};

/// The manifest text with `content_hash = "<hash>"` set at the top level (after the other
/// top-level keys when it was not there yet).
pub fn set_content_hash(text: &str, hash: &str) -> Result<String> {
    let mut doc = parse(text)?;
    doc["content_hash"] = value(hash);
    checked(doc)
}

/// The manifest text with `content_hash` set and `[attestation]` holding `public_key` and
/// `signature` (any earlier attestation replaced).
pub fn set_attestation(
    text: &str,
    hash: &str,
    public_key: &str,
    signature: &str,
) -> Result<String> {
    let mut doc = parse(text)?;
    doc["content_hash"] = value(hash);
    let mut attestation = Table::new();
    attestation["public_key"] = value(public_key);
    attestation["signature"] = value(signature);
    doc["attestation"] = Item::Table(attestation);
    checked(doc)
}

fn parse(text: &str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>()
        .context("limina.toml is not valid TOML; fix it and run the command again")
}

/// The edited text, refused if the manifest it makes would not load.
fn checked(doc: DocumentMut) -> Result<String> {
    let text = doc.to_string();
    Manifest::parse(&text).context("the edited limina.toml would not load")?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "# my package\nname = \"demo\" # the name\nversion = \"0.1.0\"\ncapabilities = [\n  # none yet\n]\n\n[limits]\nfuel_per_call = 5_000_000 # plenty\n";
    const HASH: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn the_hash_goes_with_the_top_level_keys_and_comments_stay() {
        let text = set_content_hash(MANIFEST, HASH).unwrap();
        assert!(
            text.starts_with("# my package\nname = \"demo\" # the name\n"),
            "{text}"
        );
        assert!(text.contains("  # none yet\n"), "{text}");
        assert!(
            text.contains("fuel_per_call = 5_000_000 # plenty"),
            "{text}"
        );
        let hash_at = text.find("content_hash").unwrap();
        assert!(hash_at < text.find("[limits]").unwrap(), "{text}");
        let again = set_content_hash(&text, &HASH.replace("sha256:00", "sha256:11")).unwrap();
        assert_eq!(again.matches("content_hash").count(), 1, "{again}");
        assert!(again.contains("sha256:11"), "{again}");
    }

    #[test]
    fn the_attestation_replaces_an_earlier_one() {
        let key = "ab".repeat(32);
        let signature = "cd".repeat(64);
        let once = set_attestation(MANIFEST, HASH, &key, &signature).unwrap();
        let twice = set_attestation(&once, HASH, &key, &"ef".repeat(64)).unwrap();
        let manifest = Manifest::parse(&twice).unwrap();
        let attestation = manifest.attestation.unwrap();
        assert_eq!(attestation.public_key, key);
        assert_eq!(attestation.signature, "ef".repeat(64));
        assert_eq!(twice.matches("[attestation]").count(), 1, "{twice}");
        assert!(
            twice.contains("fuel_per_call = 5_000_000 # plenty"),
            "{twice}"
        );
    }

    #[test]
    fn broken_toml_is_refused_with_the_fix() {
        let err = set_content_hash("name = ", HASH).unwrap_err().to_string();
        assert!(err.contains("not valid TOML"), "{err}");
    }
}
