//! Claims decide who and what: which claim names the agent (`sub` by default), and which
//! profiles the token's scopes, groups, client or subject give, by the `[[identity.profiles]]`
//! rules in order (the first match is the profile a session gets when it names none). The host's
//! ceiling stays on top: a profile beyond what network clients may take is never given, whatever
//! the token says. Every token must also carry the scopes `[identity] scopes` lists.

use super::Identity;
use super::jws::printable;
use super::refusal::{Refusal, quoted};
use serde_json::{Map, Value};

/// Which claims say what (`[identity.claims]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimNames {
    /// The claim naming the agent (`sub`); without it, the client id does.
    pub agent: String,
    /// Put before the claim's value to make the agent id (`""`), e.g. `idp:` to keep the
    /// provider's agents apart from the configuration's tokens.
    pub agent_prefix: String,
    /// The claim listing groups or roles (`groups`): an array, or words separated by spaces.
    pub groups: String,
    /// The claim listing scopes (`scope`, words separated by spaces; `scp` arrays are read too).
    pub scope: String,
    /// The claim naming the client (`client_id`, else `azp`).
    pub client_id: String,
}

impl Default for ClaimNames {
    fn default() -> Self {
        ClaimNames {
            agent: "sub".into(),
            agent_prefix: String::new(),
            groups: "groups".into(),
            scope: "scope".into(),
            client_id: "client_id".into(),
        }
    }
}

/// One `[[identity.profiles]]` rule: its profile, given when every condition it sets holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileRule {
    pub profile: String,
    pub scope: Option<String>,
    pub group: Option<String>,
    pub client_id: Option<String>,
    pub subject: Option<String>,
}

/// The claims-to-identity rules with the host's ceiling.
#[derive(Debug, Clone, Default)]
pub struct Mapping {
    pub names: ClaimNames,
    pub rules: Vec<ProfileRule>,
    /// Scopes every token must carry.
    pub required: Vec<String>,
    /// Profiles network clients may take at most (`--profile`, `--network-profile`,
    /// `[network] profiles`).
    pub ceiling: Vec<String>,
}

/// What a token says about who holds it, read through [`ClaimNames`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Said {
    subject: String,
    scopes: Vec<String>,
    groups: Vec<String>,
    client_id: Option<String>,
}

impl Mapping {
    /// The identity a checked token gives, expiring at `expires_at`; refused when its agent
    /// claim is missing or unusable, a required scope is missing, or no rule gives it a profile
    /// within the ceiling.
    pub fn identity(
        &self,
        claims: &Map<String, Value>,
        expires_at: u64,
    ) -> Result<Identity, Refusal> {
        let said = self.read(claims)?;
        let missing: Vec<String> = self
            .required
            .iter()
            .filter(|s| !said.scopes.contains(s))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(Refusal::Scope {
                reason: format!(
                    "the token lacks the scope{} {} this server requires (`[identity] scopes`); ask the provider for a token with `scope={}`",
                    if missing.len() == 1 { "" } else { "s" },
                    missing
                        .iter()
                        .map(|s| quoted(s))
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.required.join(" ")
                ),
                needed: self.required.clone(),
                subject: said.subject,
            });
        }
        let mut profiles: Vec<String> = Vec::new();
        for rule in self.rules.iter().filter(|r| r.holds(&said)) {
            if self.ceiling.contains(&rule.profile) && !profiles.contains(&rule.profile) {
                profiles.push(rule.profile.clone());
            }
        }
        if profiles.is_empty() {
            let mut needed = self.required.clone();
            for scope in self.rules.iter().filter_map(|r| r.scope.as_ref()) {
                if !needed.contains(scope) {
                    needed.push(scope.clone());
                }
            }
            return Err(Refusal::Scope {
                reason: format!(
                    "no `[[identity.profiles]]` rule gives agent {} a profile this host lets network clients take{}",
                    quoted(&said.subject),
                    if needed.len() > self.required.len() {
                        format!(
                            "; a token with one of the scopes {} would",
                            needed[self.required.len()..]
                                .iter()
                                .map(|s| quoted(s))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    } else {
                        String::new()
                    }
                ),
                needed,
                subject: said.subject,
            });
        }
        let agent_id = format!("{}{}", self.names.agent_prefix, said.subject);
        Ok(Identity {
            setting: self.setting(&profiles),
            agent_id,
            profiles,
            scopes: said.scopes,
            client_id: said.client_id,
            expires_at,
        })
    }

    /// What a client asking for more than its token gives is told to change: the rules that
    /// give the other profiles.
    fn setting(&self, given: &[String]) -> String {
        let others: Vec<String> = self
            .rules
            .iter()
            .filter(|r| !given.contains(&r.profile) && self.ceiling.contains(&r.profile))
            .map(|r| format!("`{}` needs {}", r.profile, r.condition()))
            .collect();
        if others.is_empty() {
            "the identity provider's token (`[[identity.profiles]]` in --config)".into()
        } else {
            format!(
                "the identity provider's token ({}; `[[identity.profiles]]` in --config)",
                others.join(", ")
            )
        }
    }

