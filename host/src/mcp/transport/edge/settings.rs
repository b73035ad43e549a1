//! `[network]` in the configuration file: the profiles network clients may take, the tokens
//! that name who a client is, and the connection limits. Every value is checked here; an
//! error names its key.
//!
//! ```toml
//! [network]
//! profiles = ["builder.readWrite"]   # besides --profile; the ceiling for clients without a token
//! maxConnections = 512
//! maxConnectionsPerAddress = 128
//! maxUninitialized = 64
//! firstMessageMs = 10000
//! frameReadMs = 30000
//! maxPendingFrameBytes = 16777216
//!
//! [[network.tokens]]
//! sha256 = "<hex digest of the token>"   # or: file = "alice.token"
//! agentId = "alice"
//! profile = "builder.readWrite"
//! ```

use super::admission::TokenIdentity;
use crate::limits::{
    FIRST_MESSAGE_MS, FRAME_READ_MS, MAX_CONNECTIONS_PER_ADDRESS, MAX_NETWORK_CONNECTIONS,
    MAX_PENDING_FRAME_BYTES, MAX_UNINITIALIZED_CONNECTIONS,
};
use crate::policy::Profiles;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::ops::Range;
use std::path::Path;
use std::time::Duration;
use toml::Spanned;

/// Shortest token accepted from a file (as for `--auth-token-file`).
const MIN_TOKEN_CHARS: usize = 16;

/// The parsed `[network]` section.
#[derive(Debug, Clone, Default)]
pub struct NetworkSettings {
    /// Profiles network clients without a token of their own may take, besides `--profile`.
    pub profiles: Vec<String>,
    /// Tokens that decide a client's agent and profile.
    pub tokens: Vec<TokenIdentity>,
    pub limits: EdgeLimits,
}

/// Connection limits of the socket transports (defaults in `limits.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeLimits {
    pub max_connections: usize,
    pub max_connections_per_address: usize,
    pub max_uninitialized: usize,
    pub first_message: Duration,
    pub frame_read: Duration,
    pub max_pending_frame_bytes: usize,
}

impl Default for EdgeLimits {
    fn default() -> Self {
        EdgeLimits {
            max_connections: MAX_NETWORK_CONNECTIONS,
            max_connections_per_address: MAX_CONNECTIONS_PER_ADDRESS,
            max_uninitialized: MAX_UNINITIALIZED_CONNECTIONS,
            first_message: Duration::from_millis(FIRST_MESSAGE_MS),
            frame_read: Duration::from_millis(FRAME_READ_MS),
            max_pending_frame_bytes: MAX_PENDING_FRAME_BYTES,
        }
    }
}

/// `[network]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RawNetwork {
    #[serde(default)]
    profiles: Vec<Spanned<String>>,
    #[serde(default)]
    tokens: Vec<Spanned<RawToken>>,
    max_connections: Option<Spanned<i64>>,
    max_connections_per_address: Option<Spanned<i64>>,
    max_uninitialized: Option<Spanned<i64>>,
    first_message_ms: Option<Spanned<i64>>,
    frame_read_ms: Option<Spanned<i64>>,
    max_pending_frame_bytes: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawToken {
    sha256: Option<String>,
    file: Option<String>,
    agent_id: String,
    profile: String,
}

