//! `prompts/list`, `prompts/get` and `completion/complete` (prompt arguments and resource
//! template variables). The registry lists, decides and fills prompts
//! (`registry/prompts/`); this module shapes the wire.

use super::answer::not_initialized;
use super::request::Request;
use super::resources::{cursor_param, read_error};
use super::server::{Connection, Server};
use crate::limits::{MAX_COMPLETIONS, RESOURCES_PAGE_SIZE};
use crate::mcp::wire::jsonrpc::{self, RpcError};
use crate::registry::prompts::PromptInfo;
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(jsonrpc::INVALID_PARAMS, message)
}

fn prompt_json(p: PromptInfo) -> Value {
    let arguments: Vec<Value> = p
        .arguments
        .into_iter()
        .map(|a| {
            let mut v = json!({"name": a.name, "required": a.required});
            if let Some(d) = a.description {
                v["description"] = json!(d);
            }
            v
        })
        .collect();
    let mut v = json!({"name": p.name, "arguments": arguments});
    if let Some(title) = p.title {
        v["title"] = json!(title);
    }
    if let Some(description) = p.description {
        v["description"] = json!(description);
    }
    v
}

/// `arguments` of `prompts/get` or `context.arguments` of `completion/complete`: an object
/// of strings; the error names the field.
fn string_map(value: Option<&Value>, field: &str) -> Result<BTreeMap<String, String>, RpcError> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(invalid(format!(
                    "`{field}.{k}` must be a string, got {other}"
                ))),
            })
            .collect(),
        Some(other) => Err(invalid(format!(
            "`{field}` must be an object of strings, got {other}"
        ))),
    }
}

impl Server {
    /// `prompts/list`: a page of the prompts the caller may get. A 2025-11-25 session that
    /// lists hears `notifications/prompts/list_changed` from then on.
    pub(in crate::mcp) fn prompts_list(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let caller = self.listing_caller(conn, request)?;
        let cursor = cursor_param(params)?;
        let page = self
            .registry()
            .list_prompts(&caller, cursor, RESOURCES_PAGE_SIZE)
            .map_err(|f| read_error(f, "", request.is_modern()))?;
        let items = page.items.into_iter().map(prompt_json).collect();
        let mut result = super::resources::paged("prompts", items, page.next);
        if request.is_modern() {
            self.cache_listing(&mut result);
        } else if conn.session.is_some() {
            self.watch_resources(conn);
            conn.resources.prompts = true;
        }
        Ok(result)
    }

    /// `prompts/get {name, arguments}`.
    pub(in crate::mcp) fn prompts_get(
        &mut self,
        conn: &Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let session = request.session(conn).ok_or_else(not_initialized)?;
        let caller = session.caller.clone();
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("`name` (string) is required"))?;
        let arguments = string_map(params.get("arguments"), "arguments")?;
        let got = self
            .registry_mut()
            .get_prompt(&caller, name, &arguments)
            .map_err(|f| match f.code {
                crate::call::ErrorCode::NotFound => invalid(f.message),
                _ => read_error(f, "", request.is_modern()),
            })?;
        let mut result = json!({"messages": got.messages});
        if let Some(description) = got.description {
            result["description"] = json!(description);
        }
        Ok(result)
    }

    /// `completion/complete {ref, argument {name, value}, context?}`: values for a prompt's
    /// argument (`ref/prompt`) or a resource template's variable (`ref/resource`).
    pub(in crate::mcp) fn completion_complete(
        &mut self,
        conn: &Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let caller = self.listing_caller(conn, request)?;
        let reference = params
            .get("ref")
            .filter(|r| r.is_object())
            .ok_or_else(|| invalid("`ref` (object) is required: {\"type\": \"ref/prompt\", \"name\": …} or {\"type\": \"ref/resource\", \"uri\": …}"))?;
        let argument = params
            .get("argument")
            .filter(|a| a.is_object())
            .ok_or_else(|| {
                invalid("`argument` (object) is required: {\"name\": …, \"value\": …}")
            })?;
        let name = argument
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("`argument.name` (string) is required"))?;
        let value = argument
            .get("value")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("`argument.value` (string) is required"))?;
        let context = params.get("context").and_then(|c| c.get("arguments"));
        string_map(context, "context.arguments")?;
        let registry = self.registry();
        let wanted = MAX_COMPLETIONS + 1;
        let values = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let prompt = reference
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("`ref.name` (string) is required for ref/prompt"))?;
                registry
                    .complete_prompt(&caller, prompt, name, value, wanted)
                    .ok_or_else(|| {
                        invalid(format!(
                            "no prompt `{prompt}` with an argument `{name}` for this session; prompts/list shows the prompts and their arguments"
                        ))
                    })?
            }
            Some("ref/resource") => {
                let template = reference
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("`ref.uri` (string) is required for ref/resource"))?;
                match registry.complete_template(&caller, template, name, value, wanted) {
                    Some(values) => values,
                    // A template the session may not read completes to nothing.
                    None if registry.template_has(template, name) => Vec::new(),
                    None => {
                        return Err(invalid(format!(
                            "no resource template `{template}` with a variable `{name}`; resources/templates/list shows them"
                        )));
                    }
                }
            }
            other => {
                return Err(invalid(format!(
                    "`ref.type` must be \"ref/prompt\" or \"ref/resource\", got {}",
                    other.map_or_else(|| "nothing".to_string(), |t| format!("`{t}`"))
                )));
            }
        };
        let has_more = values.len() > MAX_COMPLETIONS;
        let values: Vec<String> = values.into_iter().take(MAX_COMPLETIONS).collect();
        let mut completion = json!({"values": values, "hasMore": has_more});
        if !has_more {
            completion["total"] = json!(values.len());
        }
        Ok(json!({"completion": completion}))
    }
}
