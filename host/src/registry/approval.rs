//! Which calls must be put to a person first: the registry's half of the `approve` rule. A
//! transport asks [`Registry::approval_needed`] before it runs a call, asks the person its own
//! way, and hands the answer back in [`super::CallControl::approval`]; the policy engine then
//! decides with it (`approval.declined`, `approval.unavailable`, or on to the quota), and the
//! decision's trace event names the answer and who gave it.

use super::schema::normalize_input;
use super::{Caller, Handler, Registry};
use crate::policy::{ApproveRule, CallRequest};
use serde_json::Value;

impl Registry {
    /// The `[[approve]]` rule holding a call of `name` with `input` by `caller`, if one does
    /// and the call would otherwise get as far as the quota: the skill exists, the input is
    /// valid and the standing rules (revocation, permissions, allow-list) admit it. A call
    /// refused for another reason is refused as usual, without asking anyone.
    pub fn approval_needed(
        &self,
        caller: &Caller,
        name: &str,
        input: &Value,
    ) -> Option<ApproveRule> {
        if self.policy.config_approvals_empty() {
            return None;
        }
        let skill = self.skills.get(name)?;
        let mut input = normalize_input(input.clone());
        if !input.is_object() {
            return None;
        }
        skill.input.fill_defaults(&mut input);
        if skill.input.check(&input).is_some() {
            return None;
        }
        let (package, capability) = self.package_and_capability(skill);
        self.policy
            .approval_rule(CallRequest {
                session_id: &caller.session_id,
                profile: &caller.profile,
                skill: name,
                package,
                required: skill.permissions,
                now_ms: 0,
                metered: matches!(skill.handler, Handler::Guest(_)),
                skill_tier: skill.tier,
                approval: None,
                capability,
            })
            .cloned()
    }
}
