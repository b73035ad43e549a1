//! Who a network client is and how much it may ask for. The host, not the client, sets the
//! ceiling: over WebSocket and HTTP a session may take only the profiles the configuration
//! lets network clients take (by default only the server's `--profile`), and where a token
//! names an agent and a profile, the token decides both — a `[[network.tokens]]` entry, or an
//! access token from the identity provider (`crate::identity`), whose claims decide them under
//! the same ceiling. stdio has no ceiling.

use crate::identity::{Identity, Metadata, Refusal, RefusalReports, Verifier};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// What a client came over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    WebSocket,
    Http,
}

impl Transport {
    /// Its name in logs and the trace.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::WebSocket => "WebSocket",
            Transport::Http => "HTTP",
        }
    }
}

/// A token the configuration maps to an identity (`[[network.tokens]]`), kept as its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenIdentity {
    pub digest: [u8; 32],
    pub agent_id: String,
    pub profile: String,
}

/// The admission rules of the socket transports.
#[derive(Debug, Clone, Default)]
pub struct Admission {
    /// Profiles a client without a token of its own may take; the first is its default.
    ceiling: Vec<String>,
    /// `--auth-token-file`: one token every client shares; its holder gets the ceiling.
    shared_token: Option<String>,
    /// Tokens with identities.
    tokens: Vec<TokenIdentity>,
    /// Access tokens from the identity provider (`[identity]`).
    identity: Option<Arc<Verifier>>,
    /// How many refusals are logged and traced (a flood of bad tokens is counted, not written).
    reports: Arc<RefusalReports>,
}

/// What an admitted network client may take at `initialize`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The profiles it may ask for; the first is what it gets when it names none.
    pub profiles: Vec<String>,
    /// The agent its token names (it may not claim another).
    pub agent_id: Option<String>,
    /// The setting that decides, for errors: what the operator would change.
    pub setting: String,
}

impl From<Identity> for Grant {
    fn from(identity: Identity) -> Grant {
        Grant {
            profiles: identity.profiles,
            agent_id: Some(identity.agent_id),
            setting: identity.setting,
        }
    }
}

/// How the configuration's own tokens decided, before the identity provider is asked.
enum Checked<'a> {
    Decided(Result<Option<Grant>, Refusal>),
    /// Not one of the configuration's tokens: the provider's, perhaps.
    Other(&'a str),
}

impl Admission {
    /// Rules for a server whose default profile is `default_profile`: network clients may
    /// take it and `also` (`[network] profiles`, `--network-profile`); `shared_token` is
    /// `--auth-token-file`'s; `tokens` name identities.
    pub fn new(
        default_profile: &str,
        also: &[String],
        shared_token: Option<String>,
        tokens: Vec<TokenIdentity>,
    ) -> Admission {
        let mut ceiling = vec![default_profile.to_string()];
        for p in also {
            if !ceiling.contains(p) {
                ceiling.push(p.clone());
            }
        }
        Admission {
            ceiling,
            shared_token,
            tokens,
            identity: None,
            reports: Arc::default(),
        }
    }

    /// Also admits access tokens `verifier` accepts (beside the configuration's tokens).
    pub fn with_identity(mut self, verifier: Arc<Verifier>) -> Admission {
        self.identity = Some(verifier);
        self
    }

    /// Whether this refusal is logged and traced (`Some(n)`: yes, and `n` before it were not).
    pub fn report(&self) -> Option<u64> {
        self.reports.report()
    }

    /// The profiles network clients may take at most.
    pub fn ceiling(&self) -> &[String] {
        &self.ceiling
    }

    /// The protected resource metadata, when an identity provider is configured.
    pub fn metadata(&self) -> Option<&Metadata> {
        self.identity.as_ref().map(|v| v.metadata())
    }

