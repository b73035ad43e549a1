//! Running guest code for a call: an instance of the package made for the call and dropped
//! after it (`sandbox/pool.rs`), fuel and memory sized by the package limits and the session's
//! budget, and the measured cost charged afterwards.

use super::load::HOST_SESSION;
use super::{Caller, Registry};
use crate::call::{ErrorCode, Failure};
use crate::files::{FileAccess, WriteQuota};
use crate::limits::FUEL_PER_MS;
use crate::policy::Budget;
use crate::realm::Realm;
use crate::sandbox::bindings::SkillError;
use crate::sandbox::{CallFailure, CallInfo, CallOutcome, GuestInstance, Launch};
use crate::state::Usage;
use std::path::Path;
use std::sync::Arc;

/// What to run inside the instance.
pub(super) type GuestFn<'a, T> =
    dyn FnOnce(&mut GuestInstance, Box<Realm>, CallInfo) -> (Box<Realm>, CallOutcome<T>) + 'a;

/// A guest call set up on the engine: its identity and allotments, and what makes its
/// instance where it runs.
pub(crate) struct GuestPrep {
    pub(crate) info: CallInfo,
    pub(crate) slot: GuestSlot,
}

/// The package a call runs and what charging it needs ([`Registry::settle`]). Apart from
/// [`CallInfo`], which the call itself takes (copying its strings was 2 % of the engine
/// thread).
pub(crate) struct GuestSlot {
    /// The package's index.
    pub(super) package: usize,
    /// Makes the call's instance (of the version current when the call was decided).
    pub(crate) launch: Launch,
    fuel_cut_by_budget: bool,
    memory_cut_by_budget: bool,
    /// Its deadline is the engine's (`[limits] engineCallMs`), shorter than its package's.
    pub(super) deadline_by_engine: bool,
    /// The host's own call: charged to no session.
    hosted: bool,
    cpu_ms_left: Option<f64>,
    memory: u64,
}

