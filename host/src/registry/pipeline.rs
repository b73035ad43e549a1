//! `invoke`: the one path every call takes. Resolve → validate (defaults first) → policy →
//! before-hooks → handler → after-hooks → output check → emit, atomically on the world.

use super::decision::{self, Crossing};
use super::hooks::{HookPhase, covers};
use super::schema::normalize_input;
use super::{Caller, Handler, Registry, Response};
use crate::call::{CallControl, ErrorCode, Failure, Stage};
use crate::limits::MAX_OUTPUT_BYTES;
use crate::policy::{CallRequest, Verdict};
use crate::sandbox::Seat;
use crate::trace::NewEvent;
use serde_json::Value;
use std::time::Instant;

/// On whose authority a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Authority {
    /// The calling session's: the policy engine decides. Every call a client makes.
    Session,
    /// The host's own, for calls the operator wrote (the scene file): no session's profile,
    /// quota or budget applies and nothing is charged to one; the crossing is still traced.
    Host,
}

impl Registry {
    /// Runs skill `name` for `caller` with `input`.
    pub fn invoke(&mut self, caller: &Caller, name: &str, input: Value) -> Response {
        self.invoke_with(caller, name, input, CallControl::default())
    }

    /// [`Registry::invoke`] under `control`: stopped at once (rolled back, charged for what
    /// it used, traced as `skill.cancelled`) when its cancel is raised while guest code runs;
    /// progress goes to its sink.
    pub fn invoke_with(
        &mut self,
        caller: &Caller,
        name: &str,
        input: Value,
        control: CallControl,
    ) -> Response {
        self.invoke_under(caller, name, input, control, Authority::Session)
    }

    /// `invoke` on the given authority.
    pub(super) fn invoke_as(
        &mut self,
        caller: &Caller,
        name: &str,
        input: Value,
        authority: Authority,
    ) -> Response {
        self.invoke_under(caller, name, input, CallControl::default(), authority)
    }

    fn invoke_under(
        &mut self,
        caller: &Caller,
        name: &str,
        input: Value,
        control: CallControl,
        authority: Authority,
    ) -> Response {
        let started = Instant::now();
        let recording = match self.open_record(caller, name) {
            Ok(recording) => recording,
            Err(refused) => return Response::of(Err(refused), started, Vec::new()),
        };
        let mut events = Vec::new();
        let (result, content) = self.under(control, |r| {
            let result = r.run(caller, name, input, authority, &mut events, started);
            (result, std::mem::take(&mut r.content))
        });
        let mut response = self.close_record(recording, result, started, events);
        if response.success {
            response.content = content;
        }
        response
    }

