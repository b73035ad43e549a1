//! Skills as MCP tools, and as the Limina `listTools` shape. Listings are memoized per
//! permission set and rebuilt when the registry's generation changes.

use crate::policy::Permissions;
use crate::registry::{Registry, Skill};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// Memoized tool listings.
#[derive(Default)]
pub struct ToolCache {
    generation: u64,
    mcp: HashMap<Permissions, Arc<Vec<Value>>>,
    limina: Option<Arc<Value>>,
}

impl ToolCache {
    fn sync(&mut self, registry: &Registry) {
        if self.generation != registry.generation() {
            self.generation = registry.generation();
            self.mcp.clear();
            self.limina = None;
        }
    }

    /// MCP tool objects for the skills `permissions` allow, sorted by name.
    pub fn mcp_tools(&mut self, registry: &Registry, permissions: Permissions) -> Arc<Vec<Value>> {
        self.sync(registry);
        self.mcp
            .entry(permissions)
            .or_insert_with(|| {
                Arc::new(
                    registry
                        .skills()
                        .filter(|s| permissions.first_missing(s.permissions).is_none())
                        .map(mcp_tool)
                        .collect(),
                )
            })
            .clone()
    }

    /// `{tools: [{name, description, input_schema}]}` for the whole registry.
    pub fn limina_tools(&mut self, registry: &Registry) -> Arc<Value> {
        self.sync(registry);
        self.limina
            .get_or_insert_with(|| {
                let tools: Vec<Value> = registry
                    .skills()
                    .map(|s| {
                        json!({
                            "name": s.name,
                            "description": s.description,
                            "input_schema": s.input.source,
                        })
                    })
                    .collect();
                Arc::new(json!({ "tools": tools }))
            })
            .clone()
    }
}

fn mcp_tool(skill: &Skill) -> Value {
    let read_only = skill.permissions.read_only();
    json!({
        "name": skill.name,
        "title": title(&skill.name),
        "description": skill.description,
        "inputSchema": skill.input.source,
        "outputSchema": skill.output.source,
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
    })
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