/// Checks `[network]`: profiles must exist, each token needs exactly one of `sha256` and
/// `file`, limits must be > 0. Relative token files are read from `base` (the configuration
/// file's folder). Errors carry the span of the bad value.
pub(crate) fn parse(
    raw: RawNetwork,
    profiles: &Profiles,
    base: Option<&Path>,
) -> Result<NetworkSettings, (Range<usize>, String)> {
    let mut settings = NetworkSettings::default();
    for name in raw.profiles {
        profiles
            .get(name.get_ref())
            .map_err(|e| (name.span(), format!("`network.profiles`: {e}")))?;
        settings.profiles.push(name.into_inner());
    }
    for spanned in raw.tokens {
        let span = spanned.span();
        let token = spanned.into_inner();
        let at = |msg: String| {
            (
                span.clone(),
                format!("`network.tokens` of `{}`: {msg}", token.agent_id),
            )
        };
        if token.agent_id.is_empty() || token.agent_id.len() > 128 {
            return Err(at("`agentId` must be 1 to 128 characters".into()));
        }
        profiles
            .get(&token.profile)
            .map_err(|e| at(format!("`profile`: {e}")))?;
        let digest = match (&token.sha256, &token.file) {
            (Some(hex), None) => {
                let bytes = hex::decode(hex).ok().filter(|b| b.len() == 32).ok_or_else(|| {
                    at("`sha256` must be 64 hex digits: the SHA-256 of the token (e.g. `printf %s TOKEN | sha256sum`)".into())
                })?;
                let mut digest = [0u8; 32];
                digest.copy_from_slice(&bytes);
                digest
            }
            (None, Some(file)) => {
                let path = match base {
                    Some(base) => base.join(file),
                    None => Path::new(file).to_path_buf(),
                };
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| at(format!("`file`: cannot read {}: {e}", path.display())))?;
                let secret = text.trim();
                if secret.len() < MIN_TOKEN_CHARS {
                    return Err(at(format!(
                        "`file`: the token in {} is {} characters; use at least {MIN_TOKEN_CHARS} (e.g. `openssl rand -hex 32`)",
                        path.display(),
                        secret.len()
                    )));
                }
                Sha256::digest(secret.as_bytes()).into()
            }
            _ => return Err(at("give exactly one of `sha256` and `file`".into())),
        };
        if settings.tokens.iter().any(|t| t.digest == digest) {
            return Err(at("the same token is listed twice".into()));
        }
        settings.tokens.push(TokenIdentity {
            digest,
            agent_id: token.agent_id,
            profile: token.profile,
        });
    }
    let positive = |v: Option<Spanned<i64>>, key: &str, default: u64| match v {
        None => Ok(default),
        Some(v) if *v.get_ref() > 0 => Ok(*v.get_ref() as u64),
        Some(v) => Err((
            v.span(),
            format!("`network.{key}` must be > 0, got {}", v.get_ref()),
        )),
    };
    let d = EdgeLimits::default();
    settings.limits = EdgeLimits {
        max_connections: positive(
            raw.max_connections,
            "maxConnections",
            d.max_connections as u64,
        )? as usize,
        max_connections_per_address: positive(
            raw.max_connections_per_address,
            "maxConnectionsPerAddress",
            d.max_connections_per_address as u64,
        )? as usize,
        max_uninitialized: positive(
            raw.max_uninitialized,
            "maxUninitialized",
            d.max_uninitialized as u64,
        )? as usize,
        first_message: Duration::from_millis(positive(
            raw.first_message_ms,
            "firstMessageMs",
            d.first_message.as_millis() as u64,
        )?),
        frame_read: Duration::from_millis(positive(
            raw.frame_read_ms,
            "frameReadMs",
            d.frame_read.as_millis() as u64,
        )?),
        max_pending_frame_bytes: positive(
            raw.max_pending_frame_bytes,
            "maxPendingFrameBytes",
            d.max_pending_frame_bytes as u64,
        )? as usize,
    };
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn network_settings_parse_with_their_defaults() {
        let digest = "a".repeat(64);
        let c = Config::parse(&format!(
            "[network]\nprofiles = [\"builder.readWrite\"]\nmaxConnectionsPerAddress = 3\nfirstMessageMs = 200\n\n[[network.tokens]]\nsha256 = \"{digest}\"\nagentId = \"alice\"\nprofile = \"player.limited\"\n"
        ))
        .unwrap();
        assert_eq!(c.network.profiles, vec!["builder.readWrite"]);
        assert_eq!(c.network.limits.max_connections_per_address, 3);
        assert_eq!(c.network.limits.first_message.as_millis(), 200);
        assert_eq!(
            c.network.limits.max_connections,
            super::MAX_NETWORK_CONNECTIONS
        );
        assert_eq!(c.network.tokens[0].agent_id, "alice");
        assert_eq!(c.network.tokens[0].digest, [0xaa; 32]);
        assert!(Config::parse("").unwrap().network.tokens.is_empty());
    }

    #[test]
    fn bad_network_settings_name_their_key_and_line() {
        let cases = [
            (
                "[network]\nprofiles = [\"root\"]\n",
                "2:",
                "`network.profiles`: unknown profile `root`",
            ),
            (
                "[network]\nmaxConnections = 0\n",
                "2:",
                "`network.maxConnections` must be > 0, got 0",
            ),
            (
                "[[network.tokens]]\nsha256 = \"abc\"\nagentId = \"a\"\nprofile = \"system.readonly\"\n",
                "1:",
                "`sha256` must be 64 hex digits",
            ),
            (
                "[[network.tokens]]\nagentId = \"a\"\nprofile = \"system.readonly\"\n",
                "1:",
                "give exactly one of `sha256` and `file`",
            ),
            (
                "[[network.tokens]]\nfile = \"/nonexistent/limina.token\"\nagentId = \"a\"\nprofile = \"system.readonly\"\n",
                "1:",
                "`file`: cannot read /nonexistent/limina.token",
            ),
        ];
        for (text, line, words) in cases {
            let err = Config::parse(text).unwrap_err();
            assert!(err.starts_with(line), "expected line {line} in: {err}");
            assert!(err.contains(words), "expected `{words}` in: {err}");
        }
    }

    #[test]
    fn a_token_file_is_read_and_hashed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bob.token"), "bob-secret-0123456789\n").unwrap();
        let config = dir.path().join("limina.toml");
        std::fs::write(
            &config,
            "[[network.tokens]]\nfile = \"bob.token\"\nagentId = \"bob\"\nprofile = \"system.readonly\"\n",
        )
        .unwrap();
        let c = Config::load(&config).unwrap();
        use sha2::Digest;
        let want: [u8; 32] = sha2::Sha256::digest(b"bob-secret-0123456789").into();
        assert_eq!(c.network.tokens[0].digest, want);
        std::fs::write(dir.path().join("bob.token"), "short").unwrap();
        let err = Config::load(&config).unwrap_err();
        assert!(err.contains("is 5 characters; use at least 16"), "{err}");
    }
}
