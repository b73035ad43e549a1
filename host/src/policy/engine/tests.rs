use super::*;
use crate::policy::{LatencyPolicy, LatencyTier, Permission, Profile, TierEnforcement};

fn profile(name: &str, perms: &[Permission], tools: Option<&[&str]>) -> Profile {
    Profile {
        name: name.into(),
        permissions: perms.iter().copied().collect(),
        tools: tools.map(|t| t.iter().map(|s| s.to_string()).collect()),
        max_latency_tier: None,
    }
}

fn engine(config: PolicyConfig, profile: &Profile) -> PolicyEngine {
    let mut config = config;
    config.profiles.insert(profile.clone());
    PolicyEngine::new(config)
}

fn req<'a>(
    p: &'a Profile,
    skill: &'a str,
    required: &[Permission],
    now_ms: u64,
) -> CallRequest<'a> {
    CallRequest {
        session_id: "s1",
        profile: &p.name,
        skill,
        required: required.iter().copied().collect(),
        now_ms,
        package: Some("x"),
        metered: true,
        skill_tier: LatencyTier::Fast,
        approval: None,
        capability: None,
    }
}

#[test]
fn rules_apply_in_order_first_match_wins() {
    let p = profile("p", &[Permission::SceneRead], None);
    let mut e = engine(PolicyConfig::default(), &p);
    e.revoke_session("s1");
    e.revoke_capability("s1", "scene.createEntity");
    assert_eq!(
        e.decide_call(req(&p, "scene.createEntity", &[Permission::SceneWrite], 0))
            .rule,
        "session.revoked"
    );
    let mut e = engine(PolicyConfig::default(), &p);
    e.revoke_capability("s1", "scene.createEntity");
    assert_eq!(
        e.decide_call(req(&p, "scene.createEntity", &[Permission::SceneWrite], 0))
            .rule,
        "revoked"
    );
    let v = e.decide_call(req(&p, "scene.destroyEntity", &[Permission::SceneWrite], 0));
    assert_eq!(
        (v.rule, v.missing),
        ("profile.denied", Some(Permission::SceneWrite))
    );
    assert_eq!(v.reason, "missing permission: scene.write");
    assert!(
        e.decide_call(req(&p, "scene.queryEntities", &[Permission::SceneRead], 0))
            .allow
    );
}

#[test]
fn tool_allow_lists_match_globs() {
    let p = profile(
        "narrow",
        &[Permission::SceneRead],
        Some(&["scene.query*", "skills.*"]),
    );
    let mut e = engine(PolicyConfig::default(), &p);
    assert!(e.decide_call(req(&p, "scene.queryEntities", &[], 0)).allow);
    assert!(e.decide_call(req(&p, "skills.list", &[], 0)).allow);
    let v = e.decide_call(req(&p, "trace.tail", &[], 0));
    assert_eq!(v.rule, "tool.denied");
    assert!(v.reason.contains("trace.tail"));
}

#[test]
fn call_budget_allows_n_then_denies_and_denials_cost_nothing() {
    let p = profile("p", &[], None);
    let mut e = engine(
        PolicyConfig {
            budget: BudgetLimits {
                calls: Some(2),
                ..Default::default()
            },
            ..Default::default()
        },
        &p,
    );
    assert!(e.decide_call(req(&p, "x.a", &[], 0)).allow);
    assert!(e.decide_call(req(&p, "x.a", &[], 0)).allow);
    for _ in 0..3 {
        let v = e.decide_call(req(&p, "x.a", &[], 0));
        assert_eq!(v.rule, "budget.calls");
    }
    assert_eq!(e.budget("s1").used.calls, 2);
    let t = e.tallies(Some("s1"));
    assert_eq!(
        t,
        vec![(
            "s1",
            "x.a",
            Tally {
                allowed: 2,
                denied: 3
            }
        )]
    );
}