    /// The `WWW-Authenticate` value for `refusal`: the RFC 9728 challenge with an identity
    /// provider, else a plain bearer challenge.
    pub fn challenge(&self, refusal: &Refusal) -> String {
        match &self.identity {
            Some(verifier) => verifier.challenge(refusal),
            None if matches!(refusal, Refusal::Missing) => "Bearer realm=\"limina\"".into(),
            None => "Bearer realm=\"limina\", error=\"invalid_token\"".into(),
        }
    }

    /// Whether clients must send a token.
    pub fn requires_token(&self) -> bool {
        self.shared_token.is_some() || !self.tokens.is_empty() || self.identity.is_some()
    }

    /// What a client coming over `transport` with the `Authorization` header `authorization`
    /// may take: `None` over stdio (no ceiling: the process's owner started it). The
    /// configuration's tokens are tried first; any other token goes to the identity provider.
    pub async fn admit(
        &self,
        transport: Transport,
        authorization: Option<&str>,
    ) -> Result<Option<Grant>, Refusal> {
        match self.check(transport, authorization) {
            Checked::Decided(decided) => decided,
            Checked::Other(token) => match &self.identity {
                Some(verifier) => verifier.verify(token).await.map(|id| Some(Grant::from(id))),
                None => Err(Refusal::invalid(
                    "unknown_token",
                    "the bearer token is not one this host knows: check `Authorization: Bearer <token>`",
                )),
            },
        }
    }

    fn check<'a>(&self, transport: Transport, authorization: Option<&'a str>) -> Checked<'a> {
        if transport == Transport::Stdio {
            return Checked::Decided(Ok(None));
        }
        let ceiling = || Grant {
            profiles: self.ceiling.clone(),
            agent_id: None,
            setting: "`--profile`, `--network-profile` or `[network] profiles` in --config".into(),
        };
        if !self.requires_token() {
            return Checked::Decided(Ok(Some(ceiling())));
        }
        let Some(token) = authorization.and_then(|v| v.strip_prefix("Bearer ")) else {
            return Checked::Decided(Err(Refusal::Missing));
        };
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        // Every entry is compared, in constant time, so timing tells nothing of which matched.
        let mut found = None;
        for identity in &self.tokens {
            if bool::from(identity.digest.ct_eq(&digest)) {
                found = Some(identity);
            }
        }
        let shared = self
            .shared_token
            .as_ref()
            .is_some_and(|s| bool::from(s.as_bytes().ct_eq(token.as_bytes())));
        Checked::Decided(match found {
            Some(identity) => Ok(Some(Grant {
                profiles: vec![identity.profile.clone()],
                agent_id: Some(identity.agent_id.clone()),
                setting: format!(
                    "the `[[network.tokens]]` entry of agent `{}`",
                    identity.agent_id
                ),
            })),
            None if shared => Ok(Some(ceiling())),
            None => return Checked::Other(token),
        })
    }
}

