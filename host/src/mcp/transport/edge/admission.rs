//! Who a network client is and how much it may ask for. The host, not the client, sets the
//! ceiling: over WebSocket and HTTP a session may take only the profiles the configuration
//! lets network clients take (by default only the server's `--profile`), and where a token
//! names an agent and a profile, the token decides both. stdio has no ceiling.

use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// What a client came over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    WebSocket,
    Http,
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

/// Why a client was not admitted (both are 401 on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A token is configured and none was sent.
    TokenMissing,
    /// The token sent is not one the configuration knows.
    TokenUnknown,
}

impl Refusal {
    /// The message for the client.
    pub fn message(self) -> &'static str {
        match self {
            Refusal::TokenMissing => {
                "a bearer token is required: send `Authorization: Bearer <token>`"
            }
            Refusal::TokenUnknown => {
                "the bearer token is not one this host knows: check `Authorization: Bearer <token>`"
            }
        }
    }
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
        }
    }

    /// Whether clients must send a token.
    pub fn requires_token(&self) -> bool {
        self.shared_token.is_some() || !self.tokens.is_empty()
    }

    /// What a client coming over `transport` with the `Authorization` header `authorization`
    /// may take: `None` over stdio (no ceiling: the process's owner started it).
    pub fn admit(
        &self,
        transport: Transport,
        authorization: Option<&str>,
    ) -> Result<Option<Grant>, Refusal> {
        if transport == Transport::Stdio {
            return Ok(None);
        }
        let ceiling = || Grant {
            profiles: self.ceiling.clone(),
            agent_id: None,
            setting: "`--profile`, `--network-profile` or `[network] profiles` in --config".into(),
        };
        if !self.requires_token() {
            return Ok(Some(ceiling()));
        }
        let Some(token) = authorization.and_then(|v| v.strip_prefix("Bearer ")) else {
            return Err(Refusal::TokenMissing);
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
        match found {
            Some(identity) => Ok(Some(Grant {
                profiles: vec![identity.profile.clone()],
                agent_id: Some(identity.agent_id.clone()),
                setting: format!(
                    "the `[[network.tokens]]` entry of agent `{}`",
                    identity.agent_id
                ),
            })),
            None if shared => Ok(Some(ceiling())),
            None => Err(Refusal::TokenUnknown),
        }
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
        assert_eq!(a.admit(Transport::Stdio, None), Ok(None));
        let grant = a.admit(Transport::WebSocket, None).unwrap().unwrap();
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
        assert_eq!(a.admit(Transport::Http, None), Err(Refusal::TokenMissing));
        assert_eq!(
            a.admit(Transport::Http, Some("Bearer nobody-0123456789")),
            Err(Refusal::TokenUnknown)
        );
        assert_eq!(
            a.admit(Transport::Http, Some("alice-token-0123456789")),
            Err(Refusal::TokenMissing),
            "the Bearer scheme is needed"
        );
        let alice = a
            .admit(Transport::WebSocket, Some("Bearer alice-token-0123456789"))
            .unwrap()
            .unwrap();
        let mut params = json!({});
        alice.apply(&mut params).unwrap();
        assert_eq!(
            params,
            json!({"profile": "builder.readWrite", "agentId": "alice"})
        );
        let bob = a
            .admit(Transport::Http, Some("Bearer bob-token-0123456789"))
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
        assert_eq!(a.admit(Transport::Stdio, None), Ok(None));
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
        let grant = a
            .admit(Transport::WebSocket, Some("Bearer shared-token-0123456789"))
            .unwrap()
            .unwrap();
        assert_eq!(grant.profiles, vec!["system.readonly"]);
        assert_eq!(grant.agent_id, None);
        assert_eq!(
            a.admit(
                Transport::WebSocket,
                Some("Bearer shared-token-01234567890")
            ),
            Err(Refusal::TokenUnknown)
        );
    }
}
