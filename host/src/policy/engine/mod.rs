//! The policy engine: every crossing is decided here, deny-overrides and fail-closed, the
//! first matching rule wins. Pure state and arithmetic; the registry turns verdicts into trace
//! events and wire errors.

use super::budget::{Budget, BudgetLimits};
use super::quota::{QuotaRule, QuotaSnapshot, Quotas};
use super::{LatencyPolicy, LatencyTier, Permission, Permissions, Profiles, TierEnforcement};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Everything the engine is configured with.
#[derive(Debug, Clone, Default)]
pub struct PolicyConfig {
    pub profiles: Profiles,
    pub quotas: Vec<QuotaRule>,
    /// Budget every session starts with.
    pub budget: BudgetLimits,
    /// Most sessions admitted at once.
    pub max_sessions: Option<usize>,
    /// Refuse packages without a valid signature.
    pub require_signatures: bool,
    /// When not empty, only signatures by these keys (hex) are accepted.
    pub trusted_keys: Vec<String>,
    /// Where latency tiers end and how a session is held to its tier.
    pub latency: LatencyPolicy,
    /// Calls a person must allow first (`[[approve]]`).
    pub approvals: Vec<super::ApproveRule>,
    /// Named capabilities beyond the catalog's permissions that each profile holds, by
    /// profile name: the `upstream.*` ones that let sessions call mounted MCP servers.
    pub named_capabilities: BTreeMap<String, BTreeSet<String>>,
}

/// What admission knows about a package.
#[derive(Debug, Clone, Default)]
pub struct PackageFacts<'a> {
    pub name: &'a str,
    /// Capabilities the manifest declares.
    pub declared: Permissions,
    /// What the loading party may grant.
    pub grant: Permissions,
    /// Why the manifest's `[grants]` exceed what the host's configuration gives the package
    /// (network patterns, volumes, secrets, state quota), if they do.
    pub grants_beyond: Option<String>,
    /// Why the package's engine range excludes this host, if it does.
    pub engine_incompatible: Option<String>,
    /// A pinned hash that does not match, or a signature that does not verify.
    pub integrity_problem: Option<String>,
    /// The key of a valid signature.
    pub signed_by: Option<String>,
}

/// One call to decide.
#[derive(Debug, Clone, Copy)]
pub struct CallRequest<'a> {
    pub session_id: &'a str,
    /// The session's profile, by name (looked up now, so a reload takes effect at once).
    pub profile: &'a str,
    pub skill: &'a str,
    /// The package providing the skill (`None` for host built-ins).
    pub package: Option<&'a str>,
    pub required: Permissions,
    pub now_ms: u64,
    /// Whether the call runs guest code. Host built-ins burn no fuel and hold no guest
    /// memory, so only the call-count budget applies to them.
    pub metered: bool,
    /// The skill's current latency tier, held against the session's when tiers are enforced
    /// by refusing.
    pub skill_tier: LatencyTier,
    /// What a person said about this call, when an `[[approve]]` rule holds it and someone
    /// was asked (`None`: nobody was).
    pub approval: Option<&'a super::Approval>,
    /// A named capability the skill needs beyond `required` (an upstream server's, e.g.
    /// `upstream.search`); such calls are also held to the wall-time budget.
    pub capability: Option<&'a str>,
}

/// The outcome of a decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub allow: bool,
    /// The rule that decided, e.g. `profile.grant`, `budget.cpu`.
    pub rule: &'static str,
    pub reason: String,
    /// For `profile.denied`: the first missing permission.
    pub missing: Option<Permission>,
    pub quota: Option<QuotaSnapshot>,
    /// Budget snapshot after the decision.
    pub budget: Option<Value>,
}

impl Verdict {
    fn deny(rule: &'static str, reason: String) -> Verdict {
        Verdict {
            allow: false,
            rule,
            reason,
            missing: None,
            quota: None,
            budget: None,
        }
    }
}

/// Allowed and denied counts for one (session, capability).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    pub allowed: u64,
    pub denied: u64,
}

