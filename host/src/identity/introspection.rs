//! Opaque tokens (RFC 7662): the host asks the provider's introspection endpoint, as a client
//! of its own (`client_secret_basic`), whether the token is active and what it says. The answer
//! passes the same checks a signed token does — issuer, audience (RFC 8707), times — and is
//! remembered for `cacheSeconds` at most (never past the token's expiry).

use super::claims::{self, Expected};
use super::config::IntrospectionConfig;
use super::fetch::{Fetcher, Form};
use super::provider::Provider;
use super::refusal::Refusal;
use crate::net::form;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Asks the provider about `token`; the claims of an active one, checked, and its expiry.
pub async fn introspect(
    token: &str,
    config: &IntrospectionConfig,
    provider: &Arc<Provider>,
    fetcher: &Fetcher,
    expected: &Expected<'_>,
    now: u64,
) -> Result<(Map<String, Value>, u64), Refusal> {
    let endpoint = match &config.endpoint {
        Some(url) => url.clone(),
        None => provider
            .introspection_endpoint()
            .await
            .map_err(|reason| Refusal::Unavailable { reason })?,
    };
    let form = Form {
        body: format!("token={}&token_type_hint=access_token", form::encode(token)),
        authorization: basic(&config.client_id, &config.client_secret),
    };
    let answer = fetcher
        .post(&endpoint, form)
        .await
        .map_err(|e| Refusal::Unavailable {
            reason: format!("the token could not be introspected: {e}"),
        })?;
    let Value::Object(answer) = answer else {
        unreachable!("the fetcher returns objects")
    };
    read(answer, expected, now)
}

/// An introspection answer, checked.
fn read(
    answer: Map<String, Value>,
    expected: &Expected<'_>,
    now: u64,
) -> Result<(Map<String, Value>, u64), Refusal> {
    if answer.get("active") != Some(&Value::Bool(true)) {
        return Err(Refusal::invalid(
            "inactive",
            "the provider says the token is not active (expired, revoked or never issued)",
        ));
    }
    if let Some(kind) = answer.get("token_type").and_then(Value::as_str)
        && !kind.eq_ignore_ascii_case("bearer")
        && kind != "access_token"
    {
        return Err(Refusal::invalid(
            "token_type",
            format!(
                "the provider says the token is a `{}`, not an access token",
                super::jws::printable(kind)
            ),
        ));
    }
    let exp = claims::check(&answer, expected, now)?;
    Ok((answer, exp))
}

/// `client_secret_basic` (RFC 6749 §2.3.1: each part form-encoded first).
fn basic(id: &str, secret: &str) -> String {
    let pair = format!("{}:{}", form::encode(id), form::encode(secret));
    format!("Basic {}", STANDARD.encode(pair))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expected() -> Expected<'static> {
        Expected {
            issuer: "https://idp.example",
            resource: "https://mcp.example/mcp",
            skew: 0,
            issuer_optional: true,
        }
    }

    #[test]
    fn an_inactive_or_foreign_answer_is_refused() {
        let inactive = json!({"active": false}).as_object().unwrap().clone();
        assert_eq!(
            read(inactive, &expected(), 5).unwrap_err().code(),
            "inactive"
        );
        let refresh = json!({"active": true, "token_type": "refresh_token", "aud": "https://mcp.example/mcp", "exp": 10});
        let err = read(refresh.as_object().unwrap().clone(), &expected(), 5).unwrap_err();
        assert_eq!(err.code(), "token_type");
        let other = json!({"active": true, "aud": "https://other.example", "exp": 10});
        let err = read(other.as_object().unwrap().clone(), &expected(), 5).unwrap_err();
        assert_eq!(err.code(), "audience");
        let good = json!({"active": true, "aud": "https://mcp.example/mcp", "exp": 10, "sub": "a"});
        let (claims, exp) = read(good.as_object().unwrap().clone(), &expected(), 5).unwrap();
        assert_eq!((claims["sub"].as_str(), exp), (Some("a"), 10));
    }

    #[test]
    fn credentials_are_form_encoded_then_base64() {
        assert_eq!(
            basic("id", "s:e"),
            format!("Basic {}", STANDARD.encode("id:s%3Ae"))
        );
    }
}
