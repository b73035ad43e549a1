//! Core `ecs` skills: write an entity's transform components, attach and detach tags.

use limina_sdk::host::{ecs, trace};
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum ComponentIn {
    Position,
    Rotation,
    Scale,
}

#[derive(Deserialize, JsonSchema)]
struct UpdateComponentInput {
    /// Id of the entity, `ent_<n>`.
    entity: String,
    /// Which transform component to write.
    component: ComponentIn,
    /// [x, y, z] for position and scale; a rotation is a quaternion [x, y, z, w], or
    /// [x, y, z] meaning w = 1.
    #[schemars(length(min = 3, max = 4))]
    value: Vec<f64>,
}

#[derive(Serialize, JsonSchema)]
struct OkOutput {
    /// False when the entity does not exist (or, for removeComponent, had no such tag).
    ok: bool,
}

fn update_component(
    input: UpdateComponentInput,
    _ctx: &CallContext,
) -> Result<OkOutput, SkillError> {
    let component = match input.component {
        ComponentIn::Position => ecs::TransformComponent::Position,
        ComponentIn::Rotation => ecs::TransformComponent::Rotation,
        ComponentIn::Scale => ecs::TransformComponent::Scale,
    };
    let ok = ecs::update_component(&input.entity, component, &input.value)?;
    Ok(OkOutput { ok })
}

#[derive(Deserialize, JsonSchema)]
struct TagInput {
    /// Id of the entity, `ent_<n>`.
    entity: String,
    /// The component (tag) name.
    #[schemars(length(min = 1))]
    component: String,
}

/// Writes `ecs.<kind>` into the trace, caused by this call.
fn emit(kind: &str, input: &TagInput) -> Result<(), SkillError> {
    let payload = serde_json::json!({"entity": input.entity, "component": input.component});
    trace::emit(kind, &payload.to_string())?;
    Ok(())
}

fn add_component(input: TagInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    let ok = ecs::add_tag(&input.entity, &input.component)?;
    if ok {
        emit("component.added", &input)?;
    }
    Ok(OkOutput { ok })
}

fn remove_component(input: TagInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    let ok = ecs::remove_tag(&input.entity, &input.component)?;
    // Only an actual removal is an event worth tracing.
    if ok {
        emit("component.removed", &input)?;
    }
    Ok(OkOutput { ok })
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "ecs.updateComponent",
                "1.0.0",
                "Set an entity's position, rotation (quaternion [x,y,z,w]) or scale; ok is false if the entity does not exist.",
                update_component,
            )
            .permissions(&["ecs.modify"]),
        )
        .skill(
            Skill::new(
                "ecs.addComponent",
                "1.0.0",
                "Attach a named tag component to an entity so it can be found by tag; ok is false if the entity does not exist.",
                add_component,
            )
            .permissions(&["ecs.modify"]),
        )
        .skill(
            Skill::new(
                "ecs.removeComponent",
                "1.0.0",
                "Detach a named tag component from an entity; ok is false if the entity does not exist or did not carry it.",
                remove_component,
            )
            .permissions(&["ecs.modify"]),
        )
);
