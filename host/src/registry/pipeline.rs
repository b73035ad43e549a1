//! `invoke`: the one path every call takes.

use super::schema::normalize_input;
use super::{Caller, ErrorCode, Failure, Metadata, Registry, Response, Skill};
use crate::limits::MAX_OUTPUT_BYTES;
use crate::policy::Permission;
use crate::realm::Realm;
use crate::sandbox::bindings::SkillError;
use crate::sandbox::{CallFailure, CallInfo, CallOutcome};
use crate::trace::NewEvent;
use serde_json::{Value, json};
use std::time::Instant;

/// Events and timing gathered along the way.
struct Run {
    started: Instant,
    events: Vec<String>,
}

impl Run {
    fn metadata(self) -> Metadata {
        Metadata {
            execution_time_ms: self.started.elapsed().as_secs_f64() * 1000.0,
            events_emitted: self.events,
        }
    }

    fn fail(self, code: ErrorCode, message: impl Into<String>) -> Response {
        Response::failed(Failure::new(code, message), self.metadata())
    }
}

impl Registry {
    /// Runs skill `name` for `caller` with `input`.
    pub fn invoke(&mut self, caller: &Caller, name: &str, input: Value) -> Response {
        let mut run = Run {
            started: Instant::now(),
            events: Vec::new(),
        };
        // 1. resolve
        let Some(skill) = self.skills.get(name) else {
            return run.fail(
                ErrorCode::NotFound,
                format!(
                    "unknown skill `{name}`; list the available ones with tools/list or skills.list"
                ),
            );
        };
        // 2. validate, defaults first
        let mut input = normalize_input(input);
        if !input.is_object() {
            return run.fail(ErrorCode::InvalidInput, "the input must be a JSON object");
        }
        skill.input.fill_defaults(&mut input);
        if let Some(problem) = skill.input.check(&input) {
            return run.fail(
                ErrorCode::InvalidInput,
                format!("invalid input for `{name}`: {problem}"),
            );
        }
        // 3. policy
        let missing = caller.permissions.first_missing(skill.permissions);
        let package = skill.package;
        let realm = self
            .realm
            .as_mut()
            .expect("the realm is home between calls");
        let decision = decide(
            realm,
            caller,
            skill,
            &self.packages[package].manifest.name,
            missing,
        );
        run.events.extend(decision.events.iter().cloned());
        if let Some(missing) = missing {
            return run.fail(
                ErrorCode::Forbidden,
                format!("missing permission: {missing}"),
            );
        }
        // 4. handler
        let input_json = input.to_string();
        let outcome = self.run_guest(caller, name, package, &decision.id, &input_json);
        run.events.extend(outcome.events.iter().cloned());
        let output = match outcome.result {
            Ok(Ok(text)) => text,
            Ok(Err(e)) => return fail_from_guest(run, e),
            Err(failure) => return fail_from_sandbox(run, failure),
        };
        // 5. output check
        let skill = &self.skills[name];
        let realm = self
            .realm
            .as_mut()
            .expect("the realm is home between calls");
        let output = match check_output(skill, &output) {
            Ok(v) => v,
            Err(message) => {
                realm.world.rollback();
                return run.fail(ErrorCode::HandlerError, message);
            }
        };
        realm.world.commit();
        // 6. emit
        let tick = realm.world.tick();
        let executed = realm.tracer.emit(NewEvent {
            kind: "skill.executed".into(),
            actor_id: caller.agent_id.clone(),
            thread_id: caller.session_id.clone(),
            parent_event_id: Some(decision.id.clone()),
            caused_by: vec![decision.id],
            payload: json!({
                "skill": name,
                "version": skill.version,
                "input": input,
                "tick": tick,
            }),
        });
        run.events.push(executed);
        Response::ok(output, run.metadata())
    }
}

/// Records the policy decision; denials also record the missing permission.
fn decide(
    realm: &mut Realm,
    caller: &Caller,
    skill: &Skill,
    package: &str,
    missing: Option<Permission>,
) -> Decision {
    let required = skill.permissions.names();
    let tick = realm.world.tick();
    let (kind, rule, reason) = match missing {
        None => (
            "policy.decision",
            "profile.grant",
            format!("profile `{}` grants it", caller.profile),
        ),
        Some(p) => (
            "policy.denied",
            "profile.denied",
            format!("missing permission: {p}"),
        ),
    };
    let new = |kind: &str, payload| NewEvent {
        kind: kind.into(),
        actor_id: caller.agent_id.clone(),
        thread_id: caller.session_id.clone(),
        parent_event_id: None,
        caused_by: vec![],
        payload,
    };
    let id = realm.tracer.emit(new(
        kind,
        json!({
            "boundary": "registry",
            "cap": skill.name,
            "allow": missing.is_none(),
            "rule": rule,
            "reason": reason,
            "agentId": caller.agent_id,
            "sessionId": caller.session_id,
            "profile": caller.profile,
            "package": package,
            "requiredPermissions": required,
            "tick": tick,
            "quota": null,
            "budget": null,
        }),
    ));
    let mut events = vec![id.clone()];
    if let Some(p) = missing {
        let mut denied = new(
            "security.permission.denied",
            json!({"skill": skill.name, "missing": p.as_str(), "agentId": caller.agent_id}),
        );
        denied.parent_event_id = Some(id.clone());
        denied.caused_by = vec![id.clone()];
        events.push(realm.tracer.emit(denied));
    }
    Decision { id, events }
}

