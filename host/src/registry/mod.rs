//! The registry: every skill by name, the packages that provide them, and the one pipeline
//! every call crosses: resolve → validate → policy → before-hooks → handler → after-hooks →
//! output check → emit.

mod approval;
mod builtins;
mod calibrate;
mod calibration_store;
mod compiled;
mod decision;
mod deferral;
mod detachable;
mod detached;
mod durable;
mod guest_call;
mod hooks;
pub(crate) mod latency;
mod load;
mod offered;
mod persist;
mod pipeline;
pub mod prompts;
mod reload;
pub mod resources;
mod response;
mod scan;
mod schema;
pub mod search;
mod skill_table;
mod stages;
mod upstream;
mod viewing;
mod visibility;
mod warm;

pub use builtins::Builtins;
pub use calibrate::Calibrated;
pub use detached::{DetachedCall, Invocation, RanCall};
pub use hooks::{HookPhase, HostHook};
pub use latency::{LatencyReport, LatencySource, LatencyWindow};
pub use load::HOST_SESSION;
pub use reload::{ConfigLoader, Reconfiguration};
pub use response::{Metadata, Response};
pub use schema::{Schema, standardize};

use crate::call::CallControl;
use crate::limits::PackageLimits;
use crate::packages::Manifest;
use crate::policy::{LatencyTier, Permissions, PolicyConfig, PolicyEngine, Profiles};
use crate::realm::Realm;
use crate::sandbox::{CompiledPackage, Sandbox};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

/// Who is calling: bound from the session, never from a payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub agent_id: String,
    pub session_id: String,
    pub profile: String,
    pub permissions: Permissions,
}

/// Client hints for a skill (MCP tool annotations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// What runs a skill.
#[derive(Clone, Copy)]
pub(crate) enum Handler {
    /// A guest component: index into the registry's packages.
    Guest(usize),
    /// A host built-in that reads the host itself.
    Builtin(builtins::Builtin),
    /// A tool of an upstream MCP server: index into the registry's upstreams.
    Upstream(usize),
}

/// A registered skill's contract.
pub struct Skill {
    pub name: String,
    pub version: String,
    pub category: String,
    pub description: String,
    pub permissions: Permissions,
    pub input: Schema,
    pub output: Schema,
    pub annotations: Annotations,
    pub(crate) handler: Handler,
    /// Its last calls, measured by the pipeline.
    pub(crate) latency: LatencyWindow,
    /// Its latency tier as last computed (after registration and after every call).
    pub(crate) tier: LatencyTier,
}

impl Skill {
    /// The package providing it, or `None` for a host built-in.
    pub fn package_index(&self) -> Option<usize> {
        match self.handler {
            Handler::Guest(i) => Some(i),
            Handler::Builtin(_) | Handler::Upstream(_) => None,
        }
    }
}

/// A loaded package.
pub struct Package {
    pub manifest: Manifest,
    pub content_hash: String,
    /// Limits in force: the manifest's, unless the configuration overrides them.
    pub limits: PackageLimits,
    /// The folder it was loaded from (reloads read it again).
    pub dir: std::path::PathBuf,
    /// Built into the binary: it cannot be reloaded from a folder.
    pub embedded: bool,
    /// Empty until its first call (or completion) when it was registered from its cached
    /// description (`compiled.rs`).
    compiled: std::sync::OnceLock<CompiledPackage>,
    /// The component built into the binary, to compile again should the cache lose it.
    embedded_component: Option<&'static [u8]>,
    hooks: Vec<hooks::GuestHook>,
}

impl Package {
    /// Whether its component is compiled yet: a package registered from its cached
    /// description is compiled by its first call.
    pub fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }
}

