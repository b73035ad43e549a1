//! Skills as MCP tools, and as the Limina `listTools` shape, for one session: only the skills
//! it may call. A `tools/list` result is written as it is built, each tool straight from its
//! skill's schemas: building it as a tree cloned every schema, most of a listing's cost, and
//! a client's first listing is on its start-up path. (A memo of tool objects cost more than it
//! saved: a tree must own its copy of every schema either way.)

use crate::mcp::engine::outbox::Frame;
use crate::registry::{Caller, Registry, Skill};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::io::Write;

/// One page of `tools/list`'s result, serialized: the tools in `skills` (those a caller may
/// call), each with its current latency in `_meta.latency`, and the next page's cursor.
pub struct ToolListing {
    text: String,
}

impl ToolListing {
    pub fn new(registry: &Registry, skills: &[&Skill], next_cursor: Option<usize>) -> Self {
        let page = Page {
            next_cursor: next_cursor.map(|n| n.to_string()),
            tools: skills.iter().map(|s| Tool::of(registry, s)).collect(),
        };
        let text = serde_json::to_string(&page).expect("a listing serializes");
        ToolListing { text }
    }

    /// The result as a JSON value (for a revision that reshapes results, or telemetry).
    pub fn into_value(self) -> Value {
        serde_json::from_str(&self.text).expect("a listing is JSON")
    }

    /// The JSON-RPC reply to request `id` carrying this result, as the line its
    /// [`ToolListing::into_value`] form would serialize to, byte for byte.
    pub fn reply(&self, id: &Value) -> Frame {
        Frame::from(crate::mcp::wire::jsonrpc::result_line(
            id,
            self.text.len(),
            |w| w.write_all(self.text.as_bytes()),
        ))
    }
}

// Fields in code-point order, as a `Value` map would write them.
#[derive(Serialize)]
struct Page<'a> {
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    tools: Vec<Tool<'a>>,
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "_meta")]
    meta: Meta<'a>,
    annotations: Hints,
    description: &'a str,
    execution: Execution,
    #[serde(rename = "inputSchema")]
    input_schema: &'a RawValue,
    name: &'a str,
    #[serde(rename = "outputSchema")]
    output_schema: &'a RawValue,
    title: String,
}

#[derive(Serialize)]
struct Meta<'a> {
    category: &'a str,
    latency: Value,
    permissions: Vec<&'static str>,
    /// The MCP App that shows its results (`io.modelcontextprotocol/ui`).
    #[serde(skip_serializing_if = "Option::is_none")]
    ui: Option<UiMeta>,
    /// Its description is another server's text: shown as coming from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    upstream: Option<&'a str>,
    version: &'a str,
}

#[derive(Serialize)]
struct UiMeta {
    #[serde(rename = "resourceUri")]
    resource_uri: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hints {
    destructive_hint: bool,
    idempotent_hint: bool,
    open_world_hint: bool,
    read_only_hint: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Execution {
    task_support: &'static str,
}

impl<'a> Tool<'a> {
    fn of(registry: &Registry, skill: &'a Skill) -> Self {
        // An upstream's tools keep their own hints; the permission set says nothing about them.
        let read_only = match skill.upstream() {
            Some(_) => skill.annotations.read_only,
            None => skill.permissions.read_only(),
        };
        Tool {
            meta: Meta {
                category: &skill.category,
                latency: registry.latency(skill).to_json(),
                permissions: skill.permissions.names(),
                ui: crate::registry::resources::app_for(&skill.name)
                    .map(|resource_uri| UiMeta { resource_uri }),
                upstream: skill.upstream(),
                version: &skill.version,
            },
            annotations: Hints {
                destructive_hint: !read_only && skill.annotations.destructive,
                idempotent_hint: read_only || skill.annotations.idempotent,
                open_world_hint: skill.annotations.open_world,
                read_only_hint: read_only,
            },
            description: &skill.description,
            execution: Execution {
                task_support: super::tasks::task_support(registry, &skill.name),
            },
            input_schema: skill.input.text(),
            name: &skill.name,
            output_schema: skill.output.text(),
            title: title(&skill.name),
        }
    }
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
        ("input_schema", skill.input.source().clone()),
    ])
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
    use crate::mcp::dispatch::server::{Connection, Handled, Server};
    use crate::mcp::dispatch::test_server::server;
    use serde_json::{Value, json};

    fn reply(server: &mut Server, conn: &mut Connection, message: Value) -> String {
        match server.handle(conn, &message.to_string()) {
            Handled::Reply(Some(reply)) => serde_json::to_string(&reply).unwrap(),
            Handled::Framed(frame) => frame.to_string(),
            _ => panic!("no reply to {message}"),
        }
    }

    #[test]
    fn a_listing_is_written_as_its_tree_would_serialize_with_every_tool_whole() {
        let mut server = server();
        let mut conn = Connection::new(Default::default(), None);
        reply(
            &mut server,
            &mut conn,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
        );
        let line = reply(
            &mut server,
            &mut conn,
            json!({"jsonrpc": "2.0", "id": "list-1", "method": "tools/list"}),
        );
        let parsed: Value = serde_json::from_str(&line).unwrap();
        // Byte for byte what the tree form writes (keys in code-point order).
        assert_eq!(line, serde_json::to_string(&parsed).unwrap());
        assert_eq!(parsed["id"], "list-1");
        assert!(parsed["result"].get("nextCursor").is_none());
        let tools = parsed["result"]["tools"].as_array().unwrap();
        assert!(!tools.is_empty());
        let registry = server.registry();
        for tool in tools {
            let name = tool["name"].as_str().unwrap();
            let skill = registry.skill(name).unwrap();
            assert_eq!(&tool["inputSchema"], skill.input.source(), "{name}");
            assert_eq!(&tool["outputSchema"], skill.output.source(), "{name}");
            assert_eq!(tool["description"], skill.description.as_str());
            assert_eq!(tool["title"], super::title(name));
            assert_eq!(tool["_meta"]["version"], skill.version.as_str());
            assert_eq!(tool["_meta"]["category"], skill.category.as_str());
            assert_eq!(
                tool["_meta"]["permissions"],
                json!(skill.permissions.names())
            );
            assert_eq!(tool["_meta"]["latency"], registry.latency(skill).to_json());
            let read_only = skill.permissions.read_only();
            assert_eq!(tool["annotations"]["readOnlyHint"], read_only, "{name}");
            assert_eq!(
                tool["annotations"]["idempotentHint"],
                read_only || skill.annotations.idempotent
            );
            assert!(tool["execution"]["taskSupport"].is_string());
            // The scene skills' results and the camera's pictures are best seen in the viewer app.
            let app = (name.starts_with("scene.") || name == "camera.capture")
                .then_some("ui://limina/viewer");
            assert_eq!(tool["_meta"]["ui"]["resourceUri"].as_str(), app, "{name}");
        }
        // A bad cursor is refused by name, and nothing is listed.
        let refused = reply(
            &mut server,
            &mut conn,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "x"}}),
        );
        let refused: Value = serde_json::from_str(&refused).unwrap();
        assert_eq!(refused["error"]["code"], -32602);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("invalid cursor `x`")
        );
    }

    #[test]
    fn titles_split_camel_case() {
        assert_eq!(super::title("scene.createEntity"), "Scene: Create Entity");
        assert_eq!(super::title("dice.roll"), "Dice: Roll");
    }
}