impl Registry {
    /// Runs `f` in an instance of `package` made for this call (in `seat`, when one was taken
    /// for it); trace events the guest emitted are appended to `events`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn guest_call<T>(
        &mut self,
        caller: &Caller,
        package: usize,
        skill: &str,
        invocation_id: &str,
        seat: Option<crate::sandbox::Seat>,
        events: &mut Vec<String>,
        f: Box<GuestFn<'_, T>>,
    ) -> Result<T, Failure> {
        let GuestPrep { info, mut slot } =
            self.prepare_guest(caller, package, skill, invocation_id, seat)?;
        if info.clock == crate::call::Clock::Slice
            && let Some(hook) = &self.before_slice
        {
            hook();
        }
        let realm = self.realm.take().expect("the realm is home between calls");
        let (realm, outcome) = slot.launch.run(realm, info, f);
        self.realm = Some(realm);
        self.settle(caller, slot, outcome, events)
    }

    /// Sizes `caller`'s call of `package` (the allotment is the lesser of the package's cap
    /// and what the session has left) and readies its instance: the session's warm one if
    /// it left one, else one made when the call runs (in `seat`, if one was taken for it).
    pub(crate) fn prepare_guest(
        &mut self,
        caller: &Caller,
        package: usize,
        skill: &str,
        invocation_id: &str,
        seat: Option<crate::sandbox::Seat>,
    ) -> Result<GuestPrep, Failure> {
        let limits = self.packages[package].limits;
        let compiled = self.compiled(package)?;
        let warm = self.warm.take(&caller.session_id, package, &compiled);
        let files = self.file_access(package, caller);
        let mut launch = Launch::new(compiled, &self.packages[package].manifest.name, files, seat);
        if let Some(warm) = warm
            && let Err(warm) = launch.warm(warm)
        {
            // No seat free for it now: it stays warm, and the call makes an instance where it
            // runs if a seat is free by then.
            self.warm.put(&caller.session_id, package, warm);
        }
        // The host's own calls (the scene replay) spend no session's budget.
        let hosted = caller.session_id == HOST_SESSION;
        let budget = if hosted {
            Budget::default()
        } else {
            self.policy.budget(&caller.session_id)
        };
        let cpu_ms_left = budget.cpu_ms_left();
        let budget_fuel = cpu_ms_left.map(|ms| (ms * FUEL_PER_MS as f64) as u64);
        let fuel = budget_fuel.map_or(limits.fuel_per_call, |b| b.clamp(1, limits.fuel_per_call));
        let memory = budget
            .mem_bytes_limit()
            .map_or(limits.memory_bytes, |m| m.min(limits.memory_bytes));
        let grants = caller
            .permissions
            .intersect(super::load::declared_permissions(
                &self.packages[package].manifest,
            ));
        let reach = self.reach(package, &budget);
        let info = CallInfo {
            skill: skill.to_string(),
            agent_id: caller.agent_id.clone(),
            session_id: caller.session_id.clone(),
            profile: caller.profile.clone(),
            invocation_id: invocation_id.to_string(),
            grants,
            fuel,
            memory_limit_bytes: memory,
            // Calls on the engine hold everyone: the engine's short deadline, a third-party
            // one's counted from its start (a detached call gets its package's own back, in
            // wall time, see `detach`).
            timeout_ms: self.engine_deadline(package),
            clock: self.engine_clock(package),
            tick: self.realm().world.tick(),
            cancel: self.control.cancel.clone(),
            progress: self.control.progress.clone(),
            state_quota: self.state_quota(package),
            reach,
            view: None,
        };
        Ok(GuestPrep {
            info,
            slot: GuestSlot {
                package,
                launch,
                deadline_by_engine: self.engine_deadline(package) < limits.timeout_ms,
                fuel_cut_by_budget: budget_fuel.is_some_and(|b| b < limits.fuel_per_call),
                memory_cut_by_budget: memory < limits.memory_bytes,
                hosted,
                cpu_ms_left,
                memory,
            },
        })
    }

    /// The volumes an instance of `package` mounts for `caller`: each declared volume the host
    /// gives now (writable only where both say so), as far as the session's permissions allow,
    /// under the package's write quota (one per package, shared by its instances).
    fn file_access(&mut self, package: usize, caller: &Caller) -> FileAccess {
        let manifest = &self.packages[package].manifest;
        if manifest.grants.files.is_empty() {
            return FileAccess::default();
        }
        let granted = self.granted_volumes(package);
        let manifest = &self.packages[package].manifest;
        let limit = self.files.write_bytes;
        let quota = self
            .file_quotas
            .entry(manifest.name.clone())
            .or_insert_with(|| WriteQuota::new(limit))
            .clone();
        let host = &self.host_grants;
        FileAccess::new(
            &granted,
            |volume| host.volume_dir(volume).map(Path::to_path_buf),
            caller.permissions,
            quota,
        )
    }

    /// The volumes `package` declares that the host gives now, each `(name, writable)`
    /// (writable only where both say so).
    pub(super) fn granted_volumes(&self, package: usize) -> Vec<(String, bool)> {
        let manifest = &self.packages[package].manifest;
        let given = self.host_grants.given(&manifest.name);
        manifest
            .grants
            .files
            .iter()
            .filter_map(|d| {
                let g = given.volume(&d.volume)?;
                Some((d.volume.clone(), d.write && g.write))
            })
            .collect()
    }

    /// The state quota of `package`: what it declares, within what the host gives now.
    fn state_quota(&self, package: usize) -> Option<Usage> {
        let manifest = &self.packages[package].manifest;
        let declared = manifest.grants.state?;
        let given = self.host_grants.given(&manifest.name).state?;
        Some(Usage {
            keys: declared.keys.min(given.keys),
            bytes: declared.bytes.min(given.bytes),
        })
    }

    /// Charges what the call used, keeps its events and logs, and keeps its instance warm for
    /// the session's next call (unless it trapped, or its package was replaced meanwhile).
    pub(crate) fn settle<T>(
        &mut self,
        caller: &Caller,
        mut prep: GuestSlot,
        outcome: CallOutcome<T>,
        events: &mut Vec<String>,
    ) -> Result<T, Failure> {
        if let Some(mut instance) = prep.launch.kept() {
            let current = self
                .packages
                .get(prep.package)
                .and_then(|p| p.compiled.get())
                .is_some_and(|c| c.same(&instance));
            if current {
                instance.unseat();
                self.warm.put(&caller.session_id, prep.package, instance);
            }
        }
        events.extend(outcome.events);
        self.logs.extend(outcome.logs);
        // Charged whatever happened: a call cut mid-way still used what it used, and a call
        // refused memory reached for at least the limit. A call the CPU budget cut used all
        // that was left (charged exactly, so float rounding cannot leave a sliver unspent), and
        // never more than is left now: the sliver under one unit of fuel this call could not
        // be given may have gone to another call meanwhile, and a sliver still runs on one unit.
        let mut cpu_ms = outcome.fuel_used as f64 / FUEL_PER_MS as f64;
        if prep.fuel_cut_by_budget {
            let now = self.policy.budget(&caller.session_id).cpu_ms_left();
            let left = prep.cpu_ms_left.unwrap_or(0.0).min(now.unwrap_or(0.0));
            cpu_ms = match outcome.result {
                Err(CallFailure::OutOfFuel { .. }) => left,
                _ => cpu_ms.min(left),
            };
        }
        // The host's work for the guest (drawing a picture) was done: it is charged in full.
        cpu_ms += outcome.host_cpu_ms;
        let mut peak = outcome.peak_memory_bytes as u64;
        if matches!(outcome.result, Err(CallFailure::Memory { .. })) {
            peak = peak.max(prep.memory);
        }
        if !prep.hosted {
            self.policy.charge(&caller.session_id, cpu_ms, peak);
            if outcome.net.requests > 0 {
                self.policy
                    .charge_net(&caller.session_id, outcome.net.requests, outcome.net.bytes);
            }
        }
        let refused = outcome.net.refusals.first().cloned();
        self.record_usage(outcome.fuel_used, peak);
        self.guest_cpu_ms += outcome.fuel_used as f64 / FUEL_PER_MS as f64 + outcome.host_cpu_ms;
        match outcome.result {
            Ok(result) => result.map_err(|e| match refused {
                // The guest failed after the host refused one of its requests: say so.
                Some((rule, reason)) => refused_request(rule, &reason, from_guest(e)),
                None => from_guest(e),
            }),
            Err(failure) => Err(from_sandbox(
                failure,
                prep.deadline_by_engine,
                prep.fuel_cut_by_budget,
                prep.memory_cut_by_budget,
            )),
        }
    }
}

