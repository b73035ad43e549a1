//! Hostile guest: `crasher.buildThenPanic` creates an entity and then panics; the world must
//! not keep the entity.

use limina_sdk::host::scene;
use limina_sdk::prelude::*;
use limina_sdk::Vec3;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Made {
    entity: String,
}

fn build_then_panic(_: Empty, _: &CallContext) -> Result<Made, SkillError> {
    let entity = scene::create_entity(scene::EntitySpec {
        shape: scene::Shape::Box,
        collider: None,
        size: 1.0,
        color: 0,
        position: Vec3 { x: 0.0, y: 0.0, z: 0.0 },
        body: scene::BodyKind::Dynamic,
        friction: 0.5,
        restitution: 0.0,
    })?;
    panic!("crashing after creating {entity}");
}

limina_sdk::export_package!(Package::new().skill(
    Skill::new("crasher.buildThenPanic", "0.1.0", "Creates an entity, then panics.", build_then_panic)
        .permissions(&["scene.write"])
));
