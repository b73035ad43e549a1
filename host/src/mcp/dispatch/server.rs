//! The dispatcher shared by every transport: one message in, at most one reply out.

use super::answer::{Answer, framed, limina_result};
use super::aoi::Aoi;
use super::call_result::CallResult;
use super::observe::Watch;
use super::request::{ReplyShape, Request};
use super::session::Session;
use super::sync::{Subscription, SyncWatch};
use crate::mcp::engine::cancel::CancelBoard;
use crate::mcp::engine::clock::Clock;
use crate::mcp::engine::inbox::Notify;
use crate::mcp::wire::Revision;
use crate::mcp::wire::jsonrpc::{self, Incoming, RpcError, reply};
use crate::mcp::wire::modern;
use crate::registry::{DetachedCall, Registry};
use serde_json::{Value, json};

/// Server-wide settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Profile for sessions that name none.
    pub default_profile: String,
    pub clock: Clock,
}

/// The registry plus the protocol layer's own state (sync index, stateless identities, questions, tasks).
pub struct Server {
    pub(super) registry: Registry,
    pub(in crate::mcp) config: ServerConfig,
    pub(in crate::mcp) reloads: Option<super::reload::Reloads>,
    /// The world value state sync watches; set on the first subscription.
    pub(in crate::mcp) sync_watch: Option<SyncWatch>,
    /// Where requests are reported when OpenTelemetry export is on.
    telemetry: Option<crate::telemetry::Recorder>,
    /// The identities stateless (2026-07-28) requests ran under, by agent and profile, each
    /// admitted once: budgets, quotas and the trace see one caller per identity.
    pub(in crate::mcp) stateless: std::collections::HashMap<(String, String), Session>,
    /// Approval questions put to 2026-07-28 clients and not answered yet.
    pub(in crate::mcp) questions: super::approval::Questions,
    /// Long calls clients poll for.
    pub(in crate::mcp) tasks: super::tasks::Tasks,
    /// Reads whose replies wait for the batch's write (`deferred.rs`).
    pub(in crate::mcp) deferring: super::deferred::Deferring,
    /// Someone subscribed to resources or listed them: world updates are worked out for
    /// resource watchers (`resources.rs`).
    pub(in crate::mcp) resources_watched: bool,
    /// The last entity number issued when resource watchers were last told of changes.
    pub(in crate::mcp) issued: u64,
}

/// One client's connection: its session once bound, its subscription, and what it is owed.
#[derive(Default)]
pub struct Connection {
    pub session: Option<Session>,
    /// The registry generation this client last saw (for `tools/list_changed`).
    pub seen_generation: u64,
    /// The least severe guest log level passed on (`logging/setLevel`); warnings by default.
    pub log_level: Option<crate::log::Level>,
    /// Its requests' cancellation flags, shared with its transport.
    pub cancels: std::sync::Arc<CancelBoard>,
    /// `state/subscribe` made: it is sent deltas.
    pub subscription: Option<Subscription>,
    /// An area declared before subscribing.
    pub declared_aoi: Option<Aoi>,
    /// Notifications to send before the next reply (a subscription's snapshot).
    pub pending: Vec<Value>,
    /// The trace events of its last call: what a delta it caused names in `causedBy`.
    pub last_events: Vec<String>,
    /// Its call held by an `[[approve]]` rule, waiting for the person's answer (2025-11-25).
    pub(in crate::mcp) asking: Option<super::approval::Asking>,
    /// Task calls it started that wait for a worker (the engine hands them over).
    pub(in crate::mcp) task_jobs: Vec<super::tasks::TaskJob>,
    /// Its `tasks/result` requests waiting for their task to end: (task, request id).
    pub(in crate::mcp) awaiting_tasks: Vec<(String, Value)>,
    /// Its way to send notifications while a call runs (progress).
    notify: Option<Notify>,
    /// Its open `subscriptions/listen` (2026-07-28), if any.
    pub listen: Option<Listening>,
    /// The resources it subscribed to and the list changes it hears (`resources.rs`).
    pub(in crate::mcp) resources: super::resources::Watching,
    /// What it came over (`network.transport` in telemetry).
    pub transport: crate::telemetry::NetworkTransport,
    /// The session id its transport gave it (`Mcp-Session-Id` over HTTP), which telemetry
    /// reports as `mcp.session.id` in place of the MCP session's own.
    pub transport_session: Option<String>,
    /// Over the network: the profiles and agent the edge lets it take (`None`: stdio, no
    /// ceiling).
    pub grant: Option<crate::mcp::transport::edge::Grant>,
    /// Its connection's seat, told once a session is bound.
    pub ticket: Option<std::sync::Arc<crate::mcp::transport::edge::Ticket>>,
    /// The profile it gets when its `initialize` names none, when not the server's own
    /// (a joined process's `--profile`).
    pub default_profile: Option<String>,
}

