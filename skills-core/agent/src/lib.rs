//! Core `agent` skills: signal an event into the trace, and perceive the world around one's
//! body. An agent's body is the entity tagged `agent:<agentId>`; the agent is always the
//! caller, bound by the host from the session.

use limina_sdk::host::agents;
use limina_sdk::prelude::*;
use serde_json::{Map, Value};

#[derive(Deserialize, JsonSchema)]
struct EmitEventInput {
    /// What happened, e.g. `greeting`; the trace records `agent.signal.<type>`.
    #[serde(rename = "type")]
    #[schemars(length(min = 1))]
    kind: String,
    /// Details of the event, any JSON object.
    #[serde(default)]
    payload: Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
struct EmitEventOutput {
    /// The id of the trace event written.
    #[serde(rename = "eventId")]
    event_id: String,
}

fn emit_event(input: EmitEventInput, _ctx: &CallContext) -> Result<EmitEventOutput, SkillError> {
    let payload = Value::Object(input.payload).to_string();
    let event_id = agents::emit_signal(&input.kind, &payload)?;
    Ok(EmitEventOutput { event_id })
}

#[derive(Deserialize, JsonSchema)]
struct GetPerceptionInput {}

#[derive(Serialize, JsonSchema)]
struct GetPerceptionOutput {
    /// `{agentId, entity, position, tick, radius, nearby: [{entity, position, distance, tags,
    /// agentId}], recentEvents: [{id, type, actorId, tick, payload}], approaching}`, or null
    /// when the calling agent has no body.
    perception: Value,
}

fn get_perception(
    _input: GetPerceptionInput,
    _ctx: &CallContext,
) -> Result<GetPerceptionOutput, SkillError> {
    let text = agents::perception()?;
    let perception = serde_json::from_str(&text)
        .map_err(|e| SkillError::HandlerError(format!("the host's perception is not JSON: {e}")))?;
    Ok(GetPerceptionOutput { perception })
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "agent.emitEvent",
                "1.0.0",
                "Announce that something happened by writing an agent.signal.<type> event with a JSON payload into the trace as yourself, where other agents perceive it; returns the event id.",
                emit_event,
            )
            .permissions(&["agent.write"]),
        )
        .skill(
            Skill::new(
                "agent.getPerception",
                "1.0.0",
                "See the world from your body (the entity tagged agent:<yourAgentId>): your position, entities within 25 m nearest first, recent signals and speech, and the tick; null if you have no body.",
                get_perception,
            )
            .permissions(&["agent.read"]),
        )
);
