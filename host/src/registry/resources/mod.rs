//! Resources: what clients read besides calling skills (MCP `resources/*`). The registry
//! holds one table of [`ResourceSource`]s; the host's own — the world's summary, its
//! entities, agents, UI panels, the trace and the viewer app (`world.rs`, `app.rs`) — are
//! registered at start, and packages add theirs through the same table
//! ([`Registry::add_resource_source`]).
//!
//! A read crosses the pipeline as a call does: resolve (the source that claims the URI) →
//! policy (the source's capability and permissions, decided and counted like a skill: a
//! profile's tool allow-list names `resource.entity` as it names `scene.createEntity`) →
//! read → trace (`resource.read`, caused by the decision). Listings show only what the
//! caller's profile would let it read.

mod app;
mod world;

use super::decision::{self, Crossing};
use super::{Caller, Registry};
use crate::call::{ErrorCode, Failure};
use crate::policy::{CallRequest, LatencyTier, Permissions};
use crate::trace::NewEvent;
use crate::world::ChangeSet;
use serde_json::{Value, json};
use std::sync::Arc;

pub use app::{APP_MIME, APP_URI, app_for};

/// A resource as listings show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceInfo {
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: String,
    /// Extension fields (`_meta`), e.g. the MCP Apps `ui` object.
    pub meta: Option<Value>,
}

/// A family of resources named by a URI template (RFC 6570 level 1: `{name}` variables).
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateInfo {
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: String,
}

/// What a read gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Contents {
    pub uri: String,
    pub mime_type: String,
    pub text: String,
    /// Bytes instead of text (a package's binary resource), sent base64 as `blob`.
    pub blob: Option<Vec<u8>>,
    /// Extension fields (`_meta`) of the contents.
    pub meta: Option<Value>,
    /// How long a client may keep it, in milliseconds (0: it may change at any moment).
    pub ttl_ms: u64,
    /// The same for every caller, so shared caches may keep it.
    pub public: bool,
}

/// What reading a source takes: the capability policy decides and the permissions it needs.
#[derive(Debug, Clone)]
pub struct Access {
    /// The name policy and allow-lists know the reads by, e.g. `resource.entity`.
    pub cap: String,
    pub required: Permissions,
    /// The package serving them (`None`: the host), so revoking the package hides them.
    pub package: Option<String>,
}

/// One source of resources. Implementations are the host's built-in sources and, through
/// the same table, packages' (the `limina:skill` contract's resource exports).
pub trait ResourceSource: Send + Sync {
    /// Its name in cursors, errors and the trace, e.g. `entity`.
    fn name(&self) -> &str;
    /// What reading it takes.
    fn access(&self) -> Access;
    /// Whether `uri` names one of its resources, whether or not that one exists (resolve).
    fn claims(&self, uri: &str) -> bool;
    /// Whether `key` could be one of the keys [`ResourceSource::list`] gives (a cursor
    /// naming another is refused rather than read as the start).
    fn accepts_key(&self, key: &str) -> bool {
        key.parse::<u64>().is_ok()
    }
    /// Its listed resources after the one keyed `after` (a key it gave before), at most
    /// `limit`, each with its key, in a stable order.
    fn list(
        &self,
        registry: &Registry,
        after: Option<&str>,
        limit: usize,
    ) -> Vec<(String, ResourceInfo)>;
    /// Its URI templates.
    fn templates(&self) -> Vec<TemplateInfo> {
        Vec::new()
    }
    /// Reads `uri`, one it claims; `Ok(None)` when no such resource exists.
    fn read(
        &self,
        registry: &mut Registry,
        caller: &Caller,
        uri: &str,
    ) -> Result<Option<Contents>, Failure>;
    /// Values of `variable` in its template `template` starting with `prefix`, at most
    /// `limit` (`None`: not its template).
    fn complete(
        &self,
        _registry: &Registry,
        _caller: &Caller,
        _template: &str,
        _variable: &str,
        _prefix: &str,
        _limit: usize,
    ) -> Option<Vec<String>> {
        None
    }
    /// The URIs of its resources that the world's `changes` touched (`issued_before`: the
    /// last entity number issued before them); a URI ending in `/` stands for every
    /// resource under it.
    fn touched(
        &self,
        _registry: &Registry,
        _changes: &ChangeSet,
        _issued_before: u64,
        _out: &mut Vec<String>,
    ) {
    }
    /// Whether the world's `changes` made its listed resources appear or go.
    fn list_changed(&self, _changes: &ChangeSet, _issued_before: u64) -> bool {
        false
    }
}

