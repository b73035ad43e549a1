//! Tasks: a long call answered at once with a handle the client polls, in both revisions.
//!
//! - **2026-07-28**, the `io.modelcontextprotocol/tasks` extension: a `tools/call` whose
//!   `_meta` capabilities declare the extension, for a skill that may run as a task, answers
//!   `{resultType: "task", taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs}`;
//!   `tasks/get` returns the task with its `result` (or `error`) inlined once it ended,
//!   `tasks/cancel` and `tasks/update` answer an empty ack. Without the extension declared,
//!   `tasks/*` is -32021 naming it.
//! - **2025-11-25**, experimental: `tools/call` with `params.task` answers `{task: {…}}`;
//!   `tasks/get`, `tasks/list`, `tasks/cancel` answer the task, `tasks/result` the call's own
//!   result once it ended (it waits until then). Tools say `execution.taskSupport`.
//!
//! A task is an ordinary call: decided, budgeted and traced by the same pipeline, cancelled
//! through the same flag (a cancelled guest is stopped and its call undone), run off the engine
//! on the workers when it cannot touch the world (a slow guest, `trace.export`) and on the
//! engine otherwise (`dev.reload`'s scene replay, which then ends before the handle is
//! sent). What it does not do is hold its connection: the client goes on while it runs. Its end
//! is traced (`task.completed`, `task.failed`, `task.cancelled`). Tasks belong to the identity
//! that made them (another caller is told it does not exist), at most
//! `MAX_TASKS_PER_IDENTITY` at once, and expire `TASK_TTL_MS` after creation.

use super::request::Request;
use super::server::{Connection, Server};
use crate::call::ErrorCode;
use crate::limits::{MAX_TASKS_PER_IDENTITY, TASK_POLL_INTERVAL_MS, TASK_TTL_MS};
use crate::mcp::wire::Revision;
use crate::mcp::wire::jsonrpc;
use crate::mcp::wire::jsonrpc::RpcError;
use crate::mcp::wire::modern::TASKS_EXTENSION;
use crate::registry::{DetachedCall, Invocation, Response};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// The `_meta` key a 2025-11-25 task's result names it under.
pub const RELATED_TASK_KEY: &str = "io.modelcontextprotocol/related-task";
/// Error: the request needs a capability the client did not declare.
pub const MISSING_CAPABILITY: i64 = -32021;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Working,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    fn ended(self) -> bool {
        self != Status::Working
    }
}

/// One task.
pub struct Task {
    pub id: String,
    /// The session id of the identity that made it: only it may see it.
    owner: String,
    skill: String,
    status: Status,
    created: SystemTime,
    updated: SystemTime,
    cancel: crate::call::Cancel,
    /// The `tools/call` result, once it ended with one.
    result: Option<Value>,
    /// A protocol-level failure, once it ended with one.
    error: Option<Value>,
    /// The revision that made it: it is shown in that revision's shape.
    revision: Revision,
}

/// The tasks of every identity.
#[derive(Default)]
pub struct Tasks {
    by_id: BTreeMap<String, Task>,
}

static NEXT_TASK: AtomicU64 = AtomicU64::new(1);

impl Tasks {
    /// Drops the tasks past their time to live.
    fn expire(&mut self) {
        let now = SystemTime::now();
        let ttl = Duration::from_millis(TASK_TTL_MS);
        self.by_id
            .retain(|_, t| now.duration_since(t.created).unwrap_or_default() < ttl);
    }

    /// A new working task of `owner`; the error says the identity holds too many.
    fn create(
        &mut self,
        owner: &str,
        skill: &str,
        cancel: crate::call::Cancel,
        revision: Revision,
    ) -> Result<String, String> {
        self.expire();
        let held = self.by_id.values().filter(|t| t.owner == owner).count();
        if held >= MAX_TASKS_PER_IDENTITY {
            return Err(format!(
                "capacity_exceeded: this caller holds {held} tasks, the most allowed (MAX_TASKS_PER_IDENTITY); wait for one to expire ({} s after it was made) or call without a task",
                TASK_TTL_MS / 1000
            ));
        }
        let mut nonce = [0u8; 8];
        getrandom::fill(&mut nonce).expect("the OS has randomness");
        let id = format!(
            "task-{}-{}",
            NEXT_TASK.fetch_add(1, Ordering::Relaxed),
            hex::encode(nonce)
        );
        let now = SystemTime::now();
        self.by_id.insert(
            id.clone(),
            Task {
                id: id.clone(),
                owner: owner.to_string(),
                skill: skill.to_string(),
                status: Status::Working,
                created: now,
                updated: now,
                cancel,
                result: None,
                error: None,
                revision,
            },
        );
        Ok(id)
    }