impl Grant {
    /// Applies the grant to `initialize` params: fills in the profile (and the token's agent)
    /// when the client named none, or refuses what goes beyond it with a message naming the
    /// profile (or agent) and the setting.
    pub fn apply(&self, params: &mut Value) -> Result<(), String> {
        if !params.is_object() {
            *params = Value::Object(Default::default());
        }
        match params.get("profile").and_then(Value::as_str) {
            Some(asked) if !self.profiles.iter().any(|p| p == asked) => {
                return Err(format!(
                    "profile `{asked}` is above what network clients of this host may take ({}); the operator widens it with {}",
                    self.profiles.join(", "),
                    self.setting
                ));
            }
            Some(_) => {}
            None => params["profile"] = Value::String(self.profiles[0].clone()),
        }
        if let Some(agent) = &self.agent_id {
            match params.get("agentId").and_then(Value::as_str) {
                Some(asked) if asked != agent => {
                    return Err(format!(
                        "agentId `{asked}` is not the agent this token names (`{agent}`): the token decides; drop `agentId` or send `{agent}`"
                    ));
                }
                _ => params["agentId"] = Value::String(agent.clone()),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `admit` run to completion (no identity provider: nothing waits).
    fn admit(
        a: &Admission,
        transport: Transport,
        authorization: Option<&str>,
    ) -> Result<Option<Grant>, Refusal> {
        futures_executor::block_on(a.admit(transport, authorization))
    }

    fn identity(token: &str, agent: &str, profile: &str) -> TokenIdentity {
        TokenIdentity {
            digest: Sha256::digest(token.as_bytes()).into(),
            agent_id: agent.into(),
            profile: profile.into(),
        }
    }

    #[test]
    fn without_tokens_network_clients_get_the_ceiling_and_stdio_none() {
        let a = Admission::new("system.readonly", &["player.limited".into()], None, vec![]);
        assert_eq!(admit(&a, Transport::Stdio, None), Ok(None));
        let grant = admit(&a, Transport::WebSocket, None).unwrap().unwrap();
        assert_eq!(grant.profiles, vec!["system.readonly", "player.limited"]);
        let mut params = json!({});
        grant.apply(&mut params).unwrap();
        assert_eq!(params["profile"], "system.readonly");
        let mut within = json!({"profile": "player.limited"});
        grant.apply(&mut within).unwrap();
        let mut above = json!({"profile": "builder.readWrite"});
        let err = grant.apply(&mut above).unwrap_err();
        assert!(
            err.contains("profile `builder.readWrite` is above"),
            "{err}"
        );
        assert!(err.contains("[network] profiles"), "{err}");
    }

    #[test]
    fn a_token_decides_the_agent_and_the_profile() {
        let a = Admission::new(
            "system.readonly",
            &[],
            None,
            vec![
                identity("alice-token-0123456789", "alice", "builder.readWrite"),
                identity("bob-token-0123456789", "bob", "player.limited"),
            ],
        );
        assert_eq!(admit(&a, Transport::Http, None), Err(Refusal::Missing));
        let unknown = admit(&a, Transport::Http, Some("Bearer nobody-0123456789")).unwrap_err();
        assert_eq!((unknown.status(), unknown.code()), (401, "unknown_token"));
        assert_eq!(
            a.challenge(&unknown),
            "Bearer realm=\"limina\", error=\"invalid_token\""
        );
        assert_eq!(a.challenge(&Refusal::Missing), "Bearer realm=\"limina\"");
        assert_eq!(
            admit(&a, Transport::Http, Some("alice-token-0123456789")),
            Err(Refusal::Missing),
            "the Bearer scheme is needed"
        );
        let alice = admit(
            &a,
            Transport::WebSocket,
            Some("Bearer alice-token-0123456789"),
        )
        .unwrap()
        .unwrap();
        let mut params = json!({});
        alice.apply(&mut params).unwrap();
        assert_eq!(
            params,
            json!({"profile": "builder.readWrite", "agentId": "alice"})
        );
        let bob = admit(&a, Transport::Http, Some("Bearer bob-token-0123456789"))
            .unwrap()
            .unwrap();
        let err = bob
            .apply(&mut json!({"profile": "builder.readWrite"}))
            .unwrap_err();
        assert!(err.contains("agent `bob`"), "{err}");
        let err = bob.apply(&mut json!({"agentId": "alice"})).unwrap_err();
        assert!(
            err.contains("agentId `alice` is not the agent this token names (`bob`)"),
            "{err}"
        );
        assert_eq!(admit(&a, Transport::Stdio, None), Ok(None));
    }

    #[test]
    fn the_shared_token_admits_to_the_ceiling() {
        let a = Admission::new(
            "system.readonly",
            &[],
            Some("shared-token-0123456789".into()),
            vec![identity(
                "alice-token-0123456789",
                "alice",
                "builder.readWrite",
            )],
        );
        let grant = admit(
            &a,
            Transport::WebSocket,
            Some("Bearer shared-token-0123456789"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(grant.profiles, vec!["system.readonly"]);
        assert_eq!(grant.agent_id, None);
        let near = admit(
            &a,
            Transport::WebSocket,
            Some("Bearer shared-token-01234567890"),
        );
        assert_eq!(near.unwrap_err().code(), "unknown_token");
    }
}
