//! The core `social` skills over MCP: approach moves the caller's own body over ticks, say
//! always speaks as the caller whatever the payload claims, strict inputs, and that only
//! `social.actor` may act, with refusals that change nothing.

use crate::agent_skills::{events_of, give_body, snapshot};
use crate::support::{Client, error_of};
use serde_json::{Value, json};

fn position(c: &mut Client, entity: &str) -> [f64; 3] {
    let found = c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["entity"] == entity)
        .cloned()
        .unwrap_or_else(|| panic!("no {entity}"));
    serde_json::from_value(found["position"].clone()).unwrap()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
}

/// Advances the world as the operator (`world.step` needs `physics.write`, which
/// `social.actor` lacks), then acts as `agent` under `social.actor` again.
fn step_as_operator(c: &mut Client, ticks: u64, agent: &str) {
    c.rebind("builder.readWrite", "operator");
    c.call_ok("world.step", json!({"ticks": ticks}));
    c.rebind("social.actor", agent);
}

/// A host where `ann` has a body at the origin and an entity stands at (10, 0, 0); the
/// connection then acts as `ann` under `social.actor`. Returns (ann's body, the other one).
fn ann_and_a_friend(args: &[&str]) -> (Client, String, String) {
    let mut c = Client::session("builder.readWrite", args);
    let body = give_body(&mut c, "ann", [0.0; 3]);
    let friend = c.call_ok("scene.createEntity", json!({"position": [10, 0, 0]}))["entity"]
        .as_str()
        .unwrap()
        .to_string();
    c.rebind("social.actor", "ann");
    (c, body, friend)
}

#[test]
fn approach_walks_the_callers_body_over_ticks_and_stops_at_talk_distance() {
    let (mut c, body, friend) = ann_and_a_friend(&["--tick-ms", "100"]);
    let out = c.call_ok(
        "social.approach",
        json!({"target": friend, "talkDistance": 2}),
    );
    assert_eq!(out, json!({"approaching": true, "target": friend}));
    assert_eq!(
        position(&mut c, &body),
        [0.0; 3],
        "nothing moves until the world steps"
    );
    step_as_operator(&mut c, 10, "ann");
    let halfway = position(&mut c, &body);
    assert!(halfway[0] > 1.0 && halfway[0] < 8.0, "{halfway:?}");
    step_as_operator(&mut c, 100, "ann");
    assert!((distance(position(&mut c, &body), [10.0, 0.0, 0.0]) - 2.0).abs() < 1e-6);
    let p = c.call_ok("agent.getPerception", json!({}))["perception"].clone();
    assert_eq!(p["approaching"], Value::Null, "arrived");
    assert_eq!(
        position(&mut c, &friend),
        [10.0, 0.0, 0.0],
        "the target stays put"
    );
}

#[test]
fn approach_to_a_point_stops_the_default_distance_short() {
    let (mut c, body, _) = ann_and_a_friend(&["--tick-ms", "100"]);
    let out = c.call_ok("social.approach", json!({"target": [0, 0, 10]}));
    assert_eq!(
        out,
        json!({"approaching": true, "target": [0.0, 0.0, 10.0]})
    );
    step_as_operator(&mut c, 100, "ann");
    let gap = distance(position(&mut c, &body), [0.0, 0.0, 10.0]);
    assert!((gap - 1.5).abs() < 1e-6, "{gap}");
}

#[test]
fn approach_is_false_without_a_body_a_target_or_distance_to_cover_and_moves_nothing() {
    let (mut c, body, friend) = ann_and_a_friend(&[]);
    for (target, talk) in [
        (json!("ent_99"), 1.5),
        (json!(body), 1.5),
        (json!(friend), 10.0),
    ] {
        let out = c.call_ok(
            "social.approach",
            json!({"target": target, "talkDistance": talk}),
        );
        assert_eq!(out["approaching"], false, "{target}");
    }
    c.rebind("social.actor", "bodiless");
    let out = c.call_ok("social.approach", json!({"target": [5, 0, 0]}));
    assert_eq!(out["approaching"], false);
    step_as_operator(&mut c, 50, "bodiless");
    assert_eq!(position(&mut c, &body), [0.0; 3]);
}