/// An open `subscriptions/listen`: the request it answers, and the registry generation its
/// client last heard of.
pub struct Listening {
    pub id: Value,
    pub generation: u64,
    /// It asked for `tools/list_changed`.
    pub tools: bool,
    /// It asked for state deltas (the subscription is its).
    pub deltas: bool,
    /// It asked for resource updates or resource or prompt list changes (the connection's
    /// resource watching is its).
    pub resources: bool,
}

/// What handling a message gave.
pub enum Handled {
    /// The reply to send, if any.
    Reply(Option<Value>),
    /// A tool call's reply, already serialized (`call_result.rs`).
    Framed(crate::mcp::engine::outbox::Frame),
    /// A call to run off the engine; hand what it gives to [`Server::complete`]. The
    /// connection's further messages may be handled meanwhile: its budget holds the call's
    /// most possible cost until then (`registry/detached.rs`).
    Detached(Box<DetachedCall>, Box<PendingReply>),
}

/// How to answer a detached call once it completes.
pub struct PendingReply {
    id: Value,
    shape: ReplyShape,
    /// The request as telemetry watches it (export on).
    watch: Option<Watch>,
}

/// Which method asked: the standard one or the Limina alias.
#[derive(Debug, Clone, Copy)]
pub(in crate::mcp) enum CallShape {
    Mcp,
    Limina,
}

impl CallShape {
    /// The shape `method`'s reply takes.
    pub(in crate::mcp) fn of(method: &str) -> CallShape {
        if method == "callTool" {
            CallShape::Limina
        } else {
            CallShape::Mcp
        }
    }
}

impl Connection {
    /// A connection whose requests are cancelled through `cancels`, and whose notifications
    /// sent while a call runs (progress) go through `notify`.
    pub fn new(cancels: std::sync::Arc<CancelBoard>, notify: Option<Notify>) -> Self {
        Connection {
            cancels,
            notify,
            ..Connection::default()
        }
    }

    /// A sink turning a guest's (or a built-in's) reports into `notifications/progress`.
    pub(super) fn progress_sink(&self, token: Value) -> Option<crate::call::ProgressSink> {
        let notify = self.notify.clone()?;
        Some(std::sync::Arc::new(move |done, total, message| {
            let mut params = json!({"progressToken": token, "progress": done});
            if let Some(total) = total {
                params["total"] = json!(total);
            }
            if let Some(message) = message {
                params["message"] = json!(message);
            }
            notify(jsonrpc::notification("notifications/progress", params));
        }))
    }
}

pub(in crate::mcp) const INSTRUCTIONS: &str = "Limina hosts sandboxed skills acting on a shared 3D world. \
Call tools/list to see the skills your profile allows; each takes a JSON object matching its inputSchema. \
Failures come back as isError results whose text starts with the error code \
(invalid_input, forbidden, handler_error, capacity_exceeded) and says what to change.";

impl Server {
    pub fn new(registry: Registry, config: ServerConfig) -> Self {
        Server {
            registry,
            config,
            reloads: None,
            sync_watch: None,
            telemetry: None,
            stateless: Default::default(),
            questions: Default::default(),
            tasks: Default::default(),
            deferring: Default::default(),
            resources_watched: false,
            issued: 0,
        }
    }

