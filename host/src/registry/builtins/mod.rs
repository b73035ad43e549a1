//! The system skills: host built-ins that read the host itself (registry, trace, policy).
//! Nothing to sandbox, but they cross the same pipeline as every guest skill.

mod audit;
mod catalog;
mod dev;
mod fetch;
mod inspector;
mod packages;
mod tiers;
mod trace;
mod world;

use super::{Annotations, Caller, Handler, Registry, Schema, Skill};
use crate::call::{ErrorCode, Failure};
use crate::policy::Permission;
use crate::trace::History;
pub(crate) use fetch::{Fetch, Fetched};
pub(crate) use packages::{fetch_for, register_fetched};
use serde_json::Value;
pub(crate) use world::checkpoint_failure;

/// Which built-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    SkillsList,
    SkillsDescribe,
    SkillsSearch,
    SkillsSetLatencyTier,
    SkillsCalibrate,
    AuditExplain,
    AuditQuery,
    AuditUsage,
    TraceTail,
    TraceExplainEvent,
    TraceExport,
    WorldStep,
    WorldCheckpoint,
    WorldHash,
    WorldExport,
    DevReload,
    PackageList,
    PackageLoad,
    InspectorSnapshot,
}

impl Builtin {
    /// Runs it on a validated input.
    pub(crate) fn run(
        self,
        registry: &mut Registry,
        caller: &Caller,
        input: &mut Value,
    ) -> Result<Value, Failure> {
        match self {
            Builtin::SkillsList => Ok(catalog::list(registry, caller, input)),
            Builtin::SkillsSearch => Ok(catalog::search(registry, caller, input)),
            Builtin::SkillsSetLatencyTier => tiers::set(registry, caller, input),
            Builtin::SkillsCalibrate => Ok(tiers::calibrate(registry, input)),
            Builtin::SkillsDescribe => catalog::describe(registry, caller, input),
            Builtin::TraceTail => trace::tail_on_engine(&mut registry.realm_mut().tracer, input),
            Builtin::AuditExplain | Builtin::AuditQuery | Builtin::TraceExplainEvent => {
                self.read_history(&mut registry.realm_mut().tracer.history(), input)
            }
            Builtin::AuditUsage => Ok(audit::usage(registry, input)),
            Builtin::TraceExport => trace::export(registry, input)(),
            Builtin::DevReload => dev::reload(registry, caller, input),
            Builtin::PackageList => Ok(packages::list(registry, input)),
            Builtin::PackageLoad => packages::load(registry, caller, input),
            Builtin::InspectorSnapshot => inspector::snapshot(registry, caller, input),
            Builtin::WorldStep => Ok(world::step(registry, input)),
            Builtin::WorldCheckpoint => world::checkpoint(registry),
            Builtin::WorldHash => Ok(world::hash(registry)),
            Builtin::WorldExport => Ok(world::export(registry)),
        }
    }
}

/// A built-in's work, prepared on the engine, to finish on any thread.
pub(crate) type Job = Box<dyn FnOnce() -> Result<Value, Failure> + Send>;

impl Builtin {
    /// Whether it only reads the trace, so that it can run on a snapshot of it off the engine.
    pub(crate) fn reads_history_only(self) -> bool {
        matches!(
            self,
            Builtin::AuditExplain
                | Builtin::AuditQuery
                | Builtin::TraceTail
                | Builtin::TraceExplainEvent
                | Builtin::TraceExport
        )
    }

    /// Whether a call of a built-in that may leave the engine is answered there all the same:
    /// a `trace.tail` page the in-memory window holds costs less there than the hop to a
    /// worker and back; a `package.load` leaves only to fetch from a registry.
    pub(crate) fn answers_on_engine(self, registry: &Registry, input: &Value) -> bool {
        match self {
            Builtin::TraceTail => trace::tail_in_window(&registry.realm().tracer, input),
            Builtin::PackageLoad => !packages::fetches(registry, input),
            _ => false,
        }
    }

    /// Its work, prepared on the engine to run on a worker thread: a query on a snapshot of
    /// the history, or an export of it. Only for [the ones that read the history
    /// only](Builtin::reads_history_only).
    pub(crate) fn job(self, registry: &mut Registry, input: &Value) -> Job {
        if self == Builtin::TraceExport {
            return trace::export(registry, input);
        }
        let snapshot = registry.realm_mut().tracer.snapshot();
        let input = input.clone();
        Box::new(move || snapshot.read(|history| self.read_history(history, &input)))
    }

