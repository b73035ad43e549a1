//! Core `social` skills: walk up to someone and speak, always as the calling agent. The
//! speaker is bound by the host from the session; an `actorId` in the input is only a claim,
//! recorded in the trace and never used. Inputs are strict.

use limina_sdk::Vec3;
use limina_sdk::host::agents::{self, ApproachTarget};
use limina_sdk::prelude::*;

/// An entity id or a point [x, y, z].
#[derive(Serialize, Deserialize, JsonSchema, Clone)]
#[serde(untagged)]
enum Target {
    /// An entity to walk up to, `ent_<n>`; followed as it moves.
    Entity(#[schemars(length(min = 1))] String),
    /// A point to walk to, [x, y, z] in metres.
    Point([f64; 3]),
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ApproachInput {
    /// Whom or where to walk to: an entity id or a point [x, y, z].
    target: Target,
    /// Stop this many metres from the target; 1.5 when absent.
    #[serde(default)]
    #[schemars(range(max = 50), extend("exclusiveMinimum" = 0))]
    talk_distance: Option<f64>,
}

#[derive(Serialize, JsonSchema)]
struct ApproachOutput {
    /// True when your body started walking; false when you have no body, the target entity
    /// does not exist, or you are already within talkDistance.
    approaching: bool,
    /// The target, as given.
    target: Target,
}

fn approach(input: ApproachInput, _ctx: &CallContext) -> Result<ApproachOutput, SkillError> {
    let target = match &input.target {
        Target::Entity(id) => ApproachTarget::Entity(id.clone()),
        Target::Point(p) => ApproachTarget::Point(Vec3 {
            x: p[0],
            y: p[1],
            z: p[2],
        }),
    };
    let approaching = agents::approach(&target, input.talk_distance)?;
    Ok(ApproachOutput {
        approaching,
        target: input.target,
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SayInput {
    /// What to say.
    #[schemars(length(min = 1, max = 280))]
    text: String,
    /// Ignored: the speaker is always you, the calling agent. A value here is recorded in the
    /// trace as a claim.
    #[serde(default)]
    actor_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct SayOutput {
    /// True once the words were said.
    said: bool,
    /// Who spoke: always the calling agent.
    speaker: String,
    /// Your speech bubble's UI handle, `ui_<n>`.
    handle: String,
}

fn say(input: SayInput, ctx: &CallContext) -> Result<SayOutput, SkillError> {
    let handle = agents::say(&input.text, input.actor_id.as_deref())?;
    Ok(SayOutput {
        said: true,
        speaker: ctx.agent_id.clone(),
        handle,
    })
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "social.approach",
                "1.0.0",
                "Walk your body (the entity tagged agent:<yourAgentId>) toward an entity or a point over the next ticks, stopping talkDistance metres away (1.5 by default); approaching is false if you have no body or nothing to walk to.",
                approach,
            )
            .permissions(&["social.act"]),
        )
        .skill(
            Skill::new(
                "social.say",
                "1.0.0",
                "Say something out loud as yourself: it shows in your speech bubble and other agents perceive it; returns the bubble's handle.",
                say,
            )
            .permissions(&["social.act"]),
        )
);
