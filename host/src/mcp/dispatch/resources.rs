//! `resources/list`, `resources/templates/list`, `resources/read`, and subscriptions to
//! resources: `resources/subscribe` / `unsubscribe` (2025-11-25) and the `resourceSubscriptions`
//! and `resourcesListChanged` filters of `subscriptions/listen` (2026-07-28, `stateless.rs`).
//! The registry decides and reads (`registry/resources/`); this module shapes the wire.
//!
//! Updates come from the world's change set after each message and each idle turn
//! ([`Server::resource_update`]): a subscribed resource is told `notifications/resources/updated`
//! at most once per world tick (a change within a tick already reported waits for the next
//! tick), and `notifications/resources/list_changed` goes to 2025-11-25 sessions that have
//! listed resources, and to listen streams that asked, when entities appear or go.

use super::answer::not_initialized;
use super::request::Request;
use super::server::{Connection, Server};
use crate::call::{ErrorCode, Failure};
use crate::limits::RESOURCES_PAGE_SIZE;
use crate::mcp::wire::jsonrpc::{self, RpcError};
use crate::mcp::wire::modern;
use crate::registry::resources::{Contents, ResourceInfo, TemplateInfo};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// Error (2025-11-25): the resource does not exist.
pub const CLASSIC_NOT_FOUND: i64 = -32002;
/// Error: policy refused the read (as the `callTool` alias refuses a call).
pub const FORBIDDEN: i64 = -32001;

/// What one connection watches among resources.
#[derive(Debug, Default)]
pub struct Watching {
    /// Subscribed URIs.
    pub uris: BTreeSet<String>,
    /// It hears `notifications/resources/list_changed`.
    pub list: bool,
    /// It hears `notifications/prompts/list_changed`.
    pub prompts: bool,
    /// The tick each URI was last reported in.
    reported: BTreeMap<String, u64>,
    /// URIs changed in a tick already reported, owed at the next one.
    owed: BTreeSet<String>,
    /// A list change owed at the next tick.
    list_owed: bool,
    list_reported: Option<u64>,
    /// The resource and prompt sources' generation it last heard of.
    pub generation: u64,
}

impl Watching {
    /// Whether an update waits for the next tick.
    pub fn owes(&self) -> bool {
        !self.owed.is_empty() || self.list_owed
    }

    fn idle(&self) -> bool {
        self.uris.is_empty() && !self.list && !self.prompts
    }
}

/// What the world's latest changes touched, worked out once for every watcher.
#[derive(Default)]
pub struct Touched {
    tick: u64,
    uris: BTreeSet<String>,
    /// Every resource under each of these.
    prefixes: Vec<String>,
    /// Everything (another world was swapped in).
    all: bool,
    list_changed: bool,
    generation: u64,
}

impl Touched {
    fn covers(&self, uri: &str) -> bool {
        self.all || self.uris.contains(uri) || self.prefixes.iter().any(|p| uri.starts_with(p))
    }
}

fn uri_param(params: &Value) -> Result<&str, RpcError> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::new(jsonrpc::INVALID_PARAMS, "`uri` (string) is required"))
}

pub(super) fn cursor_param(params: &Value) -> Result<Option<&str>, RpcError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) => Ok(Some(c)),
        Some(_) => Err(RpcError::new(
            jsonrpc::INVALID_PARAMS,
            "`cursor` must be a string",
        )),
    }
}

/// A listing's page: its `items` under `key`, and the cursor of the next page if there is one.
pub(super) fn paged(key: &str, items: Vec<Value>, next: Option<String>) -> Value {
    let mut result = json!({ key: items });
    if let Some(next) = next {
        result["nextCursor"] = json!(next);
    }
    result
}

/// A registry failure on the wire: a missing resource is -32602 (2026-07-28) or -32002
/// (2025-11-25), naming the URI in `data`; a refusal -32001; a bad argument -32602.
pub(in crate::mcp) fn read_error(failure: Failure, uri: &str, modern: bool) -> RpcError {
    match failure.code {
        ErrorCode::NotFound => {
            let code = if modern {
                jsonrpc::INVALID_PARAMS
            } else {
                CLASSIC_NOT_FOUND
            };
            RpcError::new(code, failure.message).with_data(json!({"uri": uri}))
        }
        ErrorCode::Forbidden => RpcError::new(FORBIDDEN, format!("forbidden: {}", failure.message)),
        ErrorCode::InvalidInput => RpcError::new(jsonrpc::INVALID_PARAMS, failure.message),
        _ => RpcError::new(jsonrpc::INTERNAL_ERROR, failure.message),
    }
}