    /// Runs `f` as one call under `control`: its cancel and progress in reach of the
    /// handler, its stages observed. An enclosing call's control is back afterwards (a scene
    /// replayed inside `dev.reload` runs calls of its own).
    pub(super) fn under<T>(&mut self, control: CallControl, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.control, control);
        let outer_content = std::mem::take(&mut self.content);
        self.enter_call();
        let out = f(self);
        self.leave_call();
        self.control = outer;
        self.content = outer_content;
        out
    }

    fn run(
        &mut self,
        caller: &Caller,
        name: &str,
        input: Value,
        authority: Authority,
        events: &mut Vec<String>,
        started: Instant,
    ) -> Result<Value, Failure> {
        let decided = self.decide(caller, name, input, authority, true, events)?;
        // 4. hooks and handler, as one transaction on the world and the packages' state
        let realm = self.realm_mut();
        realm.world.begin();
        realm.state.begin();
        let cpu_before = self.guest_cpu_ms;
        let result = self.hooks_and_handler(
            caller,
            name,
            decided.handler,
            decided.input,
            &decided.decision_id,
            decided.seat,
            events,
        );
        self.record_latency(name, started, cpu_before, &result);
        let realm = self.realm_mut();
        // A success's world and state changes are kept once its events are written
        // (`close_record`), and undone when they cannot be.
        if result.is_err() {
            realm.state.rollback();
            realm.world.rollback();
            self.content.clear();
        }
        self.journal_call(caller, &decided.decision_id, result.is_ok());
        self.record_outcome(
            caller,
            name,
            &decided.version,
            &decided.decision_id,
            result,
            events,
        )
    }

    /// Steps 1–3: resolve, validate (defaults first), policy (the decision is traced). A guest
    /// call that will run `here` (on the engine, not on a worker) takes its instance's seat in
    /// the pool before the policy step, so a full pool refuses it having decided, traced and
    /// charged nothing.
    pub(super) fn decide(
        &mut self,
        caller: &Caller,
        name: &str,
        input: Value,
        authority: Authority,
        here: bool,
        events: &mut Vec<String>,
    ) -> Result<Decided, Failure> {
        // 1. resolve
        let Some(skill) = self.skills.get(name) else {
            if let Some(why) = self.held_tool(name) {
                return Err(self.refuse_held(caller, name, why.to_string(), events));
            }
            return Err(Failure::new(
                ErrorCode::NotFound,
                format!(
                    "unknown skill `{name}`; list the available ones with tools/list or skills.list"
                ),
            ));
        };
        // 2. validate, defaults first
        let mut input = normalize_input(input);
        if !input.is_object() {
            return Err(Failure::new(
                ErrorCode::InvalidInput,
                "the input must be a JSON object",
            ));
        }
        skill.input.fill_defaults(&mut input);
        if let Some(problem) = skill.input.check(&input) {
            return Err(Failure::new(
                ErrorCode::InvalidInput,
                format!("invalid input for `{name}`: {problem}"),
            ));
        }
        let handler = skill.handler;
        let seat = match handler {
            Handler::Guest(_) if here => Some(
                self.sandbox
                    .seat()
                    .map_err(|full| Failure::new(ErrorCode::CapacityExceeded, full.to_string()))?,
            ),
            _ => None,
        };
        // 3. policy
        let skill_tier = skill.tier;
        let version = skill.version.clone();
        let required = skill.permissions;
        // An upstream's tools are revoked with it, as a package's are (`package.revoke`).
        let package = skill
            .package_index()
            .map(|i| self.packages[i].manifest.name.clone())
            .or_else(|| skill.upstream().map(str::to_string));
        let capability = match handler {
            Handler::Upstream(i) => Some(self.upstreams[i].config.capability.clone()),
            _ => None,
        };
        let now_ms = self.now_ms();
        let deciding = self.stage_start();
        let verdict = match authority {
            Authority::Session => self.policy.decide_call(CallRequest {
                session_id: &caller.session_id,
                profile: &caller.profile,
                skill: name,
                package: package.as_deref(),
                required,
                now_ms,
                metered: matches!(handler, Handler::Guest(_)),
                skill_tier,
                approval: self.control.approval.as_ref(),
                capability: capability.as_deref(),
            }),
            Authority::Host => Verdict {
                allow: true,
                rule: "host.authority",
                reason: "the host runs it on its own authority (the operator wrote the call)"
                    .into(),
                missing: None,
                quota: None,
                budget: None,
            },
        };
        self.record_policy(deciding, verdict.allow, verdict.rule);
        let realm = self
            .realm
            .as_mut()
            .expect("the realm is home between calls");
        let crossing = Crossing {
            boundary: "registry",
            cap: name,
            package: package.as_deref(),
            required: required.names(),
        };
        // A person's answer travels only with a call an `[[approve]]` rule held.
        let approval = self.control.approval.as_ref();
        let decision = decision::record_call(realm, caller, crossing, &verdict, approval);
        events.extend(decision.events.iter().cloned());
        if !verdict.allow {
            return Err(Failure::new(ErrorCode::Forbidden, verdict.reason));
        }
        Ok(Decided {
            handler,
            version,
            input,
            decision_id: decision.id,
            seat,
        })
    }

    /// Step 6: `skill.executed` (with the input the handler ran) or, for a cancelled call,
    /// `skill.cancelled`, caused by the decision.
    pub(super) fn record_outcome(
        &mut self,
        caller: &Caller,
        name: &str,
        version: &str,
        decision_id: &str,
        result: Result<(Value, Value), Failure>,
        events: &mut Vec<String>,
    ) -> Result<Value, Failure> {
        let upstream = self.upstream_of(name).map(|u| u.name().to_string());
        let content = std::mem::take(&mut self.content);
        let realm = self.realm_mut();
        let tick = realm.world.tick();
        let (kind, input, outcome) = match result {
            Ok((input, output)) => ("skill.executed", Some(input), Ok(output)),
            Err(failure) if failure.code == ErrorCode::Cancelled => {
                ("skill.cancelled", None, Err(failure))
            }
            Err(failure) => return Err(failure),
        };
        events.push(realm.tracer.emit(NewEvent {
            kind,
            actor_id: caller.agent_id.as_str(),
            thread_id: caller.session_id.as_str(),
            parent_event_id: Some(decision_id),
            caused_by: vec![decision_id],
            payload: OutcomePayload {
                content: &content,
                input: input.as_ref(),
                skill: name,
                tick,
                upstream: upstream.as_deref(),
                version,
            },
        }));
        // The blocks go out with the result (a cancelled call's are dropped).
        if outcome.is_ok() {
            self.content = content;
        }
        outcome
    }

    /// Before-hooks, handler, after-hooks and the output check. Returns the input the handler
    /// ran (after any before-hook rewrote it) and the output. A guest handler's instance is
    /// made in `seat` when one was taken for it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hooks_and_handler(
        &mut self,
        caller: &Caller,
        name: &str,
        handler: Handler,
        input: Value,
        invocation_id: &str,
        seat: Option<Seat>,
        events: &mut Vec<String>,
    ) -> Result<(Value, Value), Failure> {
        let (mut input, hooked) = self.run_hooks(
            HookPhase::Before,
            caller,
            name,
            input,
            invocation_id,
            events,
        )?;
        // Checked again only when a hook could have changed it: `decide` validated it.
        if hooked && let Some(problem) = self.skills[name].input.check(&input) {
            // The caller's input was valid; a hook broke it.
            return Err(Failure::new(
                ErrorCode::HandlerError,
                format!("a before-hook made the input of `{name}` invalid: {problem}"),
            ));
        }
        let output = match handler {
            Handler::Builtin(builtin) => builtin.run(self, caller, &mut input)?,
            Handler::Upstream(index) => {
                let result = self.call_upstream_here(caller, index, name, &input);
                let mut output = self.scan_failure(caller, name, result, events)?;
                self.scan_output(caller, name, None, &mut output, events)?;
                output
            }
            Handler::Guest(package) => {
                let text = crate::json::text(&input);
                let running = self.stage_start();
                self.clear_usage();
                let raw = self.guest_call(
                    caller,
                    package,
                    name,
                    invocation_id,
                    seat,
                    events,
                    Box::new(move |instance, realm, info| instance.invoke(realm, info, &text)),
                );
                self.record_guest(running.map(|t| Stage::new(t, Instant::now())), package);
                let raw = self.scan_failure(caller, name, raw, events)?;
                let mut output = parse_output(name, &raw.structured)?;
                self.scan_output(caller, name, Some(&raw.structured), &mut output, events)?;
                let mut content = raw.content;
                self.scan_content(caller, name, &mut content, events)?;
                self.give_content(name, content)?;
                output
            }
        };
        let (output, _) = self.run_hooks(
            HookPhase::After,
            caller,
            name,
            output,
            invocation_id,
            events,
        )?;
        self.check_output(name, &output)?;
        Ok((input, output))
    }

    /// Keeps the content blocks the handler of `name` returned for the call's result, once
    /// they pass the host's caps and checks (`call/content.rs`); refuses them naming why.
    /// Host built-ins that return pictures hand theirs in here too.
    pub(crate) fn give_content(
        &mut self,
        name: &str,
        content: Vec<crate::call::Content>,
    ) -> Result<(), Failure> {
        crate::call::check_content(&content).map_err(|why| {
            Failure::new(ErrorCode::HandlerError, format!("`{name}` returned {why}"))
        })?;
        self.content = content;
        Ok(())
    }

    /// Step 5: the output against the skill's output schema.
    pub(super) fn check_output(&self, name: &str, output: &Value) -> Result<(), Failure> {
        let Some(skill) = self.skills.get(name) else {
            return Err(Failure::new(
                ErrorCode::HandlerError,
                format!("`{name}` was unloaded while it ran"),
            ));
        };
        match skill.output.check(output) {
            Some(problem) => Err(Failure::new(
                ErrorCode::HandlerError,
                format!("`{name}` returned output that breaks its output schema: {problem}"),
            )),
            None => Ok(()),
        }
    }

    /// Runs every hook of `phase` covering `name` over `payload`: host hooks, then guest hooks
    /// in package load order. Guest hooks never wrap host built-ins (they would let a package
    /// rewrite what the trace and audit skills report), and run only where their package's
    /// declared capabilities cover the skill's permissions, so a hook reaches no further than
    /// its package could by calling the skill itself.
    fn run_hooks(
        &mut self,
        phase: HookPhase,
        caller: &Caller,
        name: &str,
        payload: Value,
        invocation_id: &str,
        events: &mut Vec<String>,
    ) -> Result<(Value, bool), Failure> {
        let started = self.stage_start();
        let mut ran = 0;
        let result = self.run_hooks_counted(
            phase,
            caller,
            name,
            payload,
            invocation_id,
            events,
            &mut ran,
        );
        if ran > 0 {
            self.record_hooks(started, phase == HookPhase::Before);
        }
        result.map(|payload| (payload, ran > 0))
    }

    /// [`Registry::run_hooks`], counting in `ran` the hooks that ran.
    #[allow(clippy::too_many_arguments)]
    fn run_hooks_counted(
        &mut self,
        phase: HookPhase,
        caller: &Caller,
        name: &str,
        mut payload: Value,
        invocation_id: &str,
        events: &mut Vec<String>,
        ran: &mut usize,
    ) -> Result<Value, Failure> {
        for hook in self
            .host_hooks
            .iter_mut()
            .filter(|h| h.phase == phase && covers(&h.skills, name))
        {
            *ran += 1;
            if let Some(replaced) = (hook.run)(caller, name, &payload)? {
                payload = replaced;
            }
        }
        let skill = &self.skills[name];
        // Nor do they wrap an upstream's tools: a package would read what another server
        // was sent and answered.
        if matches!(skill.handler, Handler::Builtin(_) | Handler::Upstream(_)) {
            return Ok(payload);
        }
        let required = skill.permissions;
        let guest_hooks: Vec<(usize, String)> = self
            .packages
            .iter()
            .enumerate()
            // Most packages declare no hooks: looked at first, it spares the capability check.
            .filter(|(_, p)| {
                !p.hooks.is_empty() && p.manifest.capabilities.first_missing(required).is_none()
            })
            .flat_map(|(i, p)| {
                p.hooks
                    .iter()
                    .filter(|h| h.phase == phase && covers(&h.skills, name))
                    .map(move |h| (i, h.name.clone()))
            })
            .collect();
        for (package, hook) in guest_hooks {
            let label = format!(
                "{} `{hook}` of package `{}`",
                match phase {
                    HookPhase::Before => "before-hook",
                    HookPhase::After => "after-hook",
                },
                self.packages[package].manifest.name
            );
            let text = crate::json::text(&payload);
            *ran += 1;
            let replaced = self
                .guest_call(
                    caller,
                    package,
                    name,
                    invocation_id,
                    None,
                    events,
                    Box::new(move |instance, realm, info| {
                        instance.run_hook(realm, info, &hook, &text)
                    }),
                )
                .map_err(|f| Failure::new(f.code, format!("{label}: {}", f.message)))?;
            if let Some(text) = replaced {
                payload = serde_json::from_str(&text).map_err(|e| {
                    Failure::new(
                        ErrorCode::HandlerError,
                        format!("{label} returned a payload that is not JSON: {e}"),
                    )
                })?;
            }
        }
        Ok(payload)
    }
}