/// Policy state: sessions, budgets, quotas, revocations and tallies.
#[derive(Debug, Default)]
pub struct PolicyEngine {
    config: PolicyConfig,
    quotas: Quotas,
    sessions: BTreeMap<String, SessionState>,
    revoked_sessions: HashSet<String>,
    revoked_caps: HashSet<(String, String)>,
    revoked_packages: HashSet<String>,
    /// session → capability → counts (nested so the hot path looks up by `&str`).
    tallies: BTreeMap<String, BTreeMap<String, Tally>>,
}

#[derive(Debug, Clone)]
struct SessionState {
    budget: Budget,
    last_quota: Option<QuotaSnapshot>,
    /// Admitted through `admit_session` (and counted against `max_sessions`).
    admitted: bool,
    /// The latency tier the session asked for; `None` uses its profile's ceiling.
    latency_tier: Option<LatencyTier>,
}

impl PolicyEngine {
    pub fn new(config: PolicyConfig) -> Self {
        PolicyEngine {
            quotas: Quotas::new(config.quotas.clone()),
            config,
            ..PolicyEngine::default()
        }
    }

    pub fn profiles(&self) -> &Profiles {
        &self.config.profiles
    }

    /// Latency tier thresholds and enforcement.
    pub fn latency(&self) -> &LatencyPolicy {
        &self.config.latency
    }

    /// Replaces the configuration (a `data` reload); budgets already spent stay spent.
    pub fn reconfigure(&mut self, config: PolicyConfig) {
        self.quotas = Quotas::new(config.quotas.clone());
        for state in self.sessions.values_mut() {
            state.budget.limits = config.budget;
        }
        self.config = config;
    }

    fn session(&mut self, session_id: &str) -> &mut SessionState {
        // Looked up by `&str` first: this runs on every call and should not allocate.
        if !self.sessions.contains_key(session_id) {
            let state = SessionState {
                budget: Budget::new(self.config.budget),
                last_quota: None,
                admitted: false,
                latency_tier: None,
            };
            self.sessions.insert(session_id.to_string(), state);
        }
        self.sessions.get_mut(session_id).expect("inserted above")
    }

    /// Session admission: revoked, unknown profile, `max_sessions` full, else admitted.
    pub fn admit_session(&mut self, session_id: &str, profile: &str) -> Verdict {
        if self.revoked_sessions.contains(session_id) {
            return Verdict::deny(
                "session.revoked",
                format!("session `{session_id}` was revoked"),
            );
        }
        if let Err(reason) = self.config.profiles.get(profile) {
            return Verdict::deny("profile.unknown", reason);
        }
        let already = self.sessions.get(session_id).is_some_and(|s| s.admitted);
        let admitted = self.sessions.values().filter(|s| s.admitted).count();
        if let Some(max) = self.config.max_sessions
            && !already
            && admitted >= max
        {
            return Verdict::deny(
                "quota.exceeded",
                format!(
                    "the server admits at most {max} sessions at once and all are in use; retry when one disconnects"
                ),
            );
        }
        let state = self.session(session_id);
        state.admitted = true;
        let budget = Some(state.budget.snapshot());
        Verdict {
            allow: true,
            rule: "session.admitted",
            reason: format!("session `{session_id}` admitted under `{profile}`"),
            missing: None,
            quota: None,
            budget,
        }
    }

    /// Frees a session's seat (disconnect). Its tallies and spending stay for audit.
    pub fn release_session(&mut self, session_id: &str) {
        if let Some(state) = self.sessions.get_mut(session_id) {
            state.admitted = false;
        }
    }

    /// Decides a registry call. Only an allow hits the quota and counts the call.
    pub fn decide_call(&mut self, req: CallRequest<'_>) -> Verdict {
        let verdict = self.evaluate(req);
        if !self.tallies.contains_key(req.session_id) {
            self.tallies
                .insert(req.session_id.to_string(), BTreeMap::new());
        }
        let per_cap = self
            .tallies
            .get_mut(req.session_id)
            .expect("inserted above");
        if !per_cap.contains_key(req.skill) {
            per_cap.insert(req.skill.to_string(), Tally::default());
        }
        let tally = per_cap.get_mut(req.skill).expect("inserted above");
        if verdict.allow {
            tally.allowed += 1;
        } else {
            tally.denied += 1;
        }
        verdict
    }