    /// The task `id` of `owner`; the error is -32602 naming it.
    fn get(&mut self, owner: &str, id: &Value) -> Result<&mut Task, RpcError> {
        self.expire();
        let unknown = || {
            RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!(
                    "unknown task {id}: it never existed for this caller, or it expired ({} s after it was made)",
                    TASK_TTL_MS / 1000
                ),
            )
        };
        let id = id.as_str().ok_or_else(|| {
            RpcError::new(jsonrpc::INVALID_PARAMS, "`taskId` (string) is required")
        })?;
        match self.by_id.get_mut(id) {
            Some(task) if task.owner == owner => Ok(task),
            _ => Err(unknown()),
        }
    }
}

impl Task {
    /// Ends it with the call's response (a cancelled call ends it cancelled).
    fn finish(&mut self, response: Response) {
        self.updated = SystemTime::now();
        match &response.error {
            Some(f) if f.code == ErrorCode::Cancelled => self.status = Status::Cancelled,
            // The skill went away (a reload) before it ran: a protocol error, not the tool's.
            Some(f) if f.code == ErrorCode::NotFound => {
                self.status = Status::Failed;
                self.error = Some(json!({"code": jsonrpc::INVALID_PARAMS, "message": f.message}));
            }
            _ => {
                self.status = Status::Completed;
                self.result = Some(super::answer::mcp_result(response));
            }
        }
    }

    /// Its fields, in its revision's shape.
    fn fields(&self) -> Value {
        let time = |t: SystemTime| crate::trace::iso8601(t);
        let mut fields = json!({
            "taskId": self.id,
            "status": self.status.as_str(),
            "createdAt": time(self.created),
            "lastUpdatedAt": time(self.updated),
        });
        match self.revision {
            Revision::Modern => {
                fields["ttlMs"] = json!(TASK_TTL_MS);
                fields["pollIntervalMs"] = json!(TASK_POLL_INTERVAL_MS);
            }
            Revision::Classic => {
                fields["ttl"] = json!(TASK_TTL_MS);
                fields["pollInterval"] = json!(TASK_POLL_INTERVAL_MS);
            }
        }
        fields
    }

    /// `tasks/get`: the fields, and in 2026-07-28 the result or error once it ended.
    fn detailed(&self) -> Value {
        let mut fields = self.fields();
        if self.revision == Revision::Modern {
            if let Some(result) = &self.result {
                fields["result"] = result.clone();
            }
            if let Some(error) = &self.error {
                fields["error"] = error.clone();
            }
        }
        fields
    }

    /// `tasks/result` (2025-11-25): the call's own result, naming the task.
    fn outcome(&self) -> Value {
        let mut result = match (&self.result, self.status) {
            (Some(result), _) => result.clone(),
            (None, _) => json!({
                "content": [{"type": "text", "text": format!("the task ended {}", self.status.as_str())}],
                "isError": true,
            }),
        };
        if !result["_meta"].is_object() {
            result["_meta"] = json!({});
        }
        result["_meta"][RELATED_TASK_KEY] = json!({"taskId": self.id});
        result
    }
}

/// Whether a skill may run as a task: when it runs off the engine (a guest that cannot touch
/// the world, a history read such as `trace.export`), or `dev.reload` (a scene replay).
pub fn task_support(registry: &crate::registry::Registry, name: &str) -> &'static str {
    if registry.runs_off_engine(name) || name == "dev.reload" {
        "optional"
    } else {
        "forbidden"
    }
}

/// What the 2026-07-28 tasks methods need first: the extension declared on the request.
fn require_extension(capabilities: &Value) -> Result<(), RpcError> {
    if capabilities
        .pointer("/extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(Value::is_object)
    {
        return Ok(());
    }
    Err(RpcError::new(
        MISSING_CAPABILITY,
        format!("tasks need the `{TASKS_EXTENSION}` extension: declare it under `_meta.io.modelcontextprotocol/clientCapabilities.extensions`"),
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})))
}

impl Server {
    /// Whether this `tools/call` should become a task: the skill may run as one and the client
    /// asked (2025-11-25: `params.task`) or declared the extension (2026-07-28).
    pub(in crate::mcp) fn wants_task(&self, request: &Request, name: &str, params: &Value) -> bool {
        let asked = match request.reply.revision {
            Revision::Modern => require_extension(&request.capabilities).is_ok(),
            Revision::Classic => params.get("task").is_some_and(Value::is_object),
        };
        asked && task_support(self.registry(), name) == "optional"
    }

