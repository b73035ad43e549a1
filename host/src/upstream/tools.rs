//! An upstream's tool list, read and checked: only tools its `tools` globs allow, with names a
//! skill can carry, schemas within size and compilable, descriptions cut to size. What a
//! server says about its tools is its own text: it is shown as coming from it, never trusted.

use crate::limits::{UPSTREAM_DESCRIPTION_BYTES, UPSTREAM_MAX_TOOLS, UPSTREAM_SCHEMA_BYTES};
use crate::policy::glob;
use serde_json::{Value, json};

/// One upstream tool to mount.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Its name at the server (the skill is `UPSTREAM.name`).
    pub name: String,
    /// Its description, cut to [`UPSTREAM_DESCRIPTION_BYTES`].
    pub description: String,
    pub input_schema: Value,
    /// Its output schema, when it gives one (results are then checked against it).
    pub output_schema: Option<Value>,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// What an agent reads of it, as pinned ([`super::pins::definition`]).
    pub definition: Value,
    /// The digest of `definition` ([`super::pins::digest`]).
    pub digest: String,
}

/// The output schema of a tool that gives none: its result's `content` blocks.
pub fn content_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"content": {"type": "array"}},
        "required": ["content"],
    })
}

/// The tools of `listed` (a `tools/list` result's `tools`) that `allow` admits, checked;
/// what is left out is logged with the reason.
pub fn admit(upstream: &str, allow: &[String], listed: &[Value]) -> Vec<ToolSpec> {
    let mut out = Vec::new();
    for tool in listed {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            crate::log::warn(&format!(
                "upstream `{upstream}` listed a tool without a name; left out"
            ));
            continue;
        };
        if !allow.iter().any(|p| glob::matches(p, name)) {
            continue;
        }
        match check(upstream, name, tool) {
            Ok(spec) if out.len() < UPSTREAM_MAX_TOOLS => out.push(spec),
            Ok(_) => {
                crate::log::warn(&format!(
                    "upstream `{upstream}`: more than {UPSTREAM_MAX_TOOLS} tools; `{name}` and later ones are left out"
                ));
                break;
            }
            Err(why) => crate::log::warn(&format!(
                "upstream `{upstream}`: tool `{name}` is not mounted: {why}"
            )),
        }
    }
    out
}

fn check(upstream: &str, name: &str, tool: &Value) -> Result<ToolSpec, String> {
    let name_ok = !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !name_ok {
        return Err("its name must be 1–128 letters, digits, `_`, `-` or `.`".into());
    }
    let input_schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
    if input_schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("its inputSchema is not of \"type\": \"object\"".into());
    }
    let output_schema = tool.get("outputSchema").filter(|s| !s.is_null()).cloned();
    for (which, schema) in [
        ("inputSchema", Some(&input_schema)),
        ("outputSchema", output_schema.as_ref()),
    ] {
        if let Some(schema) = schema {
            let size = schema.to_string().len();
            if size > UPSTREAM_SCHEMA_BYTES {
                return Err(format!(
                    "its {which} takes {size} bytes, over the {UPSTREAM_SCHEMA_BYTES} byte limit"
                ));
            }
            if let Some(target) = outside_ref(schema) {
                // Compiling it would fetch or read what it names (a file on this host).
                return Err(format!(
                    "its {which} refers outside itself (`$ref: {target}`); only `#…` references are allowed"
                ));
            }
        }
    }
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let hints = tool.get("annotations");
    let hint = |key: &str| hints.and_then(|h| h.get(key)).and_then(Value::as_bool);
    let description = cut_description(upstream, description);
    let definition = super::pins::definition(tool, &description);
    Ok(ToolSpec {
        name: name.to_string(),
        digest: super::pins::digest(&definition),
        definition,
        description,
        input_schema,
        output_schema,
        read_only: hint("readOnlyHint").unwrap_or(false),
        destructive: hint("destructiveHint").unwrap_or(true),
        idempotent: hint("idempotentHint").unwrap_or(false),
    })
}

/// The first `$ref` in `schema` that is not a reference inside it (`#…`), if any.
fn outside_ref(schema: &Value) -> Option<String> {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref")
                && !target.starts_with('#')
            {
                return Some(target.clone());
            }
            map.values().find_map(outside_ref)
        }
        Value::Array(items) => items.iter().find_map(outside_ref),
        _ => None,
    }
}

/// The description within [`UPSTREAM_DESCRIPTION_BYTES`], cut at a character boundary and
/// marked when cut.
fn cut_description(upstream: &str, text: String) -> String {
    if text.len() <= UPSTREAM_DESCRIPTION_BYTES {
        return text;
    }
    let marker = format!(" … [cut: the description from upstream `{upstream}` was longer]");
    let mut end = UPSTREAM_DESCRIPTION_BYTES.saturating_sub(marker.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{marker}", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_well_formed_tools_are_admitted() {
        let listed = vec![
            json!({"name": "echo", "inputSchema": {"type": "object"}}),
            json!({"name": "hidden", "inputSchema": {"type": "object"}}),
            json!({"name": "bad name", "inputSchema": {"type": "object"}}),
            json!({"name": "arr", "inputSchema": {"type": "array"}}),
        ];
        let allow = vec!["echo".to_string(), "b*".to_string(), "arr".to_string()];
        let got = admit("py", &allow, &listed);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name, "echo");
        // No hints: assumed to change things (MCP's defaults).
        assert!(got[0].destructive && !got[0].read_only);
    }

    #[test]
    fn long_descriptions_are_cut_and_marked_within_the_limit() {
        let long = "é".repeat(UPSTREAM_DESCRIPTION_BYTES);
        let cut = cut_description("py", long);
        assert!(cut.len() <= UPSTREAM_DESCRIPTION_BYTES, "{}", cut.len());
        assert!(cut.ends_with("from upstream `py` was longer]"));
        assert_eq!(cut_description("py", "short".into()), "short");
    }

    #[test]
    fn schemas_that_refer_outside_themselves_are_refused() {
        let listed = vec![
            json!({"name": "file", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "file:///etc/passwd"}}}}),
            json!({"name": "web", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "allOf": [{"$ref": "https://e.example/s.json"}]}}),
            json!({"name": "local", "inputSchema": {"type": "object", "$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}}),
        ];
        let got = admit("py", &["*".into()], &listed);
        let names: Vec<&str> = got.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["local"]);
    }

    #[test]
    fn oversized_schemas_are_refused() {
        let big = json!({"type": "object", "description": "x".repeat(UPSTREAM_SCHEMA_BYTES)});
        let got = admit(
            "py",
            &["*".into()],
            &[json!({"name": "t", "inputSchema": big})],
        );
        assert!(got.is_empty());
    }
}
