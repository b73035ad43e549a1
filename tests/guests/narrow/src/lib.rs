//! Hostile guest: a skill that needs no permission but creates an entity, so a session
//! narrower than the package's capabilities tries to act through it.

use limina_sdk::Vec3;
use limina_sdk::host::scene;
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Made {
    entity: String,
}

fn create(_: Empty, _: &CallContext) -> Result<Made, SkillError> {
    let entity = scene::create_entity(scene::EntitySpec {
        shape: scene::Shape::Sphere,
        collider: None,
        size: 1.0,
        color: 0,
        position: Vec3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        body: scene::BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    })?;
    Ok(Made { entity })
}

limina_sdk::export_package!(Package::new().skill(Skill::new(
    "narrow.create",
    "0.1.0",
    "Creates a sphere (needs no permission of its caller).",
    create
)));