#[test]
fn cpu_and_memory_budgets_deny_once_spent() {
    let p = profile("p", &[], None);
    let mut e = engine(
        PolicyConfig {
            budget: BudgetLimits {
                cpu_ms: Some(10.0),
                mem_bytes: Some(1000),
                ..Default::default()
            },
            ..Default::default()
        },
        &p,
    );
    assert!(e.decide_call(req(&p, "x.a", &[], 0)).allow);
    e.charge("s1", 4.0, 500);
    assert!(e.decide_call(req(&p, "x.a", &[], 0)).allow);
    e.charge("s1", 6.5, 400);
    let v = e.decide_call(req(&p, "x.a", &[], 0));
    assert_eq!(v.rule, "budget.cpu");
    assert_eq!(v.budget.unwrap()["cpuMs"]["used"], 10.5);
    let mut e2 = engine(
        PolicyConfig {
            budget: BudgetLimits {
                mem_bytes: Some(1000),
                ..Default::default()
            },
            ..Default::default()
        },
        &p,
    );
    e2.charge("s1", 0.0, 1000);
    assert_eq!(e2.decide_call(req(&p, "x.a", &[], 0)).rule, "budget.mem");
}

#[test]
fn quota_is_hit_only_by_allowed_calls() {
    let p = profile("p", &[], None);
    let mut e = engine(
        PolicyConfig {
            quotas: vec![QuotaRule {
                cap: Some("x.*".into()),
                per_session: true,
                limit: 1,
                window_ms: 100,
            }],
            ..Default::default()
        },
        &p,
    );
    let denied_by_profile = e.decide_call(req(&p, "x.a", &[Permission::SceneWrite], 0));
    assert_eq!(denied_by_profile.rule, "profile.denied");
    let v = e.decide_call(req(&p, "x.a", &[], 0));
    assert!(v.allow);
    assert_eq!(v.quota.as_ref().unwrap().used, 1);
    let v = e.decide_call(req(&p, "x.a", &[], 50));
    assert_eq!(v.rule, "quota.exceeded");
    assert!(e.decide_call(req(&p, "x.a", &[], 100)).allow);
}

#[test]
fn restore_after_revoke_allows_again() {
    let p = profile("p", &[], None);
    let mut e = engine(PolicyConfig::default(), &p);
    e.revoke_capability("s1", "x.a");
    assert_eq!(e.decide_call(req(&p, "x.a", &[], 0)).rule, "revoked");
    assert!(
        e.decide_call(req(&p, "x.b", &[], 0)).allow,
        "other skills unaffected"
    );
    e.restore_capability("s1", "x.a");
    assert!(e.decide_call(req(&p, "x.a", &[], 0)).allow);
}

#[test]
fn session_admission_respects_revocation_profiles_and_max_sessions() {
    let mut e = PolicyEngine::new(PolicyConfig {
        max_sessions: Some(1),
        ..Default::default()
    });
    assert_eq!(e.admit_session("a", "nobody").rule, "profile.unknown");
    assert!(e.admit_session("a", "system.readonly").allow);
    assert!(
        e.admit_session("a", "system.readonly").allow,
        "re-admitting the same session is fine"
    );
    assert_eq!(
        e.admit_session("b", "system.readonly").rule,
        "quota.exceeded"
    );
    e.release_session("a");
    assert!(e.admit_session("b", "system.readonly").allow);
    e.revoke_session("c");
    assert_eq!(
        e.admit_session("c", "system.readonly").rule,
        "session.revoked"
    );
}

#[test]
fn package_admission_rules_in_order() {
    let mut e = PolicyEngine::new(PolicyConfig::default());
    let read: Permissions = [Permission::SceneRead].into_iter().collect();
    let write: Permissions = [Permission::SceneRead, Permission::SceneWrite]
        .into_iter()
        .collect();
    let facts = |declared, grant| PackageFacts {
        name: "dice",
        declared,
        grant,
        ..Default::default()
    };
    assert!(e.admit_package(&facts(read, write)).allow);
    let v = e.admit_package(&facts(write, read));
    assert_eq!(v.rule, "package.overclaim");
    assert!(v.reason.contains("scene.write"));
    let grants_beyond = PackageFacts {
        grants_beyond: Some("package `dice` declares the secret `KEY`".into()),
        ..facts(read, write)
    };
    let v = e.admit_package(&grants_beyond);
    assert_eq!(
        (v.allow, v.rule, v.reason.as_str()),
        (
            false,
            "package.overclaim",
            "package `dice` declares the secret `KEY`"
        )
    );
    let bad_hash = PackageFacts {
        integrity_problem: Some("hash mismatch".into()),
        ..facts(read, write)
    };
    assert_eq!(e.admit_package(&bad_hash).rule, "package.signature");
    let old = PackageFacts {
        engine_incompatible: Some("needs >=9".into()),
        ..bad_hash.clone()
    };
    assert_eq!(e.admit_package(&old).rule, "package.engine");
    e.revoke_package("dice");
    assert_eq!(e.admit_package(&old).rule, "package.revoked");
}