impl Registry {
    /// Runs the handler in the caller's instance of the package, atomically on the world.
    fn run_guest(
        &mut self,
        caller: &Caller,
        name: &str,
        package: usize,
        invocation_id: &str,
        input: &str,
    ) -> CallOutcome {
        let limits = self.limits_of(package);
        let key = (caller.session_id.as_str().into(), package);
        if !self.instances.contains_key(&key) {
            let p = &self.packages[package];
            match p.compiled.instantiate(&p.manifest.name, &limits) {
                Ok(instance) => {
                    self.instances.insert(key.clone(), instance);
                }
                Err(e) => {
                    return CallOutcome {
                        result: Err(CallFailure::Trap(format!("{e:#}"))),
                        fuel_used: 0,
                        peak_memory_bytes: 0,
                        events: Vec::new(),
                    };
                }
            }
        }
        let grants = caller
            .permissions
            .intersect(self.packages[package].manifest.capabilities);
        let mut realm = self.realm.take().expect("the realm is home between calls");
        realm.world.begin();
        let info = CallInfo {
            skill: name.to_string(),
            agent_id: caller.agent_id.clone(),
            session_id: caller.session_id.clone(),
            profile: caller.profile.clone(),
            invocation_id: invocation_id.to_string(),
            grants,
            fuel: limits.fuel_per_call,
            timeout_ms: limits.timeout_ms,
            tick: realm.world.tick(),
        };
        let instance = self.instances.get_mut(&key).expect("inserted above");
        let (realm, outcome) = instance.invoke(realm, info, input);
        self.realm = Some(realm);
        match &outcome.result {
            Ok(Ok(_)) => {}
            Ok(Err(_)) => self.rollback(),
            Err(_) => {
                // A trapped instance may be inconsistent: never run it again.
                self.instances.remove(&key);
                self.rollback();
            }
        }
        outcome
    }

    fn rollback(&mut self) {
        self.realm_mut().world.rollback();
    }
}

struct Decision {
    id: String,
    events: Vec<String>,
}

fn check_output(skill: &Skill, text: &str) -> Result<Value, String> {
    if text.len() > MAX_OUTPUT_BYTES {
        return Err(format!(
            "`{}` returned {} bytes of output, over the {} byte cap",
            skill.name,
            text.len(),
            MAX_OUTPUT_BYTES
        ));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| format!("`{}` returned output that is not JSON: {e}", skill.name))?;
    if let Some(problem) = skill.output.check(&value) {
        return Err(format!(
            "`{}` returned output that breaks its output schema: {problem}",
            skill.name
        ));
    }
    Ok(value)
}

fn fail_from_guest(run: Run, e: SkillError) -> Response {
    let (code, message) = match e {
        SkillError::InvalidInput(m) => (ErrorCode::InvalidInput, m),
        SkillError::Forbidden(m) => (ErrorCode::Forbidden, m),
        SkillError::HandlerError(m) => (ErrorCode::HandlerError, m),
        SkillError::CapacityExceeded(m) => (ErrorCode::CapacityExceeded, m),
        SkillError::NotFound(m) => (ErrorCode::HandlerError, m),
    };
    run.fail(code, message)
}

fn fail_from_sandbox(run: Run, failure: CallFailure) -> Response {
    match failure {
        CallFailure::OutOfFuel { fuel } => run.fail(
            ErrorCode::CapacityExceeded,
            format!("the call used up its fuel allotment ({fuel} units) and was stopped; nothing it did was kept"),
        ),
        CallFailure::Timeout { timeout_ms } => run.fail(
            ErrorCode::CapacityExceeded,
            format!("the call ran past its {timeout_ms} ms deadline and was stopped; nothing it did was kept"),
        ),
        CallFailure::Memory { limit_bytes } => run.fail(
            ErrorCode::CapacityExceeded,
            format!("the call tried to grow memory past the package's {limit_bytes} byte limit and was stopped; nothing it did was kept"),
        ),
        CallFailure::Trap(message) => run.fail(
            ErrorCode::HandlerError,
            format!("the skill trapped and was stopped; nothing it did was kept: {message}"),
        ),
    }
}
