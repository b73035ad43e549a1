//! Core `scene` skills: create, destroy and query entities.

use limina_sdk::Vec3;
use limina_sdk::host::scene::{self, BodyKind, ColliderShape, EntityFilter, EntitySpec, Shape};
use limina_sdk::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Default)]
#[serde(rename_all = "lowercase")]
enum ShapeIn {
    #[default]
    Box,
    Sphere,
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum ColliderIn {
    Box,
    Sphere,
    Capsule,
}

fn one() -> f64 {
    1.0
}
fn white() -> u32 {
    0xffffff
}
fn half() -> f64 {
    0.5
}

#[derive(Deserialize, JsonSchema)]
struct CreateEntityInput {
    /// Render shape.
    #[serde(default)]
    shape: ShapeIn,
    /// Collision shape; defaults to the render shape.
    #[serde(default)]
    collider: Option<ColliderIn>,
    /// Edge length of a box or diameter of a sphere, in metres.
    #[serde(default = "one")]
    #[schemars(range(max = 50), extend("exclusiveMinimum" = 0))]
    size: f64,
    /// Colour as 0xRRGGBB.
    #[serde(default = "white")]
    #[schemars(range(min = 0, max = 0xffffff))]
    color: u32,
    /// Where to place it, [x, y, z] in metres.
    #[serde(default)]
    position: [f64; 3],
    /// Give it a dynamic rigid body that physics moves.
    #[serde(default)]
    dynamic: bool,
    /// Give it a fixed rigid body that others collide with.
    #[serde(default, rename = "static")]
    fixed: bool,
    /// Collider friction.
    #[serde(default = "half")]
    #[schemars(range(min = 0, max = 10))]
    friction: f64,
    /// Collider bounciness.
    #[serde(default)]
    #[schemars(range(min = 0, max = 2))]
    restitution: f64,
}

#[derive(Serialize, JsonSchema)]
struct CreateEntityOutput {
    /// The new entity's id, `ent_<n>`.
    entity: String,
}

fn vec3(p: [f64; 3]) -> Vec3 {
    Vec3 {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

fn create_entity(
    input: CreateEntityInput,
    _ctx: &CallContext,
) -> Result<CreateEntityOutput, SkillError> {
    if input.dynamic && input.fixed {
        return Err(SkillError::InvalidInput(
            "`dynamic` and `static` cannot both be true: choose one body kind".into(),
        ));
    }
    let body = match (input.dynamic, input.fixed) {
        (true, _) => BodyKind::Dynamic,
        (_, true) => BodyKind::Fixed,
        _ => BodyKind::None,
    };
    let spec = EntitySpec {
        shape: match input.shape {
            ShapeIn::Box => Shape::Box,
            ShapeIn::Sphere => Shape::Sphere,
        },
        collider: input.collider.map(|c| match c {
            ColliderIn::Box => ColliderShape::Box,
            ColliderIn::Sphere => ColliderShape::Sphere,
            ColliderIn::Capsule => ColliderShape::Capsule,
        }),
        size: input.size,
        color: input.color,
        position: vec3(input.position),
        body,
        friction: input.friction,
        restitution: input.restitution,
    };
    let entity = scene::create_entity(spec)?;
    Ok(CreateEntityOutput { entity })
}

#[derive(Deserialize, JsonSchema)]
struct DestroyEntityInput {
    /// Id of the entity to remove.
    entity: String,
}

#[derive(Serialize, JsonSchema)]
struct DestroyEntityOutput {
    /// False when no such entity existed.
    removed: bool,
}

fn destroy_entity(
    input: DestroyEntityInput,
    _ctx: &CallContext,
) -> Result<DestroyEntityOutput, SkillError> {
    Ok(DestroyEntityOutput {
        removed: scene::destroy_entity(&input.entity)?,
    })
}

#[derive(Deserialize, JsonSchema)]
struct QueryEntitiesInput {
    /// With `radius`: only entities within `radius` metres of this point.
    #[serde(default)]
    near: Option<[f64; 3]>,
    /// Search radius in metres, used with `near`.
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0))]
    radius: Option<f64>,
    /// Only entities carrying this tag.
    #[serde(default)]
    tag: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct EntityHit {
    entity: String,
    position: [f64; 3],
    distance: f64,
}

#[derive(Serialize, JsonSchema)]
struct QueryEntitiesOutput {
    /// Matching entities sorted by id.
    entities: Vec<EntityHit>,
}

fn query_entities(
    input: QueryEntitiesInput,
    _ctx: &CallContext,
) -> Result<QueryEntitiesOutput, SkillError> {
    let found = scene::query_entities(&EntityFilter {
        near: input.near.map(vec3),
        radius: input.radius,
        tag: input.tag,
    })?;
    let entities = found
        .into_iter()
        .map(|e| {
            let p = e.transform.position;
            EntityHit {
                entity: e.id,
                position: [p.x, p.y, p.z],
                distance: e.distance,
            }
        })
        .collect();
    Ok(QueryEntitiesOutput { entities })
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "scene.createEntity",
                "1.0.0",
                "Create a box or sphere entity in the world, optionally with a dynamic or static physics body; returns its id.",
                create_entity,
            )
            .permissions(&["scene.write"]),
        )
        .skill(
            Skill::new(
                "scene.destroyEntity",
                "1.0.0",
                "Remove an entity and its physics body from the world; removed is false if the id did not exist.",
                destroy_entity,
            )
            .permissions(&["scene.write"]),
        )
        .skill(
            Skill::new(
                "scene.queryEntities",
                "1.0.0",
                "List entities sorted by id, optionally only those within radius of a point or carrying a tag, with their positions and distances.",
                query_entities,
            )
            .permissions(&["scene.read"]),
        )
);
