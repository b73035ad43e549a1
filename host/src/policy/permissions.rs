//! The permission strings — the catalog's eleven and the six that let a package's grants
//! (`crate::grants`) be used — and sets of them.

use std::fmt;

/// One permission a skill or host import may require.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Permission {
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
    SocialAct,
    /// Send HTTP requests to what the package's network grants allow.
    NetOutbound,
    /// Read the package's granted volumes.
    FilesRead,
    /// Write the package's writable volumes.
    FilesWrite,
    /// Read the package's own state.
    StateRead,
    /// Write the package's own state.
    StateWrite,
    /// See the package's granted secrets.
    SecretsRead,
}

impl Permission {
    /// Every permission, in catalog order.
    pub const ALL: [Permission; 17] = [
        Permission::SceneRead,
        Permission::SceneWrite,
        Permission::EcsRead,
        Permission::EcsModify,
        Permission::PhysicsRead,
        Permission::PhysicsWrite,
        Permission::AgentRead,
        Permission::AgentWrite,
        Permission::UiWrite,
        Permission::AudioPlay,
        Permission::SocialAct,
        Permission::NetOutbound,
        Permission::FilesRead,
        Permission::FilesWrite,
        Permission::StateRead,
        Permission::StateWrite,
        Permission::SecretsRead,
    ];

    /// The wire name, e.g. `scene.write`.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::SceneRead => "scene.read",
            Permission::SceneWrite => "scene.write",
            Permission::EcsRead => "ecs.read",
            Permission::EcsModify => "ecs.modify",
            Permission::PhysicsRead => "physics.read",
            Permission::PhysicsWrite => "physics.write",
            Permission::AgentRead => "agent.read",
            Permission::AgentWrite => "agent.write",
            Permission::UiWrite => "ui.write",
            Permission::AudioPlay => "audio.play",
            Permission::SocialAct => "social.act",
            Permission::NetOutbound => "net.outbound",
            Permission::FilesRead => "files.read",
            Permission::FilesWrite => "files.write",
            Permission::StateRead => "state.read",
            Permission::StateWrite => "state.write",
            Permission::SecretsRead => "secrets.read",
        }
    }

    /// Parses a wire name; the error lists the known ones.
    pub fn parse(name: &str) -> Result<Permission, String> {
        Permission::ALL
            .into_iter()
            .find(|p| p.as_str() == name)
            .ok_or_else(|| {
                let known: Vec<_> = Permission::ALL.iter().map(|p| p.as_str()).collect();
                format!("unknown permission `{name}`; known: {}", known.join(", "))
            })
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of permissions (a bit set: checks are on the hot path of every call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Permissions(u32);

impl Permissions {
    /// No permissions.
    pub const NONE: Permissions = Permissions(0);

    /// Every permission.
    pub fn all() -> Permissions {
        Permissions::from_iter(Permission::ALL)
    }

    /// Parses wire names.
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<Permissions, String> {
        let mut set = Permissions::NONE;
        for name in names {
            set.insert(Permission::parse(name.as_ref())?);
        }
        Ok(set)
    }

    pub fn insert(&mut self, p: Permission) {
        self.0 |= p.bit();
    }

    pub fn contains(self, p: Permission) -> bool {
        self.0 & p.bit() != 0
    }

    /// Both sets at once.
    pub fn intersect(self, other: Permissions) -> Permissions {
        Permissions(self.0 & other.0)
    }

    /// Either set.
    pub fn union(self, other: Permissions) -> Permissions {
        Permissions(self.0 | other.0)
    }

    /// The first permission of `required` this set lacks, if any.
    pub fn first_missing(self, required: Permissions) -> Option<Permission> {
        required.iter().find(|p| !self.contains(*p))
    }

    /// True when every permission here is a `*.read` one.
    pub fn read_only(self) -> bool {
        self.iter().all(|p| p.as_str().ends_with(".read"))
    }

    pub fn iter(self) -> impl Iterator<Item = Permission> {
        Permission::ALL
            .into_iter()
            .filter(move |p| self.contains(*p))
    }

    /// Wire names in catalog order.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Permission::as_str).collect()
    }
}

impl FromIterator<Permission> for Permissions {
    fn from_iter<I: IntoIterator<Item = Permission>>(iter: I) -> Self {
        let mut set = Permissions::NONE;
        for p in iter {
            set.insert(p);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_rejects_unknown_names_and_lists_known_ones() {
        let err = Permissions::parse(&["scene.read", "scene.fly"]).unwrap_err();
        assert!(
            err.contains("`scene.fly`") && err.contains("social.act"),
            "{err}"
        );
    }

    #[test]
    fn first_missing_names_the_gap() {
        let have = Permissions::parse(&["scene.read"]).unwrap();
        let need = Permissions::parse(&["scene.read", "scene.write"]).unwrap();
        assert_eq!(have.first_missing(need), Some(Permission::SceneWrite));
        assert_eq!(need.first_missing(have), None);
    }
}
