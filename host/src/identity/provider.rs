//! What the host knows of the identity provider: where its keys are (configured, or
//! discovered from its metadata) and the keys themselves, fetched as tokio tasks at the edge.
//!
//! The key set is fetched again when it is older than `keysMaxAgeSeconds` (in the background:
//! requests keep using the keys held), and when a token names a key it does not hold — but at
//! most once per `keysMinIntervalSeconds`, however many tokens do, so made-up `kid`s cannot turn
//! the host against the provider. One fetch runs at a time; requests that need it wait for it
//! within `fetchTimeoutMs`, then are refused rather than held.

use super::discovery::{self, Discovered};
use super::fetch::Fetcher;
use super::jwk::KeySet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The provider's metadata and keys, shared by every listener.
#[derive(Debug)]
pub struct Provider {
    fetcher: Fetcher,
    issuer: String,
    /// `[identity] jwksUri`, which spares the discovery.
    jwks_uri: Option<String>,
    max_age: Duration,
    min_interval: Duration,
    state: Mutex<State>,
    /// Bumped when a fetch ends, well or not: what waiting requests watch.
    fetches: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct State {
    keys: Arc<KeySet>,
    discovered: Option<Discovered>,
    fetched_at: Option<Instant>,
    attempted_at: Option<Instant>,
    in_flight: bool,
    last_error: Option<String>,
    /// The notes of the last key set logged, so a set is described once, not every fetch.
    described: Vec<String>,
}

/// Why fresh keys could not be had for a token naming an unknown key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// The set was fetched moments ago; it is not fetched again before `wait`.
    TooSoon { age: Duration, wait: Duration },
    /// The provider could not be reached (or answered nonsense).
    Unreachable(String),
}

