//! Shared delta frames: subscribers owed the same delta share one serialized frame; different
//! areas and views still get exactly their own changes.

use super::*;
use crate::mcp::dispatch::test_server::server;
use crate::world::{BodyKind, EntitySpec, Shape};

fn world(server: &mut Server) -> &mut World {
    &mut server.registry_mut().realm_mut().world
}

fn create(server: &mut Server, position: [f64; 3]) -> String {
    world(server)
        .create_entity(&EntitySpec {
            shape: Shape::Box,
            collider: None,
            size: 1.0,
            color: 0,
            position,
            body: BodyKind::None,
            friction: 0.5,
            restitution: 0.1,
        })
        .unwrap()
}

fn near(center: [f64; 3], detail: bool) -> Subscription {
    Subscription {
        aoi: Some(Aoi {
            center,
            radius: 10.0,
        }),
        detail,
        ..Subscription::default()
    }
}

fn parsed(frame: &Frame) -> Value {
    serde_json::from_str(frame.as_str()).unwrap()
}

fn ids(delta: &Value, field: &str) -> Vec<String> {
    delta["params"][field]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.get("id").unwrap_or(c).as_str().unwrap().to_string())
        .collect()
}

/// A server watching a world with one entity near the origin and one far off, and the
/// subscribers: two near the origin, one of them twice over (same area), one far off, one near
/// the origin in detail, one with no area.
fn watched() -> (Server, String, String, Vec<Subscription>) {
    let mut server = server();
    let here = create(&mut server, [0.0, 0.0, 0.0]);
    let there = create(&mut server, [100.0, 0.0, 0.0]);
    server.watch_world();
    server.take_world_update();
    let mut subs = vec![
        near([0.0; 3], false),
        near([0.0; 3], false),
        near([100.0, 0.0, 0.0], false),
        near([0.0; 3], true),
        Subscription::default(),
    ];
    for s in &mut subs {
        server.snapshot(s);
    }
    (server, here, there, subs)
}

/// Each subscriber's frame for the world's latest update, and how many distinct ones were built.
fn publish(server: &mut Server, subs: &mut [Subscription]) -> (Vec<Option<Frame>>, usize) {
    let update = server.take_world_update().expect("the world changed");
    let mut deltas = Deltas::new(&update, &[]);
    let frames = subs
        .iter_mut()
        .map(|s| server.delta_frame(s, &mut deltas))
        .collect();
    (frames, deltas.built())
}

#[test]
fn subscribers_with_the_same_area_share_one_frame_and_others_get_only_their_own() {
    let (mut server, here, there, mut subs) = watched();
    world(&mut server).set_transform(&here, Some([1.0, 0.0, 0.0]), None, None);
    world(&mut server).set_transform(&there, Some([101.0, 0.0, 0.0]), None, None);
    let (frames, built) = publish(&mut server, &mut subs);
    let [same_a, same_b, far, detail, everything] = &frames[..] else {
        unreachable!()
    };
    let (same_a, same_b) = (same_a.as_ref().unwrap(), same_b.as_ref().unwrap());
    assert_eq!(same_a.as_str(), same_b.as_str(), "byte-identical");
    assert_eq!(
        same_a.as_ptr(),
        same_b.as_ptr(),
        "one frame, shared, not two copies"
    );
    assert_eq!(ids(&parsed(same_a), "changes"), [here.as_str()]);
    assert_eq!(
        ids(&parsed(far.as_ref().unwrap()), "changes"),
        [there.as_str()]
    );
    // The detailed view near the origin is its own frame: the plain subscribers never get
    // its detail, it never gets the plain form.
    let detail = parsed(detail.as_ref().unwrap());
    assert_eq!(ids(&detail, "changes"), [here.as_str()]);
    assert!(
        detail["params"]["changes"][0].get("shape").is_some(),
        "{detail}"
    );
    assert!(
        parsed(same_a)["params"]["changes"][0]
            .get("shape")
            .is_none(),
        "{same_a}"
    );
    let everything = parsed(everything.as_ref().unwrap());
    let mut all = ids(&everything, "changes");
    all.sort();
    let mut expected = vec![here, there];
    expected.sort();
    assert_eq!(all, expected);
    assert_eq!(built, 4, "four distinct deltas for five subscribers");
}

#[test]
fn leaving_an_area_is_a_removal_for_those_who_saw_it_and_nothing_for_the_rest() {
    let (mut server, here, _there, mut subs) = watched();
    // `here` moves far from the origin, out of three areas and into the far one.
    world(&mut server).set_transform(&here, Some([100.0, 5.0, 0.0]), None, None);
    let (frames, _) = publish(&mut server, &mut subs);
    for near_origin in [&frames[0], &frames[1], &frames[3]] {
        let delta = parsed(near_origin.as_ref().unwrap());
        assert_eq!(ids(&delta, "changes"), Vec::<String>::new(), "{delta}");
        assert_eq!(ids(&delta, "removed"), [here.as_str()], "{delta}");
    }
    let far = parsed(frames[2].as_ref().unwrap());
    assert_eq!(
        ids(&far, "changes"),
        [here.as_str()],
        "it entered the far area"
    );
    assert_eq!(ids(&far, "removed"), Vec::<String>::new());
    // A move inside the far area only: nothing for those near the origin.
    world(&mut server).set_transform(&here, Some([101.0, 5.0, 0.0]), None, None);
    let (frames, built) = publish(&mut server, &mut subs);
    assert!(frames[0].is_none() && frames[1].is_none() && frames[3].is_none());
    assert_eq!(ids(&parsed(frames[2].as_ref().unwrap()), "changes"), [here]);
    assert_eq!(built, 1, "far and everywhere owe the same delta");
    assert_eq!(
        frames[2].as_ref().unwrap().as_str(),
        frames[4].as_ref().unwrap().as_str()
    );
}

#[test]
fn a_frame_is_never_reused_for_a_later_update() {
    let (mut server, here, _there, mut subs) = watched();
    world(&mut server).set_transform(&here, Some([1.0, 0.0, 0.0]), None, None);
    let (first, _) = publish(&mut server, &mut subs);
    world(&mut server).step();
    world(&mut server).set_transform(&here, Some([2.0, 0.0, 0.0]), None, None);
    let (second, _) = publish(&mut server, &mut subs);
    let (a, b) = (
        parsed(first[0].as_ref().unwrap()),
        parsed(second[0].as_ref().unwrap()),
    );
    assert_eq!(a["params"]["changes"][0]["pos"][0], 1.0);
    assert_eq!(
        b["params"]["changes"][0]["pos"][0], 2.0,
        "the second update's own state"
    );
    assert_ne!(a["params"]["tick"], b["params"]["tick"]);
}