    /// Starts `name` as a task of the connection's caller; the handle to answer with. A call
    /// that runs off the engine is left in `conn.task_jobs` for the engine to hand a worker.
    pub(in crate::mcp) fn start_task(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        name: &str,
        arguments: Value,
        approval: Option<crate::policy::Approval>,
    ) -> Result<Value, RpcError> {
        let revision = request.reply.revision;
        let caller = request
            .session(conn)
            .expect("checked by the caller")
            .caller
            .clone();
        let cancel = crate::call::Cancel::default();
        let id = self
            .tasks
            .create(&caller.session_id, name, cancel.clone(), revision)
            .map_err(|m| RpcError::new(-32002, m))?;
        let control = crate::call::CallControl {
            cancel,
            progress: None,
            approval,
        };
        match self
            .registry_mut()
            .invoke_or_detach(&caller, name, arguments, control)
        {
            Invocation::Done(response) => {
                conn.last_events = response.metadata.events_emitted.clone();
                self.end_task(&id, response);
            }
            Invocation::Detached(call) => conn.task_jobs.push((id.clone(), call)),
        }
        let task = &self.tasks.by_id[&id];
        Ok(match revision {
            Revision::Modern => {
                let mut handle = task.fields();
                handle["resultType"] = json!("task");
                handle
            }
            Revision::Classic => json!({"task": task.fields()}),
        })
    }

    /// A task's call ended: its result kept, its end traced.
    pub(in crate::mcp) fn end_task(&mut self, id: &str, response: Response) {
        let Some(task) = self.tasks.by_id.get_mut(id) else {
            return;
        };
        task.finish(response);
        let (status, skill, owner) = (task.status, task.skill.clone(), task.owner.clone());
        let tracer = &mut self.registry_mut().realm_mut().tracer;
        tracer.emit(crate::trace::NewEvent {
            kind: format!("task.{}", status.as_str()),
            actor_id: "host".into(),
            thread_id: owner.clone(),
            parent_event_id: None,
            caused_by: Vec::new(),
            payload: json!({"taskId": id, "skill": skill, "status": status.as_str(), "sessionId": owner}),
        });
    }

    /// A task's detached call came back from its worker.
    pub fn complete_task(&mut self, id: &str, ran: crate::registry::RanCall) {
        let response = self.registry_mut().complete(ran);
        self.end_task(id, response);
    }

    /// The `tasks/*` methods, for the connection's caller; `None` for other methods.
    pub(in crate::mcp) fn dispatch_tasks(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        method: &str,
        params: &Value,
    ) -> Option<Result<Value, RpcError>> {
        if !matches!(
            method,
            "tasks/get" | "tasks/update" | "tasks/cancel" | "tasks/result" | "tasks/list"
        ) {
            return None;
        }
        Some(self.tasks_method(conn, request, method, params))
    }

    fn tasks_method(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        method: &str,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let modern = request.is_modern();
        if modern {
            require_extension(&request.capabilities)?;
            if matches!(method, "tasks/result" | "tasks/list") {
                return Err(RpcError::new(
                    jsonrpc::METHOD_NOT_FOUND,
                    format!(
                        "Method not found: `{method}` is not part of the {TASKS_EXTENSION} extension; `tasks/get` carries the result"
                    ),
                ));
            }
        } else if method == "tasks/update" {
            return Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                "Method not found: `tasks/update` belongs to MCP 2026-07-28's tasks extension",
            ));
        }
        let owner = request
            .session(conn)
            .ok_or_else(super::answer::not_initialized)?
            .caller
            .session_id
            .clone();
        if method == "tasks/list" {
            self.tasks.expire();
            let tasks: Vec<Value> = self
                .tasks
                .by_id
                .values()
                .filter(|t| t.owner == owner)
                .map(Task::fields)
                .collect();
            return Ok(json!({ "tasks": tasks }));
        }
        let id = params.get("taskId").cloned().unwrap_or(Value::Null);
        let task = self.tasks.get(&owner, &id)?;
        match method {
            "tasks/get" => Ok(task.detailed()),
            "tasks/cancel" => {
                if !task.status.ended() {
                    task.cancel.cancel();
                }
                Ok(if modern { json!({}) } else { task.fields() })
            }
            // Nothing this host's tasks ask of a client yet: an answer is acknowledged.
            "tasks/update" => Ok(json!({})),
            _ => {
                if task.status.ended() {
                    return Ok(task.outcome());
                }
                // `tasks/result` waits: answered when the task ends (see `task_replies`).
                let request = request.id.clone().expect("a request");
                conn.awaiting_tasks.push((task.id.clone(), request));
                Ok(Value::Null)
            }
        }
    }

    /// The `tasks/result` replies a connection is owed now that tasks ended.
    pub fn task_replies(&mut self, conn: &mut Connection) -> Vec<Value> {
        let mut replies = Vec::new();
        let tasks = &self.tasks;
        conn.awaiting_tasks.retain(|(id, request)| {
            let reply = match tasks.by_id.get(id) {
                Some(task) if task.status.ended() => {
                    jsonrpc::result(request.clone(), task.outcome())
                }
                Some(_) => return true,
                None => jsonrpc::error(
                    request.clone(),
                    jsonrpc::INVALID_PARAMS,
                    &format!("task {id} expired"),
                    None,
                ),
            };
            replies.push(reply);
            false
        });
        for reply in &replies {
            conn.cancels.finish(&reply["id"]);
        }
        replies
    }
}

/// A task's call waiting for a worker.
pub type TaskJob = (String, Box<DetachedCall>);