fn resource_json(r: ResourceInfo) -> Value {
    let mut v = json!({"uri": r.uri, "name": r.name, "mimeType": r.mime_type});
    if let Some(title) = r.title {
        v["title"] = json!(title);
    }
    if let Some(description) = r.description {
        v["description"] = json!(description);
    }
    if let Some(meta) = r.meta {
        v["_meta"] = meta;
    }
    v
}

fn template_json(t: TemplateInfo) -> Value {
    let mut v = json!({"uriTemplate": t.uri_template, "name": t.name, "mimeType": t.mime_type});
    if let Some(title) = t.title {
        v["title"] = json!(title);
    }
    if let Some(description) = t.description {
        v["description"] = json!(description);
    }
    v
}

fn contents_json(c: &Contents) -> Value {
    let mut v = match &c.blob {
        Some(blob) => {
            use base64::Engine as _;
            let blob = base64::engine::general_purpose::STANDARD.encode(blob);
            json!({"uri": c.uri, "mimeType": c.mime_type, "blob": blob})
        }
        None => json!({"uri": c.uri, "mimeType": c.mime_type, "text": c.text}),
    };
    if let Some(meta) = &c.meta {
        v["_meta"] = meta.clone();
    }
    v
}

impl Server {
    /// `resources/list`: a page of what the caller may read. A 2025-11-25 session that
    /// lists hears `notifications/resources/list_changed` from then on.
    pub(in crate::mcp) fn resources_list(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let caller = self.listing_caller(conn, request)?;
        let cursor = cursor_param(params)?;
        let page = self
            .registry()
            .list_resources(&caller, cursor, RESOURCES_PAGE_SIZE)
            .map_err(|f| read_error(f, "", request.is_modern()))?;
        let items = page.items.into_iter().map(resource_json).collect();
        let mut result = paged("resources", items, page.next);
        if request.is_modern() {
            // Entities appear and go at any moment.
            result["ttlMs"] = json!(0);
            result["cacheScope"] = json!("private");
        } else if conn.session.is_some() {
            self.watch_resources(conn);
            conn.resources.list = true;
        }
        Ok(result)
    }