/// A call that passed resolve, validate and policy.
pub(super) struct Decided {
    pub handler: Handler,
    pub version: String,
    /// The input with defaults filled.
    pub input: Value,
    pub decision_id: String,
    /// The pool seat its guest's instance is made in, taken before the policy step.
    pub seat: Option<Seat>,
}

impl Registry {
    /// Adds a call that got past the policy to its skill's latency window: wall time from
    /// the start of the call, guest CPU measured from fuel, and whether it failed the
    /// skill's way (a handler error or a cut limit; refusing an input is not a failure).
    pub(super) fn record_latency(
        &mut self,
        name: &str,
        started: Instant,
        cpu_before: f64,
        ran: &Result<(Value, Value), Failure>,
    ) {
        let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        let cpu_ms = self.guest_cpu_ms - cpu_before;
        let failed = matches!(
            ran,
            Err(Failure {
                code: ErrorCode::HandlerError | ErrorCode::CapacityExceeded,
                ..
            })
        );
        self.record_call(name, wall_ms, cpu_ms, failed);
    }

    /// Adds one call's figures to `name`'s window and moves its tier if they say so.
    pub(super) fn record_call(&mut self, name: &str, wall_ms: f64, cpu_ms: f64, failed: bool) {
        let thresholds = self.policy.latency().thresholds;
        // A reload inside the call (`dev.reload`) may have replaced the skill.
        let Some(skill) = self.skills.get_mut(name) else {
            return;
        };
        skill.latency.record(wall_ms, cpu_ms, failed, &thresholds);
        if super::retier(
            skill,
            super::declared_latency(&self.packages, skill),
            &thresholds,
        ) {
            // Listings change: rebuild them and tell the clients.
            self.generation += 1;
        }
    }
}

