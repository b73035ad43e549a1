//! Calls that run away from the engine. A package that declares no capability and holds no
//! state (dice, rules, names, terrain) cannot touch the world: every world import it reaches
//! is refused by its grants. So the engine decides its call (resolve, validate, policy — traced in arrival
//! order, as always), hands it to a worker thread, and goes on serving others. The worker
//! makes the call's instance, dropped when the call ends (so instances alive are bounded by
//! the calls running, not the calls waiting; only a call given its session's warm instance
//! carries one while it waits), and runs it in a scratch realm: an empty world, a random stream seeded from the host's
//! (so seeded hosts replay the same rolls) and a scratch trace. The engine completes the call
//! when it comes back: it records in the real trace, in order, what the guest traced (its
//! `trace.emit` events and refused imports — the id `trace.emit` returned to a detached guest
//! is provisional; the recorded event gets the next id of the real chain), charges the fuel and
//! memory used, checks the output and records `skill.executed`. Budgets stay exact without
//! making the session's later messages wait: when the call is decided its session's budget
//! holds back the most it may spend (the CPU its fuel allows, the network left — a
//! [`Reservation`]), so the next call is decided on what is left; when it completes the
//! reservation is given back and what it used is charged. Several detached calls of one
//! connection run at once, and a session can still never spend past its budget.
//!
//! A package that sees the world only through the camera (`viewing.rs`) leaves the same way,
//! carrying a render snapshot the engine copied when the call was decided.
//!
//! `world.checkpoint` leaves the engine too: the engine takes the world's snapshot when the
//! call is decided (`persistence/writer.rs`), a worker waits while it is written, and the
//! engine finishes it — the newest checkpoint, traced — when the call completes.
//!
//! `package.load` of a registry package (`oci://`) leaves while it is fetched and compiled
//! (`builtins/fetch.rs`); the engine registers it when the call completes. Its connection's
//! later messages wait for it, as they would have behind it on the engine: the next call may
//! be one of the package's skills.
//!
//! The built-ins that only read the trace (`trace.tail`, `trace.explainEvent`, `audit.query`,
//! `audit.explain`, `trace.export`) leave the engine the same way: they run on a snapshot of
//! the history (the index, the segments, and a copy of the few newest events not indexed
//! yet), so a query over a long history, one asked while the index is rebuilt, or a long
//! export never holds up world calls.

use super::builtins::{Fetch, Fetched, Job};
use super::guest_call::GuestPrep;
use super::pipeline::{Authority, parse_output};
use super::{Caller, Registry, Response};
use crate::call::{CallControl, CallStages, Failure, Stage};
use crate::limits::TRACE_WINDOW;
use crate::persistence::Started;
use crate::policy::Reservation;
use crate::realm::{Realm, Rng};
use crate::sandbox::CallOutcome;
use crate::trace::{Event, NewEvent, Tracer};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Instant;

/// What [`Registry::invoke_or_detach`] gives back.
pub enum Invocation {
    /// Ran on the engine (or failed before running).
    Done(Response),
    /// Ready to run on another thread; give the result to [`Registry::complete`].
    Detached(Box<DetachedCall>),
}

/// A decided call, to run on any thread.
pub struct DetachedCall {
    caller: Caller,
    name: String,
    version: String,
    input: Value,
    decision_id: String,
    events: Vec<String>,
    started: Instant,
    work: Work,
    /// What it went through on the engine (when stages are observed).
    stages: CallStages,
    /// When it ran on the worker (measured only when stages are observed).
    ran: Option<Stage>,
    /// Its package's name and version (noted only when stages are observed).
    package: Option<(String, String)>,
    /// What its session's budget holds back for it until it completes.
    reservation: Reservation,
}

/// What a detached call runs.
// The whole call is boxed and moved once to a worker and back, so the size of a variant costs
// nothing worth a second allocation per guest call.
#[allow(clippy::large_enum_variant)]
pub(super) enum Work {
    /// A guest call (its instance made where it runs), its input as text, and the seed of the
    /// scratch realm's rng.
    Guest {
        prep: GuestPrep,
        text: String,
        seed: u64,
    },
    /// A built-in that only reads the history, prepared on a snapshot of it (taken when run).
    History(Option<Job>),
    /// A world checkpoint being written; the worker waits for it.
    Checkpoint(Started),
    /// A tool of an upstream MCP server: the call waits on the server, not on a CPU.
    Upstream {
        upstream: std::sync::Arc<crate::upstream::Upstream>,
        input: Value,
        control: CallControl,
    },
    /// A package fetched from a registry: the call waits on the registry.
    Fetch(Option<Box<Fetch>>),
}