    /// Whether `req`'s session may call its skill at all, judged by the rules that do not
    /// change from call to call: the session and the capability are not revoked, the package is
    /// not revoked, the profile's permissions and tool allow-list admit it. Listings show a
    /// session exactly these skills; quotas and budgets are left to the call itself.
    pub fn may_call(&self, req: CallRequest<'_>) -> bool {
        self.denial(&req).is_ok()
    }

    /// Rules 1–4 of a call decision (and the latency tier when tiers refuse): the deny, or
    /// the session's profile when it may call the skill.
    // The deny is the verdict the caller returns as it is; the allowed path carries a reference.
    #[allow(clippy::result_large_err)]
    fn denial(&self, req: &CallRequest<'_>) -> Result<&super::Profile, Verdict> {
        if self.revoked_sessions.contains(req.session_id) {
            return Err(Verdict::deny(
                "session.revoked",
                format!("session `{}` was revoked", req.session_id),
            ));
        }
        let profile = match self.config.profiles.get(req.profile) {
            Ok(p) => p,
            Err(reason) => return Err(Verdict::deny("profile.unknown", reason)),
        };
        // Checked only when something is revoked: the lookup key is built per call.
        if !self.revoked_caps.is_empty()
            && self
                .revoked_caps
                .contains(&(req.session_id.to_string(), req.skill.to_string()))
        {
            return Err(Verdict::deny(
                "revoked",
                format!("`{}` was revoked for this session", req.skill),
            ));
        }
        if let Some(package) = req.package
            && self.revoked_packages.contains(package)
        {
            return Err(Verdict::deny(
                "revoked",
                format!("package `{package}` was revoked; its skills can no longer be called"),
            ));
        }
        if let Some(missing) = profile.permissions.first_missing(req.required) {
            let mut v = Verdict::deny("profile.denied", format!("missing permission: {missing}"));
            v.missing = Some(missing);
            return Err(v);
        }
        if let Some(capability) = req.capability
            && !self
                .config
                .named_capabilities
                .get(&profile.name)
                .is_some_and(|held| held.contains(capability))
        {
            return Err(Verdict::deny(
                "profile.denied",
                format!(
                    "missing permission: {capability} (add it to profile `{}`'s permissions to call it)",
                    profile.name
                ),
            ));
        }
        if !profile.allows_tool(req.skill) {
            return Err(Verdict::deny(
                "tool.denied",
                format!(
                    "profile `{}` does not allow the tool `{}`",
                    profile.name, req.skill
                ),
            ));
        }
        if self.config.latency.enforcement == TierEnforcement::Refuse {
            let session_tier = self.tier_within(req.session_id, profile);
            if req.skill_tier > session_tier {
                return Err(Verdict::deny(
                    "latency.tier",
                    format!(
                        "`{}` is in the `{}` latency tier, slower than this session's `{}`; choose a faster skill (skills.search shows tiers) or change the tier with skills.setLatencyTier",
                        req.skill,
                        req.skill_tier.as_str(),
                        session_tier.as_str()
                    ),
                ));
            }
        }
        Ok(profile)
    }

    /// The slowest latency tier a session may use: what it asked for, within its profile's
    /// ceiling (`deep` when neither says). A session under an unknown profile gets `fast`,
    /// though every call of it is refused anyway.
    pub fn session_tier(&self, session_id: &str, profile: &str) -> LatencyTier {
        match self.config.profiles.get(profile) {
            Ok(p) => self.tier_within(session_id, p),
            Err(_) => LatencyTier::Fast,
        }
    }

    fn tier_within(&self, session_id: &str, profile: &super::Profile) -> LatencyTier {
        let ceiling = profile.max_latency_tier.unwrap_or(LatencyTier::Deep);
        let asked = self
            .sessions
            .get(session_id)
            .and_then(|s| s.latency_tier)
            .unwrap_or(LatencyTier::Deep);
        asked.min(ceiling)
    }

    /// Checks that `profile` allows `tier`: the error names the ceiling.
    pub fn check_tier(&self, profile: &str, tier: LatencyTier) -> Result<(), String> {
        let profile = self.config.profiles.get(profile)?;
        match profile.max_latency_tier {
            Some(ceiling) if tier > ceiling => Err(format!(
                "profile `{}` allows at most the `{}` latency tier, not `{}`",
                profile.name,
                ceiling.as_str(),
                tier.as_str()
            )),
            _ => Ok(()),
        }
    }

