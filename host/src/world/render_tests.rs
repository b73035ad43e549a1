//! Materials and lighting: patches, checks, and rollback.

use super::super::*;

fn world() -> World {
    World::new(WorldSettings {
        max_entities: 10,
        tick_seconds: 1.0 / 60.0,
    })
}

fn entity(w: &mut World, color: u32) -> String {
    w.create_entity(&EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: 1.0,
        color,
        position: [0.0; 3],
        body: BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    })
    .unwrap()
}

#[test]
fn a_material_patch_changes_only_the_given_fields() {
    let mut w = world();
    let e = entity(&mut w, 0x112233);
    let m = w.material(&e).unwrap();
    assert_eq!((m.color, m.roughness, m.metalness), (0x112233, 1.0, 0.0));
    let patch = MaterialPatch {
        metalness: Some(0.8),
        cast_shadow: Some(true),
        ..Default::default()
    };
    assert_eq!(w.set_material(&e, &patch), Ok(true));
    let m = w.material(&e).unwrap();
    assert_eq!(m.color, 0x112233);
    assert_eq!((m.roughness, m.metalness), (1.0, 0.8));
    assert!(m.cast_shadow && !m.receive_shadow);
    assert_eq!(w.set_material("ent_99", &patch), Ok(false));
}

#[test]
fn out_of_range_material_and_lighting_values_name_the_field_and_change_nothing() {
    let mut w = world();
    let e = entity(&mut w, 0);
    let before = w.material(&e);
    for (patch, field) in [
        (
            MaterialPatch {
                roughness: Some(1.5),
                ..Default::default()
            },
            "roughness",
        ),
        (
            MaterialPatch {
                color: Some(0x1000000),
                ..Default::default()
            },
            "color",
        ),
    ] {
        match w.set_material(&e, &patch) {
            Err(WorldError::Invalid(m)) => assert!(m.contains(&format!("`{field}`")), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(w.material(&e), before);
    let bad = Lighting {
        shadow_map_size: 100,
        ..Lighting::default()
    };
    let err = w.set_lighting(bad).unwrap_err();
    assert!(err.to_string().contains("`shadowMapSize`"), "{err}");
    assert_eq!(*w.lighting(), Lighting::default());
}

#[test]
fn rollback_restores_materials_lighting_and_a_destroyed_entitys_material() {
    let mut w = world();
    let e = entity(&mut w, 0xffffff);
    let red = MaterialPatch {
        color: Some(0xff0000),
        roughness: Some(0.2),
        ..Default::default()
    };
    w.set_material(&e, &red).unwrap();
    let kept = w.material(&e).unwrap();

    w.begin();
    w.set_material(
        &e,
        &MaterialPatch {
            color: Some(0x00ff00),
            roughness: Some(0.9),
            ..Default::default()
        },
    )
    .unwrap();
    w.set_lighting(Lighting {
        ambient_intensity: 5.0,
        ..Lighting::default()
    })
    .unwrap();
    assert!(w.destroy_entity(&e));
    w.rollback();

    assert_eq!(w.material(&e), Some(kept));
    assert_eq!(*w.lighting(), Lighting::default());
}
