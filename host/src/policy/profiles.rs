//! Named permission profiles a session runs under.

use super::{LatencyTier, Permission, Permissions, glob};
use std::collections::BTreeMap;

/// A named allow-list of permissions.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    pub permissions: Permissions,
    /// Glob patterns over skill names this profile may call; `None` allows every skill.
    pub tools: Option<Vec<String>>,
    /// The slowest latency tier its sessions may use (`maxLatencyTier`); `None` is `deep`.
    pub max_latency_tier: Option<LatencyTier>,
}

impl Profile {
    /// Whether the tool allow-list admits `skill` (a profile without one admits every skill).
    pub fn allows_tool(&self, skill: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|patterns| patterns.iter().any(|p| glob::matches(p, skill)))
    }

    /// Whether a session under this profile may call `skill`, which needs `required`: its
    /// permissions cover them and its tool allow-list admits the name.
    pub fn may_call(&self, skill: &str, required: Permissions) -> bool {
        self.permissions.first_missing(required).is_none() && self.allows_tool(skill)
    }
}

/// The known profiles, by name.
#[derive(Debug, Clone)]
pub struct Profiles {
    by_name: BTreeMap<String, Profile>,
}

/// The profile a session gets when neither it nor the server names one: least privilege.
pub const DEFAULT_PROFILE: &str = "system.readonly";

impl Default for Profiles {
    /// The four built-in profiles of the catalog. None of them holds a permission that sets
    /// outbound I/O in motion (`net.outbound`, `files.*`, `state.*`, `secrets.read`): an operator
    /// who gives a package grants also names the profiles whose sessions may use them (fail
    /// closed; a configuration may redefine a built-in profile with them).
    fn default() -> Self {
        use Permission::*;
        let builtin: [(&str, &[Permission]); 4] = [
            (
                "builder.readWrite",
                &[
                    SceneRead,
                    SceneWrite,
                    EcsRead,
                    EcsModify,
                    PhysicsRead,
                    PhysicsWrite,
                    AgentRead,
                    AgentWrite,
                    UiWrite,
                    AudioPlay,
                ],
            ),
            (
                "player.limited",
                &[
                    SceneRead,
                    EcsRead,
                    PhysicsRead,
                    PhysicsWrite,
                    AgentRead,
                    AgentWrite,
                ],
            ),
            (
                "social.actor",
                &[
                    SceneRead,
                    EcsRead,
                    PhysicsRead,
                    AgentRead,
                    AgentWrite,
                    SocialAct,
                    AudioPlay,
                ],
            ),
            (
                "system.readonly",
                &[SceneRead, EcsRead, PhysicsRead, AgentRead],
            ),
        ];
        let by_name = builtin
            .into_iter()
            .map(|(name, perms)| {
                let profile = Profile {
                    name: name.to_string(),
                    permissions: perms.iter().copied().collect(),
                    tools: None,
                    max_latency_tier: None,
                };
                (name.to_string(), profile)
            })
            .collect();
        Profiles { by_name }
    }
}

impl Profiles {
    /// The profile named `name`; the error names the known ones.
    pub fn get(&self, name: &str) -> Result<&Profile, String> {
        self.by_name.get(name).ok_or_else(|| {
            format!(
                "unknown profile `{name}`; known profiles: {}",
                self.names().join(", ")
            )
        })
    }

    /// Adds a profile or replaces the one with the same name.
    pub fn insert(&mut self, profile: Profile) {
        self.by_name.insert(profile.name.clone(), profile);
    }

    /// Every profile, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Profile> {
        self.by_name.values()
    }

    /// Known profile names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.by_name.keys().map(String::as_str).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_profile_error_lists_the_known_ones() {
        let err = Profiles::default().get("admin").unwrap_err();
        assert!(err.contains("`admin`"), "{err}");
        assert!(
            err.contains("builder.readWrite") && err.contains("system.readonly"),
            "{err}"
        );
    }

    #[test]
    fn may_call_needs_both_the_permissions_and_the_allow_list() {
        let scout = Profile {
            name: "scout".into(),
            permissions: [Permission::SceneRead].into_iter().collect(),
            tools: Some(vec!["scene.query*".into(), "skills.*".into()]),
            max_latency_tier: None,
        };
        assert!(scout.may_call("scene.queryEntities", scout.permissions));
        assert!(scout.may_call("skills.list", Permissions::NONE));
        // Allow-listed by name but missing the permission.
        let write: Permissions = [Permission::SceneWrite].into_iter().collect();
        assert!(!scout.may_call("scene.queryEverything", write));
        // Needs nothing but is not on the allow-list.
        assert!(!scout.may_call("trace.tail", Permissions::NONE));
        assert!(!scout.may_call("world.step", Permissions::NONE));
        let open = Profile {
            tools: None,
            ..scout.clone()
        };
        assert!(open.may_call("trace.tail", Permissions::NONE));
    }

    #[test]
    fn no_built_in_profile_may_set_outbound_io_in_motion() {
        use Permission::*;
        for p in Profiles::default().iter() {
            for outbound in [
                NetOutbound,
                FilesRead,
                FilesWrite,
                StateRead,
                StateWrite,
                SecretsRead,
            ] {
                assert!(
                    !p.permissions.contains(outbound),
                    "{} holds {outbound}",
                    p.name
                );
            }
        }
    }

    #[test]
    fn player_limited_cannot_write_the_scene() {
        let profiles = Profiles::default();
        let p = profiles.get("player.limited").unwrap();
        assert!(!p.permissions.contains(Permission::SceneWrite));
        assert!(p.permissions.contains(Permission::PhysicsWrite));
    }
}