    /// Runs a built-in that [reads the history only](Builtin::reads_history_only) on
    /// `history`.
    pub(crate) fn read_history(
        self,
        history: &mut History,
        input: &Value,
    ) -> Result<Value, Failure> {
        match self {
            Builtin::AuditExplain => audit::explain(history, input),
            Builtin::AuditQuery => audit::query(history, input),
            Builtin::TraceTail => trace::tail(history, input),
            Builtin::TraceExplainEvent => trace::explain_event(history, input),
            other => unreachable!("{other:?} does not only read the history"),
        }
    }
}

/// A built-in's contract.
struct Spec {
    builtin: Builtin,
    name: &'static str,
    description: &'static str,
    input: Value,
    output: Value,
}

/// Every built-in's contract.
fn specs() -> impl Iterator<Item = Spec> {
    catalog::specs()
        .into_iter()
        .chain(tiers::specs())
        .chain(audit::specs())
        .chain(trace::specs())
        .chain(world::specs())
        .chain(dev::specs())
        .chain(packages::specs())
        .chain(inspector::specs())
}

/// The host's built-in skills, made before the registry that will hold them (a start makes
/// them while the sandbox is being built: `cli/serve.rs`).
pub struct Builtins(Vec<Skill>);

impl Builtins {
    pub fn new() -> Self {
        Builtins(specs().map(skill).collect())
    }
}

impl Default for Builtins {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers every built-in.
pub(super) fn register(registry: &mut Registry, builtins: Builtins) {
    registry.skills.insert_all(builtins.0);
    registry.generation += 1;
    registry.skill_set += 1;
}

fn skill(spec: Spec) -> Skill {
    let (version, permissions) = contract(spec.name);
    Skill {
        name: spec.name.to_string(),
        version: version.into(),
        category: "system".into(),
        description: spec.description.into(),
        permissions: permissions.iter().copied().collect(),
        // Compiled on first use, as a cached package's are: a start compiles none (the
        // test below compiles every one).
        input: Schema::compiled_before(spec.input),
        output: Schema::compiled_before(spec.output),
        annotations: Annotations {
            // Built-ins read the host, except `world.step`, which advances it, and
            // `skills.setLatencyTier`, which changes what the session is shown.
            read_only: !matches!(
                spec.builtin,
                Builtin::WorldStep
                    | Builtin::WorldCheckpoint
                    | Builtin::SkillsSetLatencyTier
                    | Builtin::SkillsCalibrate
            ),
            destructive: false,
            idempotent: spec.builtin != Builtin::WorldStep,
            open_world: false,
        },
        handler: Handler::Builtin(spec.builtin),
        latency: Default::default(),
        // Host built-ins answer in microseconds.
        tier: crate::policy::LatencyTier::Fast,
    }
}

/// Version and required permissions of a built-in, as the catalog gives them.
fn contract(name: &str) -> (&'static str, &'static [Permission]) {
    use Permission::*;
    match name {
        // A scene reload replaces everyone's world; a package or data reload changes what
        // every session runs under.
        "dev.reload" => ("2.0.0", &[SceneWrite]),
        // Advancing time moves every dynamic body.
        "world.step" => ("1.0.0", &[PhysicsWrite]),
        // A checkpoint writes the shared world to the host's disk.
        "world.checkpoint" => ("1.0.0", &[SceneWrite]),
        "world.hash" | "world.export" => ("1.0.0", &[SceneRead]),
        // It changes every session's listings, as a scene reload changes everyone's world.
        "skills.calibrate" => ("1.0.0", &[SceneWrite]),
        "package.load" => ("1.0.0", &[AgentWrite]),
        "inspector.snapshot" => ("1.0.0", &[SceneRead, EcsRead, PhysicsRead, AgentRead]),
        _ => ("1.0.0", &[]),
    }
}

/// A draft-07 object schema with the given properties and required keys.
fn object(properties: Value, required: &[&str]) -> Value {
    crate::json::object([
        ("$schema", "http://json-schema.org/draft-07/schema#".into()),
        ("type", "object".into()),
        ("properties", properties),
        ("required", required.into()),
    ])
}

fn not_found(message: String) -> Failure {
    Failure::new(ErrorCode::InvalidInput, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Built-in schemas are compiled on first use; every one compiles.
    #[test]
    fn every_built_in_schema_compiles() {
        let mut checked = 0;
        for spec in specs() {
            for (which, source) in [("input", spec.input), ("output", spec.output)] {
                let schema = Schema::compiled_before(source);
                assert_eq!(schema.compiles(), Ok(()), "`{}` {which}", spec.name);
                checked += 1;
            }
        }
        assert!(checked > 30, "{checked}");
    }
}