    /// Reports every request to `recorder` from now on (OpenTelemetry export).
    pub fn export_telemetry(&mut self, recorder: crate::telemetry::Recorder) {
        self.registry.observe_stages(true);
        self.telemetry = Some(recorder);
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// Handles one message: the reply to send, if any (a request cancelled before or while it
    /// ran gets none), or a call to a package that cannot touch the world, detached to run on
    /// another thread.
    pub fn handle(&mut self, conn: &mut Connection, text: &str) -> Handled {
        self.apply_reloads();
        Handled::Reply(match jsonrpc::parse(text) {
            Incoming::Invalid(reply) => Some(reply),
            Incoming::Reply { id, outcome } => {
                return self
                    .answered(conn, &id, outcome)
                    .unwrap_or(Handled::Reply(None));
            }
            Incoming::Notification { method, params } => {
                // Notifications never get a reply, not even an error; a call sent as one runs
                // on the engine (nobody waits for it).
                let mut request = Request::notification(&method, &params);
                let _ = self.dispatch(conn, &mut request, &method, params);
                None
            }
            Incoming::Request { id, method, params } => {
                let Some(cancel) = conn.cancels.start(&id) else {
                    return Handled::Reply(None);
                };
                let mut request = Request::classic(id, &method, &params, cancel);
                request.watch = self.telemetry.is_some().then(|| {
                    // Stages left by a call that came as a notification belong to nobody.
                    let _ = self.registry.take_stages();
                    Watch::begin(&method, &params, conn)
                });
                let envelope = modern::envelope(&params);
                self.open_deferring(envelope.is_some());
                let outcome = match envelope {
                    None => self.dispatch(conn, &mut request, &method, params),
                    Some(Err(refused)) => Err(refused),
                    Some(Ok(envelope)) => {
                        request = request.modern(envelope);
                        self.dispatch_modern(conn, &mut request, &method, params)
                            .map(Answer::Value)
                    }
                };
                let id = request.id.as_ref().expect("a request has an id");
                // Closed before any way out, so no later call inherits the permission.
                let deferred = self.close_deferring(id, request.reply.call);
                if outcome.is_ok() && conn.awaiting_tasks.iter().any(|(_, r)| r == id) {
                    // `tasks/result` of a running task: answered when it ends.
                    return Handled::Reply(None);
                }
                if let Some(asking) = conn.asking.as_mut().filter(|a| &a.request_id == id) {
                    // It waits for a person's answer; the question goes out now, the reply later.
                    asking.watch = request.watch;
                    return Handled::Reply(None);
                }
                let handled = self.settle(conn, request, outcome);
                if matches!(handled, Handled::Reply(Some(_)) | Handled::Framed(_)) {
                    self.hold(deferred);
                }
                return handled;
            }
        })
    }

    /// The end of a request that ran: detached to a worker, kept open (a listen stream), or
    /// answered in its revision's shape.
    fn settle(
        &mut self,
        conn: &mut Connection,
        request: Request,
        outcome: Result<Answer, RpcError>,
    ) -> Handled {
        let Request {
            id,
            reply: shape,
            detached,
            watch,
            ..
        } = request;
        let id = id.expect("only a request is settled");
        if let Some(call) = detached {
            return Handled::Detached(call, Box::new(PendingReply { id, shape, watch }));
        }
        if outcome.is_ok() && conn.listen.as_ref().is_some_and(|l| l.id == id) {
            // A listen stream's reply comes only when it ends.
            return Handled::Reply(None);
        }
        self.answer(conn, id, &shape, watch, outcome)
    }

    /// A request's reply in its revision's shape. A tool call's result nobody watches is
    /// written straight to its frame, in either revision (a picture's base64 text, made where
    /// the call ran, is copied in, not encoded here), and so is a 2025-11-25 listing.
    fn answer(
        &mut self,
        conn: &mut Connection,
        id: Value,
        shape: &ReplyShape,
        watch: Option<Watch>,
        outcome: Result<Answer, RpcError>,
    ) -> Handled {
        let classic = shape.revision == Revision::Classic;
        let outcome = match outcome {
            Ok(Answer::Call(result)) if watch.is_none() => {
                if !classic {
                    self.queue_logs(conn, shape);
                }
                return framed(conn, &id, |id| result.reply_in(id, shape.revision));
            }
            Ok(Answer::Listing(listing)) if classic && watch.is_none() => {
                return framed(conn, &id, |id| listing.reply(id));
            }
            outcome => outcome.map(Answer::into_value),
        };
        let outcome = self.in_revision(conn, shape, outcome);
        Handled::Reply(self.conclude(conn, id, || outcome, watch))
    }

    /// Runs a call that waited for a person's answer, as its own request would have.
    pub(in crate::mcp) fn run_held(
        &mut self,
        conn: &mut Connection,
        asking: super::approval::Asking,
        approval: crate::policy::Approval,
    ) -> Handled {
        let mut request =
            Request::classic(asking.request_id, "tools/call", &Value::Null, asking.cancel);
        request.progress = asking.progress;
        request.watch = asking.watch;
        let response = self.invoke(
            conn,
            &mut request,
            &asking.name,
            asking.arguments,
            Some(approval),
        );
        let outcome = Ok(response.map_or(Answer::Value(Value::Null), |r| {
            Answer::Call(CallResult::from(r))
        }));
        self.settle(conn, request, outcome)
    }

    /// Completes a detached call; the reply to send (none when it was cancelled).
    pub fn complete(
        &mut self,
        conn: &mut Connection,
        ran: crate::registry::RanCall,
        pending: PendingReply,
    ) -> Handled {
        let response = self.registry.complete(ran);
        conn.last_events = response.metadata.events_emitted.clone();
        let outcome = match pending.shape.call {
            CallShape::Mcp => Ok(Answer::Call(CallResult::from(response))),
            CallShape::Limina => limina_result(response).map(Answer::Value),
        };
        self.answer(conn, pending.id, &pending.shape, pending.watch, outcome)
    }

    /// The end of every request: no reply when it was cancelled, else its outcome as the
    /// reply; telemetry told either way.
    fn conclude(
        &mut self,
        conn: &Connection,
        id: Value,
        outcome: impl FnOnce() -> Result<Value, RpcError>,
        watch: Option<Watch>,
    ) -> Option<Value> {
        let reply = (!conn.cancels.finish(&id)).then(|| reply(id.clone(), outcome()));
        if let Some(watch) = watch {
            self.report(watch, &id, conn, reply.as_ref());
        }
        reply
    }

    /// Whether no telemetry is told each request's outcome as it ends.
    pub(in crate::mcp) fn telemetry_off(&self) -> bool {
        self.telemetry.is_none()
    }

    /// Hands telemetry the record of a request answered with `reply` (`None`: cancelled).
    fn report(&mut self, watch: Watch, id: &Value, conn: &Connection, reply: Option<&Value>) {
        let stages = self.registry.take_stages();
        if let Some(recorder) = &self.telemetry {
            recorder.record(watch.end(id, conn, reply, stages));
        }
    }

    /// Writes what the trace has not written yet and syncs as `[trace] fsync` says;
    /// transports call it when no input is waiting, before the batch's replies leave. While
    /// the trace cannot be written it also tries whether it can again (traffic or not). False
    /// when the batch's events are not durable (the trace logs why, once).
    pub fn flush(&mut self) -> bool {
        let tracer = &mut self.registry.realm_mut().tracer;
        let _ = tracer.accepting();
        let durable = tracer.flush().is_ok();
        self.registry.settle_deferred();
        durable
    }

    /// Calls `hook` on the engine thread whenever a third-party call is about to take its
    /// slice of the engine (`[limits] engineCallMs`), for the engine to let go of what it has
    /// queued meanwhile.
    pub fn before_engine_slice(&mut self, hook: impl Fn() + Send + Sync + 'static) {
        self.registry.before_engine_slice(hook);
    }

    /// Groups state commits from now on (`crate::state`): the replies of calls that wrote
    /// state, or read what is still being written, wait for the ticket
    /// [`Server::take_state_owed`] names; `wake` is called when the writer settles some.
    pub fn group_state_commits(&mut self, wake: impl Fn() + Send + Sync + 'static) {
        self.registry.realm_mut().state.group_commits(wake);
    }

    /// The state ticket the replies made since the last take must wait for, if any.
    pub fn take_state_owed(&mut self) -> Option<u64> {
        self.registry.realm_mut().state.take_owed()
    }

    /// What the state writer settled since the last look (`wait`: every ticket handed out,
    /// waiting for them — at shutdown).
    pub fn settle_state(&mut self, wait: bool) -> Vec<crate::state::Settled> {
        let state = &mut self.registry.realm_mut().state;
        if wait {
            state.settle_all()
        } else {
            state.settle()
        }
    }

    /// Whether replies must wait for [`Server::flush`] (`[trace] fsync = "always"`).
    pub fn replies_wait_for_sync(&self) -> bool {
        self.registry.realm().tracer.syncs_every_batch()
    }

    /// Ends a connection's session (transport closed).
    pub fn disconnect(&mut self, conn: &mut Connection) {
        self.withdraw(
            conn,
            "the client went away (or opened a new session) before anyone answered",
        );
        if let Some(session) = conn.session.take() {
            self.registry.end_session(&session.caller.session_id);
        }
    }

    /// Takes the world steps real time has made due; transports call it before each message.
    pub fn advance_clock(&mut self) {
        for _ in 0..self.config.clock.due_steps() {
            self.registry.realm_mut().world.step();
        }
    }

    /// How long until the clock's next step is due (`None`: it only steps on request).
    pub fn until_next_step(&self) -> Option<std::time::Duration> {
        self.config.clock.until_next()
    }
}