    /// Sets the tier a session asked for (`None`: its profile's ceiling), if its profile
    /// allows it; returns the tier now in force. Nothing changes on an error.
    pub fn set_session_tier(
        &mut self,
        session_id: &str,
        profile: &str,
        tier: Option<LatencyTier>,
    ) -> Result<LatencyTier, String> {
        if let Some(t) = tier {
            self.check_tier(profile, t)?;
        }
        self.session(session_id).latency_tier = tier;
        Ok(self.session_tier(session_id, profile))
    }

    /// Whether no `[[approve]]` rule is configured (the common case: nothing to check).
    pub fn config_approvals_empty(&self) -> bool {
        self.config.approvals.is_empty()
    }

    /// The `[[approve]]` rule holding `req`, when rules 1–4 let it through (a call refused
    /// anyway is not put to a person).
    pub fn approval_rule(&self, req: CallRequest<'_>) -> Option<&super::ApproveRule> {
        if self.config.approvals.is_empty() {
            return None;
        }
        let profile = self.denial(&req).ok()?;
        super::approve::rule_for(&self.config.approvals, &profile.name, req.skill)
    }

    fn evaluate(&mut self, req: CallRequest<'_>) -> Verdict {
        let profile_name = match self.denial(&req) {
            Ok(profile) => profile.name.clone(),
            Err(verdict) => return verdict,
        };
        // Between the allow-list and the quota: a held call runs only once a person allowed it.
        if super::approve::rule_for(&self.config.approvals, &profile_name, req.skill).is_some()
            && let Err((rule, reason)) = super::approve::judge(req.skill, req.approval)
        {
            return Verdict::deny(rule, reason);
        }
        let mut quota = self.quotas.check(req.skill, req.session_id, req.now_ms);
        if let Some(q) = &quota
            && q.remaining == 0
        {
            let mut v = Verdict::deny(
                "quota.exceeded",
                format!(
                    "quota `{}` allows {} calls per {} ms and all are used; retry later",
                    q.key, q.limit, q.window_ms
                ),
            );
            v.quota = quota.clone();
            self.session(req.session_id).last_quota = quota;
            return v;
        }
        let state = self.session(req.session_id);
        if let Some((dimension, reason)) = state
            .budget
            .exhausted(req.metered, req.capability.is_some())
        {
            let mut v = Verdict::deny(dimension.rule(), reason);
            v.budget = Some(state.budget.snapshot());
            v.quota = quota;
            return v;
        }
        if let Some(q) = &mut quota {
            self.quotas.hit(q, req.now_ms);
        }
        let state = self.session(req.session_id);
        state.budget.used.calls += 1;
        state.last_quota = quota.clone();
        Verdict {
            allow: true,
            rule: "profile.grant",
            reason: format!("profile `{profile_name}` grants it"),
            missing: None,
            quota,
            budget: Some(state.budget.snapshot()),
        }
    }

    /// Charges a finished call's measured CPU time and memory peak to its session.
    pub fn charge(&mut self, session_id: &str, cpu_ms: f64, mem_peak_bytes: u64) {
        let state = self.session(session_id);
        state.budget.used.cpu_ms += cpu_ms;
        state.budget.used.mem_bytes = state.budget.used.mem_bytes.max(mem_peak_bytes);
    }

    /// Charges the wall time an upstream server's call took to its session (no fuel is burned
    /// there, so wall time is what such calls spend).
    pub fn charge_upstream(&mut self, session_id: &str, wall_ms: f64) {
        self.session(session_id).budget.used.upstream_ms += wall_ms;
    }

    /// Charges the outbound requests a call sent and the bytes they moved to its session.
    pub fn charge_net(&mut self, session_id: &str, requests: u64, bytes: u64) {
        let used = &mut self.session(session_id).budget.used;
        used.net_requests += requests;
        used.net_bytes += bytes;
    }

