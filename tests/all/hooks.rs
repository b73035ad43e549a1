//! Hooks around handlers, with the `hooks` test guest (`tests/guests/hooks`): a before-hook on
//! `scene.createEntity` refuses underground positions and rewrites the rest, an after-hook on
//! `scene.queryEntities` hides far entities, and hooks that trap or break a schema fail the
//! call without changing the world. Hooks run only for the skills their patterns match.

use crate::support::{Client, error_of, guest_packages};
use limina::call::ErrorCode;
use limina::packages::PackageSource;
use limina::policy::Profiles;
use limina::registry::{Caller, HookPhase, HostHook, Registry};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tempfile::TempDir;

/// The message `hooks.guardGround` refuses y = -1 with.
/// The refusal, prefixed by the host with the hook that made it.
const UNDERGROUND: &str = "before-hook `guardGround` of package `hooks`: \
    `position` y is -1: below 0 is underground, which hooks.guardGround refuses";

/// A session on a host with the `hooks` package loaded; keep the folder alive with it.
fn host() -> (Client, TempDir) {
    let pkgs = guest_packages(&["hooks"]);
    let c = Client::session(
        "builder.readWrite",
        &["--packages", pkgs.path().to_str().unwrap()],
    );
    (c, pkgs)
}

fn entities(c: &mut Client) -> Vec<Value> {
    c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .clone()
}

fn positions(c: &mut Client) -> Vec<Value> {
    entities(c).iter().map(|e| e["position"].clone()).collect()
}

/// Trace events of one type, oldest first.
fn events_of(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind, "limit": 1000}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

