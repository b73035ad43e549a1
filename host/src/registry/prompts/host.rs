//! The host's own prompts: building a scene, looking at an entity, and explaining why
//! something happened. Each embeds the resources it is about, read through the resource
//! pipeline as the caller.

use super::{PromptArgument, PromptInfo, PromptMessages, PromptSource};
use crate::call::{ErrorCode, Failure};
use crate::policy::{Permission, Permissions};
use crate::registry::resources::Access;
use crate::registry::{Caller, Registry};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

pub(super) fn source() -> Arc<dyn PromptSource> {
    Arc::new(HostPrompts)
}

/// Looks of a scene `build-scene` completes its `style` with.
const STYLES: [&str; 6] = ["bright", "dusk", "night", "pastel", "stone", "toy"];

fn argument(name: &str, description: &str, required: bool) -> PromptArgument {
    PromptArgument {
        name: name.into(),
        description: Some(description.into()),
        required,
    }
}

fn access(name: &str, required: &[Permission]) -> Access {
    Access {
        cap: format!("prompt.{name}"),
        required: required.iter().copied().collect::<Permissions>(),
        package: None,
    }
}

fn text(text: String) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

/// An embedded resource, read as `caller` (decided and traced like any read).
fn embedded(registry: &mut Registry, caller: &Caller, uri: &str) -> Result<Value, Failure> {
    let contents = registry.read_resource(caller, uri)?;
    Ok(
        json!({"role": "user", "content": {"type": "resource", "resource": {
            "uri": contents.uri, "mimeType": contents.mime_type, "text": contents.text,
        }}}),
    )
}

/// What a prompt's argument refers to that is not there: the argument is wrong.
fn no_such(argument: &str, failure: Failure, what: &str) -> Failure {
    match failure.code {
        ErrorCode::NotFound => Failure::new(
            ErrorCode::InvalidInput,
            format!(
                "`{argument}`: no {what} by that id; complete the argument to see the ones there are"
            ),
        ),
        _ => failure,
    }
}

struct HostPrompts;

impl PromptSource for HostPrompts {
    fn prompts(&self, _: &Registry) -> Vec<(PromptInfo, Access)> {
        use Permission::*;
        vec![
            (
                PromptInfo {
                    name: "build-scene".into(),
                    title: Some("Build a scene".into()),
                    description: Some("Guidance for building a scene in the shared world with the scene, three and ui skills, then checking it.".into()),
                    arguments: vec![
                        argument("description", "What to build, e.g. a small square with a well and two benches.", true),
                        argument("style", "The look: bright, dusk, night, pastel, stone or toy (or your own words).", false),
                    ],
                },
                access("build-scene", &[SceneRead, SceneWrite]),
            ),
            (
                PromptInfo {
                    name: "inspect-entity".into(),
                    title: Some("Look at an entity".into()),
                    description: Some("One entity as the world holds it, with a request to describe it and what acts on it.".into()),
                    arguments: vec![argument("entity", "The entity's id, e.g. ent_1.", true)],
                },
                access("inspect-entity", &[SceneRead]),
            ),
            (
                PromptInfo {
                    name: "explain-event".into(),
                    title: Some("Explain a trace event".into()),
                    description: Some("One event of the trace, with a request to explain why it happened and which policy decision governed it.".into()),
                    arguments: vec![argument("eventId", "The event's id (evt_…), e.g. from trace.tail.", true)],
                },
                access("explain-event", &[]),
            ),
        ]
    }

    fn get(
        &self,
        registry: &mut Registry,
        caller: &Caller,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptMessages, Failure> {
        let arg = |key: &str| arguments.get(key).map(|v| v.trim()).unwrap_or_default();
        match name {
            "build-scene" => {
                let style = match arg("style") {
                    "" => String::new(),
                    style => format!(" Give it a {style} look."),
                };
                let guide = format!(
                    "Build this in the shared Limina world: {}.{style}\n\n\
                     The world as it stands is attached. Work in steps:\n\
                     1. Plan the layout in metres (y is up; the ground is y = 0 unless something is there).\n\
                     2. Create each part with scene.createEntity (shape box or sphere, size, color as 0xRRGGBB, position; static for floors and walls, dynamic for things that should fall).\n\
                     3. Shape and colour them with three.setTransform and three.setMaterial; set the mood with three.setLighting.\n\
                     4. Label what matters with ui.createPanel.\n\
                     5. Check the result: read limina://world/scene (or call scene.queryEntities) and fix what is off. \
                     Clients that show MCP Apps draw the world inline with the scene skills' results.\n\
                     Stay within the world's maxEntities; errors come back as results whose text starts with the error code and says what to change.",
                    arg("description")
                );
                Ok(PromptMessages {
                    description: Some("Build a scene in the shared world".into()),
                    messages: vec![text(guide), embedded(registry, caller, "limina://world")?],
                })
            }
            "inspect-entity" => {
                let id = arg("entity");
                let uri = format!("limina://entity/{id}");
                let entity =
                    embedded(registry, caller, &uri).map_err(|f| no_such("entity", f, "entity"))?;
                Ok(PromptMessages {
                    description: Some(format!("Look at entity {id}")),
                    messages: vec![
                        text(format!(
                            "Describe entity {id} of the shared world (attached): its shape, size, place, material and tags, and what is near it. \
                             If it moved or changed, trace.tail and audit.explain say who did it and why."
                        )),
                        entity,
                    ],
                })
            }
            "explain-event" => {
                let id = arg("eventId");
                let uri = format!("limina://trace/{id}");
                let event = embedded(registry, caller, &uri)
                    .map_err(|f| no_such("eventId", f, "trace event"))?;
                Ok(PromptMessages {
                    description: Some(format!("Explain trace event {id}")),
                    messages: vec![
                        text(format!(
                            "Explain trace event {id} (attached): what happened, who caused it, and which policy decision governed it. \
                             Use audit.explain {{\"eventId\": \"{id}\"}} for the decision and trace.explainEvent for its parents and children."
                        )),
                        event,
                    ],
                })
            }
            other => Err(Failure::new(
                ErrorCode::NotFound,
                format!("unknown prompt `{other}`"),
            )),
        }
    }

    fn complete(
        &self,
        registry: &Registry,
        caller: &Caller,
        name: &str,
        argument: &str,
        prefix: &str,
        limit: usize,
    ) -> Vec<String> {
        match (name, argument) {
            ("build-scene", "style") => STYLES
                .iter()
                .filter(|s| s.starts_with(prefix))
                .take(limit)
                .map(|s| s.to_string())
                .collect(),
            ("inspect-entity", "entity") => registry
                .complete_template(caller, "limina://entity/{id}", "id", prefix, limit)
                .unwrap_or_default(),
            ("explain-event", "eventId") => registry
                .complete_template(caller, "limina://trace/{eventId}", "eventId", prefix, limit)
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}
