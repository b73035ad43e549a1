//! Core `physics` skills: push dynamic bodies, cast rays and read collision events from the
//! host's rapier world.

use limina_sdk::Vec3;
use limina_sdk::host::physics;
use limina_sdk::prelude::*;

fn vec3(p: [f64; 3]) -> Vec3 {
    Vec3 {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

fn arr(v: Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

#[derive(Deserialize, JsonSchema)]
struct ApplyImpulseInput {
    /// Id of an entity with a dynamic body, `ent_<n>`.
    entity: String,
    /// Impulse [x, y, z] in newton-seconds; the velocity change is impulse / mass.
    impulse: [f64; 3],
}

#[derive(Serialize, JsonSchema)]
struct ApplyImpulseOutput {
    /// False when the entity does not exist or has no dynamic body.
    ok: bool,
}

fn apply_impulse(
    input: ApplyImpulseInput,
    _ctx: &CallContext,
) -> Result<ApplyImpulseOutput, SkillError> {
    Ok(ApplyImpulseOutput {
        ok: physics::apply_impulse(&input.entity, vec3(input.impulse))?,
    })
}

fn thousand() -> f64 {
    1000.0
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RaycastInput {
    /// Start of the ray, [x, y, z] in metres.
    origin: [f64; 3],
    /// Direction of the ray, [x, y, z]; need not be normalized, must not be zero.
    direction: [f64; 3],
    /// Farthest distance to look, in metres.
    #[serde(default = "thousand")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    max_distance: f64,
}

#[derive(Serialize, JsonSchema)]
struct RaycastOutput {
    /// Whether the ray hit a physics body within maxDistance.
    hit: bool,
    /// Distance from the origin to the nearest hit, in metres.
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<f64>,
    /// Where the ray hit, [x, y, z].
    #[serde(skip_serializing_if = "Option::is_none")]
    point: Option<[f64; 3]>,
    /// The entity that was hit.
    #[serde(skip_serializing_if = "Option::is_none")]
    entity: Option<String>,
}

fn raycast(input: RaycastInput, _ctx: &CallContext) -> Result<RaycastOutput, SkillError> {
    let hit = physics::raycast(
        vec3(input.origin),
        vec3(input.direction),
        input.max_distance,
    )?;
    Ok(match hit {
        Some(h) => RaycastOutput {
            hit: true,
            distance: Some(h.distance),
            point: Some(arr(h.point)),
            entity: h.entity,
        },
        None => RaycastOutput {
            hit: false,
            distance: None,
            point: None,
            entity: None,
        },
    })
}

/// No input.
#[derive(Deserialize, JsonSchema)]
struct CollisionEventsInput {}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Collision {
    /// True when the contact began, false when it ended.
    started: bool,
    /// Body id of the first side.
    body_a: u64,
    /// Body id of the second side.
    body_b: u64,
    /// Entity of the first side, if it still existed.
    #[serde(skip_serializing_if = "Option::is_none")]
    entity_a: Option<String>,
    /// Entity of the second side, if it still existed.
    #[serde(skip_serializing_if = "Option::is_none")]
    entity_b: Option<String>,
    /// Deepest contact point [x, y, z]; null for stop events.
    // Always present, `null` when absent: schemars' `required` alone would also drop `null`.
    #[schemars(required, extend("type" = ["array", "null"]))]
    point: Option<[f64; 3]>,
    /// Contact normal from A to B; null for stop events.
    // Always present, `null` when absent: schemars' `required` alone would also drop `null`.
    #[schemars(required, extend("type" = ["array", "null"]))]
    normal: Option<[f64; 3]>,
}

#[derive(Serialize, JsonSchema)]
struct CollisionEventsOutput {
    /// Contact starts and stops since the last call, oldest first.
    events: Vec<Collision>,
}

fn collision_events(
    _input: CollisionEventsInput,
    _ctx: &CallContext,
) -> Result<CollisionEventsOutput, SkillError> {
    let events = physics::drain_collision_events()?
        .into_iter()
        .map(|e| Collision {
            started: e.started,
            body_a: e.body_a,
            body_b: e.body_b,
            entity_a: e.entity_a,
            entity_b: e.entity_b,
            point: e.point.map(arr),
            normal: e.normal.map(arr),
        })
        .collect();
    Ok(CollisionEventsOutput { events })
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "physics.applyImpulse",
                "1.0.0",
                "Push an entity's dynamic physics body to move it with an instant impulse (in newton-seconds); ok is false if it has no dynamic body.",
                apply_impulse,
            )
            .permissions(&["physics.write"]),
        )
        .skill(
            Skill::new(
                "physics.raycast",
                "1.0.0",
                "Cast a ray from a point in a direction and report the nearest physics body it hits: distance, hit point and entity.",
                raycast,
            )
            .permissions(&["physics.read"]),
        )
        .skill(
            Skill::new(
                "physics.collisionEvents",
                "1.0.0",
                "Return the contact start and stop events between physics bodies since the last call, with body ids, entity ids, contact point and normal.",
                collision_events,
            )
            .permissions(&["physics.read"]),
        )
);