/// The registry's sources, in the order listings show them.
#[derive(Clone, Default)]
pub(crate) struct ResourceTable {
    sources: Vec<Arc<dyn ResourceSource>>,
    /// Bumped whenever a source is added or removed: listings change.
    pub(crate) generation: u64,
}

impl ResourceTable {
    /// The host's own sources.
    pub(crate) fn host() -> ResourceTable {
        // The app among the few fixed resources, before the many entities (listed last).
        let mut sources = world::sources();
        sources.insert(sources.len() - 1, app::source());
        ResourceTable {
            sources,
            generation: 0,
        }
    }
}

/// A page of a listing: the resources, and the cursor of the next page.
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<String>,
}

/// A listing cursor that names no page: the message says what to send.
fn bad_cursor(cursor: &str) -> Failure {
    Failure::new(
        ErrorCode::InvalidInput,
        format!("invalid cursor `{cursor}`: pass back a nextCursor from an earlier resources/list"),
    )
}

impl Registry {
    /// Adds a source of resources (a package's, when it loads); listings change.
    pub fn add_resource_source(&mut self, source: Arc<dyn ResourceSource>) {
        self.resources.sources.push(source);
        self.resources.generation += 1;
    }

    /// Keeps only the sources `keep` accepts (a package's go when it unloads).
    pub fn retain_resource_sources(&mut self, keep: impl Fn(&dyn ResourceSource) -> bool) {
        let before = self.resources.sources.len();
        self.resources.sources.retain(|s| keep(s.as_ref()));
        if self.resources.sources.len() != before {
            self.resources.generation += 1;
        }
    }

    /// Changes whenever the set of resource or prompt sources does.
    pub fn resource_generation(&self) -> u64 {
        self.resources.generation + self.prompts.generation
    }

    /// Whether `caller` may read what `access` guards (the standing rules, as for listings).
    pub(crate) fn may_read(&self, caller: &Caller, access: &Access) -> bool {
        self.policy.may_call(CallRequest {
            session_id: &caller.session_id,
            profile: &caller.profile,
            skill: &access.cap,
            package: access.package.as_deref(),
            required: access.required,
            now_ms: 0,
            metered: false,
            skill_tier: LatencyTier::Fast,
            approval: None,
            capability: None,
        })
    }

    fn readable(&self, caller: &Caller) -> Vec<Arc<dyn ResourceSource>> {
        self.resources
            .sources
            .iter()
            .filter(|s| self.may_read(caller, &s.access()))
            .cloned()
            .collect()
    }

