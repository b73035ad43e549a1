//! A bearer token in, an identity or a refusal out. A JWT is split and its algorithm checked,
//! its key found in the provider's set (fetched again, at most once per interval, when the
//! token names a key the set lacks), its signature verified, its registered claims checked and
//! its claims mapped; an opaque token is introspected when the configuration allows. A token
//! that passed is remembered by its SHA-256 until it expires (or its key leaves the set, or an
//! introspection answer's time is up), so a client's later requests cost a hash and a lookup.

use super::Identity;
use super::claims::{self, Expected};
use super::config::IdentityConfig;
use super::fetch::Fetcher;
use super::introspection;
use super::jws::{self, Jws, printable};
use super::mapping::Mapping;
use super::metadata::Metadata;
use super::provider::{Provider, Stale};
use super::refusal::Refusal;
use crate::limits::{IDENTITY_MAX_TOKEN_BYTES, IDENTITY_VERIFIED_TOKENS};
use crate::net::TlsRoots;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// Checks tokens from the configured provider; shared by every listener.
#[derive(Debug)]
pub struct Verifier {
    config: IdentityConfig,
    mapping: Mapping,
    metadata: Metadata,
    provider: Arc<Provider>,
    fetcher: Fetcher,
    remembered: Mutex<HashMap<[u8; 32], Remembered>>,
}

/// A token that passed.
#[derive(Debug, Clone)]
struct Remembered {
    identity: Identity,
    /// The key it was verified with: it is forgotten when the key leaves the set.
    kid: Option<String>,
    /// When an introspected token must be asked about again.
    recheck_at: Option<u64>,
}

impl Verifier {
    /// A verifier for `config`, whose mapped profiles may not go beyond `ceiling` (the profiles
    /// network clients may take); a rule naming one beyond it is an error naming the fix.
    pub fn new(
        config: IdentityConfig,
        roots: TlsRoots,
        ceiling: Vec<String>,
    ) -> Result<Arc<Verifier>, String> {
        if let Some(rule) = config.rules.iter().find(|r| !ceiling.contains(&r.profile)) {
            return Err(format!(
                "`[[identity.profiles]]` gives `{}`, which network clients of this host may not take ({}); add it to `[network] profiles` or --network-profile, or remove the rule",
                rule.profile,
                ceiling.join(", ")
            ));
        }
        let fetcher = Fetcher {
            roots,
            timeout: config.fetch_timeout,
        };
        let provider = Provider::new(
            fetcher.clone(),
            &config.issuer,
            config.jwks_uri.clone(),
            config.keys_max_age,
            config.keys_min_interval,
        );
        Ok(Arc::new(Verifier {
            mapping: Mapping {
                names: config.claims.clone(),
                rules: config.rules.clone(),
                required: config.scopes.clone(),
                ceiling,
            },
            metadata: Metadata::new(&config),
            provider,
            fetcher,
            config,
            remembered: Mutex::default(),
        }))
    }

    /// The protected resource metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The `WWW-Authenticate` value for `refusal`.
    pub fn challenge(&self, refusal: &Refusal) -> String {
        refusal.challenge(self.metadata.url(), &self.config.scopes)
    }

    /// Fetches the provider's keys now; logs what came of it. Never fails the start: a
    /// provider down at start refuses tokens (503) until it answers.
    pub async fn warm_up(&self) {
        match self.provider.warm_up().await {
            Ok(_) => {}
            Err(e) => crate::log::warn(&format!(
                "identity: the provider {} could not be reached ({e}); tokens from it are refused until it answers",
                self.config.issuer
            )),
        }
    }

    /// Checks `token` now.
    pub async fn verify(&self, token: &str) -> Result<Identity, Refusal> {
        self.verify_at(token, unix_now()).await
    }

    /// Checks `token` at `now` (Unix seconds).
    pub async fn verify_at(&self, token: &str, now: u64) -> Result<Identity, Refusal> {
        if token.len() > IDENTITY_MAX_TOKEN_BYTES {
            return Err(Refusal::invalid(
                "malformed",
                format!("the token is longer than {IDENTITY_MAX_TOKEN_BYTES} bytes"),
            ));
        }
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(known) = self.recall(&digest, now)? {
            return Ok(known);
        }
        let (identity, kid, recheck_at) = if jws::is_jws(token) {
            let (identity, kid) = self.verify_jwt(token, now).await?;
            (identity, kid, None)
        } else {
            let identity = self.introspect(token, now).await?;
            let recheck = now
                + self
                    .config
                    .introspection
                    .as_ref()
                    .map_or(0, |c| c.cache.as_secs());
            (identity, None, Some(recheck))
        };
        self.remember(
            digest,
            Remembered {
                identity: identity.clone(),
                kid,
                recheck_at,
            },
            now,
        );
        Ok(identity)
    }

