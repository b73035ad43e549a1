//! The registry: every skill by name, the packages that provide them, and the one pipeline
//! every call crosses (resolve → validate → policy → handler → output check → emit).

mod load;
mod pipeline;
mod response;
mod schema;

pub use response::{ErrorCode, Failure, Metadata, Response};
pub use schema::Schema;

use crate::limits::PackageLimits;
use crate::packages::Manifest;
use crate::policy::{Permissions, Profiles};
use crate::realm::Realm;
use crate::sandbox::{CompiledPackage, GuestInstance, Sandbox};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Who is calling: bound from the session, never from a payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub agent_id: String,
    pub session_id: String,
    pub profile: String,
    pub permissions: Permissions,
}

/// Client hints for a skill (MCP tool annotations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// A registered skill's contract.
pub struct Skill {
    pub name: String,
    pub version: String,
    pub category: String,
    pub description: String,
    pub permissions: Permissions,
    pub input: Schema,
    pub output: Schema,
    pub annotations: Annotations,
    /// Index into the registry's packages.
    package: usize,
}

/// A loaded package.
pub struct Package {
    pub manifest: Manifest,
    pub content_hash: String,
    compiled: CompiledPackage,
}

/// Skills, packages, the realm they act on, and live guest instances.
pub struct Registry {
    sandbox: Sandbox,
    profiles: Profiles,
    packages: Vec<Package>,
    /// Sorted by name, so listings are stable.
    skills: BTreeMap<String, Skill>,
    /// The realm; `None` only while lent to a guest call.
    realm: Option<Box<Realm>>,
    /// One instance per (session, package): never shared across sessions.
    instances: HashMap<(Arc<str>, usize), GuestInstance>,
    /// Bumped whenever the skill set changes, so callers can memoize listings.
    generation: u64,
}

impl Registry {
    /// An empty registry over `realm`.
    pub fn new(sandbox: Sandbox, profiles: Profiles, realm: Realm) -> Self {
        Registry {
            sandbox,
            profiles,
            packages: Vec::new(),
            skills: BTreeMap::new(),
            realm: Some(Box::new(realm)),
            instances: HashMap::new(),
            generation: 0,
        }
    }

    /// All skills, sorted by name.
    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.skills.values()
    }

    /// One skill by name.
    pub fn skill(&self, name: &str) -> Option<&Skill> {
        self.skills.get(name)
    }

    /// The loaded packages.
    pub fn packages(&self) -> &[Package] {
        &self.packages
    }

    /// The profiles sessions may run under.
    pub fn profiles(&self) -> &Profiles {
        &self.profiles
    }

    /// Changes whenever skills are registered, replaced or removed.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The realm, for reads between calls (inspection, tests, stepping the world).
    pub fn realm(&self) -> &Realm {
        self.realm
            .as_ref()
            .expect("the realm is only lent out during a call")
    }

    /// The realm, for changes between calls.
    pub fn realm_mut(&mut self) -> &mut Realm {
        self.realm
            .as_mut()
            .expect("the realm is only lent out during a call")
    }

    /// Drops a session's guest instances (on disconnect or shutdown).
    pub fn end_session(&mut self, session_id: &str) {
        self.instances.retain(|(s, _), _| &**s != session_id);
    }

    fn limits_of(&self, package: usize) -> PackageLimits {
        self.packages[package].manifest.limits
    }
}
