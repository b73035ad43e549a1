//! The approval gate on the wire: how a call an `[[approve]]` rule holds is put to a person.
//!
//! - **2025-11-25 sessions** whose `initialize` declared `capabilities.elicitation`: the server
//!   sends the client an `elicitation/create` request (stdio, WebSocket, or the POST's SSE
//!   stream over HTTP) and the call waits in [`Asking`] — off the engine, which serves everyone
//!   else; only that connection's later requests queue behind it — until the answer, a
//!   `notifications/cancelled`, the connection's end, or the rule's deadline.
//! - **2026-07-28 requests** whose `_meta` capabilities declare `elicitation`: the call answers
//!   at once with `resultType: "input_required"`, its question under `inputRequests.approval`,
//!   and a sealed `requestState` (HMAC-SHA-256 under a key made at start-up) binding the
//!   question to the identity, the skill, the input and the deadline; the client retries with
//!   `inputResponses.approval` and that state. Nothing is held between the two requests but the
//!   question's one-use nonce.
//! - Anyone else (no elicitation declared, the `callTool` alias, a notification) cannot be
//!   asked: the policy engine refuses with `approval.unavailable`.
//!
//! Either way the answer reaches the registry in `CallControl::approval`, the policy engine
//! decides with it, and the decision's trace event names who answered.

use super::observe::Watch;
use super::request::Request;
use super::server::{Connection, Server};
use crate::limits::MAX_OPEN_APPROVALS_PER_IDENTITY;
use crate::mcp::wire::classic::declares_elicitation;
use crate::mcp::wire::jsonrpc;
use crate::mcp::wire::jsonrpc::RpcError;
use crate::policy::{Approval, ApproveRule, Outcome};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The key of the question in `inputRequests` / `inputResponses`.
pub const QUESTION_KEY: &str = "approval";
/// `_meta` key on an `elicitation/create` request (Limina): the request it asks about, so the
/// HTTP transport sends it on that request's response stream.
pub const RELATED_KEY: &str = "io.limina/relatedRequestId";

/// A held call on a 2025-11-25 connection, waiting for the answer to its question.
pub(in crate::mcp) struct Asking {
    /// The `tools/call` it belongs to.
    pub(in crate::mcp) request_id: Value,
    /// The `elicitation/create` request sent for it.
    pub(in crate::mcp) ask_id: Value,
    pub(in crate::mcp) name: String,
    pub(in crate::mcp) arguments: Value,
    pub(in crate::mcp) progress: Option<Value>,
    /// The `tools/call`'s cancel, raised by a `notifications/cancelled` for it.
    pub(in crate::mcp) cancel: crate::call::Cancel,
    pub(in crate::mcp) deadline: Instant,
    pub(in crate::mcp) timeout_ms: u64,
    /// The request as telemetry watches it (export on).
    pub(in crate::mcp) watch: Option<Watch>,
}

/// What the gate says about a call.
pub(in crate::mcp) enum Gate {
    /// Run it, with the person's answer when a rule holds it.
    Run(Option<Approval>),
    /// Answer with this now (a 2026-07-28 `input_required` result), or nothing yet (a
    /// 2025-11-25 connection now waits in [`Asking`]).
    Reply(Value),
}

static NEXT_QUESTION: AtomicU64 = AtomicU64::new(1);

/// The question put to the person: a yes/no form naming the skill and its input.
pub fn question(rule: &ApproveRule, skill: &str, arguments: &Value) -> Value {
    let mut input = arguments.to_string();
    if input.len() > 400 {
        let cut = (0..=400)
            .rev()
            .find(|i| input.is_char_boundary(*i))
            .unwrap_or(0);
        input.truncate(cut);
        input.push('…');
    }
    let message = match &rule.message {
        Some(text) => format!("{text}\n\n{skill} {input}"),
        None => format!("Allow the call {skill} {input}?"),
    };
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Allow this call",
                    "description": format!("Run {skill} now"),
                    "default": false,
                }
            },
            "required": ["approve"],
        },
    })
}

