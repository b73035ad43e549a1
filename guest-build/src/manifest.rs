//! Editing a package manifest's text (`limina.toml`) in place: the `content_hash` a build
//! pins and the `[attestation]` a signature adds. Comments, order and formatting of
//! everything else stay as the author left them.

use anyhow::{Context, Result};
use toml_edit::{DocumentMut, Item, Table, value};

/// The manifest file name of a package.
pub const MANIFEST: &str = "limina.toml";

/// The `content_hash` the manifest pins, if any.
pub fn pinned_content_hash(text: &str) -> Option<String> {
    let doc = text.parse::<DocumentMut>().ok()?;
    doc.get("content_hash")?.as_str().map(str::to_string)
}

/// Whether the manifest carries an `[attestation]`.
pub fn has_attestation(text: &str) -> bool {
    text.parse::<DocumentMut>()
        .is_ok_and(|doc| doc.contains_key("attestation"))
}

/// The manifest text with `content_hash = "<hash>"` at the top level (after the other
/// top-level keys when it was not there yet).
pub fn set_content_hash(text: &str, hash: &str) -> Result<String> {
    let mut doc = parse(text)?;
    doc["content_hash"] = value(hash);
    Ok(doc.to_string())
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
    Ok(doc.to_string())
}

fn parse(text: &str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>()
        .context("limina.toml is not valid TOML; fix it and run the command again")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "# my package\nname = \"demo\" # the name\nversion = \"0.1.0\"\ncapabilities = [\n  # none yet\n]\n\n[limits]\nfuel_per_call = 5_000_000 # plenty\n";
    const HASH: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn the_hash_goes_with_the_top_level_keys_and_comments_stay() {
        assert_eq!(pinned_content_hash(MANIFEST), None);
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
        assert!(
            text.find("content_hash").unwrap() < text.find("[limits]").unwrap(),
            "{text}"
        );
        assert_eq!(pinned_content_hash(&text).as_deref(), Some(HASH));
        let other = HASH.replace("sha256:00", "sha256:11");
        let again = set_content_hash(&text, &other).unwrap();
        assert_eq!(again.matches("content_hash").count(), 1, "{again}");
        assert_eq!(pinned_content_hash(&again), Some(other));
    }

    #[test]
    fn the_attestation_replaces_an_earlier_one() {
        let key = "ab".repeat(32);
        let once = set_attestation(MANIFEST, HASH, &key, &"cd".repeat(64)).unwrap();
        assert!(has_attestation(&once) && !has_attestation(MANIFEST));
        let twice = set_attestation(&once, HASH, &key, &"ef".repeat(64)).unwrap();
        assert_eq!(twice.matches("[attestation]").count(), 1, "{twice}");
        assert!(twice.contains(&"ef".repeat(64)), "{twice}");
        assert!(!twice.contains(&"cd".repeat(64)), "{twice}");
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
