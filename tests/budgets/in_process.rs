//! Revocation, driven through the registry's API in-process (there is no wire method to
//! revoke; an operator's tooling or configuration does it).

use limina::call::ErrorCode;
use limina::policy::Profiles;
use limina::registry::{Caller, Registry};
use serde_json::json;

fn registry() -> Registry {
    crate::support::in_process_registry(&["scene"])
}

fn builder(session: &str) -> Caller {
    Caller {
        agent_id: "op".into(),
        session_id: session.into(),
        profile: "builder.readWrite".into(),
        permissions: Profiles::default()
            .get("builder.readWrite")
            .unwrap()
            .permissions,
    }
}

#[test]
fn revoking_a_capability_mid_session_denies_it_and_restoring_allows_it_again() {
    let mut r = registry();
    let me = builder("s1");
    r.admit_session(&me).unwrap();
    assert!(r.invoke(&me, "scene.createEntity", json!({})).success);
    r.policy_mut().revoke_capability("s1", "scene.createEntity");

    let calls_before = r.policy_mut().budget("s1").used.calls;
    let denied = r.invoke(&me, "scene.createEntity", json!({}));
    let failure = denied.error.unwrap();
    assert_eq!(failure.code, ErrorCode::Forbidden);
    assert!(
        failure.message.contains("was revoked"),
        "{}",
        failure.message
    );
    assert_eq!(
        r.realm().world.entity_count(),
        1,
        "the denied call changed nothing"
    );
    assert_eq!(
        r.policy_mut().budget("s1").used.calls,
        calls_before,
        "and cost nothing"
    );
    assert!(
        r.invoke(&me, "scene.queryEntities", json!({})).success,
        "other skills still work"
    );
    assert!(
        r.invoke(&builder("s2"), "scene.createEntity", json!({}))
            .success,
        "other sessions too"
    );

    r.policy_mut()
        .restore_capability("s1", "scene.createEntity");
    assert!(r.invoke(&me, "scene.createEntity", json!({})).success);
    assert_eq!(r.realm().world.entity_count(), 3);
}

#[test]
fn a_revoked_session_is_denied_every_call_and_cannot_come_back() {
    let mut r = registry();
    let me = builder("s1");
    r.admit_session(&me).unwrap();
    assert!(r.invoke(&me, "scene.queryEntities", json!({})).success);
    r.policy_mut().revoke_session("s1");
    for skill in ["scene.queryEntities", "skills.list", "scene.createEntity"] {
        let failure = r.invoke(&me, skill, json!({})).error.unwrap();
        assert_eq!(failure.code, ErrorCode::Forbidden, "{skill}");
        assert!(failure.message.contains("revoked"), "{}", failure.message);
    }
    r.end_session("s1");
    let refused = r.admit_session(&me).unwrap_err();
    assert!(refused.contains("session.revoked"), "{refused}");
    assert_eq!(r.realm().world.entity_count(), 0);
}

#[test]
fn every_decision_is_an_event_and_skill_executed_is_caused_by_its_decision() {
    let mut r = registry();
    let me = builder("s1");
    let ok = r.invoke(&me, "scene.createEntity", json!({}));
    let ids = ok.metadata.events_emitted;
    assert_eq!(ids.len(), 2);
    let tracer = &mut r.realm_mut().tracer;
    let decision = tracer.get(&ids[0]).unwrap();
    let executed = tracer.get(&ids[1]).unwrap();
    assert_eq!(decision.kind, "policy.decision");
    assert_eq!(decision.payload["rule"], "profile.grant");
    assert_eq!(executed.kind, "skill.executed");
    assert_eq!(executed.caused_by, vec![decision.id.clone()]);
    assert_eq!(
        executed.payload["input"]["size"], 1.0,
        "the input is recorded with defaults"
    );
}

#[test]
fn a_revoked_package_is_denied_from_the_next_call_and_traced() {
    let mut r = registry();
    let me = builder("s1");
    assert!(r.invoke(&me, "scene.queryEntities", json!({})).success);
    r.revoke_package("scene");
    let failure = r
        .invoke(&me, "scene.queryEntities", json!({}))
        .error
        .unwrap();
    assert_eq!(failure.code, ErrorCode::Forbidden);
    assert!(
        failure.message.contains("package `scene` was revoked"),
        "{}",
        failure.message
    );
    assert!(
        r.invoke(&me, "skills.list", json!({})).success,
        "built-ins are not part of it"
    );
    let kinds: Vec<String> = r.realm().tracer.recent().map(|e| e.kind.clone()).collect();
    assert!(kinds.contains(&"package.installed".to_string()));
    assert!(kinds.contains(&"package.revoked".to_string()));
}