/// An elicitation result read as an approval; the error says what is malformed.
pub fn read_answer(result: &Value, answered_by: Value) -> Result<Approval, String> {
    let action = result
        .get("action")
        .and_then(Value::as_str)
        .ok_or("an elicitation result needs `action`: \"accept\", \"decline\" or \"cancel\"")?;
    let with = |outcome, detail: &str| Approval {
        outcome,
        answered_by: with_action(answered_by.clone(), action),
        detail: detail.to_string(),
    };
    match action {
        "accept" => match result.pointer("/content/approve") {
            Some(Value::Bool(true)) => Ok(with(Outcome::Accepted, "the person allowed it")),
            Some(Value::Bool(false)) => Ok(with(
                Outcome::Declined,
                "the person answered `approve: false`",
            )),
            _ => Err("an accepted approval needs `content.approve` (true or false)".into()),
        },
        "decline" => Ok(with(Outcome::Declined, "the person declined")),
        "cancel" => Ok(with(
            Outcome::Declined,
            "the person dismissed the question without allowing it",
        )),
        other => Err(format!(
            "`action` must be \"accept\", \"decline\" or \"cancel\", got \"{other}\""
        )),
    }
}

fn with_action(mut answered_by: Value, action: &str) -> Value {
    answered_by["action"] = json!(action);
    answered_by
}

/// An answer nobody gave: the call is refused with `approval.unavailable`.
pub fn unavailable(answered_by: Value, detail: impl Into<String>) -> Approval {
    Approval {
        outcome: Outcome::Unavailable,
        answered_by,
        detail: detail.into(),
    }
}

/// Who stood behind a connection's answer: its session's identity and how it was asked.
fn answerer(caller: &crate::registry::Caller, via: &str) -> Value {
    json!({"agentId": caller.agent_id, "sessionId": caller.session_id, "via": via, "action": null})
}

/// Whether a message may reach a connection that waits for an answer (the answer itself, or
/// a cancellation); its other messages wait their turn.
pub fn lets_through(text: &str) -> bool {
    if crate::mcp::engine::cancel::cancelled_request(text.as_bytes()).is_some() {
        return true;
    }
    serde_json::from_str::<Value>(text)
        .is_ok_and(|m| m.get("method").is_none() && m.get("id").is_some())
}

/// The questions asked of 2026-07-28 clients and not yet answered, and the key that seals
/// their `requestState`.
pub struct Questions {
    key: [u8; 32],
    /// By identity (agent, profile): question nonces and their deadlines (ms since the epoch),
    /// oldest first.
    open: HashMap<(String, String), VecDeque<(String, u64)>>,
}

impl Default for Questions {
    fn default() -> Self {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the OS has randomness");
        Questions {
            key,
            open: HashMap::new(),
        }
    }
}

/// What a `requestState` binds.
#[derive(Debug, Clone, PartialEq)]
struct Ticket {
    nonce: String,
    agent: String,
    profile: String,
    skill: String,
    /// SHA-256 of the call's input as sent.
    input: String,
    deadline_ms: u64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn digest(value: &Value) -> String {
    hex::encode(Sha256::digest(crate::json::text(value).as_bytes()))
}

/// HMAC-SHA-256 (RFC 2104).
fn hmac(key: &[u8; 32], message: &[u8]) -> [u8; 32] {
    let mut inner = Sha256::new();
    let mut outer = Sha256::new();
    let mut ipad = [0x36u8; 64];
    let mut opad = [0x5cu8; 64];
    for (i, k) in key.iter().enumerate() {
        ipad[i] ^= k;
        opad[i] ^= k;
    }
    inner.update(ipad);
    inner.update(message);
    outer.update(opad);
    outer.update(inner.finalize());
    outer.finalize().into()
}

impl Questions {
    fn seal(&self, ticket: &Ticket) -> String {
        let body = json!([
            ticket.nonce,
            ticket.agent,
            ticket.profile,
            ticket.skill,
            ticket.input,
            ticket.deadline_ms
        ])
        .to_string();
        let mac = hmac(&self.key, body.as_bytes());
        format!("{}.{}", hex::encode(body), hex::encode(mac))
    }

    fn open_state(&self, state: &str) -> Result<Ticket, String> {
        use subtle::ConstantTimeEq;
        let broken = || {
            "`requestState` failed its integrity check (it was changed, or comes from another host or run); call again without `requestState` and `inputResponses` to be asked anew".to_string()
        };
        let (body, mac) = state.split_once('.').ok_or_else(broken)?;
        let body = hex::decode(body).map_err(|_| broken())?;
        let mac = hex::decode(mac).map_err(|_| broken())?;
        let expected = hmac(&self.key, &body);
        if mac.len() != expected.len() || !bool::from(expected.ct_eq(&mac)) {
            return Err(broken());
        }
        let fields: Value = serde_json::from_slice(&body).map_err(|_| broken())?;
        let text = |i: usize| fields[i].as_str().map(str::to_string).ok_or_else(broken);
        Ok(Ticket {
            nonce: text(0)?,
            agent: text(1)?,
            profile: text(2)?,
            skill: text(3)?,
            input: text(4)?,
            deadline_ms: fields[5].as_u64().ok_or_else(broken)?,
        })
    }

