//! Agents: bodies by tag, approach over ticks, speech bubbles, perception and rollback.

use super::super::*;
use super::{DEFAULT_TALK_DISTANCE, WALK_SPEED};
use serde_json::json;

const DT: f32 = 0.1;

fn world() -> World {
    World::new(WorldSettings {
        max_entities: 100,
        tick_seconds: DT,
    })
}

fn entity(w: &mut World, position: [f64; 3]) -> String {
    w.create_entity(&EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: 1.0,
        color: 0xffffff,
        position,
        body: BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    })
    .unwrap()
}

fn body(w: &mut World, agent: &str, position: [f64; 3]) -> String {
    let id = entity(w, position);
    assert!(w.add_tag(&id, &format!("agent:{agent}")));
    id
}

fn x_of(w: &World, id: &str) -> f64 {
    w.get_entity(id).unwrap().transform.position[0]
}

fn heard(w: &World, kind: &str) -> Heard {
    Heard {
        event_id: format!("evt_{kind}"),
        kind: kind.into(),
        actor_id: "ann".into(),
        tick: w.tick(),
        payload: json!({}),
    }
}

#[test]
fn an_agents_body_is_its_lowest_numbered_tagged_entity() {
    let mut w = world();
    assert!(w.agent_body("ann").is_none());
    entity(&mut w, [0.0; 3]);
    let first = body(&mut w, "ann", [1.0, 0.0, 0.0]);
    body(&mut w, "ann", [2.0, 0.0, 0.0]);
    body(&mut w, "bob", [3.0, 0.0, 0.0]);
    assert_eq!(w.agent_body("ann").unwrap().id, first);
    assert!(w.agent_body("an").is_none());
}

#[test]
fn approach_walks_at_walking_speed_and_stops_at_talk_distance() {
    let mut w = world();
    let me = body(&mut w, "ann", [0.0; 3]);
    let friend = entity(&mut w, [10.0, 0.0, 0.0]);
    let target = ApproachTarget::Entity(friend.clone());
    assert_eq!(w.approach("ann", target, Some(2.0)), Ok(true));
    w.step();
    assert!((x_of(&w, &me) - WALK_SPEED * DT as f64).abs() < 1e-6);
    for _ in 0..100 {
        w.step();
    }
    assert!((x_of(&w, &me) - 8.0).abs() < 1e-9, "{}", x_of(&w, &me));
    assert!(w.agents().movement("ann").is_none());
    // The friend walks off: it is followed only when asked again.
    w.set_transform(&friend, Some([20.0, 0.0, 0.0]), None, None);
    w.step();
    assert_eq!(x_of(&w, &me), 8.0);
}

#[test]
fn approach_follows_a_moving_target_entity() {
    let mut w = world();
    let me = body(&mut w, "ann", [0.0; 3]);
    let friend = entity(&mut w, [4.0, 0.0, 0.0]);
    assert_eq!(
        w.approach("ann", ApproachTarget::Entity(friend.clone()), None),
        Ok(true)
    );
    w.step();
    w.set_transform(&friend, Some([0.0, 0.0, 10.0]), None, None);
    for _ in 0..200 {
        w.step();
    }
    let p = w.get_entity(&me).unwrap().transform.position;
    let gap = (p[0].powi(2) + p[1].powi(2) + (p[2] - 10.0).powi(2)).sqrt();
    assert!((gap - DEFAULT_TALK_DISTANCE).abs() < 1e-6, "{gap}");
}

#[test]
fn approach_is_false_without_a_body_a_target_or_a_distance_to_cover() {
    let mut w = world();
    let point = ApproachTarget::Point([5.0, 0.0, 0.0]);
    assert_eq!(w.approach("ann", point.clone(), None), Ok(false));
    let me = body(&mut w, "ann", [0.0; 3]);
    assert_eq!(
        w.approach("ann", ApproachTarget::Entity("ent_99".into()), None),
        Ok(false)
    );
    assert_eq!(
        w.approach("ann", ApproachTarget::Entity(me), None),
        Ok(false)
    );
    assert_eq!(w.approach("ann", point.clone(), Some(5.0)), Ok(false));
    assert!(matches!(
        w.approach("ann", point.clone(), Some(0.0)),
        Err(WorldError::Invalid(m)) if m.contains("talkDistance")
    ));
    assert!(w.approach("ann", point, Some(50.5)).is_err());
    assert!(w.agents().movement("ann").is_none());
}