    fn read(&self, claims: &Map<String, Value>) -> Result<Said, Refusal> {
        let names = &self.names;
        let client_id = [names.client_id.as_str(), "azp"]
            .into_iter()
            .find_map(|name| claims.get(name).and_then(Value::as_str));
        // A client acting for itself (client credentials) may be named by its client id alone:
        // introspection answers often leave `sub` out for it.
        let agent = match (claims.get(&names.agent), client_id) {
            (None, Some(client)) => Some(Value::String(client.to_string())),
            (found, _) => found.cloned(),
        };
        let subject = match agent.as_ref() {
            Some(Value::String(s)) if valid_agent(s) => s.clone(),
            Some(Value::String(s)) => {
                return Err(Refusal::invalid(
                    "agent",
                    format!(
                        "the `{}` claim ({}) cannot name an agent: 1 to 128 printable characters",
                        names.agent,
                        quoted(s)
                    ),
                ));
            }
            _ => {
                return Err(Refusal::invalid(
                    "agent",
                    format!(
                        "the token has no `{}` claim to name its agent (`[identity.claims] agent`)",
                        names.agent
                    ),
                ));
            }
        };
        let mut scopes = words(claims.get(&names.scope));
        if scopes.is_empty() && names.scope == "scope" {
            scopes = words(claims.get("scp"));
        }
        let client_id = client_id.map(printable);
        Ok(Said {
            subject,
            scopes,
            groups: words(claims.get(&names.groups)),
            client_id,
        })
    }
}

impl ProfileRule {
    fn holds(&self, said: &Said) -> bool {
        self.scope.as_ref().is_none_or(|s| said.scopes.contains(s))
            && self.group.as_ref().is_none_or(|g| said.groups.contains(g))
            && self
                .client_id
                .as_ref()
                .is_none_or(|c| said.client_id.as_ref() == Some(c))
            && self.subject.as_ref().is_none_or(|s| *s == said.subject)
    }

    /// The rule's conditions in words (`scope `a`` and `group `b``), for messages.
    fn condition(&self) -> String {
        let parts: Vec<String> = [
            ("scope", &self.scope),
            ("group", &self.group),
            ("client", &self.client_id),
            ("subject", &self.subject),
        ]
        .into_iter()
        .filter_map(|(what, v)| v.as_ref().map(|v| format!("{what} `{v}`")))
        .collect();
        if parts.is_empty() {
            "any token".into()
        } else {
            parts.join(" and ")
        }
    }
}

/// An array of strings, or a string of words separated by spaces.
fn words(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// An agent id the host can key budgets, quotas and the trace on.
fn valid_agent(s: &str) -> bool {
    !s.is_empty() && s.chars().count() <= 128 && !s.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mapping() -> Mapping {
        Mapping {
            names: ClaimNames {
                agent_prefix: "idp:".into(),
                ..ClaimNames::default()
            },
            rules: vec![
                ProfileRule {
                    profile: "builder.readWrite".into(),
                    scope: Some("limina:build".into()),
                    ..Default::default()
                },
                ProfileRule {
                    profile: "social.actor".into(),
                    group: Some("actors".into()),
                    ..Default::default()
                },
                ProfileRule {
                    profile: "player.limited".into(),
                    client_id: Some("game".into()),
                    ..Default::default()
                },
            ],
            required: vec!["mcp".into()],
            ceiling: vec![
                "system.readonly".into(),
                "builder.readWrite".into(),
                "player.limited".into(),
            ],
        }
    }

    fn identity(claims: Value) -> Result<Identity, Refusal> {
        mapping().identity(claims.as_object().unwrap(), 99)
    }

    #[test]
    fn scopes_groups_and_clients_give_profiles_in_rule_order() {
        let id =
            identity(json!({"sub": "alice", "scope": "mcp limina:build", "client_id": "game"}))
                .unwrap();
        assert_eq!(id.agent_id, "idp:alice");
        assert_eq!(id.profiles, ["builder.readWrite", "player.limited"]);
        assert_eq!(id.scopes, ["mcp", "limina:build"]);
        assert_eq!(id.client_id.as_deref(), Some("game"));
        assert_eq!(id.expires_at, 99);
        // `scp` arrays and `azp` are read too.
        let id = identity(json!({"sub": "bob", "scp": ["mcp"], "azp": "game"})).unwrap();
        assert_eq!(id.profiles, ["player.limited"]);
        assert!(
            id.setting
                .contains("`builder.readWrite` needs scope `limina:build`"),
            "{}",
            id.setting
        );
    }

    #[test]
    fn the_ceiling_stays_on_top_of_what_claims_give() {
        // `social.actor` is matched by the group, but network clients may not take it.
        let refused =
            identity(json!({"sub": "carol", "scope": "mcp", "groups": ["actors"]})).unwrap_err();
        assert_eq!(refused.status(), 403);
        assert!(
            refused
                .reason()
                .contains("no `[[identity.profiles]]` rule gives agent `carol`"),
            "{}",
            refused.reason()
        );
        match refused {
            Refusal::Scope {
                needed, subject, ..
            } => {
                assert_eq!(needed, ["mcp", "limina:build"]);
                assert_eq!(subject, "carol");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_missing_required_scope_is_403_naming_it() {
        let refused = identity(json!({"sub": "dave", "scope": "limina:build"})).unwrap_err();
        assert_eq!(refused.code(), "insufficient_scope");
        assert!(
            refused.reason().contains("lacks the scope `mcp`"),
            "{}",
            refused.reason()
        );
    }

    #[test]
    fn an_unusable_agent_claim_is_refused() {
        let by_client = identity(json!({"scope": "mcp", "client_id": "game"})).unwrap();
        assert_eq!(by_client.agent_id, "idp:game");
        for claims in [
            json!({"scope": "mcp"}),
            json!({"sub": "", "scope": "mcp"}),
            json!({"sub": "x".repeat(129), "scope": "mcp"}),
            json!({"sub": "a\nb", "scope": "mcp"}),
            json!({"sub": 7, "scope": "mcp"}),
        ] {
            let refused = identity(claims.clone()).unwrap_err();
            assert_eq!(refused.code(), "agent", "{claims}");
        }
    }
}