#[test]
fn signatures_can_be_required_and_keys_restricted() {
    let e = PolicyEngine::new(PolicyConfig {
        require_signatures: true,
        trusted_keys: vec!["AA".into()],
        ..Default::default()
    });
    let unsigned = PackageFacts {
        name: "dice",
        ..Default::default()
    };
    let v = e.admit_package(&unsigned);
    assert_eq!(v.rule, "package.signature");
    assert!(v.reason.contains("not signed"));
    let stranger = PackageFacts {
        signed_by: Some("bb".into()),
        ..unsigned.clone()
    };
    assert!(
        e.admit_package(&stranger)
            .reason
            .contains("not among the trusted keys")
    );
    let trusted = PackageFacts {
        signed_by: Some("aa".into()),
        ..unsigned
    };
    assert!(e.admit_package(&trusted).allow);
}

#[test]
fn a_revoked_package_denies_calls_to_its_skills() {
    let p = profile("p", &[], None);
    let mut e = engine(PolicyConfig::default(), &p);
    assert!(e.decide_call(req(&p, "x.a", &[], 0)).allow);
    e.revoke_package("x");
    let v = e.decide_call(req(&p, "x.a", &[], 0));
    assert_eq!(v.rule, "revoked");
    assert!(v.reason.contains("package `x` was revoked"));
}

#[test]
fn may_call_follows_the_static_rules_and_spends_nothing() {
    let p = profile(
        "scout",
        &[Permission::SceneRead],
        Some(&["scene.query*", "skills.*"]),
    );
    let config = PolicyConfig {
        quotas: vec![QuotaRule {
            cap: None,
            per_session: true,
            limit: 1,
            window_ms: 60_000,
        }],
        ..PolicyConfig::default()
    };
    let mut e = engine(config, &p);
    let query = req(&p, "scene.queryEntities", &[Permission::SceneRead], 0);
    // Asking any number of times uses neither the quota nor the tallies.
    for _ in 0..3 {
        assert!(e.may_call(query));
    }
    assert!(e.tallies(None).is_empty());
    assert!(
        !e.may_call(req(&p, "trace.tail", &[], 0)),
        "not allow-listed"
    );
    assert!(
        !e.may_call(req(&p, "scene.queryAll", &[Permission::SceneWrite], 0)),
        "missing permission"
    );
    assert!(e.decide_call(query).allow, "the quota is still whole");
    e.revoke_capability("s1", "scene.queryEntities");
    assert!(!e.may_call(query), "revoked for the session");
    e.restore_capability("s1", "scene.queryEntities");
    e.revoke_package("x");
    assert!(!e.may_call(query), "its package was revoked");
    let unknown = Profile {
        name: "gone".into(),
        ..p.clone()
    };
    assert!(!e.may_call(req(&unknown, "skills.list", &[], 0)));
}

fn npc(ceiling: Option<LatencyTier>) -> Profile {
    Profile {
        max_latency_tier: ceiling,
        ..profile("npc", &[], None)
    }
}

#[test]
fn a_session_tier_is_what_it_asked_for_within_its_profile_ceiling() {
    let p = npc(Some(LatencyTier::Standard));
    let mut e = engine(PolicyConfig::default(), &p);
    assert_eq!(
        e.session_tier("s1", "npc"),
        LatencyTier::Standard,
        "the ceiling by default"
    );
    assert_eq!(
        e.set_session_tier("s1", "npc", Some(LatencyTier::Fast)),
        Ok(LatencyTier::Fast)
    );
    assert_eq!(e.session_tier("s1", "npc"), LatencyTier::Fast);
    assert_eq!(
        e.session_tier("s2", "npc"),
        LatencyTier::Standard,
        "per session"
    );
    let err = e
        .set_session_tier("s1", "npc", Some(LatencyTier::Deep))
        .unwrap_err();
    assert_eq!(
        err,
        "profile `npc` allows at most the `standard` latency tier, not `deep`"
    );
    assert_eq!(
        e.session_tier("s1", "npc"),
        LatencyTier::Fast,
        "nothing changed"
    );
    assert_eq!(
        e.set_session_tier("s1", "npc", None),
        Ok(LatencyTier::Standard)
    );
    let open = npc(None);
    let e = engine(PolicyConfig::default(), &open);
    assert_eq!(e.session_tier("s1", "npc"), LatencyTier::Deep);
    assert_eq!(e.session_tier("s1", "nobody"), LatencyTier::Fast);
}