/// Guest output: bounded in size and valid JSON.
pub(super) fn parse_output(name: &str, text: &str) -> Result<Value, Failure> {
    if text.len() > MAX_OUTPUT_BYTES {
        return Err(Failure::new(
            ErrorCode::HandlerError,
            format!(
                "`{name}` returned {} bytes of output, over the {MAX_OUTPUT_BYTES} byte cap",
                text.len()
            ),
        ));
    }
    serde_json::from_str(text).map_err(|e| {
        Failure::new(
            ErrorCode::HandlerError,
            format!("`{name}` returned output that is not JSON: {e}"),
        )
    })
}

/// `skill.executed` (with the input the handler ran) or `skill.cancelled`, written straight to
/// the trace on every call.
struct OutcomePayload<'a> {
    /// Kind and size of each content block (never its bytes).
    content: &'a [crate::call::Content],
    input: Option<&'a Value>,
    skill: &'a str,
    tick: u64,
    upstream: Option<&'a str>,
    version: &'a str,
}

impl crate::trace::Payload for OutcomePayload<'_> {
    /// Members in code-point order of their names; `input` and `upstream` only when present.
    fn write_json(&self, out: &mut Vec<u8>) {
        let mut w = crate::trace::JsonWriter::object(out);
        if !self.content.is_empty() {
            let summaries: Vec<Value> = self.content.iter().map(|c| c.summary()).collect();
            w.value("content", &Value::Array(summaries));
        }
        if let Some(input) = self.input {
            w.value("input", input);
        }
        w.str("skill", self.skill).u64("tick", self.tick);
        if let Some(upstream) = self.upstream {
            w.str("upstream", upstream);
        }
        w.str("version", self.version).end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Payload;
    use serde_json::json;

    /// The hand-written outcome is the canonical text of the same payload as plain JSON.
    #[test]
    fn an_outcome_payload_is_written_as_its_canonical_json() {
        let input = json!({"radius": 1, "near": [0, 0, 0], "name": "a \"b\"\n"});
        for (input, upstream) in [(Some(&input), Some("web \"x\"")), (None, None)] {
            let payload = OutcomePayload {
                content: &[],
                input,
                skill: "scene.queryEntities",
                tick: 42,
                upstream,
                version: "1.0.0",
            };
            let mut out = Vec::new();
            payload.write_json(&mut out);
            let mut expected =
                json!({"skill": "scene.queryEntities", "tick": 42, "version": "1.0.0"});
            if let Some(input) = input {
                expected["input"] = input.clone();
            }
            if let Some(upstream) = upstream {
                expected["upstream"] = upstream.into();
            }
            assert_eq!(
                String::from_utf8(out).unwrap(),
                crate::json::text(&expected)
            );
        }
    }
}