#[test]
fn a_new_approach_replaces_the_last_and_a_failed_one_stops_the_agent() {
    let mut w = world();
    let me = body(&mut w, "ann", [0.0; 3]);
    assert_eq!(
        w.approach("ann", ApproachTarget::Point([10.0, 0.0, 0.0]), None),
        Ok(true)
    );
    assert_eq!(
        w.approach("ann", ApproachTarget::Point([-10.0, 0.0, 0.0]), None),
        Ok(true)
    );
    w.step();
    assert!(x_of(&w, &me) < 0.0);
    assert_eq!(
        w.approach("ann", ApproachTarget::Entity("ent_99".into()), None),
        Ok(false)
    );
    let x = x_of(&w, &me);
    w.step();
    assert_eq!(x_of(&w, &me), x);
}

#[test]
fn an_approach_ends_when_the_body_is_destroyed() {
    let mut w = world();
    let me = body(&mut w, "ann", [0.0; 3]);
    w.approach("ann", ApproachTarget::Point([10.0, 0.0, 0.0]), None)
        .unwrap();
    assert!(w.destroy_entity(&me));
    w.step();
    assert!(w.agents().movement("ann").is_none());
}

#[test]
fn say_reuses_one_bubble_per_agent_anchored_to_its_body() {
    let mut w = world();
    let me = body(&mut w, "ann", [0.0; 3]);
    let h = w.say("ann", "hello").unwrap();
    assert_eq!(w.say("ann", "again").unwrap(), h);
    let panel = w.ui().get(&h).unwrap();
    assert_eq!(panel.kind, "speechBubble");
    assert_eq!(panel.spec["text"], "again");
    assert_eq!(panel.spec["anchor"]["entity"], json!(me));
    // Without a body the bubble goes on the screen; a removed bubble is replaced.
    let b = w.say("bob", "hi").unwrap();
    assert_eq!(w.ui().get(&b).unwrap().spec["anchor"]["kind"], "screen");
    assert!(w.remove_panel(&b));
    assert_ne!(w.say("bob", "hi").unwrap(), b);
    assert!(w.say("bob", "").is_err());
    assert!(w.say("bob", &"x".repeat(281)).is_err());
}