    /// A remembered token's identity, if it still holds.
    fn recall(&self, digest: &[u8; 32], now: u64) -> Result<Option<Identity>, Refusal> {
        let mut remembered = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        let Some(entry) = remembered.get(digest) else {
            return Ok(None);
        };
        let exp = entry.identity.expires_at;
        if now > exp.saturating_add(self.config.clock_skew) {
            remembered.remove(digest);
            return Err(Refusal::invalid(
                "expired",
                format!(
                    "the token expired {} s ago (at {exp}): get a new one",
                    now - exp
                ),
            ));
        }
        let key_gone = entry
            .kid
            .as_ref()
            .is_some_and(|kid| !self.provider.keys().holds(kid));
        if key_gone || entry.recheck_at.is_some_and(|at| now >= at) {
            remembered.remove(digest);
            return Ok(None);
        }
        Ok(Some(entry.identity.clone()))
    }

    fn remember(&self, digest: [u8; 32], entry: Remembered, now: u64) {
        let mut remembered = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        if remembered.len() >= IDENTITY_VERIFIED_TOKENS {
            remembered.retain(|_, e| e.identity.expires_at > now);
            // Still full of live tokens: start over rather than grow (each is checked again once).
            if remembered.len() >= IDENTITY_VERIFIED_TOKENS {
                remembered.clear();
            }
        }
        remembered.insert(digest, entry);
    }

    fn expected(&self, issuer_optional: bool) -> Expected<'_> {
        Expected {
            issuer: &self.config.issuer,
            resource: &self.config.resource,
            skew: self.config.clock_skew,
            issuer_optional,
        }
    }

    async fn verify_jwt(
        &self,
        token: &str,
        now: u64,
    ) -> Result<(Identity, Option<String>), Refusal> {
        let jws = Jws::parse(token, &self.config.algorithms)?;
        let kid = jws.kid.as_deref();
        let fits = |k: &super::jwk::Key| jws.alg.fits(k);
        let mut keys = self.provider.keys();
        if keys.find(kid, fits).is_none() {
            keys = self.provider.fresh_keys().await.map_err(|stale| match stale {
                Stale::TooSoon { age, wait } => unknown_key(kid, format!(
                    "the set was fetched {} s ago and is fetched again at most every {} s (in {} s)",
                    age.as_secs(),
                    (age + wait).as_secs(),
                    wait.as_secs()
                )),
                Stale::Unreachable(reason) => Refusal::Unavailable {
                    reason: format!(
                        "the token's key could not be checked: the provider's key set could not be fetched ({reason})"
                    ),
                },
            })?;
        }
        let key = keys
            .find(kid, fits)
            .ok_or_else(|| unknown_key(kid, "not even in the set fetched just now".into()))?;
        jws.verify(key)?;
        let exp = claims::check(&jws.claims, &self.expected(false), now)?;
        let identity = self.mapping.identity(&jws.claims, exp)?;
        Ok((identity, key.kid.clone()))
    }

    async fn introspect(&self, token: &str, now: u64) -> Result<Identity, Refusal> {
        let Some(config) = &self.config.introspection else {
            return Err(Refusal::invalid(
                "unknown_token",
                "the bearer token is neither a configured token nor a JWT from the identity provider (opaque tokens need `[identity.introspection]`)",
            ));
        };
        let expected = self.expected(true);
        let (claims, exp) =
            introspection::introspect(token, config, &self.provider, &self.fetcher, &expected, now)
                .await?;
        self.mapping.identity(&claims, exp)
    }
}

fn unknown_key(kid: Option<&str>, why: String) -> Refusal {
    Refusal::invalid(
        "unknown_key",
        match kid {
            Some(kid) => format!(
                "the token's key `{}` is not in the provider's key set ({why}): it was made with a key the provider no longer publishes, or not by the provider",
                printable(kid)
            ),
            None => format!(
                "the token names no key (`kid`) and the provider's key set has no single key for its algorithm ({why})"
            ),
        },
    )
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