    /// A new question for `identity` about `skill` with `arguments`: its sealed state.
    fn ask(
        &mut self,
        identity: (String, String),
        skill: &str,
        arguments: &Value,
        timeout_ms: u64,
    ) -> String {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).expect("the OS has randomness");
        let ticket = Ticket {
            nonce: hex::encode(nonce),
            agent: identity.0.clone(),
            profile: identity.1.clone(),
            skill: skill.to_string(),
            input: digest(arguments),
            deadline_ms: now_ms() + timeout_ms,
        };
        let now = now_ms();
        let open = self.open.entry(identity).or_default();
        open.retain(|(_, deadline)| *deadline > now);
        if open.len() >= MAX_OPEN_APPROVALS_PER_IDENTITY {
            open.pop_front();
        }
        open.push_back((ticket.nonce.clone(), ticket.deadline_ms));
        self.seal(&ticket)
    }

    /// Forgets the question `nonce` of `identity`; false when it was not open (answered
    /// already, or forgotten).
    fn close(&mut self, identity: &(String, String), nonce: &str) -> bool {
        let Some(open) = self.open.get_mut(identity) else {
            return false;
        };
        let before = open.len();
        open.retain(|(n, _)| n != nonce);
        let closed = open.len() < before;
        if open.is_empty() {
            self.open.remove(identity);
        }
        closed
    }
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(jsonrpc::INVALID_PARAMS, message)
}

impl Server {
    /// The gate in front of `tools/call`: run the call (with the answer when an
    /// `[[approve]]` rule holds it), or put the question to the client.
    pub(in crate::mcp) fn gate(
        &mut self,
        conn: &mut Connection,
        request: &Request,
        name: &str,
        arguments: &Value,
        params: &Value,
    ) -> Result<Gate, RpcError> {
        let session = request.session(conn).expect("checked by the caller");
        let Some(rule) = self
            .registry()
            .approval_needed(&session.caller, name, arguments)
        else {
            return Ok(Gate::Run(None));
        };
        // Only a held call pays for its own copy of the caller.
        let caller = session.caller.clone();
        if request.is_modern() {
            return self.gate_stateless(&caller, request, &rule, name, arguments, params);
        }
        let session = request.session(conn).expect("checked above");
        let who = answerer(&caller, "elicitation/create");
        if !session.elicits {
            return Ok(Gate::Run(Some(unavailable(
                who,
                "the client did not declare the `elicitation` capability at `initialize`, so nobody can be asked",
            ))));
        }
        let (Some(request_id), Some(cancel)) = (request.id.clone(), request.cancel.clone()) else {
            return Ok(Gate::Run(Some(unavailable(
                who,
                "it was sent as a notification, which nobody waits on",
            ))));
        };
        let ask_id = json!(format!(
            "limina-approval-{}",
            NEXT_QUESTION.fetch_add(1, Ordering::Relaxed)
        ));
        let mut params = question(&rule, name, arguments);
        params["_meta"] = json!({ RELATED_KEY: request_id });
        conn.pending.push(json!({
            "jsonrpc": "2.0",
            "id": ask_id,
            "method": "elicitation/create",
            "params": params,
        }));
        crate::log::debug(&format!(
            "{name} waits for approval (asked as {ask_id}, {} ms)",
            rule.timeout_ms
        ));
        conn.asking = Some(Asking {
            request_id,
            ask_id,
            name: name.to_string(),
            arguments: arguments.clone(),
            progress: request.progress.clone(),
            cancel,
            deadline: Instant::now() + Duration::from_millis(rule.timeout_ms),
            timeout_ms: rule.timeout_ms,
            watch: None,
        });
        Ok(Gate::Reply(Value::Null))
    }