/// Skills, packages, the policy engine and the realm they act on.
pub struct Registry {
    /// Shared so packages can be compiled off the request path (hot reload).
    sandbox: Arc<Sandbox>,
    policy: PolicyEngine,
    packages: Vec<Package>,
    /// Sorted by name, so listings are stable.
    skills: skill_table::SkillTable,
    host_hooks: Vec<HostHook>,
    /// The realm; `None` only while lent to a guest call.
    realm: Option<Box<Realm>>,
    /// Instances kept for their session's next call of the same package (`warm.rs`).
    warm: warm::Warm,
    /// Limits that override manifests, by package name.
    limit_overrides: BTreeMap<String, PackageLimits>,
    /// What the host gives each package to reach outside the world (from the configuration).
    host_grants: Arc<crate::grants::HostGrants>,
    /// What no package's limits may exceed, and the engine's call deadline.
    ceilings: crate::ceilings::Ceilings,
    /// The core packages, by name: the host's own, exempt from the engine's call deadline.
    core: std::collections::BTreeSet<String>,
    /// How much each package may write into its volumes (`[files]`).
    files: crate::files::FilesConfig,
    /// Each package's write quota, shared by its instances, by package name.
    file_quotas: HashMap<String, crate::files::WriteQuota>,
    /// How outbound names are resolved (`--resolve` pins, then the system).
    resolver: Arc<dyn crate::net::Resolver>,
    /// The roots outbound `https` trusts (`[outbound] extraRoots`).
    tls_roots: crate::net::TlsRoots,
    /// Where `trace.export` may write.
    traces_dir: Option<std::path::PathBuf>,
    /// What `dev.reload data` re-reads (`None`: the host was started without a configuration).
    config_loader: Option<reload::ConfigLoader>,
    /// What `dev.reload scene` replays.
    scene_file: Option<std::path::PathBuf>,
    /// Folders holding installed packages, where `package.load` resolves references.
    package_roots: Vec<std::path::PathBuf>,
    /// How `package.load` fetches `oci://` references.
    oci: crate::packages::oci::OciSettings,
    /// Bumped whenever the skill set changes, or what a listing shows does (a skill or a
    /// session changed latency tier), so callers can memoize listings.
    generation: u64,
    /// Bumped only when skills are registered, replaced or reconfigured: what the search
    /// index depends on (tier changes leave it be).
    skill_set: u64,
    started: Instant,
    /// Guest log lines not yet passed on to clients.
    logs: Vec<crate::log::LogLine>,
    /// Guest CPU time measured from fuel since start-up, in milliseconds: a call's share is
    /// the difference across it (nested calls, such as a scene replay, count in their caller).
    guest_cpu_ms: f64,
    /// The `skills.search` index, rebuilt on first use after `skill_set` moves.
    search: Option<search::SearchCatalog>,
    /// The cancel and progress sink of the call in progress (defaults between calls).
    control: CallControl,
    /// Content blocks the call in progress returned besides its output (`content.rs`).
    content: Vec<crate::call::Content>,
    /// The decision of the resource read or prompt get in progress: a package serving it
    /// runs under it (`offered.rs`).
    crossing: String,
    /// The credential findings (trace event ids) of the crossing being served: its outcome
    /// event (`resource.read`, `prompt.get`) is caused by them as well as by its decision.
    crossing_found: Vec<String>,
    /// Where calibration results are kept (`None`: not kept).
    calibration_file: Option<std::path::PathBuf>,
    /// The stages of the call in progress, when someone watches (telemetry).
    recorder: stages::StageRecorder,
    /// Keeps the world across restarts (`None`: the world lives in memory only).
    world_store: Option<crate::persistence::WorldStore>,
    /// The running call's world operations were journaled (forgotten once written).
    journal_pending: bool,
    /// MCP servers whose tools are mounted (`[[upstream]]`, `upstream.rs`).
    upstreams: Vec<Arc<crate::upstream::Upstream>>,
    /// Upstream tools held by their pins, and when approvals were last looked for.
    held: upstream::Held,
    /// What a credential found in a package's or upstream's result does.
    scan_results: crate::grants::credentials::ScanResults,
    /// Calls whose events wait for the batch's write (`deferral.rs`).
    deferral: deferral::Deferral,
    /// What clients may read besides calling skills (`resources/`).
    resources: resources::ResourceTable,
    /// The prompts clients may get (`prompts/`).
    prompts: prompts::PromptTable,
    /// Called as a third-party call is about to take its slice of the engine (the engine
    /// lets its queued replies go, [`Registry::before_engine_slice`]).
    before_slice: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Registry {
    /// A registry holding the built-in system skills, over `realm`.
    pub fn new(sandbox: Sandbox, policy: PolicyConfig, realm: Realm) -> Self {
        Self::with_builtins(sandbox, policy, realm, Builtins::new())
    }

    /// [`Registry::new`] with the built-in skills made beforehand.
    pub fn with_builtins(
        sandbox: Sandbox,
        policy: PolicyConfig,
        realm: Realm,
        builtins: Builtins,
    ) -> Self {
        let mut registry = Registry {
            sandbox: Arc::new(sandbox),
            policy: PolicyEngine::new(policy),
            packages: Vec::new(),
            skills: Default::default(),
            host_hooks: Vec::new(),
            realm: Some(Box::new(realm)),
            warm: Default::default(),
            limit_overrides: BTreeMap::new(),
            host_grants: Default::default(),
            ceilings: Default::default(),
            core: Default::default(),
            files: Default::default(),
            file_quotas: HashMap::new(),
            resolver: crate::net::HostResolver::default().into_shared(),
            tls_roots: crate::net::TlsRoots::default(),
            traces_dir: None,
            config_loader: None,
            scene_file: None,
            package_roots: Vec::new(),
            oci: Default::default(),
            generation: 0,
            skill_set: 0,
            started: Instant::now(),
            logs: Vec::new(),
            control: Default::default(),
            content: Vec::new(),
            crossing: String::new(),
            crossing_found: Vec::new(),
            calibration_file: None,
            guest_cpu_ms: 0.0,
            search: None,
            recorder: Default::default(),
            world_store: None,
            journal_pending: false,
            deferral: Default::default(),
            upstreams: Vec::new(),
            held: Default::default(),
            scan_results: Default::default(),
            resources: resources::ResourceTable::host(),
            prompts: prompts::PromptTable::host(),
            before_slice: None,
        };
        builtins::register(&mut registry, builtins);
        registry
    }

    /// Limits that override package manifests, by package name (from the configuration).
    pub fn set_limit_overrides(&mut self, overrides: BTreeMap<String, PackageLimits>) {
        self.limit_overrides = overrides;
        for p in &mut self.packages {
            p.limits = self
                .limit_overrides
                .get(&p.manifest.name)
                .copied()
                .unwrap_or(p.manifest.limits);
        }
    }

    /// What the host gives each package (volumes, secrets, network patterns, state quotas),
    /// from the configuration. Loaded packages are held to it from their next call; a package
    /// loaded later that declares more is refused (`package.overclaim`).
    pub fn set_host_grants(&mut self, grants: crate::grants::HostGrants) {
        self.host_grants = Arc::new(grants);
        // An instance's volumes are mounted when it is made: the next call makes a new one.
        self.warm.retain(|_, _| false);
    }

    /// How much each package may write into its volumes (`[files]`); quotas already counting
    /// keep what they counted.
    pub fn set_files(&mut self, files: crate::files::FilesConfig) {
        self.files = files;
    }

    /// How the names of outbound requests are resolved (the seam tests fill).
    pub fn set_resolver(&mut self, resolver: Arc<dyn crate::net::Resolver>) {
        self.resolver = resolver;
    }

    /// Sets the roots outbound `https` requests trust (the web roots plus `extraRoots`).
    pub fn set_tls_roots(&mut self, roots: crate::net::TlsRoots) {
        self.tls_roots = roots;
    }

    /// What the host gives each package.
    pub fn host_grants(&self) -> &Arc<crate::grants::HostGrants> {
        &self.host_grants
    }

    /// The ceilings on package limits and the engine's call deadline (`[limits]`); packages
    /// loaded from now on are held to them.
    pub fn set_ceilings(&mut self, ceilings: crate::ceilings::Ceilings) {
        self.ceilings = ceilings;
    }

    /// The ceilings in force (`[limits]`).
    pub fn ceilings(&self) -> &crate::ceilings::Ceilings {
        &self.ceilings
    }

    /// Names the core packages (loaded from the core folder): the host's own skills, which
    /// keep their manifests' timeouts on the engine.
    pub fn set_core_packages(&mut self, names: impl IntoIterator<Item = String>) {
        self.core = names.into_iter().collect();
    }

    /// Calls `hook` on the engine thread just before a third-party call runs on it: such a
    /// call may hold the engine for its whole slice, and what the engine queued before it
    /// (another client's reply) should not wait that long.
    pub fn before_engine_slice(&mut self, hook: impl Fn() + Send + Sync + 'static) {
        self.before_slice = Some(Arc::new(hook));
    }

    /// The deadline of `package`'s calls on the engine.
    pub(super) fn engine_deadline(&self, package: usize) -> u64 {
        let p = &self.packages[package];
        if self.core.contains(&p.manifest.name) {
            p.limits.timeout_ms
        } else {
            self.ceilings.engine_deadline(p.limits.timeout_ms)
        }
    }

    /// How a call of `package` on the engine counts its deadline: a third-party package's
    /// slice from its start, since a few milliseconds taken from it by the scheduler would
    /// matter; a core package's from its first epoch tick (`call/interrupt.rs`).
    pub(super) fn engine_clock(&self, package: usize) -> crate::call::Clock {
        if self.core.contains(&self.packages[package].manifest.name) {
            crate::call::Clock::Running
        } else {
            crate::call::Clock::Slice
        }
    }

    /// The folder `trace.export` writes into.
    pub fn set_traces_dir(&mut self, dir: std::path::PathBuf) {
        self.traces_dir = Some(dir);
    }

    /// All skills, sorted by name.
    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.skills.values()
    }