/// A guest error that followed a refused outbound request: `forbidden`, naming the rule and
/// the reason, then what the guest said.
fn refused_request(rule: &str, reason: &str, guest: Failure) -> Failure {
    Failure::new(
        ErrorCode::Forbidden,
        format!(
            "the host refused an outbound request ({rule}): {reason}; the skill then failed: {}",
            guest.message
        ),
    )
}

impl Registry {
    /// What a call to `package` may reach outside the world, when its manifest declares
    /// grants: the grants, what the host gives now, the resolver, the session's network
    /// budget left and the secret values to keep out of what the guest says.
    fn reach(&self, package: usize, budget: &Budget) -> Option<Arc<crate::net::Reach>> {
        let p = &self.packages[package];
        let declared = &p.manifest.grants;
        if declared.is_empty() {
            return None;
        }
        Some(Arc::new(crate::net::Reach {
            package: p.manifest.name.as_str().into(),
            declared: Arc::new(declared.clone()),
            host: self.host_grants.clone(),
            resolver: self.resolver.clone(),
            tls: self.tls_roots.clone(),
            net_left: budget.net_left(),
            redact: Arc::new(crate::grants::secrets::values_of(
                declared,
                &self.host_grants,
            )),
        }))
    }
}

/// A guest's own error, with the code it chose.
fn from_guest(e: SkillError) -> Failure {
    match e {
        SkillError::InvalidInput(m) => Failure::new(ErrorCode::InvalidInput, m),
        SkillError::Forbidden(m) => Failure::new(ErrorCode::Forbidden, m),
        SkillError::HandlerError(m) => Failure::new(ErrorCode::HandlerError, m),
        SkillError::CapacityExceeded(m) => Failure::new(ErrorCode::CapacityExceeded, m),
        SkillError::NotFound(m) => Failure::new(ErrorCode::NotFound, m),
    }
}

fn from_sandbox(
    failure: CallFailure,
    deadline_by_engine: bool,
    fuel_by_budget: bool,
    memory_by_budget: bool,
) -> Failure {
    let undone = "nothing it did to the world was kept";
    let message = match failure {
        CallFailure::OutOfFuel { fuel } if fuel_by_budget => format!(
            "the session's CPU budget ran out mid-call ({fuel} fuel left of it); the call was stopped and charged, {undone}"
        ),
        CallFailure::OutOfFuel { fuel } => {
            format!("the call used up its fuel allotment ({fuel} units) and was stopped; {undone}")
        }
        CallFailure::Timeout { timeout_ms } if deadline_by_engine => format!(
            "the call ran past the {timeout_ms} ms the host gives a call that can touch the \
             world (it runs on the engine, where every client and the physics tick wait for it; \
             counted in the time it ran, its start included) and was stopped; {undone}. Slow \
             work belongs in a package without world capabilities or state, which runs off the \
             engine; or the host's operator may raise `[limits] engineCallMs` in its \
             configuration, and every client then waits that long behind such a call"
        ),
        CallFailure::Timeout { timeout_ms } => {
            format!("the call ran past its {timeout_ms} ms deadline and was stopped; {undone}")
        }
        CallFailure::Memory { limit_bytes } if memory_by_budget => format!(
            "the call tried to grow memory past the session's memory budget of {limit_bytes} bytes and was stopped; {undone}"
        ),
        CallFailure::Memory { limit_bytes } => format!(
            "the call tried to grow memory past the package's {limit_bytes} byte limit and was stopped; {undone}"
        ),
        CallFailure::Table { limit_elements } => format!(
            "the call tried to grow a table past the host's {limit_elements} element cap and was stopped; {undone}"
        ),
        CallFailure::Cancelled => {
            return Failure::new(
                ErrorCode::Cancelled,
                format!(
                    "the caller cancelled the call; it was stopped and charged for what it used, {undone}"
                ),
            );
        }
        CallFailure::Trap(message) => {
            return Failure::new(
                ErrorCode::HandlerError,
                format!("the skill trapped and was stopped; {undone}: {message}"),
            );
        }
        // Refused before any of its code ran: nothing to undo, nothing charged.
        CallFailure::Full { instances } => crate::sandbox::PoolFull { instances }.to_string(),
        CallFailure::Start(message) => {
            return Failure::new(
                ErrorCode::HandlerError,
                format!("the package could not start: {message}"),
            );
        }
    };
    Failure::new(ErrorCode::CapacityExceeded, message)
}
