//! Running guest code for a call: the caller's instance of the package (created on first
//! use, discarded after a trap), fuel and memory sized by the package limits and the session's
//! budget, and the measured cost charged afterwards.

use super::{Caller, ErrorCode, Failure, Registry};
use crate::limits::FUEL_PER_MS;
use crate::realm::Realm;
use crate::sandbox::bindings::SkillError;
use crate::sandbox::{CallFailure, CallInfo, CallOutcome, GuestInstance};

/// What to run inside the instance.
pub(super) type GuestFn<'a, T> =
    dyn FnOnce(&mut GuestInstance, Box<Realm>, CallInfo) -> (Box<Realm>, CallOutcome<T>) + 'a;

impl Registry {
    /// Runs `f` in `caller`'s instance of `package`; trace events the guest emitted are
    /// appended to `events`.
    pub(super) fn guest_call<T>(
        &mut self,
        caller: &Caller,
        package: usize,
        skill: &str,
        invocation_id: &str,
        events: &mut Vec<String>,
        f: Box<GuestFn<'_, T>>,
    ) -> Result<T, Failure> {
        let limits = self.packages[package].limits;
        let key = (caller.session_id.as_str().into(), package);
        if !self.instances.contains_key(&key) {
            let p = &self.packages[package];
            let instance = p
                .compiled
                .instantiate(&p.manifest.name, &limits)
                .map_err(|e| {
                    Failure::new(
                        ErrorCode::HandlerError,
                        format!("the package could not start: {e:#}"),
                    )
                })?;
            self.instances.insert(key.clone(), instance);
        }
        // The allotment is the lesser of the package's cap and what the session has left.
        let budget = self.policy.budget(&caller.session_id);
        let budget_fuel = budget
            .cpu_ms_left()
            .map(|ms| (ms * FUEL_PER_MS as f64) as u64);
        let fuel = budget_fuel.map_or(limits.fuel_per_call, |b| b.clamp(1, limits.fuel_per_call));
        let fuel_cut_by_budget = budget_fuel.is_some_and(|b| b < limits.fuel_per_call);
        let memory = budget
            .mem_bytes_limit()
            .map_or(limits.memory_bytes, |m| m.min(limits.memory_bytes));
        let memory_cut_by_budget = memory < limits.memory_bytes;

        let grants = caller
            .permissions
            .intersect(self.packages[package].manifest.capabilities);
        let realm = self.realm.take().expect("the realm is home between calls");
        let info = CallInfo {
            skill: skill.to_string(),
            agent_id: caller.agent_id.clone(),
            session_id: caller.session_id.clone(),
            profile: caller.profile.clone(),
            invocation_id: invocation_id.to_string(),
            grants,
            fuel,
            memory_limit_bytes: memory,
            timeout_ms: limits.timeout_ms,
            tick: realm.world.tick(),
        };
        let instance = self.instances.get_mut(&key).expect("inserted above");
        let (realm, outcome) = f(instance, realm, info);
        self.realm = Some(realm);
        events.extend(outcome.events);
        self.logs.extend(outcome.logs);
        // Charged whatever happened: a call cut mid-way still used what it used, and a call
        // refused memory reached for at least the limit. A call the CPU budget cut used all
        // that was left (charged exactly, so float rounding cannot leave a sliver unspent).
        let mut cpu_ms = outcome.fuel_used as f64 / FUEL_PER_MS as f64;
        if fuel_cut_by_budget && matches!(outcome.result, Err(CallFailure::OutOfFuel { .. })) {
            cpu_ms = cpu_ms.max(budget.cpu_ms_left().unwrap_or(0.0));
        }
        let mut peak = outcome.peak_memory_bytes as u64;
        if matches!(outcome.result, Err(CallFailure::Memory { .. })) {
            peak = peak.max(memory);
        }
        self.policy.charge(&caller.session_id, cpu_ms, peak);
        self.guest_cpu_ms += outcome.fuel_used as f64 / FUEL_PER_MS as f64;
        match outcome.result {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(from_guest(e)),
            Err(failure) => {
                // A trapped instance may be inconsistent: never run it again.
                self.instances.remove(&key);
                Err(from_sandbox(
                    failure,
                    fuel_cut_by_budget,
                    memory_cut_by_budget,
                ))
            }
        }
    }
}

fn from_guest(e: SkillError) -> Failure {
    match e {
        SkillError::InvalidInput(m) => Failure::new(ErrorCode::InvalidInput, m),
        SkillError::Forbidden(m) => Failure::new(ErrorCode::Forbidden, m),
        SkillError::HandlerError(m) => Failure::new(ErrorCode::HandlerError, m),
        SkillError::CapacityExceeded(m) => Failure::new(ErrorCode::CapacityExceeded, m),
        SkillError::NotFound(m) => Failure::new(ErrorCode::HandlerError, m),
    }
}

fn from_sandbox(failure: CallFailure, fuel_by_budget: bool, memory_by_budget: bool) -> Failure {
    let undone = "nothing it did to the world was kept";
    let message = match failure {
        CallFailure::OutOfFuel { fuel } if fuel_by_budget => format!(
            "the session's CPU budget ran out mid-call ({fuel} fuel left of it); the call was stopped and charged, {undone}"
        ),
        CallFailure::OutOfFuel { fuel } => {
            format!("the call used up its fuel allotment ({fuel} units) and was stopped; {undone}")
        }
        CallFailure::Timeout { timeout_ms } => {
            format!("the call ran past its {timeout_ms} ms deadline and was stopped; {undone}")
        }
        CallFailure::Memory { limit_bytes } if memory_by_budget => format!(
            "the call tried to grow memory past the session's memory budget of {limit_bytes} bytes and was stopped; {undone}"
        ),
        CallFailure::Memory { limit_bytes } => format!(
            "the call tried to grow memory past the package's {limit_bytes} byte limit and was stopped; {undone}"
        ),
        CallFailure::Trap(message) => {
            return Failure::new(
                ErrorCode::HandlerError,
                format!("the skill trapped and was stopped; {undone}: {message}"),
            );
        }
    };
    Failure::new(ErrorCode::CapacityExceeded, message)
}