    /// One skill by name.
    pub fn skill(&self, name: &str) -> Option<&Skill> {
        self.skills.get(name)
    }

    /// A skill's latency: measured over its last calls, or what its package declares until
    /// enough calls were measured.
    pub fn latency(&self, skill: &Skill) -> LatencyReport {
        skill.latency.report(
            declared_latency(&self.packages, skill),
            &self.policy.latency().thresholds,
        )
    }

    /// Recomputes a skill's tier; a change bumps the generation, so listings are rebuilt and
    /// clients hear `notifications/tools/list_changed`. Returns whether it changed.
    pub(crate) fn refresh_tier(&mut self, name: &str) -> bool {
        let thresholds = self.policy.latency().thresholds;
        let Some(skill) = self.skills.get_mut(name) else {
            return false;
        };
        let changed = retier(skill, declared_latency(&self.packages, skill), &thresholds);
        if changed {
            self.generation += 1;
        }
        changed
    }

    /// Recomputes every skill's tier (after registering, or when the thresholds moved).
    pub(crate) fn refresh_tiers(&mut self) {
        let names: Vec<String> = self.skills.keys().cloned().collect();
        for name in names {
            self.refresh_tier(&name);
        }
    }

    /// The slowest latency tier `caller` may use now.
    pub fn session_tier(&self, caller: &Caller) -> LatencyTier {
        self.policy
            .session_tier(&caller.session_id, &caller.profile)
    }

