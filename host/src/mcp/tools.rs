//! Skills as MCP tools, and as the Limina `listTools` shape, for one session: only the skills
//! it may call. Tool objects are built for the page asked for and moved into the reply: a
//! memo of them cost more than it saved, since a listing must own its copy of every schema
//! either way (the first listing cloned each schema twice and rebuilt the whole list once
//! more).

use crate::registry::{Caller, Registry, Skill};
use serde_json::{Value, json};

/// MCP tool objects for `skills` (a page of those a caller may call), each with its current
/// latency in `_meta.latency`.
pub fn mcp_tools(registry: &Registry, skills: &[&Skill]) -> Vec<Value> {
    skills
        .iter()
        .map(|s| {
            let mut tool = mcp_tool(s);
            tool["_meta"]["latency"] = registry.latency(s).to_json();
            tool["execution"] =
                json!({"taskSupport": super::tasks::task_support(registry, &s.name)});
            tool
        })
        .collect()
}

/// `{tools: [{name, description, input_schema}]}` for the skills `caller` may call.
pub fn limina_tools(registry: &Registry, caller: &Caller) -> Value {
    let tools: Vec<Value> = registry.visible_skills(caller).map(limina_tool).collect();
    crate::json::object([("tools", Value::Array(tools))])
}

fn limina_tool(skill: &Skill) -> Value {
    crate::json::object([
        ("name", skill.name.clone().into()),
        ("description", skill.description.clone().into()),
        ("input_schema", skill.input.source.clone()),
    ])
}

fn mcp_tool(skill: &Skill) -> Value {
    // An upstream's tools keep their own hints; the permission set says nothing about them.
    let read_only = match skill.upstream() {
        Some(_) => skill.annotations.read_only,
        None => skill.permissions.read_only(),
    };
    // The schemas are cloned in, not passed through `json!` (which would rebuild them).
    let mut tool = json!({
        "name": skill.name,
        "title": title(&skill.name),
        "description": skill.description,
        "annotations": {
            "readOnlyHint": read_only,
            "destructiveHint": !read_only && skill.annotations.destructive,
            "idempotentHint": read_only || skill.annotations.idempotent,
            "openWorldHint": skill.annotations.open_world,
        },
        "_meta": {
            "version": skill.version,
            "category": skill.category,
            "permissions": skill.permissions.names(),
        },
    });
    tool["inputSchema"] = skill.input.source.clone();
    tool["outputSchema"] = skill.output.source.clone();
    if let Some(upstream) = skill.upstream() {
        // Its description is another server's text: shown as coming from it.
        tool["_meta"]["upstream"] = json!(upstream);
    }
    tool
}

/// `scene.createEntity` → `Scene: Create Entity`.
fn title(name: &str) -> String {
    let (package, skill) = name.split_once('.').unwrap_or(("", name));
    let mut words = String::new();
    for (i, c) in skill.chars().enumerate() {
        if i == 0 {
            words.extend(c.to_uppercase());
        } else if c.is_uppercase() {
            words.push(' ');
            words.push(c);
        } else {
            words.push(c);
        }
    }
    let mut package_title: String = package
        .chars()
        .take(1)
        .flat_map(char::to_uppercase)
        .collect();
    package_title.push_str(package.get(1..).unwrap_or(""));
    if package_title.is_empty() {
        words
    } else {
        format!("{package_title}: {words}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn titles_split_camel_case() {
        assert_eq!(super::title("scene.createEntity"), "Scene: Create Entity");
        assert_eq!(super::title("dice.roll"), "Dice: Roll");
    }
}