/// What a detached call gave.
enum Outcome {
    Guest(CallOutcome),
    History(Result<Value, Failure>),
    /// The upstream's answer and the wall time it took, in milliseconds.
    Upstream(Result<Value, Failure>, f64),
    /// The checkpoint covering this event, written or not.
    Checkpoint(u64, crate::persistence::writer::Outcome),
    /// What the registry gave.
    Fetched(Box<Fetched>),
}

/// A detached call that ran.
pub struct RanCall {
    call: Box<DetachedCall>,
    outcome: Outcome,
    /// What it traced into the scratch trace, oldest first.
    traced: Vec<Event>,
}

impl DetachedCall {
    /// Runs it: a guest in `scratch` (a realm with an empty world, returned for reuse), a
    /// history query on its snapshot.
    pub fn run(mut self: Box<Self>, mut scratch: Box<Realm>) -> (Box<Realm>, RanCall) {
        let (scratch, outcome, traced) = match &mut self.work {
            Work::Guest { prep, text, seed } => {
                scratch.rng = Rng::seeded(*seed);
                scratch.tracer = Tracer::new(TRACE_WINDOW);
                let info = prep.info.clone();
                let started = self.ran.is_some().then(Instant::now);
                let (scratch, outcome) =
                    prep.slot
                        .launch
                        .run(scratch, info, |instance, realm, info| {
                            instance.invoke(realm, info, text)
                        });
                // Its instance goes now, not when the engine gets round to completing the
                // call: calls the workers finished faster than the engine completes them
                // would otherwise hold the pool's instances while they wait.
                drop(prep.slot.launch.kept());
                if let Some(started) = started {
                    self.ran = Some(Stage::new(started, Instant::now()));
                }
                let traced = scratch.tracer.recent().collect();
                (scratch, Outcome::Guest(outcome), traced)
            }
            Work::History(job) => {
                let result = job.take().map_or_else(
                    || {
                        Err(Failure::new(
                            crate::call::ErrorCode::HandlerError,
                            "the job ran already",
                        ))
                    },
                    |job| job(),
                );
                (scratch, Outcome::History(result), Vec::new())
            }
            Work::Checkpoint(started) => {
                let outcome = Outcome::Checkpoint(started.seq, started.done.wait());
                (scratch, outcome, Vec::new())
            }
            Work::Upstream { .. } | Work::Fetch(_) => return (scratch, self.run_waiting()),
        };
        (
            scratch,
            RanCall {
                call: self,
                outcome,
                traced,
            },
        )
    }

    /// The skill it runs.
    pub fn skill(&self) -> &str {
        &self.name
    }

    /// Runs a call that waits on another server — an upstream's tool, a registry's package —
    /// on the thread that waits for it; no realm needed.
    pub fn run_waiting(mut self: Box<Self>) -> RanCall {
        let outcome = match &mut self.work {
            Work::Fetch(fetch) => match fetch.take() {
                Some(fetch) => Outcome::Fetched(Box::new(fetch.run())),
                None => Outcome::History(Err(Failure::new(
                    crate::call::ErrorCode::HandlerError,
                    "the fetch ran already",
                ))),
            },
            Work::Upstream {
                upstream,
                input,
                control,
            } => {
                let started = Instant::now();
                let tool = super::upstream::tool_of(upstream.name(), &self.name);
                let result = upstream.call(tool, std::mem::take(input), control);
                Outcome::Upstream(result, started.elapsed().as_secs_f64() * 1000.0)
            }
            _ => Outcome::History(Err(Failure::new(
                crate::call::ErrorCode::HandlerError,
                "not a call that waits on another server",
            ))),
        };
        RanCall {
            call: self,
            outcome,
            traced: Vec::new(),
        }
    }

    /// Whether it waits on another server rather than computing: such calls get a thread of
    /// their own, so a slow server never holds up the workers that run guests.
    pub fn waits_elsewhere(&self) -> bool {
        matches!(self.work, Work::Upstream { .. } | Work::Fetch(_))
    }