    /// A page of the resources `caller` may read, from `cursor` (one a page gave).
    pub fn list_resources(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<Page<ResourceInfo>, Failure> {
        let sources = self.readable(caller);
        let (mut index, mut after) = match cursor {
            None => (0, None),
            Some(c) => {
                let (name, key) = c.split_once(':').ok_or_else(|| bad_cursor(c))?;
                let index = sources
                    .iter()
                    .position(|s| s.name() == name)
                    .ok_or_else(|| bad_cursor(c))?;
                if !key.is_empty() && !sources[index].accepts_key(key) {
                    return Err(bad_cursor(c));
                }
                (index, (!key.is_empty()).then(|| key.to_string()))
            }
        };
        let mut items = Vec::new();
        while index < sources.len() {
            let source = &sources[index];
            let room = limit - items.len();
            // One more than there is room for says whether this source goes on.
            let mut page = source.list(self, after.as_deref(), room + 1);
            if page.len() > room {
                page.truncate(room);
                let key = page.last().map(|(k, _)| k.clone()).unwrap_or_default();
                items.extend(page.into_iter().map(|(_, r)| r));
                return Ok(Page {
                    items,
                    next: Some(format!("{}:{key}", source.name())),
                });
            }
            items.extend(page.into_iter().map(|(_, r)| r));
            index += 1;
            after = None;
            if items.len() == limit && index < sources.len() {
                return Ok(Page {
                    items,
                    next: Some(format!("{}:", sources[index].name())),
                });
            }
        }
        Ok(Page { items, next: None })
    }

    /// The URI templates of the sources `caller` may read.
    pub fn resource_templates(&self, caller: &Caller) -> Vec<TemplateInfo> {
        self.readable(caller)
            .iter()
            .flat_map(|s| s.templates())
            .collect()
    }

    /// Reads `uri` for `caller`: resolved to its source, decided by policy (traced), read,
    /// and the read traced. `NotFound` when nothing claims the URI or the resource does not
    /// exist, `Forbidden` when policy refuses.
    pub fn read_resource(&mut self, caller: &Caller, uri: &str) -> Result<Contents, Failure> {
        let Some(source) = self.source_of(uri) else {
            return Err(not_found(uri));
        };
        let access = source.access();
        let decision = self.decide_crossing(caller, &access, "resource")?;
        let read = source.read(self, caller, uri);
        let payload = match &read {
            Ok(Some(c)) => json!({"uri": uri, "source": source.name(), "found": true,
                "mimeType": c.mime_type, "bytes": c.text.len()}),
            Ok(None) => json!({"uri": uri, "source": source.name(), "found": false}),
            Err(f) => json!({"uri": uri, "source": source.name(), "found": false,
                "error": {"code": f.code, "message": f.message}}),
        };
        self.trace_crossing(caller, &decision, "resource.read", payload);
        match read {
            Ok(Some(contents)) => Ok(contents),
            Ok(None) => Err(not_found(uri)),
            Err(failure) => Err(failure),
        }
    }

    /// Values for `variable` of the template `template` starting with `prefix`, from the
    /// source whose template it is, if `caller` may read it (`None`: no such template).
    pub fn complete_template(
        &self,
        caller: &Caller,
        template: &str,
        variable: &str,
        prefix: &str,
        limit: usize,
    ) -> Option<Vec<String>> {
        self.readable(caller)
            .iter()
            .find_map(|s| s.complete(self, caller, template, variable, prefix, limit))
    }

    /// Whether some source has `template` with the variable `variable` (completing it for a
    /// caller who may not read it says nothing rather than that it does not exist).
    pub fn template_has(&self, template: &str, variable: &str) -> bool {
        let placeholder = format!("{{{variable}}}");
        self.resources.sources.iter().any(|s| {
            s.templates()
                .iter()
                .any(|t| t.uri_template == template && template.contains(&placeholder))
        })
    }

    /// The URIs the world's `changes` touched, over every source (`issued_before`: the last
    /// entity number issued before them). A URI ending in `/` stands for every resource
    /// under it.
    pub fn touched_resources(&self, changes: &ChangeSet, issued_before: u64) -> Vec<String> {
        let mut out = Vec::new();
        for source in &self.resources.sources {
            source.touched(self, changes, issued_before, &mut out);
        }
        out
    }

    /// Whether the world's `changes` made listed resources appear or go.
    pub fn resource_list_changed(&self, changes: &ChangeSet, issued_before: u64) -> bool {
        self.resources
            .sources
            .iter()
            .any(|s| s.list_changed(changes, issued_before))
    }

    /// Whether `uri` names a resource some source claims and `caller` may read (subscribing
    /// checks it; the read itself decides again).
    pub fn may_read_uri(&self, caller: &Caller, uri: &str) -> Result<(), Failure> {
        let source = self.source_of(uri).ok_or_else(|| not_found(uri))?;
        let access = source.access();
        if self.may_read(caller, &access) {
            Ok(())
        } else {
            Err(Failure::new(
                ErrorCode::Forbidden,
                format!(
                    "profile `{}` may not read `{uri}` (it needs `{}`{})",
                    caller.profile,
                    access.cap,
                    needs(access.required)
                ),
            ))
        }
    }

    /// Whether `uri` names a resource that exists now, read without deciding or tracing
    /// (subscribing checks it after [`Registry::may_read_uri`]).
    pub fn resource_exists(&mut self, caller: &Caller, uri: &str) -> bool {
        self.source_of(uri)
            .is_some_and(|s| matches!(s.read(self, caller, uri), Ok(Some(_))))
    }

    fn source_of(&self, uri: &str) -> Option<Arc<dyn ResourceSource>> {
        self.resources
            .sources
            .iter()
            .find(|s| s.claims(uri))
            .cloned()
    }

    /// The policy step of a read (or a prompt's `get`, at `boundary`): decided, counted
    /// and traced like a call. The decision's event id, or the refusal.
    pub(super) fn decide_crossing(
        &mut self,
        caller: &Caller,
        access: &Access,
        boundary: &str,
    ) -> Result<String, Failure> {
        self.crossing_found.clear();
        let now_ms = self.now_ms();
        let verdict = self.policy.decide_call(CallRequest {
            session_id: &caller.session_id,
            profile: &caller.profile,
            skill: &access.cap,
            package: access.package.as_deref(),
            required: access.required,
            now_ms,
            metered: false,
            skill_tier: LatencyTier::Fast,
            approval: None,
            capability: None,
        });
        let crossing = Crossing {
            boundary,
            cap: &access.cap,
            package: access.package.as_deref(),
            required: access.required.names(),
        };
        let recorded = decision::record(self.realm_mut(), caller, crossing, &verdict);
        if !verdict.allow {
            self.commit_reads();
            return Err(Failure::new(ErrorCode::Forbidden, verdict.reason));
        }
        self.crossing = recorded.id.clone();
        Ok(recorded.id)
    }

    /// Writes a crossing's outcome event (`resource.read`, `prompt.get`), caused by its
    /// decision and by any credential found in what it served.
    pub(super) fn trace_crossing(
        &mut self,
        caller: &Caller,
        decision: &str,
        kind: &str,
        mut payload: Value,
    ) {
        let found = std::mem::take(&mut self.crossing_found);
        let realm = self.realm_mut();
        payload["tick"] = json!(realm.world.tick());
        let mut caused_by = vec![decision];
        caused_by.extend(found.iter().map(String::as_str));
        realm.tracer.emit(NewEvent {
            kind,
            actor_id: caller.agent_id.as_str(),
            thread_id: caller.session_id.as_str(),
            parent_event_id: Some(decision),
            caused_by,
            payload,
        });
        self.commit_reads();
    }

    /// Writes a read's events. A read changes nothing, so it is answered even when the
    /// trace cannot be written (as the read-only built-ins are); the trace says why.
    fn commit_reads(&mut self) {
        let _ = self.realm_mut().tracer.commit();
        self.settle_deferred();
    }
}

/// The failure of a read of something that does not exist.
pub fn not_found(uri: &str) -> Failure {
    Failure::new(
        ErrorCode::NotFound,
        format!(
            "Resource not found: `{uri}`; resources/list and resources/templates/list show what can be read"
        ),
    )
}

fn needs(required: Permissions) -> String {
    let names = required.names();
    if names.is_empty() {
        String::new()
    } else {
        format!(" and the permissions {}", names.join(", "))
    }
}

/// The variable part of `uri` after `prefix`, for templates ending in one variable
/// (`limina://entity/{id}`): non-empty, and holding no `/`, `?` or `#`.
pub(crate) fn variable<'u>(uri: &'u str, prefix: &str) -> Option<&'u str> {
    let value = uri.strip_prefix(prefix)?;
    let plain = !value.is_empty() && !value.contains(['/', '?', '#']);
    plain.then_some(value)
}

#[cfg(test)]
pub(crate) mod tests;
