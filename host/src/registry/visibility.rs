//! What a session may see: every listing (`tools/list`, `listTools`, `skills.list`,
//! `skills.search`) shows exactly the skills the policy engine's standing rules would let the
//! session call — its profile's permissions and tool allow-list, no revocation — and that are
//! within its latency tier; `skills.describe` answers for every skill it may call. Calling a
//! hidden skill by name is still decided (and refused, unless only its tier hid it) by the
//! pipeline.

use super::{Caller, Registry, Skill};
use crate::policy::CallRequest;

impl Registry {
    /// Whether `caller` may call `skill` (quotas and budgets aside, which change per call).
    pub fn may_call(&self, caller: &Caller, skill: &Skill) -> bool {
        let (package, capability) = self.package_and_capability(skill);
        self.policy.may_call(CallRequest {
            session_id: &caller.session_id,
            profile: &caller.profile,
            skill: &skill.name,
            package,
            required: skill.permissions,
            now_ms: 0,
            metered: false,
            skill_tier: skill.tier,
            approval: None,
            capability,
        })
    }

    /// What policy knows a skill by besides its name: its package (or upstream server) and
    /// the named capability an upstream's tools need.
    pub(super) fn package_and_capability<'a>(
        &'a self,
        skill: &'a Skill,
    ) -> (Option<&'a str>, Option<&'a str>) {
        let package = skill
            .package_index()
            .map(|i| self.packages[i].manifest.name.as_str())
            .or_else(|| skill.upstream());
        let capability = match skill.handler {
            super::Handler::Upstream(i) => Some(self.upstreams[i].config.capability.as_str()),
            _ => None,
        };
        (package, capability)
    }

    /// The skills `caller` may call within its latency tier, sorted by name.
    pub fn visible_skills<'a>(&'a self, caller: &'a Caller) -> impl Iterator<Item = &'a Skill> {
        let tier = self.session_tier(caller);
        self.skills()
            .filter(move |s| s.tier <= tier && self.may_call(caller, s))
    }
}