    /// Whether its connection's later messages wait until it completes: a package load
    /// changes what they may call.
    pub fn keeps_order(&self) -> bool {
        matches!(self.work, Work::Fetch(_))
    }
}

impl Registry {
    /// [`Registry::invoke_with`], except that a call that cannot touch the world comes
    /// back detached, to run off the engine.
    pub fn invoke_or_detach(
        &mut self,
        caller: &Caller,
        name: &str,
        input: Value,
        control: CallControl,
    ) -> Invocation {
        // While the trace cannot be written, the engine answers what it may (reads) itself.
        if !self.detachable(name) || self.answers_on_engine(name, &input) || !self.trace_accepting()
        {
            return Invocation::Done(self.invoke_with(caller, name, input, control));
        }
        let started = Instant::now();
        let mut events = Vec::new();
        let mark = self.policy.mark(&caller.session_id, name);
        let prepared = self.under(control, |r| {
            r.decide(caller, name, input, Authority::Session, false, &mut events)
                .and_then(|decided| r.detach(caller, name, decided))
        });
        // Held back before the decision is written, so a refused write gives it back too.
        let reservation = match &prepared {
            Ok((_, work)) => self.reserve_for(caller, work),
            Err(_) => Reservation::default(),
        };
        // The decision is written before the call leaves: it is what a reply will name.
        if let Err(refused) = self.record_detaching(mark) {
            return Invocation::Done(Response::of(Err(refused), started, Vec::new()));
        }
        match prepared {
            Ok((decided, work)) => {
                let (package, ran) = match &work {
                    Work::Guest { prep, .. } => (
                        self.package_label(prep.slot.package),
                        self.observing().then(|| Stage::new(started, started)),
                    ),
                    Work::History(_)
                    | Work::Checkpoint(_)
                    | Work::Upstream { .. }
                    | Work::Fetch(_) => (None, None),
                };
                Invocation::Detached(Box::new(DetachedCall {
                    caller: caller.clone(),
                    name: name.to_string(),
                    version: decided.version,
                    input: decided.input,
                    decision_id: decided.decision_id,
                    events,
                    started,
                    work,
                    ran,
                    package,
                    stages: self.take_stages(),
                    reservation,
                }))
            }
            Err(failure) => Invocation::Done(Response::of(Err(failure), started, events)),
        }
    }

    /// Finishes a detached call on the engine: charge, output check, trace — kept only once
    /// its events are written, else undone and refused.
    pub fn complete(&mut self, ran: RanCall) -> Response {
        self.write_deferred();
        let started = ran.call.started;
        let mark = self
            .policy
            .mark(&ran.call.caller.session_id, &ran.call.name);
        let (session, reservation) = (ran.call.caller.session_id.clone(), ran.call.reservation);
        let response = self.complete_unrecorded(ran);
        match self.record_detaching(mark) {
            Ok(()) => response,
            Err(refused) => {
                // Its charge is undone with the rest; its hold must not outlive it.
                self.policy.release(&session, reservation);
                Response::of(Err(refused), started, Vec::new())
            }
        }
    }

    /// Holds back in `caller`'s budget the most `work` may spend: a guest's fuel in CPU
    /// milliseconds and the network left (history queries are not metered).
    fn reserve_for(&mut self, caller: &Caller, work: &Work) -> Reservation {
        let Work::Guest { prep, .. } = work else {
            return Reservation::default();
        };
        if caller.session_id == super::HOST_SESSION {
            return Reservation::default();
        }
        let cpu_ms = prep.info.fuel as f64 / crate::limits::FUEL_PER_MS as f64;
        let reservation = self
            .policy
            .budget(&caller.session_id)
            .reservation_for(cpu_ms);
        self.policy.reserve(&caller.session_id, reservation);
        reservation
    }