#[test]
fn say_speaks_as_the_caller_whatever_actor_id_claims() {
    let (mut c, body, _) = ann_and_a_friend(&[]);
    let out = c.call_ok(
        "social.say",
        json!({"text": "I am ann", "actorId": "mallory"}),
    );
    assert_eq!(out["said"], true);
    assert_eq!(out["speaker"], "ann");
    let bubble = out["handle"].as_str().unwrap().to_string();
    assert!(bubble.starts_with("ui_"), "{bubble}");
    // Saying more reuses ann's one bubble.
    let again = c.call_ok("social.say", json!({"text": "still ann"}));
    assert_eq!(again["handle"], json!(bubble));

    let said = events_of(&mut c, "social.said");
    assert_eq!(said.len(), 2);
    assert!(
        said.iter()
            .all(|e| e["actorId"] == "ann" && e["payload"]["speaker"] == "ann")
    );
    assert_eq!(said[0]["payload"]["text"], "I am ann");
    assert_eq!(said[0]["payload"]["claim"]["actorId"], "mallory");
    assert_eq!(said[0]["payload"]["claim"]["honoured"], false);
    assert!(said[1]["payload"].get("claim").is_none());
    let by_mallory = c.call_ok("trace.tail", json!({"actorId": "mallory"}));
    assert_eq!(by_mallory["events"], json!([]));

    // Another agent nearby hears ann, attributed to ann.
    c.rebind("builder.readWrite", "bob");
    give_body(&mut c, "bob", [0.0, 0.0, 2.0]);
    let p = c.call_ok("agent.getPerception", json!({}))["perception"].clone();
    let heard = p["recentEvents"].as_array().unwrap();
    assert_eq!(heard.len(), 2);
    assert_eq!(heard[0]["actorId"], "ann");
    assert_eq!(heard[0]["payload"]["text"], "I am ann");
    assert_eq!(p["nearby"][0]["entity"], json!(body));
    assert_eq!(p["nearby"][0]["agentId"], "ann");
    // The bubble floats over ann's body and shows the last line.
    let panels = snapshot(&mut c)["world"]["uiPanels"].clone();
    assert_eq!(panels.as_array().unwrap().len(), 1);
    assert_eq!(panels[0]["handle"], json!(bubble));
    assert_eq!(panels[0]["kind"], "speechBubble");
    assert_eq!(panels[0]["owner"], "ann");
    assert_eq!(panels[0]["spec"]["text"], "still ann");
    assert_eq!(panels[0]["spec"]["anchor"]["entity"], json!(body));
}

#[test]
fn social_inputs_are_strict_and_ranged() {
    let (mut c, _, friend) = ann_and_a_friend(&[]);
    for (skill, args, field) in [
        (
            "social.say",
            json!({"text": "hi", "speaker": "bob"}),
            "'speaker'",
        ),
        (
            "social.approach",
            json!({"target": friend, "speed": 9}),
            "'speed'",
        ),
        ("social.say", json!({"text": ""}), "text"),
        ("social.say", json!({"text": "x".repeat(281)}), "text"),
        ("social.say", json!({}), "text"),
        ("social.say", json!({"text": "hi", "actorId": 7}), "actorId"),
        ("social.approach", json!({}), "target"),
        ("social.approach", json!({"target": ""}), "target"),
        ("social.approach", json!({"target": [1, 2]}), "target"),
        (
            "social.approach",
            json!({"target": friend, "talkDistance": 0}),
            "talkDistance",
        ),
        (
            "social.approach",
            json!({"target": friend, "talkDistance": 50.5}),
            "talkDistance",
        ),
    ] {
        let (code, message) = error_of(&c.call(skill, args.clone()));
        assert_eq!(code, "invalid_input", "{skill} {args}");
        assert!(message.contains(field), "{skill} {args}: {message}");
    }
    assert!(events_of(&mut c, "social.said").is_empty());
    // The edges of the ranges are accepted.
    c.call_ok("social.say", json!({"text": "x".repeat(280)}));
    c.call_ok(
        "social.approach",
        json!({"target": friend, "talkDistance": 50}),
    );
}

#[test]
fn only_social_actor_may_act_and_refusals_change_nothing() {
    let (mut c, body, friend) = ann_and_a_friend(&[]);
    for profile in ["builder.readWrite", "player.limited", "system.readonly"] {
        c.rebind(profile, "ann");
        for (skill, args) in [
            ("social.approach", json!({"target": friend})),
            ("social.say", json!({"text": "let me in"})),
        ] {
            let (code, message) = error_of(&c.call(skill, args));
            assert_eq!(code, "forbidden", "{profile} {skill}");
            assert_eq!(message, "missing permission: social.act");
        }
    }
    c.rebind("builder.readWrite", "ann");
    c.call_ok("world.step", json!({"ticks": 100}));
    assert_eq!(position(&mut c, &body), [0.0; 3], "ann never moved");
    assert!(events_of(&mut c, "social.said").is_empty());
    let first = c.call_ok("ui.label", json!({"anchor": {"kind": "screen"}}))["handle"].clone();
    assert_eq!(first, "ui_1", "no speech bubble was created");
}