    /// `resources/templates/list`: the templates of what the caller may read (one page).
    pub(in crate::mcp) fn resources_templates(
        &mut self,
        conn: &Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let caller = self.listing_caller(conn, request)?;
        if let Some(cursor) = cursor_param(params)? {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!("invalid cursor `{cursor}`: resources/templates/list has a single page"),
            ));
        }
        let templates = self.registry().resource_templates(&caller);
        let mut result = json!({"resourceTemplates": templates.into_iter().map(template_json).collect::<Vec<_>>()});
        if request.is_modern() {
            self.cache_listing(&mut result);
        }
        Ok(result)
    }

    /// The caching fields of a listing that changes only with the skill and source sets.
    pub(in crate::mcp) fn cache_listing(&self, result: &mut Value) {
        let generation = self.registry().generation() + self.registry().resource_generation();
        modern::cache(result, generation, self.reloads.is_some());
    }

    /// `resources/read {uri}` through the registry's read pipeline.
    pub(in crate::mcp) fn resources_read(
        &mut self,
        conn: &Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let session = request.session(conn).ok_or_else(not_initialized)?;
        let caller = session.caller.clone();
        let uri = uri_param(params)?;
        let modern = request.is_modern();
        let contents = self
            .registry_mut()
            .read_resource(&caller, uri)
            .map_err(|f| read_error(f, uri, modern))?;
        let mut result = json!({"contents": [contents_json(&contents)]});
        if modern {
            result["ttlMs"] = json!(contents.ttl_ms);
            result["cacheScope"] = json!(if contents.public { "public" } else { "private" });
        }
        Ok(result)
    }

    /// `resources/subscribe {uri}` (2025-11-25): the URI must name something the session
    /// may read; it is told `notifications/resources/updated` when that changes.
    pub(in crate::mcp) fn resources_subscribe(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let session = request.session(conn).ok_or_else(not_initialized)?;
        let caller = session.caller.clone();
        let uri = uri_param(params)?.to_string();
        self.check_subscribable(&caller, &uri, request.is_modern())?;
        self.watch_resources(conn);
        conn.resources.uris.insert(uri);
        Ok(json!({}))
    }

    /// Whether `caller` may subscribe to `uri`: something claims it, policy would let the
    /// caller read it, and it exists now.
    pub(in crate::mcp) fn check_subscribable(
        &mut self,
        caller: &crate::registry::Caller,
        uri: &str,
        modern: bool,
    ) -> Result<(), RpcError> {
        let registry = self.registry_mut();
        registry
            .may_read_uri(caller, uri)
            .map_err(|f| read_error(f, uri, modern))?;
        if !registry.resource_exists(caller, uri) {
            return Err(read_error(
                crate::registry::resources::not_found(uri),
                uri,
                modern,
            ));
        }
        Ok(())
    }

    /// `resources/unsubscribe {uri}`: an error when the session was not subscribed to it.
    pub(in crate::mcp) fn resources_unsubscribe(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        params: &Value,
    ) -> Result<Value, RpcError> {
        request.session(conn).ok_or_else(not_initialized)?;
        let uri = uri_param(params)?;
        if !conn.resources.uris.remove(uri) {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!("not subscribed to `{uri}`; resources/subscribe first"),
            ));
        }
        conn.resources.reported.remove(uri);
        conn.resources.owed.remove(uri);
        Ok(json!({}))
    }

    /// From now on the world's changes are kept for resource watchers.
    pub(in crate::mcp) fn watch_resources(&mut self, conn: &mut Connection) {
        if conn.resources.idle() {
            conn.resources.generation = self.registry().resource_generation();
        }
        if !self.resources_watched {
            self.issued = self.registry().realm().world.last_issued();
        }
        self.resources_watched = true;
        self.watch_world();
    }

    /// Whether any connection ever watched resources (the engine then works out what each
    /// world update touched).
    pub fn resources_watched(&self) -> bool {
        self.resources_watched
    }

    /// What `update` (the world's latest changes, if any) touched, worked out once for all
    /// watchers.
    pub fn resource_update(&mut self, update: Option<&super::sync::WorldUpdate>) -> Touched {
        let registry = self.registry();
        let world = &registry.realm().world;
        let mut touched = Touched {
            tick: world.tick(),
            generation: registry.resource_generation(),
            ..Touched::default()
        };
        match update {
            None => {}
            Some(super::sync::WorldUpdate::Replaced) => {
                touched.all = true;
                touched.list_changed = true;
            }
            Some(super::sync::WorldUpdate::Changes(changes)) => {
                for uri in registry.touched_resources(changes, self.issued) {
                    if uri.ends_with('/') {
                        touched.prefixes.push(uri);
                    } else {
                        touched.uris.insert(uri);
                    }
                }
                touched.list_changed = registry.resource_list_changed(changes, self.issued);
            }
        }
        self.issued = world.last_issued();
        touched
    }

    /// The notifications `conn` is owed after `touched`: updates of its subscribed URIs
    /// (each at most once per tick), list changes, and (2026-07-28) tagged for its listen
    /// stream.
    pub fn resource_notes(&mut self, conn: &mut Connection, touched: &Touched) -> Vec<Value> {
        let watching = &mut conn.resources;
        if watching.idle() {
            return Vec::new();
        }
        let mut notes = Vec::new();
        let tick = touched.tick;
        let mut due: BTreeSet<String> = watching
            .owed
            .iter()
            .filter(|u| watching.reported.get(*u).is_none_or(|t| *t < tick))
            .cloned()
            .collect();
        for uri in watching.uris.iter().filter(|u| touched.covers(u)) {
            if watching.reported.get(uri) == Some(&tick) {
                watching.owed.insert(uri.clone());
            } else {
                due.insert(uri.clone());
            }
        }
        for uri in due {
            watching.owed.remove(&uri);
            watching.reported.insert(uri.clone(), tick);
            notes.push(jsonrpc::notification(
                "notifications/resources/updated",
                json!({"uri": uri}),
            ));
        }
        let sources_changed = touched.generation != watching.generation;
        if watching.list && (touched.list_changed || sources_changed || watching.list_owed) {
            if watching.list_reported == Some(tick) {
                watching.list_owed = true;
            } else {
                watching.list_owed = false;
                watching.list_reported = Some(tick);
                notes.push(jsonrpc::notification(
                    "notifications/resources/list_changed",
                    json!({}),
                ));
            }
        }
        if sources_changed && watching.prompts {
            notes.push(jsonrpc::notification(
                "notifications/prompts/list_changed",
                json!({}),
            ));
        }
        watching.generation = touched.generation;
        match &conn.listen {
            Some(listen) => notes
                .into_iter()
                .map(|n| modern::tagged(n, &listen.id))
                .collect(),
            None => notes,
        }
    }
}

#[cfg(test)]
#[path = "resources_tests.rs"]
mod tests;
