//! `[files]` in the host's configuration: how many bytes each package may write into its
//! volumes (where volumes live is `[volumes]`, with the other grants).
//!
//! ```toml
//! [files]
//! writeBytes = 10485760   # per package, over the host's run (default 64 MiB)
//! ```

use crate::limits::FILES_WRITE_BYTES;
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

/// `[files]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawFiles {
    write_bytes: Option<Spanned<i64>>,
}

/// `[files]`, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilesConfig {
    /// Bytes each package may write into its volumes over the host's run.
    pub write_bytes: u64,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig {
            write_bytes: FILES_WRITE_BYTES,
        }
    }
}

impl FilesConfig {
    /// Checks `[files]`; an error carries the span of the bad value.
    pub fn parse(raw: Option<RawFiles>) -> Result<FilesConfig, (Range<usize>, String)> {
        let mut config = FilesConfig::default();
        if let Some(bytes) = raw.and_then(|r| r.write_bytes) {
            if *bytes.get_ref() < 0 {
                return Err((
                    bytes.span(),
                    format!(
                        "`files.writeBytes` must be ≥ 0 (0 lets packages read their volumes but write nothing), got {}",
                        bytes.get_ref()
                    ),
                ));
            }
            config.write_bytes = *bytes.get_ref() as u64;
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn write_bytes_defaults_to_the_limit_and_a_negative_value_names_the_key_and_line() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.files.write_bytes, crate::limits::FILES_WRITE_BYTES);
        let c = Config::parse("[files]\nwriteBytes = 100\n").unwrap();
        assert_eq!(c.files.write_bytes, 100);
        let err = Config::parse("\n[files]\nwriteBytes = -1\n").unwrap_err();
        assert!(
            err.starts_with("3:") && err.contains("`files.writeBytes` must be ≥ 0"),
            "{err}"
        );
        let err = Config::parse("[files]\nreadBytes = 1\n").unwrap_err();
        assert!(err.contains("readBytes"), "{err}");
    }
}
