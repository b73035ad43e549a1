use super::*;

fn world(max_entities: usize) -> World {
    World::new(WorldSettings {
        max_entities,
        tick_seconds: 1.0 / 60.0,
    })
}

fn spec(position: [f64; 3], body: BodyKind) -> EntitySpec {
    EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: 1.0,
        color: 0xffffff,
        position,
        body,
        friction: 0.5,
        restitution: 0.0,
    }
}

#[test]
fn ids_are_issued_in_order_and_never_reused() {
    let mut w = world(10);
    let a = w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap();
    assert_eq!(a, "ent_1");
    assert!(w.destroy_entity(&a));
    assert!(!w.destroy_entity(&a));
    let b = w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap();
    assert_eq!(b, "ent_2");
}

#[test]
fn query_filters_by_distance_and_reports_it() {
    let mut w = world(10);
    w.create_entity(&spec([3.0, 4.0, 0.0], BodyKind::None))
        .unwrap();
    w.create_entity(&spec([30.0, 0.0, 0.0], BodyKind::None))
        .unwrap();
    let near = w.query_entities(&EntityFilter {
        near: Some([0.0; 3]),
        radius: Some(5.0),
        tag: None,
    });
    assert_eq!(near.len(), 1);
    assert_eq!(near[0].id, "ent_1");
    assert!((near[0].distance - 5.0).abs() < 1e-9);
    let all = w.query_entities(&EntityFilter::default());
    assert_eq!(
        all.iter().map(|e| e.distance).collect::<Vec<_>>(),
        vec![0.0, 0.0]
    );
}

#[test]
fn entity_cap_is_a_capacity_error() {
    let mut w = world(1);
    w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap();
    let err = w
        .create_entity(&spec([0.0; 3], BodyKind::None))
        .unwrap_err();
    assert!(matches!(err, WorldError::Capacity(_)));
    assert_eq!(w.entity_count(), 1);
}

#[test]
fn a_rolled_back_call_that_folded_the_change_log_keeps_the_changes_before_it() {
    let mut w = world(10);
    let ids: Vec<String> = (0..10)
        .map(|_| w.create_entity(&spec([0.0; 3], BodyKind::None)).unwrap())
        .collect();
    w.take_changes();
    // Moved before the call: entities with higher numbers than the one the call moves.
    for id in &ids[1..] {
        w.set_transform(id, Some([1.0, 0.0, 0.0]), None, None);
    }
    w.begin();
    // Enough moves of one entity to fold the log inside the call.
    for i in 0..1100 {
        w.set_transform(&ids[0], Some([i as f64, 0.0, 0.0]), None, None);
    }
    w.rollback();
    let changed: Vec<String> = w.take_changes().changed.into_iter().map(|c| c.id).collect();
    assert_eq!(changed, ids[1..]);
}

#[test]
fn rollback_undoes_creates_destroys_transforms_and_tags() {
    let mut w = world(10);
    let kept = w
        .create_entity(&spec([1.0, 2.0, 3.0], BodyKind::Dynamic))
        .unwrap();
    w.add_tag(&kept, "crate");
    let before = w.query_entities(&EntityFilter::default());

    w.begin();
    w.create_entity(&spec([0.0; 3], BodyKind::Fixed)).unwrap();
    w.set_transform(&kept, Some([9.0, 9.0, 9.0]), None, None);
    w.remove_tag(&kept, "crate");
    w.add_tag(&kept, "moved");
    assert!(w.destroy_entity(&kept));
    w.rollback();

    let after = w.query_entities(&EntityFilter::default());
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].id, before[0].id);
    assert_eq!(after[0].transform, before[0].transform);
    assert_eq!(after[0].tags, vec!["crate".to_string()]);
    assert!(after[0].body_id.is_some());
}

#[test]
fn a_dynamic_body_falls_and_a_render_only_entity_does_not() {
    let mut w = world(10);
    let falling = w
        .create_entity(&spec([0.0, 10.0, 0.0], BodyKind::Dynamic))
        .unwrap();
    let floating = w
        .create_entity(&spec([5.0, 10.0, 0.0], BodyKind::None))
        .unwrap();
    for _ in 0..30 {
        w.step();
    }
    assert_eq!(w.tick(), 30);
    assert!(w.get_entity(&falling).unwrap().transform.position[1] < 9.0);
    assert_eq!(w.get_entity(&floating).unwrap().transform.position[1], 10.0);
}