#[test]
fn perception_reports_the_body_nearby_entities_nearest_first_and_recent_events() {
    let mut w = world();
    assert_eq!(w.perception("ann"), None);
    let me = body(&mut w, "ann", [0.0; 3]);
    let far = entity(&mut w, [5.0, 0.0, 0.0]);
    let near = body(&mut w, "bob", [0.0, 3.0, 0.0]);
    entity(&mut w, [100.0, 0.0, 0.0]);
    let wave = heard(&w, "agent.signal.wave");
    w.hear(wave);
    w.step();
    let p = w.perception("ann").unwrap();
    assert_eq!(p["entity"], json!(me));
    assert_eq!(p["tick"], 1);
    assert_eq!(p["position"], json!([0.0, 0.0, 0.0]));
    let ids: Vec<_> = p["nearby"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entity"].clone())
        .collect();
    assert_eq!(ids, vec![json!(near), json!(far)]);
    assert_eq!(p["nearby"][0]["agentId"], "bob");
    assert_eq!(p["recentEvents"][0]["type"], "agent.signal.wave");
}

#[test]
fn heard_events_are_bounded_oldest_first_out() {
    let mut w = world();
    for i in 0..crate::limits::HEARD_WINDOW + 5 {
        let h = heard(&w, &format!("agent.signal.s{i}"));
        w.hear(h);
    }
    let kinds: Vec<_> = w.agents().heard().map(|h| h.kind.clone()).collect();
    assert_eq!(kinds.len(), crate::limits::HEARD_WINDOW);
    assert_eq!(kinds[0], "agent.signal.s5");
}

#[test]
fn rollback_undoes_approach_speech_and_heard_events() {
    let mut w = world();
    body(&mut w, "ann", [0.0; 3]);
    for i in 0..crate::limits::HEARD_WINDOW {
        let h = heard(&w, &format!("agent.signal.s{i}"));
        w.hear(h);
    }
    w.approach("ann", ApproachTarget::Point([9.0, 0.0, 0.0]), None)
        .unwrap();
    let bubble = w.say("ann", "before").unwrap();
    let before = (w.agents_json(), w.ui().to_json());
    let heard_before: Vec<Heard> = w.agents().heard().cloned().collect();

    w.begin();
    w.approach("ann", ApproachTarget::Point([-9.0, 0.0, 0.0]), Some(3.0))
        .unwrap();
    w.say("ann", "after").unwrap();
    w.say("cat", "new bubble").unwrap();
    let h = heard(&w, "agent.signal.late");
    w.hear(h);
    w.rollback();

    assert_eq!((w.agents_json(), w.ui().to_json()), before);
    assert_eq!(
        w.agents().heard().cloned().collect::<Vec<_>>(),
        heard_before
    );
    assert_eq!(w.ui().get(&bubble).unwrap().spec["text"], "before");
}

#[test]
fn an_approach_ends_when_the_body_loses_its_agent_tag() {
    let mut w = world();
    let me = body(&mut w, "ann", [0.0; 3]);
    w.approach("ann", ApproachTarget::Point([10.0, 0.0, 0.0]), None)
        .unwrap();
    w.step();
    assert!(w.remove_tag(&me, "agent:ann"));
    let x = x_of(&w, &me);
    w.step();
    assert_eq!(x_of(&w, &me), x);
    assert!(w.agents().movement("ann").is_none());
}

#[test]
fn huge_signals_are_kept_for_perception_as_bounded_previews() {
    use crate::limits::{HEARD_PREVIEW_CHARS, MAX_HEARD_KIND_CHARS, MAX_HEARD_PAYLOAD_BYTES};
    let mut w = world();
    body(&mut w, "ann", [0.0; 3]);
    let small = json!({"k": "v"});
    let mut h = heard(&w, "agent.signal.small");
    h.payload = small.clone();
    w.hear(h);
    for _ in 0..crate::limits::HEARD_WINDOW {
        let mut h = heard(&w, &format!("agent.signal.{}", "x".repeat(10_000)));
        h.event_id = "evt_big".into();
        h.payload = json!({"blob": "é".repeat(1 << 16)});
        w.hear(h);
    }
    let p = w.perception("ann").unwrap();
    let events = p["recentEvents"].as_array().unwrap();
    assert!(!events.is_empty());
    for e in events {
        assert_eq!(
            e["type"].as_str().unwrap().chars().count(),
            MAX_HEARD_KIND_CHARS
        );
        let payload = &e["payload"];
        assert_eq!(payload["clipped"], true, "{payload}");
        assert_eq!(
            payload["bytes"],
            json!(json!({"blob": "é".repeat(1 << 16)}).to_string().len())
        );
        let preview = payload["preview"].as_str().unwrap();
        assert_eq!(preview.chars().count(), HEARD_PREVIEW_CHARS);
        assert!(preview.starts_with("{\"blob\":\"éé"), "{preview}");
    }
    let size = p.to_string().len();
    assert!(
        size < 16 * (MAX_HEARD_PAYLOAD_BYTES + 1024),
        "perception of {size} bytes"
    );
    // A payload within the bound is kept as it was.
    let mut w = world();
    body(&mut w, "ann", [0.0; 3]);
    let mut h = heard(&w, "agent.signal.small");
    h.payload = small.clone();
    w.hear(h);
    assert_eq!(
        w.perception("ann").unwrap()["recentEvents"][0]["payload"],
        small
    );
}