impl Provider {
    pub fn new(
        fetcher: Fetcher,
        issuer: &str,
        jwks_uri: Option<String>,
        max_age: Duration,
        min_interval: Duration,
    ) -> Arc<Provider> {
        Arc::new(Provider {
            fetcher,
            issuer: issuer.to_string(),
            jwks_uri,
            max_age,
            min_interval,
            state: Mutex::default(),
            fetches: watch::Sender::new(0),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The keys held now; a set past its age is fetched again in the background (inside a
    /// tokio runtime only: outside one, the next request in one does it).
    pub fn keys(self: &Arc<Self>) -> Arc<KeySet> {
        let mut state = self.state();
        let old = state
            .fetched_at
            .is_some_and(|at| at.elapsed() >= self.max_age);
        if old && self.may_fetch(&state) && tokio::runtime::Handle::try_current().is_ok() {
            state.in_flight = true;
            tokio::spawn(self.clone().fetch());
        }
        state.keys.clone()
    }

    /// Keys fetched after now, for a token whose key the held set lacks.
    pub async fn fresh_keys(self: &Arc<Self>) -> Result<Arc<KeySet>, Stale> {
        let mut fetches = self.fetches.subscribe();
        let seen = *fetches.borrow_and_update();
        {
            let mut state = self.state();
            if !state.in_flight {
                if let Some(at) = state.attempted_at.filter(|_| !self.may_fetch(&state)) {
                    let age = at.elapsed();
                    return match &state.last_error {
                        Some(e) if state.fetched_at.is_none_or(|f| f < at) => {
                            Err(Stale::Unreachable(e.clone()))
                        }
                        _ => Err(Stale::TooSoon {
                            age,
                            wait: self.min_interval.saturating_sub(age),
                        }),
                    };
                }
                state.in_flight = true;
                tokio::spawn(self.clone().fetch());
            }
        }
        // The fetch has its own deadline; this one only guards against a lost wake-up.
        let waited = tokio::time::timeout(
            self.fetcher.timeout + Duration::from_secs(1),
            fetches.wait_for(|n| *n > seen),
        )
        .await;
        let state = self.state();
        match (waited, &state.last_error) {
            (Ok(Ok(_)), None) => Ok(state.keys.clone()),
            (Ok(Ok(_)), Some(e)) => Err(Stale::Unreachable(e.clone())),
            _ => Err(Stale::Unreachable(format!(
                "the key set was not fetched within {} ms",
                self.fetcher.timeout.as_millis()
            ))),
        }
    }

    /// Fetches the keys now (at start, so the first client does not wait); the error is why not.
    pub async fn warm_up(self: &Arc<Self>) -> Result<usize, String> {
        self.state().in_flight = true;
        self.clone().fetch().await;
        let state = self.state();
        match &state.last_error {
            Some(e) => Err(e.clone()),
            None => Ok(state.keys.keys.len()),
        }
    }

    /// The introspection endpoint the metadata names (discovering it if need be).
    pub async fn introspection_endpoint(&self) -> Result<String, String> {
        if let Some(found) = self.state().discovered.clone() {
            return found.introspection_endpoint.ok_or_else(no_introspection);
        }
        let found = tokio::time::timeout(
            self.fetcher.timeout,
            discovery::discover(&self.fetcher, &self.issuer),
        )
        .await
        .map_err(|_| "the provider's metadata did not arrive in time".to_string())??;
        self.state().discovered = Some(found.clone());
        found.introspection_endpoint.ok_or_else(no_introspection)
    }

    fn may_fetch(&self, state: &State) -> bool {
        !state.in_flight
            && state
                .attempted_at
                .is_none_or(|at| at.elapsed() >= self.min_interval)
    }

    /// One fetch (the caller set `in_flight`): discovery if needed, then the key set; the
    /// outcome goes into the state and wakes whoever waits.
    async fn fetch(self: Arc<Self>) {
        self.state().attempted_at = Some(Instant::now());
        let outcome = tokio::time::timeout(self.fetcher.timeout, self.fetch_keys()).await;
        let outcome = outcome.unwrap_or_else(|_| {
            Err(format!(
                "the provider did not answer within {} ms (`[identity] fetchTimeoutMs`)",
                self.fetcher.timeout.as_millis()
            ))
        });
        {
            let mut state = self.state();
            state.in_flight = false;
            match outcome {
                Ok((keys, notes)) => {
                    if notes != state.described || state.fetched_at.is_none() {
                        crate::log::info(&format!(
                            "identity: {} keys from the provider{}",
                            keys.keys.len(),
                            if notes.is_empty() {
                                String::new()
                            } else {
                                format!(" ({})", notes.join("; "))
                            }
                        ));
                        state.described = notes;
                    }
                    state.keys = Arc::new(keys);
                    state.fetched_at = Some(Instant::now());
                    state.last_error = None;
                }
                Err(e) => {
                    crate::log::warn(&format!(
                        "identity: the provider's keys could not be fetched: {e}"
                    ));
                    // Found again next time: the provider may have moved its keys.
                    state.discovered = None;
                    state.last_error = Some(e);
                }
            }
        }
        self.fetches.send_modify(|n| *n += 1);
    }

    async fn fetch_keys(&self) -> Result<(KeySet, Vec<String>), String> {
        let url = match &self.jwks_uri {
            Some(url) => url.clone(),
            None => {
                let known = self.state().discovered.clone();
                let found = match known {
                    Some(found) => found,
                    None => discovery::discover(&self.fetcher, &self.issuer).await?,
                };
                let url = found.jwks_uri.clone();
                self.state().discovered = Some(found);
                url
            }
        };
        let document = self.fetcher.json(&url).await?;
        let (keys, notes) = KeySet::parse(&document).map_err(|e| format!("{url}: {e}"))?;
        if keys.keys.is_empty() {
            return Err(format!(
                "{url} holds no key the host can verify with ({})",
                notes.join("; ")
            ));
        }
        Ok((keys, notes))
    }
}

fn no_introspection() -> String {
    "the provider's metadata names no `introspection_endpoint`; set `[identity.introspection] endpoint`"
        .into()
}
