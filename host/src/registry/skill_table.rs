//! The registered skills by name. A call looks its skill up several times (resolve, the input
//! and output checks, hooks, latency, the outcome), so a lookup hashes the name (`foldhash`)
//! instead of walking a sorted tree comparing names at each level; listings still come sorted
//! by name, from the names kept sorted as skills come and go (loads, reloads, upstream
//! refreshes: rarely).

use super::Skill;
use std::collections::HashMap;

#[derive(Default)]
pub(super) struct SkillTable {
    by_name: HashMap<String, Skill, foldhash::fast::RandomState>,
    /// Every name, sorted.
    sorted: Vec<String>,
}

impl SkillTable {
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.by_name.get(name)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Skill> {
        self.by_name.get_mut(name)
    }

    /// Every skill, sorted by name.
    pub fn values(&self) -> impl Iterator<Item = &Skill> {
        self.sorted.iter().map(|name| &self.by_name[name])
    }

    /// Every name, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.sorted.iter()
    }

    /// Adds `skills` (a package's, the built-ins), replacing those of their names; room for
    /// them all is made at once (a table grown one skill at a time moves every skill each
    /// time it doubles).
    pub fn insert_all(&mut self, skills: Vec<Skill>) {
        self.by_name.reserve(skills.len());
        self.sorted.reserve(skills.len());
        for skill in skills {
            self.insert(skill);
        }
    }

    /// Adds `skill`, replacing the one of its name.
    pub fn insert(&mut self, skill: Skill) {
        let name = skill.name.clone();
        if let Err(at) = self.sorted.binary_search(&name) {
            self.sorted.insert(at, name.clone());
        }
        self.by_name.insert(name, skill);
    }

    /// Keeps only the skills `keep` says yes to (it may change them).
    pub fn retain(&mut self, mut keep: impl FnMut(&str, &mut Skill) -> bool) {
        self.by_name.retain(|name, skill| keep(name, skill));
        let by_name = &self.by_name;
        self.sorted.retain(|name| by_name.contains_key(name));
    }
}

impl std::ops::Index<&str> for SkillTable {
    type Output = Skill;

    fn index(&self, name: &str) -> &Skill {
        &self.by_name[name]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Annotations, Handler, builtins::Builtin, schema::Schema};

    fn skill(name: &str, version: &str) -> Skill {
        let object = || Schema::compiled_before(serde_json::json!({"type": "object"}));
        Skill {
            name: name.into(),
            version: version.into(),
            category: String::new(),
            description: String::new(),
            permissions: Default::default(),
            input: object(),
            output: object(),
            annotations: Annotations {
                read_only: true,
                destructive: false,
                idempotent: true,
                open_world: false,
            },
            handler: Handler::Builtin(Builtin::SkillsList),
            latency: Default::default(),
            tier: crate::policy::LatencyTier::Fast,
        }
    }

    #[test]
    fn skills_are_found_by_name_and_listed_sorted_as_they_come_and_go() {
        let mut table = SkillTable::default();
        for name in ["scene.query", "agents.move", "world.step", "dice.roll"] {
            table.insert(skill(name, "1"));
        }
        // Replacing keeps one entry of the name.
        table.insert(skill("dice.roll", "2"));
        let listed = |t: &SkillTable| t.values().map(|s| s.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            listed(&table),
            ["agents.move", "dice.roll", "scene.query", "world.step"]
        );
        assert!(table.keys().eq(listed(&table).iter()));
        assert_eq!(table["dice.roll"].version, "2");
        assert!(table.get("dice").is_none());
        table.get_mut("world.step").unwrap().version = "3".into();
        table.retain(|name, s| name != "scene.query" && s.version != "3");
        assert_eq!(listed(&table), ["agents.move", "dice.roll"]);
        assert!(table.get("world.step").is_none());
        table.insert(skill("b.c", "1"));
        assert_eq!(listed(&table), ["agents.move", "b.c", "dice.roll"]);
    }
}