    /// The 2026-07-28 half: an answer with its sealed state runs (or refuses) the call; else
    /// the question goes back as an `input_required` result.
    fn gate_stateless(
        &mut self,
        caller: &crate::registry::Caller,
        request: &Request,
        rule: &ApproveRule,
        name: &str,
        arguments: &Value,
        params: &Value,
    ) -> Result<Gate, RpcError> {
        let identity = (caller.agent_id.clone(), caller.profile.clone());
        let who = answerer(caller, "input_required");
        let answer = match params.get("inputResponses") {
            None => None,
            Some(Value::Object(responses)) => match responses.get(QUESTION_KEY) {
                None => None,
                Some(result @ Value::Object(_)) => Some(
                    read_answer(result, who.clone())
                        .map_err(|m| invalid(format!("`inputResponses.{QUESTION_KEY}`: {m}")))?,
                ),
                Some(_) => {
                    return Err(invalid(format!(
                        "`inputResponses.{QUESTION_KEY}` must be an elicitation result object {{\"action\": \"accept\", \"content\": {{\"approve\": true}}}}"
                    )));
                }
            },
            Some(_) => {
                return Err(invalid(
                    "`inputResponses` must be an object keyed like the `inputRequests` it answers",
                ));
            }
        };
        let ticket = match params.get("requestState") {
            None => None,
            Some(Value::String(state)) => {
                let ticket = self.questions.open_state(state).map_err(invalid)?;
                if (ticket.agent.as_str(), ticket.profile.as_str()) != (&identity.0, &identity.1)
                    || ticket.skill != name
                    || ticket.input != digest(arguments)
                {
                    return Err(invalid(format!(
                        "`requestState` was issued for another call (another caller, skill or input); retry `{name}` with the same arguments, or call again without `requestState` to be asked anew"
                    )));
                }
                Some(ticket)
            }
            Some(_) => return Err(invalid("`requestState` must be the string the server sent")),
        };
        if let (Some(answer), Some(ticket)) = (answer, ticket.as_ref()) {
            if !self.questions.close(&identity, &ticket.nonce) {
                return Err(invalid(
                    "this `requestState` was answered already (or forgotten); call again without `requestState` and `inputResponses` to be asked anew",
                ));
            }
            if now_ms() > ticket.deadline_ms {
                return Ok(Gate::Run(Some(unavailable(
                    answer.answered_by,
                    format!(
                        "the answer came after the {} ms the rule allows",
                        rule.timeout_ms
                    ),
                ))));
            }
            return Ok(Gate::Run(Some(answer)));
        }
        let capabilities = &request.capabilities;
        if !declares_elicitation(capabilities) {
            return Ok(Gate::Run(Some(unavailable(
                who,
                "the request's `_meta.io.modelcontextprotocol/clientCapabilities` does not declare `elicitation`, so nobody can be asked",
            ))));
        }
        let state = self
            .questions
            .ask(identity, name, arguments, rule.timeout_ms);
        Ok(Gate::Reply(json!({
            "resultType": "input_required",
            "inputRequests": {
                QUESTION_KEY: {"method": "elicitation/create", "params": question(rule, name, arguments)},
            },
            "requestState": state,
        })))
    }

    /// The client answered `ask_id`: the held call runs or is refused. `None` when the reply
    /// answers nothing this connection asked.
    pub(in crate::mcp) fn answered(
        &mut self,
        conn: &mut Connection,
        ask_id: &Value,
        outcome: Result<Value, Value>,
    ) -> Option<super::server::Handled> {
        if conn.asking.as_ref().is_none_or(|a| &a.ask_id != ask_id) {
            return None;
        }
        let asking = conn.asking.take().expect("checked above");
        let caller = &conn.session.as_ref()?.caller;
        let who = answerer(caller, "elicitation/create");
        let approval = match outcome {
            Ok(result) => read_answer(&result, who.clone()).unwrap_or_else(|m| {
                unavailable(who, format!("the client's answer was malformed: {m}"))
            }),
            Err(error) => unavailable(
                who,
                format!(
                    "the client could not ask: {}",
                    error["message"]
                        .as_str()
                        .unwrap_or("it answered with an error")
                ),
            ),
        };
        Some(self.run_held(conn, asking, approval))
    }

    /// Refuses the held call when its deadline passed; the client is told to drop the
    /// question. `None` while it may still be answered.
    pub(in crate::mcp) fn expire_asking(
        &mut self,
        conn: &mut Connection,
    ) -> Option<super::server::Handled> {
        if conn
            .asking
            .as_ref()
            .is_none_or(|a| a.deadline > Instant::now())
        {
            return None;
        }
        let asking = conn.asking.take().expect("checked above");
        let caller = &conn.session.as_ref()?.caller;
        conn.pending.push(jsonrpc::notification(
            "notifications/cancelled",
            json!({"requestId": asking.ask_id, "reason": "nobody answered in time"}),
        ));
        let approval = unavailable(
            answerer(caller, "elicitation/create"),
            format!("nobody answered within {} ms", asking.timeout_ms),
        );
        Some(self.run_held(conn, asking, approval))
    }

