//! `limina:skill/agents`: perception, signals, approach and speech, always for the calling
//! agent. The agent id comes from the session bound to the call, never from an argument.

use super::v3;
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::instance::{ActiveCall, GuestState};
use crate::world::{ApproachTarget, Heard};
use serde_json::{Value, json};

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::agents;

            /// Longest signal kind, in characters.
            const MAX_SIGNAL_KIND_CHARS: usize = 128;

            impl agents::Host for GuestState {
                fn perception(&mut self) -> Result<String, WorldError> {
                    let call = self.active(Permission::AgentRead)?;
                    let view = call.realm.world.perception(&call.info.agent_id);
                    Ok(crate::json::text(&view.unwrap_or(Value::Null)))
                }

                fn emit_signal(&mut self, kind: String, payload: String) -> Result<String, WorldError> {
                    let call = self.active(Permission::AgentWrite)?;
                    let chars = kind.chars().count();
                    if chars == 0 || chars > MAX_SIGNAL_KIND_CHARS || kind.chars().any(char::is_control) {
                        return Err(WorldError::Invalid(format!(
                            "`type` must be 1 to {MAX_SIGNAL_KIND_CHARS} characters without control characters"
                        )));
                    }
                    let payload: Value = serde_json::from_str(&payload)
                        .map_err(|e| WorldError::Invalid(format!("`payload` is not valid JSON: {e}")))?;
                    if !payload.is_object() {
                        return Err(WorldError::Invalid(
                            "`payload` must be a JSON object".into(),
                        ));
                    }
                    Ok(emit_heard(call, format!("agent.signal.{kind}"), payload))
                }

                fn approach(
                    &mut self,
                    target: agents::ApproachTarget,
                    talk_distance: Option<f64>,
                ) -> Result<bool, WorldError> {
                    let call = self.active(Permission::SocialAct)?;
                    let target = match target {
                        agents::ApproachTarget::Entity(id) => ApproachTarget::Entity(id),
                        agents::ApproachTarget::Point(p) => ApproachTarget::Point(v3(p)),
                    };
                    call.realm
                        .world
                        .approach(&call.info.agent_id, target, talk_distance)
                        .map_err(super::super::from_world)
                }

                fn say(&mut self, text: String, claimed_actor: Option<String>) -> Result<String, WorldError> {
                    let call = self.active(Permission::SocialAct)?;
                    let speaker = call.info.agent_id.clone();
                    let handle = call
                        .realm
                        .world
                        .say(&speaker, &text)
                        .map_err(super::super::from_world)?;
                    let mut payload = json!({"speaker": speaker, "text": text, "handle": handle});
                    if let Some(claimed) = claimed_actor {
                        // Recorded so an auditor sees who the payload pretended to be; never the speaker.
                        payload["claim"] = json!({
                            "actorId": claimed,
                            "honoured": false,
                            "matchesSpeaker": claimed == speaker,
                        });
                    }
                    emit_heard(call, "social.said".into(), payload);
                    Ok(handle)
                }
            }

            /// Writes an event attributed to the calling agent, caused by the invocation, and lets nearby
            /// agents perceive it; returns the event id.
            fn emit_heard(call: &mut ActiveCall, kind: String, payload: Value) -> String {
                let id = call.emit(&kind, payload.clone());
                let tick = call.realm.world.tick();
                call.realm.world.hear(Heard {
                    event_id: id.clone(),
                    kind,
                    actor_id: call.info.agent_id.clone(),
                    tick,
                    payload,
                });
                id
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