/// `(hook, skill)` of every hook run so far, in order.
fn hook_runs(c: &mut Client) -> Vec<(String, String)> {
    events_of(c, "hooks.hook.ran")
        .iter()
        .map(|e| {
            (
                e["payload"]["hook"].as_str().unwrap().to_string(),
                e["payload"]["skill"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn run(hook: &str, skill: &str) -> (String, String) {
    (hook.to_string(), skill.to_string())
}

#[test]
fn a_before_hook_refuses_an_underground_create_and_nothing_is_created() {
    let (mut c, _pkgs) = host();
    let r = c.call("scene.createEntity", json!({"position": [1, -1, 0]}));
    let (code, message) = error_of(&r);
    assert_eq!(code, "invalid_input");
    assert_eq!(message, UNDERGROUND);
    assert!(entities(&mut c).is_empty());
    let executed = events_of(&mut c, "skill.executed");
    assert!(
        executed
            .iter()
            .all(|e| e["payload"]["skill"] != "scene.createEntity"),
        "a refused call is not reported executed: {executed:?}"
    );

    // A create above ground goes through, and the refusal used no entity id.
    assert_eq!(
        c.call_ok("scene.createEntity", json!({"position": [1, 2, 0]}))["entity"],
        "ent_1"
    );
    assert_eq!(positions(&mut c), vec![json!([1.0, 2.0, 0.0])]);
}

#[test]
fn a_before_hook_rewrite_is_what_the_handler_creates() {
    let (mut c, _pkgs) = host();
    for y in [0.0, 0.2, 0.5, 7.0] {
        c.call_ok("scene.createEntity", json!({"position": [3, y, 0]}));
    }
    // Lower than 0.5 m is lifted to 0.5 m; the rest is left where it was asked for.
    assert_eq!(
        positions(&mut c),
        vec![
            json!([3.0, 0.5, 0.0]),
            json!([3.0, 0.5, 0.0]),
            json!([3.0, 0.5, 0.0]),
            json!([3.0, 7.0, 0.0]),
        ]
    );
    // Colour has no read-back skill yet; the hook's trace shows what it passed on.
    let rewritten: Vec<Value> = events_of(&mut c, "hooks.hook.ran")
        .iter()
        .filter(|e| e["payload"]["hook"] == "guardGround")
        .map(|e| e["payload"]["rewritten"].clone())
        .collect();
    assert_eq!(rewritten.len(), 4);
    for input in &rewritten {
        assert_eq!(input["color"], 255, "{input}");
    }
    assert_eq!(rewritten[1]["position"], json!([3, 0.5, 0]));
}

#[test]
fn skill_executed_records_the_input_the_handler_ran() {
    let (mut c, _pkgs) = host();
    c.call_ok("scene.createEntity", json!({"position": [0, 0.1, 0]}));
    let executed = events_of(&mut c, "skill.executed");
    let input = &executed.last().unwrap()["payload"]["input"];
    assert_eq!(input["position"][1], 0.5, "{input}");
    assert_eq!(input["color"], 255, "{input}");
}

#[test]
fn an_after_hook_hides_entities_beyond_50_m_and_leaves_them_in_the_world() {
    let (mut c, _pkgs) = host();
    let near = c.call_ok("scene.createEntity", json!({"position": [0, 10, 0]}))["entity"].clone();
    let far = c.call_ok("scene.createEntity", json!({"position": [0, 100, 0]}))["entity"].clone();

    let all = entities(&mut c);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["entity"], near);
    assert_eq!(all[0]["position"], json!([0.0, 10.0, 0.0]));
    // Even asked for by place, the far one is not reported.
    let there = c.call_ok(
        "scene.queryEntities",
        json!({"near": [0, 100, 0], "radius": 5}),
    );
    assert_eq!(there["entities"], json!([]));

    // The hook filters the answer, not the world: the far entity is still there to destroy,
    // and destroyEntity's own answer is not hooked.
    assert_eq!(
        c.call_ok("scene.destroyEntity", json!({"entity": far}))["removed"],
        true
    );
    assert_eq!(
        c.call_ok("scene.destroyEntity", json!({"entity": far}))["removed"],
        false
    );
    assert_eq!(entities(&mut c).len(), 1);
}

#[test]
fn a_before_hook_that_traps_is_a_handler_error_and_changes_nothing() {
    let (mut c, _pkgs) = host();
    c.call_ok("scene.createEntity", json!({"position": [1, 1, 0]}));
    let (code, message) = error_of(&c.call("scene.createEntity", json!({"size": 42})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("trapped"), "{message}");
    assert_eq!(positions(&mut c), vec![json!([1.0, 1.0, 0.0])]);
    // The trapped instance was discarded; a fresh one keeps hooking.
    let (code, message) = error_of(&c.call("scene.createEntity", json!({"position": [0, -1, 0]})));
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("invalid_input", UNDERGROUND)
    );
    c.call_ok("scene.createEntity", json!({"position": [2, 0, 0]}));
    assert_eq!(
        positions(&mut c),
        vec![json!([1.0, 1.0, 0.0]), json!([2.0, 0.5, 0.0])]
    );
}

#[test]
fn an_after_hook_that_traps_after_the_handler_wrote_rolls_the_write_back() {
    let (mut c, _pkgs) = host();
    c.call_ok("scene.createEntity", json!({"position": [1, 1, 0]}));
    let (code, message) = error_of(&c.call("scene.createEntity", json!({"position": [42, 1, 0]})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("trapped"), "{message}");
    assert_eq!(positions(&mut c), vec![json!([1.0, 1.0, 0.0])]);
    assert_eq!(
        c.call_ok("scene.destroyEntity", json!({"entity": "ent_2"}))["removed"],
        false,
        "the rolled-back entity is gone"
    );
    c.call_ok("scene.createEntity", json!({"position": [3, 1, 0]}));
    assert_eq!(
        positions(&mut c),
        vec![json!([1.0, 1.0, 0.0]), json!([3.0, 1.0, 0.0])]
    );
}

#[test]
fn hooks_that_break_a_schema_fail_the_call_and_change_nothing() {
    let (mut c, _pkgs) = host();
    // The before-hook turns `color` into a string: the rewritten input is checked again.
    let (code, message) = error_of(&c.call("scene.createEntity", json!({"size": 7})));
    assert_eq!(
        code, "handler_error",
        "the caller's input was fine; the hook broke it"
    );
    assert!(
        message.contains("before-hook") && message.contains("`color`"),
        "{message}"
    );
    assert!(entities(&mut c).is_empty());

    // The after-hook answers `entities: "hidden"` when an entity sits at x = -7: the output
    // is checked after the after-hooks.
    let odd = c.call_ok("scene.createEntity", json!({"position": [-7, 1, 0]}))["entity"].clone();
    let (code, message) = error_of(&c.call("scene.queryEntities", json!({})));
    assert_eq!(code, "handler_error");
    assert!(
        message.contains("output schema") && message.contains("`entities`"),
        "{message}"
    );
    c.call_ok("scene.destroyEntity", json!({"entity": odd}));
    assert!(entities(&mut c).is_empty());
}

#[test]
fn hooks_run_only_for_the_skills_their_patterns_match() {
    let (mut c, _pkgs) = host();
    assert_eq!(c.call_ok("hooks.ping", json!({}))["pong"], true);
    assert!(
        hook_runs(&mut c).is_empty(),
        "the package's own skill is not hooked"
    );

    let id = c.call_ok("scene.createEntity", json!({"position": [0, 1, 0]}))["entity"].clone();
    c.call_ok("scene.destroyEntity", json!({"entity": id}));
    c.call_ok("skills.list", json!({}));
    entities(&mut c);
    assert_eq!(
        hook_runs(&mut c),
        vec![
            run("guardGround", "scene.createEntity"),
            run("trapAtX42", "scene.createEntity"),
            run("nearOnly", "scene.queryEntities"),
        ]
    );
}

fn registry_with_hooks(pkgs: &TempDir) -> Registry {
    let mut r = crate::support::in_process_registry(&["scene"]);
    r.load(PackageSource::read(&pkgs.path().join("hooks")).unwrap())
        .unwrap();
    r
}

#[test]
fn host_hooks_run_before_guest_hooks_in_process() {
    let pkgs = guest_packages(&["hooks"]);
    let mut r = registry_with_hooks(&pkgs);
    // Host before-hook: sinks every create to y = -1, so the guest's guard sees it and refuses.
    r.add_hook(HostHook {
        name: "sink".into(),
        phase: HookPhase::Before,
        skills: vec!["scene.createEntity".into()],
        run: Box::new(|_, _, input| {
            let mut input = input.clone();
            if input["dynamic"] == true {
                input["position"][1] = json!(-1);
                return Ok(Some(input));
            }
            Ok(None)
        }),
    });
    // Host after-hook: records how many entities the handler answered, before the guest's
    // after-hook trims them.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_by_hook = seen.clone();
    r.add_hook(HostHook {
        name: "count".into(),
        phase: HookPhase::After,
        skills: vec!["scene.query*".into()],
        run: Box::new(move |_, _, output| {
            seen_by_hook
                .lock()
                .unwrap()
                .push(output["entities"].as_array().map_or(0, Vec::len));
            Ok(None)
        }),
    });
    let me = Caller {
        agent_id: "op".into(),
        session_id: "s1".into(),
        profile: "builder.readWrite".into(),
        permissions: Profiles::default()
            .get("builder.readWrite")
            .unwrap()
            .permissions,
    };
    r.admit_session(&me).unwrap();

    let sunk = r.invoke(
        &me,
        "scene.createEntity",
        json!({"position": [0, 5, 0], "dynamic": true}),
    );
    let failure = sunk.error.unwrap();
    assert_eq!(failure.code, ErrorCode::InvalidInput);
    assert_eq!(failure.message, UNDERGROUND);
    assert_eq!(r.realm().world.entity_count(), 0);

    assert!(
        r.invoke(&me, "scene.createEntity", json!({"position": [0, 5, 0]}))
            .success
    );
    assert!(
        r.invoke(&me, "scene.createEntity", json!({"position": [0, 80, 0]}))
            .success
    );
    let found = r.invoke(&me, "scene.queryEntities", json!({}));
    assert!(found.success);
    assert_eq!(
        found.result.unwrap()["entities"].as_array().unwrap().len(),
        1
    );
    assert_eq!(*seen.lock().unwrap(), vec![2]);
}