    /// The held call ends without an answer (cancelled, or its connection closed): refused
    /// and traced; nobody is sent a reply.
    pub(in crate::mcp) fn withdraw(&mut self, conn: &mut Connection, why: &str) {
        let Some(asking) = conn.asking.take() else {
            return;
        };
        let Some(session) = &conn.session else {
            return;
        };
        let approval = unavailable(answerer(&session.caller, "elicitation/create"), why);
        let _ = self.run_held(conn, asking, approval);
    }

    /// When the earliest held call's deadline falls.
    pub(in crate::mcp) fn asking_deadline(conn: &Connection) -> Option<Instant> {
        conn.asking.as_ref().map(|a| a.deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> ApproveRule {
        ApproveRule {
            skill: "scene.*".into(),
            profiles: None,
            message: Some("Clear it?".into()),
            timeout_ms: 1000,
        }
    }

    #[test]
    fn the_question_is_a_yes_no_form_naming_the_call() {
        let q = question(&rule(), "scene.clear", &json!({"all": true}));
        assert_eq!(q["mode"], "form");
        assert!(
            q["message"]
                .as_str()
                .unwrap()
                .contains("scene.clear {\"all\":true}")
        );
        assert_eq!(
            q["requestedSchema"]["properties"]["approve"]["type"],
            "boolean"
        );
        let long = question(&rule(), "scene.clear", &json!({"text": "é".repeat(600)}));
        assert!(long["message"].as_str().unwrap().len() < 600);
    }

    #[test]
    fn answers_read_as_approvals_and_malformed_ones_say_why() {
        let who = json!({"agentId": "a"});
        let read = |v: Value| read_answer(&v, who.clone());
        let yes = read(json!({"action": "accept", "content": {"approve": true}})).unwrap();
        assert_eq!(yes.outcome, Outcome::Accepted);
        assert_eq!(yes.answered_by["action"], "accept");
        let no = read(json!({"action": "accept", "content": {"approve": false}})).unwrap();
        assert_eq!(no.outcome, Outcome::Declined);
        assert_eq!(
            read(json!({"action": "decline"})).unwrap().outcome,
            Outcome::Declined
        );
        assert_eq!(
            read(json!({"action": "cancel"})).unwrap().outcome,
            Outcome::Declined
        );
        assert!(
            read(json!({"action": "accept"}))
                .unwrap_err()
                .contains("content.approve")
        );
        assert!(
            read(json!({"action": "maybe"}))
                .unwrap_err()
                .contains("\"maybe\"")
        );
        assert!(read(json!({})).unwrap_err().contains("`action`"));
    }

    #[test]
    fn request_state_opens_only_as_sealed_and_each_question_closes_once() {
        let mut questions = Questions::default();
        let who = ("a".to_string(), "p".to_string());
        let state = questions.ask(who.clone(), "scene.clear", &json!({}), 1000);
        let ticket = questions.open_state(&state).unwrap();
        assert_eq!(ticket.skill, "scene.clear");
        let tampered = format!("{state}-TAMPERED");
        assert!(
            questions
                .open_state(&tampered)
                .unwrap_err()
                .contains("integrity")
        );
        let mut flipped = state.clone().into_bytes();
        flipped[3] = if flipped[3] == b'0' { b'1' } else { b'0' };
        assert!(
            questions
                .open_state(&String::from_utf8(flipped).unwrap())
                .is_err()
        );
        assert!(
            Questions::default().open_state(&state).is_err(),
            "another run's key"
        );
        assert!(questions.close(&who, &ticket.nonce));
        assert!(!questions.close(&who, &ticket.nonce), "once");
    }

    #[test]
    fn open_questions_stay_bounded_per_identity() {
        let mut questions = Questions::default();
        let who = ("a".to_string(), "p".to_string());
        let first = questions.ask(who.clone(), "s.k", &json!({}), 60_000);
        for _ in 0..MAX_OPEN_APPROVALS_PER_IDENTITY {
            questions.ask(who.clone(), "s.k", &json!({}), 60_000);
        }
        assert_eq!(questions.open[&who].len(), MAX_OPEN_APPROVALS_PER_IDENTITY);
        let oldest = questions.open_state(&first).unwrap();
        assert!(
            !questions.close(&who, &oldest.nonce),
            "the oldest was forgotten"
        );
    }

    #[test]
    fn only_answers_and_cancellations_pass_a_waiting_connection() {
        assert!(lets_through(
            r#"{"jsonrpc":"2.0","id":"limina-approval-1","result":{}}"#
        ));
        assert!(lets_through(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
        ));
        assert!(!lets_through(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#
        ));
        assert!(!lets_through("not json"));
    }
}
