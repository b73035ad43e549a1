//! Impulses, ray casts and collision events on the rapier world.

use super::super::*;

fn world() -> World {
    World::new(WorldSettings {
        max_entities: 10,
        tick_seconds: 1.0 / 60.0,
    })
}

fn spec(position: [f64; 3], size: f64, body: BodyKind) -> EntitySpec {
    EntitySpec {
        shape: Shape::Box,
        collider: None,
        size,
        color: 0xffffff,
        position,
        body,
        friction: 0.5,
        restitution: 0.0,
    }
}

fn x_of(w: &World, id: &str) -> f64 {
    w.get_entity(id).unwrap().transform.position[0]
}

#[test]
fn an_impulse_moves_only_dynamic_bodies() {
    let mut w = world();
    let ball = w
        .create_entity(&spec([0.0, 10.0, 0.0], 1.0, BodyKind::Dynamic))
        .unwrap();
    let wall = w
        .create_entity(&spec([5.0, 0.0, 0.0], 1.0, BodyKind::Fixed))
        .unwrap();
    let ghost = w
        .create_entity(&spec([9.0, 0.0, 0.0], 1.0, BodyKind::None))
        .unwrap();
    assert_eq!(w.apply_impulse(&ball, [5.0, 0.0, 0.0]), Ok(true));
    assert_eq!(w.apply_impulse(&wall, [5.0, 0.0, 0.0]), Ok(false));
    assert_eq!(w.apply_impulse(&ghost, [5.0, 0.0, 0.0]), Ok(false));
    assert_eq!(w.apply_impulse("ent_99", [5.0, 0.0, 0.0]), Ok(false));
    assert!(w.apply_impulse(&ball, [f64::NAN, 0.0, 0.0]).is_err());
    for _ in 0..10 {
        w.step();
    }
    assert!(x_of(&w, &ball) > 0.1, "{}", x_of(&w, &ball));
    assert_eq!(x_of(&w, &wall), 5.0);
}

#[test]
fn a_rolled_back_impulse_leaves_the_body_at_rest() {
    let mut w = world();
    let ball = w
        .create_entity(&spec([0.0, 0.0, 0.0], 1.0, BodyKind::Dynamic))
        .unwrap();
    w.begin();
    assert_eq!(w.apply_impulse(&ball, [50.0, 0.0, 0.0]), Ok(true));
    w.rollback();
    for _ in 0..10 {
        w.step();
    }
    assert_eq!(x_of(&w, &ball), 0.0);
}

#[test]
fn a_ray_reports_the_nearest_body_even_before_any_step() {
    let mut w = world();
    let far = w
        .create_entity(&spec([10.0, 0.0, 0.0], 2.0, BodyKind::Fixed))
        .unwrap();
    let near = w
        .create_entity(&spec([5.0, 0.0, 0.0], 2.0, BodyKind::Dynamic))
        .unwrap();
    let hit = w
        .raycast([0.0; 3], [2.0, 0.0, 0.0], 1000.0)
        .unwrap()
        .unwrap();
    assert_eq!(hit.entity.as_deref(), Some(near.as_str()));
    assert!((hit.distance - 4.0).abs() < 1e-4, "{hit:?}");
    assert!((hit.point[0] - 4.0).abs() < 1e-4, "{hit:?}");
    // Too short to reach, or pointing away: no hit.
    assert_eq!(w.raycast([0.0; 3], [1.0, 0.0, 0.0], 3.0).unwrap(), None);
    assert_eq!(w.raycast([0.0; 3], [-1.0, 0.0, 0.0], 1000.0).unwrap(), None);
    // Moving the near body out of the way exposes the far one at once.
    w.set_transform(&near, Some([5.0, 50.0, 0.0]), None, None);
    let hit = w
        .raycast([0.0; 3], [1.0, 0.0, 0.0], 1000.0)
        .unwrap()
        .unwrap();
    assert_eq!(hit.entity.as_deref(), Some(far.as_str()));
    let err = w.raycast([0.0; 3], [0.0; 3], 10.0).unwrap_err();
    assert!(err.to_string().contains("`direction`"), "{err}");
}

#[test]
fn a_box_dropped_on_a_floor_reports_a_contact_start_once() {
    let mut w = world();
    let floor = w
        .create_entity(&spec([0.0, -5.0, 0.0], 10.0, BodyKind::Fixed))
        .unwrap();
    let crate_ = w
        .create_entity(&spec([0.0, 2.0, 0.0], 1.0, BodyKind::Dynamic))
        .unwrap();
    for _ in 0..120 {
        w.step();
    }
    let events = w.drain_collision_events();
    let start = events.iter().find(|e| e.started).expect("a start event");
    let mut ids = [
        start.entity_a.clone().unwrap(),
        start.entity_b.clone().unwrap(),
    ];
    ids.sort();
    assert_eq!(ids, [floor.clone(), crate_.clone()]);
    assert_ne!(start.body_a, start.body_b);
    let point = start.point.unwrap();
    assert!(
        point[1].abs() < 0.2,
        "contact near the floor top: {point:?}"
    );
    assert!(start.normal.unwrap()[1].abs() > 0.9, "{start:?}");
    // Drained: a second call sees nothing new while the box rests.
    assert!(w.drain_collision_events().is_empty());

    // Destroying the box stops the contact; a rolled-back drain keeps the event.
    w.destroy_entity(&crate_);
    w.step();
    w.begin();
    let stops = w.drain_collision_events();
    assert_eq!(stops.len(), 1);
    assert!(!stops[0].started && stops[0].point.is_none());
    w.rollback();
    assert_eq!(w.drain_collision_events(), stops);
}
