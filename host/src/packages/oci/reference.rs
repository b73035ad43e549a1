//! `oci://HOST[:PORT]/REPOSITORY[:TAG][@sha256:HEX]`: where a package lives in a registry.

use std::fmt;

/// A parsed package reference in an OCI registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `host[:port]`, as the registry's address.
    pub registry: String,
    /// The repository path inside it (`team/dice`).
    pub repository: String,
    /// The tag, when one is named.
    pub tag: Option<String>,
    /// `sha256:<64 hex>`, when the manifest is pinned.
    pub digest: Option<String>,
}

/// The scheme every registry reference starts with.
pub const SCHEME: &str = "oci://";

impl Reference {
    /// Whether `text` is a registry reference at all (and not a folder or a package name).
    pub fn is_oci(text: &str) -> bool {
        text.starts_with(SCHEME)
    }

    /// Parses a reference; the error says which part is wrong and what it should look like.
    pub fn parse(text: &str) -> Result<Reference, String> {
        let shape = "a registry reference looks like oci://registry.example/team/dice:1.0 or \
                     oci://registry.example/team/dice@sha256:<64 hex digits>";
        let rest = text
            .strip_prefix(SCHEME)
            .ok_or_else(|| format!("`{text}` does not start with {SCHEME}; {shape}"))?;
        let (rest, digest) = match rest.split_once('@') {
            Some((before, digest)) => (before, Some(check_digest(digest, text)?)),
            None => (rest, None),
        };
        let (registry, path) = rest
            .split_once('/')
            .ok_or_else(|| format!("`{text}` names no repository; {shape}"))?;
        if registry.is_empty() || !registry.chars().all(registry_char) {
            return Err(format!(
                "`{text}`: `{registry}` is not a registry host[:port]; {shape}"
            ));
        }
        // A tag follows the last `:` of the last path segment (a port's `:` is in `registry`).
        let (repository, tag) = match path.rsplit_once(':') {
            Some((repo, tag)) if !tag.contains('/') => (repo, Some(tag)),
            _ => (path, None),
        };
        if !repository.split('/').all(path_component) {
            return Err(format!(
                "`{text}`: the repository `{repository}` must be lowercase letters and digits, \
                 separated by `.`, `_`, `-` or `/`"
            ));
        }
        if let Some(tag) = tag
            && !valid_tag(tag)
        {
            return Err(format!(
                "`{text}`: the tag `{tag}` must be at most 128 letters, digits, `_`, `.` or `-`, \
                 not starting with `.` or `-`"
            ));
        }
        if tag.is_none() && digest.is_none() {
            return Err(format!(
                "`{text}` names neither a tag nor a digest; {shape}"
            ));
        }
        Ok(Reference {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag: tag.map(str::to_string),
            digest,
        })
    }

    /// What the registry's manifest endpoint is asked for: the digest when pinned, else the tag.
    pub fn manifest_ref(&self) -> &str {
        self.digest
            .as_deref()
            .or(self.tag.as_deref())
            .expect("a parsed reference has a tag or a digest")
    }

    /// The same reference pinned to `digest` (the tag kept, for people).
    pub fn pinned(&self, digest: &str) -> Reference {
        Reference {
            digest: Some(digest.to_string()),
            ..self.clone()
        }
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

fn registry_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']')
}

/// One repository path component: `[a-z0-9]+` joined by `.`, `_`, `__` or dashes.
fn path_component(part: &str) -> bool {
    let bytes = part.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() || !alnum(&bytes[0]) || !alnum(&bytes[bytes.len() - 1]) {
        return false;
    }
    bytes
        .iter()
        .all(|b| alnum(b) || matches!(b, b'.' | b'_' | b'-'))
        && !part.contains("..")
        && !part.contains("___")
}

fn valid_tag(tag: &str) -> bool {
    let first = tag.as_bytes().first();
    !tag.is_empty()
        && tag.len() <= 128
        && first.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn check_digest(digest: &str, text: &str) -> Result<String, String> {
    let hex = digest.strip_prefix("sha256:").ok_or_else(|| {
        format!("`{text}`: the digest must be sha256:<64 hex digits>, got `{digest}`")
    })?;
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "`{text}`: the digest must be sha256:<64 hex digits>, got `{digest}`"
        ));
    }
    Ok(format!("sha256:{}", hex.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn tags_digests_and_ports_are_told_apart() {
        let r = Reference::parse("oci://127.0.0.1:5000/team/dice:1.0").unwrap();
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.repository, "team/dice");
        assert_eq!(r.tag.as_deref(), Some("1.0"));
        assert_eq!(r.digest, None);
        assert_eq!(r.manifest_ref(), "1.0");
        let pinned = format!("oci://registry.example/dice@sha256:{HEX}");
        let r = Reference::parse(&pinned).unwrap();
        assert_eq!(r.tag, None);
        assert_eq!(r.manifest_ref(), format!("sha256:{HEX}"));
        assert_eq!(r.to_string(), pinned);
        let both = Reference::parse(&format!("oci://h:1/a/b:v2@sha256:{HEX}")).unwrap();
        assert_eq!(both.tag.as_deref(), Some("v2"));
        assert_eq!(both.manifest_ref(), format!("sha256:{HEX}"));
    }

    #[test]
    fn malformed_references_are_refused_naming_the_part() {
        for (text, part) in [
            ("dice", "does not start with oci://"),
            ("oci://registry.example", "names no repository"),
            ("oci://h/Team/dice:1", "the repository `Team/dice`"),
            ("oci://h/dice", "neither a tag nor a digest"),
            ("oci://h/dice:-x", "the tag `-x`"),
            (
                "oci://h/dice@sha256:abc",
                "the digest must be sha256:<64 hex digits>",
            ),
            ("oci://h/dice@md5:abc", "the digest must be sha256"),
            ("oci://h/../dice:1", "the repository"),
        ] {
            let err = Reference::parse(text).unwrap_err();
            assert!(err.contains(part), "{text}: {err}");
        }
    }
}
