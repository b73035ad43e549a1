//! `skills.list` and `skills.describe`.

use super::{Builtin, Spec, not_found, object};
use crate::registry::{Caller, Failure, Registry};
use serde_json::{Value, json};

pub(super) fn specs() -> Vec<Spec> {
    vec![
        Spec {
            builtin: Builtin::SkillsList,
            name: "skills.list",
            description: "List the skills this session may call, each with a one-line description.",
            input: object(json!({}), &[]),
            output: object(
                json!({"tools": {"type": "array", "items": object(json!({"name": {"type": "string"}, "description": {"type": "string"}}), &["name", "description"])}}),
                &["tools"],
            ),
        },
        Spec {
            builtin: Builtin::SkillsDescribe,
            name: "skills.describe",
            description: "Describe one skill by name: version, category, description and the JSON Schema of its input.",
            input: object(
                json!({"name": {"type": "string", "description": "The skill's full name, e.g. scene.createEntity."}}),
                &["name"],
            ),
            output: object(
                json!({
                    "name": {"type": "string"},
                    "version": {"type": "string"},
                    "category": {"type": "string"},
                    "description": {"type": "string"},
                    "input_schema": {}
                }),
                &["name", "version", "category", "description", "input_schema"],
            ),
        },
    ]
}

pub(super) fn list(registry: &Registry, caller: &Caller) -> Value {
    let tools: Vec<Value> = registry
        .skills()
        .filter(|s| caller.permissions.first_missing(s.permissions).is_none())
        .map(|s| json!({"name": s.name, "description": s.description}))
        .collect();
    json!({ "tools": tools })
}

pub(super) fn describe(registry: &Registry, input: &Value) -> Result<Value, Failure> {
    let name = input["name"].as_str().unwrap_or_default();
    let skill = registry.skill(name).ok_or_else(|| {
        not_found(format!(
            "`name`: no skill named `{name}`; skills.list shows the available ones"
        ))
    })?;
    Ok(json!({
        "name": skill.name,
        "version": skill.version,
        "category": skill.category,
        "description": skill.description,
        "input_schema": skill.input.source,
    }))
}