    /// Holds back what a call about to run off the engine may spend at most (see
    /// [`Reservation`]); [`PolicyEngine::release`] gives it back when the call is charged.
    pub fn reserve(&mut self, session_id: &str, r: super::Reservation) {
        self.session(session_id).budget.reserve(r);
    }

    /// Gives back a call's reservation, just before it is charged what it used.
    pub fn release(&mut self, session_id: &str, r: super::Reservation) {
        self.session(session_id).budget.release(r);
    }

    /// The session's budget (limits and spending).
    pub fn budget(&mut self, session_id: &str) -> Budget {
        self.session(session_id).budget
    }

    pub fn revoke_capability(&mut self, session_id: &str, skill: &str) {
        self.revoked_caps
            .insert((session_id.to_string(), skill.to_string()));
    }

    pub fn restore_capability(&mut self, session_id: &str, skill: &str) {
        self.revoked_caps
            .remove(&(session_id.to_string(), skill.to_string()));
    }

    pub fn revoke_session(&mut self, session_id: &str) {
        self.revoked_sessions.insert(session_id.to_string());
    }

    pub fn revoke_package(&mut self, name: &str) {
        self.revoked_packages.insert(name.to_string());
    }

    pub fn package_revoked(&self, name: &str) -> bool {
        self.revoked_packages.contains(name)
    }

    /// Package admission, first matching rule wins: revoked, engine incompatibility,
    /// capabilities or `[grants]` beyond what is given (`package.overclaim`), a bad signature or tampered
    /// component, a missing signature when required or a key not trusted, else admitted.
    pub fn admit_package(&self, facts: &PackageFacts<'_>) -> Verdict {
        let name = facts.name;
        if self.revoked_packages.contains(name) {
            return Verdict::deny("package.revoked", format!("package `{name}` was revoked"));
        }
        if let Some(reason) = &facts.engine_incompatible {
            return Verdict::deny("package.engine", reason.clone());
        }
        if let Some(p) = facts.grant.first_missing(facts.declared) {
            return Verdict::deny(
                "package.overclaim",
                format!(
                    "package `{name}` declares `{p}`, which is not granted; remove it from `capabilities` or grant it"
                ),
            );
        }
        if let Some(reason) = &facts.grants_beyond {
            return Verdict::deny("package.overclaim", reason.clone());
        }
        if let Some(reason) = &facts.integrity_problem {
            return Verdict::deny("package.signature", reason.clone());
        }
        match &facts.signed_by {
            None if self.config.require_signatures => {
                return Verdict::deny(
                    "package.signature",
                    format!(
                        "package `{name}` is not signed and this host requires signatures; sign it with `limina pkg sign`"
                    ),
                );
            }
            Some(key)
                if !self.config.trusted_keys.is_empty()
                    && !self
                        .config
                        .trusted_keys
                        .iter()
                        .any(|k| k.eq_ignore_ascii_case(key)) =>
            {
                return Verdict::deny(
                    "package.signature",
                    format!(
                        "package `{name}` is signed by {key}, which is not among the trusted keys"
                    ),
                );
            }
            _ => {}
        }
        Verdict {
            allow: true,
            rule: "package.admitted",
            reason: format!("package `{name}` admitted"),
            missing: None,
            quota: None,
            budget: None,
        }
    }

    /// Allowed/denied counts per (session, capability), optionally for one session.
    pub fn tallies(&self, session_id: Option<&str>) -> Vec<(&str, &str, Tally)> {
        self.tallies
            .iter()
            .filter(|(s, _)| session_id.is_none_or(|id| id == s.as_str()))
            .flat_map(|(s, caps)| caps.iter().map(move |(c, t)| (s.as_str(), c.as_str(), *t)))
            .collect()
    }

    /// Sessions known to the engine, with their latest quota snapshot and budget.
    pub fn session_states(
        &self,
        session_id: Option<&str>,
    ) -> Vec<(&str, Option<&QuotaSnapshot>, Budget)> {
        self.sessions
            .iter()
            .filter(|(s, _)| session_id.is_none_or(|id| id == s.as_str()))
            .map(|(s, st)| (s.as_str(), st.last_quota.as_ref(), st.budget))
            .collect()
    }
}

mod undo;
pub use undo::PolicyMark;

#[cfg(test)]
mod tests;