    /// [`Registry::complete`] before its events are written.
    fn complete_unrecorded(&mut self, ran: RanCall) -> Response {
        let RanCall {
            call,
            outcome,
            traced,
        } = ran;
        match outcome {
            Outcome::Guest(outcome) => self.complete_guest(call, outcome, traced),
            Outcome::History(result) => self.complete_history(call, result),
            Outcome::Upstream(result, wall_ms) => {
                self.policy
                    .charge_upstream(&call.caller.session_id, wall_ms);
                let mut call = call;
                let (caller, name) = (call.caller.clone(), call.name.clone());
                let result = self
                    .scan_failure(&caller, &name, result, &mut call.events)
                    .and_then(|mut output| {
                        self.scan_output(&caller, &name, None, &mut output, &mut call.events)?;
                        Ok(output)
                    });
                self.complete_history(call, result)
            }
            Outcome::Fetched(fetched) => {
                let answer = super::builtins::register_fetched(self, *fetched);
                self.complete_history(call, Ok(answer))
            }
            Outcome::Checkpoint(seq, outcome) => {
                let result = self
                    .finish_checkpoint(seq, outcome)
                    .map_err(|e| super::builtins::checkpoint_failure(&e));
                self.complete_history(call, result)
            }
        }
    }

    /// Finishes a history query: output check and `skill.executed`, as on the engine.
    fn complete_history(
        &mut self,
        mut call: Box<DetachedCall>,
        result: Result<Value, Failure>,
    ) -> Response {
        self.enter_call();
        self.restore_recorded(std::mem::take(&mut call.stages));
        self.leave_call();
        let cpu_before = self.guest_cpu_ms;
        self.finish(*call, result, cpu_before)
    }

    /// The end of every detached call: output check, latency, `skill.executed`.
    fn finish(
        &mut self,
        call: DetachedCall,
        output: Result<Value, Failure>,
        cpu_before: f64,
    ) -> Response {
        let DetachedCall {
            caller,
            name,
            version,
            input,
            decision_id,
            mut events,
            started,
            ..
        } = call;
        let result = output.and_then(|output| {
            self.check_output(&name, &output)?;
            Ok((input, output))
        });
        self.record_latency(&name, started, cpu_before, &result);
        let result =
            self.record_outcome(&caller, &name, &version, &decision_id, result, &mut events);
        let content = std::mem::take(&mut self.content);
        let mut response = Response::of(result, started, events);
        if response.success {
            response.content = content;
        }
        response
    }

    fn complete_guest(
        &mut self,
        mut call: Box<DetachedCall>,
        mut outcome: CallOutcome,
        traced: Vec<Event>,
    ) -> Response {
        // What the guest traced joins the real chain, links rewritten to the real ids.
        let mut real: HashMap<String, String> = HashMap::new();
        let tracer = &mut self.realm_mut().tracer;
        for event in traced {
            let rekey = |id: String| real.get(&id).cloned().unwrap_or(id);
            let id = tracer.emit(NewEvent {
                kind: event.kind,
                actor_id: event.actor_id,
                thread_id: event.thread_id,
                parent_event_id: event.parent_event_id.map(rekey),
                caused_by: event.caused_by.into_iter().map(rekey).collect(),
                payload: event.payload,
            });
            real.insert(event.id, id);
        }
        for id in &mut outcome.events {
            if let Some(recorded) = real.get(id) {
                *id = recorded.clone();
            }
        }
        let work = std::mem::replace(&mut call.work, Work::History(None));
        let Work::Guest { prep, .. } = work else {
            unreachable!("only guest calls come back with a guest outcome");
        };
        // The hold goes back first: what it used is charged in its place (`settle`).
        self.policy
            .release(&call.caller.session_id, call.reservation);
        self.enter_call();
        self.restore_recorded(std::mem::take(&mut call.stages));
        self.clear_usage();
        let cpu_before = self.guest_cpu_ms;
        let settled = self.settle(&call.caller, prep.slot, outcome, &mut call.events);
        self.record_guest_in(call.ran.take(), call.package.take());
        self.leave_call();
        let (caller, name) = (call.caller.clone(), call.name.clone());
        let output = self
            .scan_failure(&caller, &name, settled, &mut call.events)
            .and_then(|raw| {
                let mut output = parse_output(&name, &raw.structured)?;
                self.scan_output(
                    &caller,
                    &name,
                    Some(&raw.structured),
                    &mut output,
                    &mut call.events,
                )?;
                let mut content = raw.content;
                self.scan_content(&caller, &name, &mut content, &mut call.events)?;
                self.give_content(&name, content)?;
                Ok(output)
            });
        self.finish(*call, output, cpu_before)
    }
}