    /// Sets the tier `caller` asks for (`None`: its profile's ceiling) and returns the tier now
    /// in force; refused, changing nothing, beyond the profile's `maxLatencyTier`. A change
    /// bumps the generation, so the session's listing is rebuilt and announced.
    pub fn set_session_tier(
        &mut self,
        caller: &Caller,
        tier: Option<LatencyTier>,
    ) -> Result<LatencyTier, String> {
        let before = self.session_tier(caller);
        let now = self
            .policy
            .set_session_tier(&caller.session_id, &caller.profile, tier)?;
        if now != before {
            self.generation += 1;
        }
        Ok(now)
    }

    /// Folders holding installed packages (`--packages`), where `package.load` resolves.
    pub fn set_package_roots(&mut self, roots: Vec<std::path::PathBuf>) {
        self.package_roots = roots;
    }

    /// The folders `package.load` resolves references in.
    pub fn package_roots(&self) -> &[std::path::PathBuf] {
        &self.package_roots
    }

    /// How `package.load` fetches `oci://` references (`[oci]`, `trustedKeys`).
    pub fn set_oci(&mut self, settings: crate::packages::oci::OciSettings) {
        self.oci = settings;
    }

    /// How `oci://` references are fetched.
    pub fn oci(&self) -> &crate::packages::oci::OciSettings {
        &self.oci
    }

    /// The sandbox, for compiling packages on another thread.
    pub fn sandbox(&self) -> Arc<Sandbox> {
        self.sandbox.clone()
    }

    /// The loaded packages.
    pub fn packages(&self) -> &[Package] {
        &self.packages
    }

    /// The profiles sessions may run under.
    pub fn profiles(&self) -> &Profiles {
        self.policy.profiles()
    }