#[test]
fn a_skill_beyond_the_session_tier_is_refused_only_when_tiers_refuse() {
    let p = npc(Some(LatencyTier::Fast));
    fn slow(p: &Profile) -> CallRequest<'_> {
        CallRequest {
            skill_tier: LatencyTier::Standard,
            capability: None,
            ..req(p, "rules.search", &[], 0)
        }
    }
    let mut hide = engine(PolicyConfig::default(), &p);
    assert!(hide.decide_call(slow(&p)).allow, "hide-only by default");
    let refuse = PolicyConfig {
        latency: LatencyPolicy {
            enforcement: TierEnforcement::Refuse,
            ..LatencyPolicy::default()
        },
        ..PolicyConfig::default()
    };
    let mut e = engine(refuse, &p);
    let v = e.decide_call(slow(&p));
    assert!(!v.allow);
    assert_eq!(v.rule, "latency.tier");
    assert_eq!(
        v.reason,
        "`rules.search` is in the `standard` latency tier, slower than this session's `fast`; choose a faster skill (skills.search shows tiers) or change the tier with skills.setLatencyTier"
    );
    assert!(!e.may_call(slow(&p)));
    assert!(
        e.decide_call(req(&p, "dice.roll", &[], 0)).allow,
        "a fast skill passes"
    );
    assert_eq!(
        e.budget("s1").used.calls,
        1,
        "the refused call cost nothing"
    );
}

#[test]
fn an_approve_rule_sits_between_the_allow_list_and_the_quota() {
    use crate::policy::{Approval, ApproveRule, Outcome};
    let p = profile("p", &[Permission::SceneRead], Some(&["scene.*"]));
    let config = PolicyConfig {
        approvals: vec![ApproveRule {
            skill: "scene.clear*".into(),
            profiles: None,
            message: None,
            timeout_ms: 1000,
        }],
        quotas: vec![QuotaRule {
            cap: Some("scene.clearAll".into()),
            per_session: true,
            limit: 1,
            window_ms: 60_000,
        }],
        ..PolicyConfig::default()
    };
    let mut e = engine(config, &p);
    let answer = |outcome| Approval {
        outcome,
        answered_by: serde_json::json!({"agentId": "a"}),
        detail: "said so".into(),
    };
    // Rules 1–4 first: a skill outside the allow-list is never put to a person.
    assert!(e.approval_rule(req(&p, "trace.tail", &[], 0)).is_none());
    assert_eq!(
        e.decide_call(req(&p, "trace.tail", &[], 0)).rule,
        "tool.denied"
    );
    assert!(e.approval_rule(req(&p, "scene.clearAll", &[], 0)).is_some());
    assert!(e.approval_rule(req(&p, "scene.query", &[], 0)).is_none());
    // Unasked, declined, unavailable: refused, and the quota is untouched.
    let v = e.decide_call(req(&p, "scene.clearAll", &[], 0));
    assert_eq!((v.allow, v.rule), (false, "approval.unavailable"));
    let declined = answer(Outcome::Declined);
    let v = e.decide_call(CallRequest {
        approval: Some(&declined),
        ..req(&p, "scene.clearAll", &[], 0)
    });
    assert_eq!((v.allow, v.rule), (false, "approval.declined"));
    assert!(v.reason.contains("said so"), "{}", v.reason);
    assert_eq!(e.budget("s1").used.calls, 0, "refused calls cost nothing");
    // Accepted: on to the quota, which counts it, and then refuses the next even if accepted.
    let accepted = answer(Outcome::Accepted);
    let allowed = || CallRequest {
        approval: Some(&accepted),
        ..req(&p, "scene.clearAll", &[], 0)
    };
    assert_eq!(e.decide_call(allowed()).rule, "profile.grant");
    assert_eq!(e.decide_call(allowed()).rule, "quota.exceeded");
}
