//! OAuth 2.1 client credentials for an HTTP upstream (`auth.oauth`): the host exchanges its
//! client id and secret at `tokenUrl` for a bearer token, keeps it, and fetches the next one
//! before it expires (or at once when the upstream refuses it with 401). The secret is sent to
//! the token endpoint only, never to the upstream nor to any caller.

use super::http::{Endpoint, post, read_body};
use crate::limits::UPSTREAM_TOKEN_REFRESH_MARGIN_MS;
use crate::net::form;
use serde_json::Value;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Lifetime assumed for a token whose answer gives no `expires_in`.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(3600);

/// How the host authenticates to one upstream.
pub enum Credentials {
    /// A fixed bearer token.
    Static(String),
    /// Client credentials, with the token they last bought.
    Client {
        endpoint: Endpoint,
        client_id: String,
        secret: String,
        scopes: Vec<String>,
        cached: Mutex<Option<Cached>>,
    },
}

/// A token and when to fetch the next one.
pub struct Cached {
    token: String,
    refresh_at: Instant,
}

impl Credentials {
    /// From the configuration's `auth`; `None` when nothing is sent.
    pub fn of(
        auth: &super::Auth,
        roots: &crate::net::TlsRoots,
    ) -> Result<Option<Credentials>, String> {
        Ok(match auth {
            super::Auth::None => None,
            super::Auth::Bearer(token) => Some(Credentials::Static(token.clone())),
            super::Auth::Oauth {
                token_url,
                client_id,
                secret,
                scopes,
            } => Some(Credentials::Client {
                endpoint: Endpoint {
                    roots: roots.clone(),
                    ..Endpoint::parse(token_url)?
                },
                client_id: client_id.clone(),
                secret: secret.clone(),
                scopes: scopes.clone(),
                cached: Mutex::new(None),
            }),
        })
    }

    /// Whether a refused token can be replaced by fetching another.
    pub fn is_refreshable(&self) -> bool {
        matches!(self, Credentials::Client { .. })
    }

    /// Drops the kept token: the next request fetches one.
    pub fn forget(&self) {
        if let Credentials::Client { cached, .. } = self {
            *cached.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// The token to send now: the kept one while it is fresh, else a new one.
    pub async fn bearer(&self) -> Result<String, String> {
        let Credentials::Client {
            endpoint,
            client_id,
            secret,
            scopes,
            cached,
        } = self
        else {
            let Credentials::Static(token) = self else {
                unreachable!("two variants")
            };
            return Ok(token.clone());
        };
        if let Some(kept) = cached.lock().unwrap_or_else(|e| e.into_inner()).as_ref()
            && Instant::now() < kept.refresh_at
        {
            return Ok(kept.token.clone());
        }
        let (token, lifetime) = fetch(endpoint, client_id, secret, scopes).await?;
        // Refreshed before it expires: a margin, but never more than half its life.
        let margin = Duration::from_millis(UPSTREAM_TOKEN_REFRESH_MARGIN_MS).min(lifetime / 2);
        *cached.lock().unwrap_or_else(|e| e.into_inner()) = Some(Cached {
            token: token.clone(),
            refresh_at: Instant::now() + lifetime - margin,
        });
        Ok(token)
    }
}

/// One client-credentials exchange: the token and its lifetime.
async fn fetch(
    endpoint: &Endpoint,
    client_id: &str,
    secret: &str,
    scopes: &[String],
) -> Result<(String, Duration), String> {
    let mut form = format!(
        "grant_type=client_credentials&client_id={}&client_secret={}",
        form::encode(client_id),
        form::encode(secret)
    );
    if !scopes.is_empty() {
        form.push_str("&scope=");
        form.push_str(&form::encode(&scopes.join(" ")));
    }
    let headers = vec![
        (
            "content-type",
            "application/x-www-form-urlencoded".to_string(),
        ),
        ("accept", "application/json".to_string()),
    ];
    let at = format!("the token endpoint {}", endpoint.authority);
    let answer = post(endpoint, headers, form)
        .await
        .map_err(|e| format!("{at}: {e}"))?;
    let status = answer.status;
    let body = read_body(answer.body, 64 << 10)
        .await
        .map_err(|e| format!("{at}: {e}"))?;
    let reply: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if status != 200 {
        let why = reply
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no error code");
        return Err(format!(
            "{at} refused the client credentials: HTTP {status} ({why})"
        ));
    }
    let token = reply
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty() && !t.chars().any(|c| c.is_control() || c == ' '))
        .ok_or_else(|| format!("{at} answered without a usable `access_token`"))?;
    if let Some(kind) = reply.get("token_type").and_then(Value::as_str)
        && !kind.eq_ignore_ascii_case("bearer")
    {
        return Err(format!(
            "{at} gave a `{kind}` token; only bearer tokens are sent"
        ));
    }
    let lifetime = reply
        .get("expires_in")
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(DEFAULT_LIFETIME, Duration::from_secs_f64);
    Ok((token.to_string(), lifetime))
}