    /// The policy engine (revocations, budgets, tallies).
    pub fn policy(&self) -> &PolicyEngine {
        &self.policy
    }

    /// The policy engine, for revoking and restoring.
    pub fn policy_mut(&mut self) -> &mut PolicyEngine {
        &mut self.policy
    }

    /// Changes whenever skills are registered, replaced or removed.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The realm, for reads between calls (inspection, tests, stepping the world).
    pub fn realm(&self) -> &Realm {
        self.realm
            .as_ref()
            .expect("the realm is only lent out during a call")
    }

    /// The realm, for changes between calls.
    pub fn realm_mut(&mut self) -> &mut Realm {
        self.realm
            .as_mut()
            .expect("the realm is only lent out during a call")
    }

    /// Guest log lines written since the last call, oldest first.
    pub fn take_logs(&mut self) -> Vec<crate::log::LogLine> {
        std::mem::take(&mut self.logs)
    }

    /// Adds a host hook run around every skill its patterns match.
    pub fn add_hook(&mut self, hook: HostHook) {
        self.host_hooks.push(hook);
    }

    /// Session admission through the policy engine, traced. The error is the reason to give
    /// the client.
    pub fn admit_session(&mut self, caller: &Caller) -> Result<(), String> {
        let verdict = self
            .policy
            .admit_session(&caller.session_id, &caller.profile);
        let realm = self
            .realm
            .as_mut()
            .expect("the realm is home between calls");
        let crossing = decision::Crossing {
            boundary: "session",
            cap: "session.admit",
            package: None,
            required: Vec::new(),
        };
        decision::record(realm, caller, crossing, &verdict);
        if verdict.allow {
            Ok(())
        } else {
            Err(format!(
                "session refused ({}): {}",
                verdict.rule, verdict.reason
            ))
        }
    }

    /// A session the network edge refused at `initialize` (a profile or agent beyond what the
    /// client was admitted with), traced as `session.admission.denied` with what it asked for.
    pub fn refuse_admission(&mut self, params: &serde_json::Value, reason: &str) {
        let asked = |key: &str| params.get(key).and_then(serde_json::Value::as_str);
        let actor: String = asked("agentId")
            .unwrap_or("anonymous")
            .chars()
            .take(128)
            .collect();
        let thread = asked("sessionId")
            .unwrap_or("unbound")
            .chars()
            .take(128)
            .collect();
        self.realm_mut().tracer.emit(crate::trace::NewEvent {
            kind: "session.admission.denied".into(),
            actor_id: actor,
            thread_id: thread,
            parent_event_id: None,
            caused_by: vec![],
            payload: serde_json::json!({
                "profile": asked("profile"),
                "agentId": asked("agentId"),
                "reason": reason,
            }),
        });
    }

    /// Revokes a package: its skills are denied (`revoked`) from the next call on and it cannot
    /// be loaded again; traced as `package.revoked`.
    pub fn revoke_package(&mut self, name: &str) {
        self.write_deferred();
        self.policy.revoke_package(name);
        let host = load::host_caller();
        self.realm_mut().tracer.emit(crate::trace::NewEvent {
            kind: "package.revoked".into(),
            actor_id: host.agent_id,
            thread_id: host.session_id,
            parent_event_id: None,
            caused_by: vec![],
            payload: serde_json::json!({"package": name}),
        });
    }

    /// Drops a session's warm instances and frees its seat (on disconnect or shutdown).
    pub fn end_session(&mut self, session_id: &str) {
        self.write_deferred();
        self.warm.retain(|s, _| s != session_id);
        self.policy.release_session(session_id);
    }

    /// Milliseconds since the registry started: the policy engine's clock.
    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// The latency a skill's package manifest declares, which stands in until enough calls are
/// measured.
fn declared_latency(
    packages: &[Package],
    skill: &Skill,
) -> Option<crate::packages::ExpectedLatency> {
    skill
        .package_index()
        .and_then(|i| packages[i].manifest.latency)
}

/// Sets `skill`'s tier from its window and `expected`; whether it moved.
fn retier(
    skill: &mut Skill,
    expected: Option<crate::packages::ExpectedLatency>,
    thresholds: &crate::policy::TierThresholds,
) -> bool {
    let tier = skill.latency.tier(expected, thresholds);
    let moved = tier != skill.tier;
    skill.tier = tier;
    moved
}
