//! What a relayed client's session needs to be recreated on another serving host, and which
//! of its requests are still unanswered, read from the messages going through the relay.
//!
//! The joining process carries it, not the server: it sees every message of its client, and
//! a server that died cannot hand anything over. When it connects to the next server it sends
//! the client's own `initialize` again with the session id, agent and profile that were bound
//! (so the session is the same one), then its `logging/setLevel`, `aoi/declare` and
//! `state/subscribe` (the subscription resumes with a snapshot). Those requests carry ids of
//! the relay's own ([`RESUME_ID`]); their replies are not passed to the client.

use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Hashed by `foldhash`: every request is noted and every reply looked up.
type Map<V> = HashMap<Key, V, foldhash::fast::RandomState>;

/// The JSON-RPC error code of a request whose host ended before answering it.
pub const HOST_UNAVAILABLE: i64 = -32003;

/// The id prefix of the requests the relay sends itself when resuming a session.
pub const RESUME_ID: &str = "limina-join-resume-";

/// The parts of a message the relay looks at; the rest (params, a result) is skipped, not
/// built.
#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    result: Option<serde::de::IgnoredAny>,
}

/// A request sent and not answered yet.
#[derive(Debug, Clone)]
pub struct InFlight {
    /// Its JSON text as the client sent it.
    pub text: Box<[u8]>,
    /// When the relay passed it on, for the order they are answered in after a crash.
    pub order: u64,
}

/// One client's session and requests, as seen by its relay.
#[derive(Default)]
pub struct Resume {
    /// Its latest `initialize` params and request id, until answered.
    initialize: Option<(Key, Value)>,
    /// The params to initialize with again, ids as bound (set once a reply came).
    bound: Option<Value>,
    initialized: bool,
    log_level: Option<Value>,
    aoi: Option<Value>,
    subscribe: Option<Value>,
    /// `state/subscribe` params sent, by request id, until answered.
    subscribing: Map<Value>,
    in_flight: Map<InFlight>,
    sent: u64,
}

/// A request id as a map key: `1` and `"1"` stay apart, and an integer (what most clients
/// send) is kept without building any text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Int(i64),
    Text(String),
    /// Any other id, as its JSON text.
    Other(String),
}

impl Key {
    fn of(id: Value) -> Key {
        match id {
            Value::Number(n) if n.is_i64() => Key::Int(n.as_i64().expect("checked")),
            Value::String(s) => Key::Text(s),
            other => Key::Other(other.to_string()),
        }
    }
}

/// What the relay does with a message from the server.
#[derive(Debug, PartialEq, Eq)]
pub enum FromServer {
    /// Pass it to the client.
    Pass,
    /// A reply to the relay's own resume request: not the client's.
    Swallow,
}

impl Resume {
    /// Notes a message the client sent (before it is passed on).
    pub fn client_sent(&mut self, text: &[u8]) {
        let Ok(peek) = serde_json::from_slice::<Peek>(text) else {
            return;
        };
        let Some(method) = peek.method.as_deref() else {
            return; // an answer to a question the server asked
        };
        let id = peek.id.map(Key::of);
        match method {
            "initialize" | "logging/setLevel" | "aoi/declare" | "state/subscribe" => {
                let params = serde_json::from_slice::<Value>(text)
                    .ok()
                    .and_then(|mut m| m.get_mut("params").map(Value::take))
                    .unwrap_or(Value::Null);
                self.note_request(method, id.clone(), params);
            }
            "notifications/initialized" => self.initialized = true,
            "shutdown" => {
                *self = Resume {
                    in_flight: std::mem::take(&mut self.in_flight),
                    sent: self.sent,
                    ..Resume::default()
                }
            }
            _ => {}
        }
        if let Some(id) = id {
            self.sent += 1;
            let entry = InFlight {
                text: text.into(),
                order: self.sent,
            };
            self.in_flight.insert(id, entry);
        }
    }

    fn note_request(&mut self, method: &str, id: Option<Key>, params: Value) {
        match (method, id) {
            ("initialize", Some(id)) => self.initialize = Some((id, params)),
            ("logging/setLevel", _) => self.log_level = Some(params),
            ("aoi/declare", _) => self.aoi = Some(params),
            ("state/subscribe", Some(id)) => {
                self.subscribing.insert(id, params);
            }
            _ => {}
        }
    }

    /// Notes a message from the server (before it is passed on); says whether to pass it.
    pub fn server_sent(&mut self, text: &[u8]) -> FromServer {
        let Ok(peek) = serde_json::from_slice::<Peek>(text) else {
            return FromServer::Pass;
        };
        if peek.method.is_some() {
            return FromServer::Pass; // a notification or a question for the client
        }
        let Some(id) = peek.id else {
            return FromServer::Pass;
        };
        if id.as_str().is_some_and(|s| s.starts_with(RESUME_ID)) {
            return FromServer::Swallow;
        }
        let id = Key::of(id);
        self.in_flight.remove(&id);
        let ok = peek.result.is_some();
        if !self.subscribing.is_empty()
            && let Some(params) = self.subscribing.remove(&id)
            && ok
        {
            self.subscribe = Some(params);
        }
        if self.initialize.as_ref().is_some_and(|(i, _)| *i == id) {
            let (_, params) = self.initialize.take().expect("checked");
            if ok {
                self.bind(params, text);
            }
        }
        FromServer::Pass
    }

    /// The session an `initialize` reply bound: its params, with the ids it was given.
    fn bind(&mut self, mut params: Value, reply: &[u8]) {
        let Ok(reply) = serde_json::from_slice::<Value>(reply) else {
            return;
        };
        let session = &reply["result"]["session"];
        if !params.is_object() {
            params = json!({});
        }
        for (field, from) in [
            ("sessionId", "sessionId"),
            ("agentId", "agentId"),
            ("profile", "profile"),
        ] {
            if let Some(value) = session.get(from).filter(|v| v.is_string()) {
                params[field] = value.clone();
            }
        }
        self.bound = Some(params);
        self.initialized = false;
        self.subscribe = None;
        self.aoi = None;
    }

    /// The agent its session is bound to, if one is.
    pub fn agent(&self) -> Option<&str> {
        self.bound.as_ref()?.get("agentId")?.as_str()
    }

    /// The requests still unanswered, oldest first; forgotten here (the caller answers them).
    pub fn take_in_flight(&mut self) -> Vec<InFlight> {
        let mut all: Vec<InFlight> = self.in_flight.drain().map(|(_, f)| f).collect();
        all.sort_by_key(|f| f.order);
        self.initialize = None;
        self.subscribing.clear();
        all
    }

    /// Requests still unanswered.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The messages that recreate the session on a new server, in order (none before the
    /// client's first `initialize` was answered).
    pub fn messages(&self) -> Vec<String> {
        let Some(params) = &self.bound else {
            return Vec::new();
        };
        let mut n = 0;
        let mut request = |method: &str, params: &Value| {
            n += 1;
            json!({"jsonrpc": "2.0", "id": format!("{RESUME_ID}{n}"), "method": method, "params": params})
                .to_string()
        };
        let mut out = vec![request("initialize", params)];
        if self.initialized {
            out.push(
                json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}})
                    .to_string(),
            );
        }
        for (method, params) in [
            ("logging/setLevel", &self.log_level),
            ("aoi/declare", &self.aoi),
            ("state/subscribe", &self.subscribe),
        ] {
            if let Some(params) = params {
                out.push(request(method, params));
            }
        }
        out
    }
}

/// The error a request gets when the host serving it ended before it answered: it may or may
/// not have run, and how to find out.
pub fn unanswered(request: &InFlight, server_pid: u32, agent: Option<&str>) -> Option<Vec<u8>> {
    let message: Value = serde_json::from_slice(&request.text).ok()?;
    let id = message.get("id")?.clone();
    let method = message.get("method").and_then(Value::as_str).unwrap_or("?");
    let tool = message.pointer("/params/name").and_then(Value::as_str);
    let what = match tool {
        Some(tool) => format!("the call of `{tool}`"),
        None => format!("the `{method}` request"),
    };
    let find = match (tool, agent) {
        (Some(tool), Some(agent)) => format!(
            "; to find out, call `trace.tail` with {{\"actorId\": \"{agent}\", \"type\": \"skill.executed\"}} and look for `{tool}` with this input (request id {id})"
        ),
        (Some(tool), None) => format!(
            "; to find out, call `trace.tail` with {{\"type\": \"skill.executed\"}} and look for `{tool}` with this input (request id {id})"
        ),
        (None, _) => String::new(),
    };
    let reply = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": HOST_UNAVAILABLE,
            "message": format!(
                "host_unavailable: the host serving this world (pid {server_pid}) ended while {what} was in flight: it may or may not have run{find}. This session carries on with the host that serves the world now."
            ),
            "data": {"mayHaveRun": true, "serverPid": server_pid}
        }
    });
    let mut line = serde_json::to_vec(&reply).expect("a Value serializes");
    line.push(b'\n');
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: u64, method: &str, params: Value) -> Vec<u8> {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            .to_string()
            .into_bytes()
    }

    fn reply(id: u64, result: Value) -> Vec<u8> {
        json!({"jsonrpc": "2.0", "id": id, "result": result})
            .to_string()
            .into_bytes()
    }

    #[test]
    fn a_bound_session_is_recreated_with_its_ids_subscription_and_level() {
        let mut r = Resume::default();
        assert!(
            r.messages().is_empty(),
            "nothing to resume before initialize"
        );
        r.client_sent(&request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "profile": "builder.readWrite"}),
        ));
        assert_eq!(r.server_sent(&reply(1, json!({"session": {"sessionId": "session_9_1", "agentId": "agent_9_2", "profile": "builder.readWrite"}}))), FromServer::Pass);
        r.client_sent(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
                .to_string()
                .as_bytes(),
        );
        r.client_sent(&request(2, "logging/setLevel", json!({"level": "debug"})));
        r.client_sent(&request(
            3,
            "state/subscribe",
            json!({"aoi": {"center": [0, 0, 0], "radius": 5}}),
        ));
        // A failed subscription is not resumed; the one that succeeded is.
        r.client_sent(&request(4, "state/subscribe", json!({"bad": true})));
        r.server_sent(&reply(2, json!({})));
        r.server_sent(&reply(3, json!({"subscribed": true})));
        r.server_sent(
            &json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "no"}})
                .to_string()
                .into_bytes(),
        );
        assert_eq!(r.agent(), Some("agent_9_2"));
        let messages: Vec<Value> = r
            .messages()
            .iter()
            .map(|m| serde_json::from_str(m).unwrap())
            .collect();
        let methods: Vec<_> = messages
            .iter()
            .map(|m| m["method"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "notifications/initialized",
                "logging/setLevel",
                "state/subscribe"
            ]
        );
        assert_eq!(messages[0]["params"]["sessionId"], "session_9_1");
        assert_eq!(messages[0]["params"]["agentId"], "agent_9_2");
        assert_eq!(messages[0]["params"]["protocolVersion"], "2025-06-18");
        assert_eq!(messages[3]["params"]["aoi"]["radius"], 5);
        // Their replies are the relay's, not the client's.
        let own = json!({"jsonrpc": "2.0", "id": messages[0]["id"], "result": {}}).to_string();
        assert_eq!(r.server_sent(own.as_bytes()), FromServer::Swallow);
    }

    #[test]
    fn unanswered_requests_come_back_oldest_first_and_answers_clear_them() {
        let mut r = Resume::default();
        for id in 1..=3 {
            r.client_sent(&request(
                id,
                "tools/call",
                json!({"name": "scene.createEntity", "arguments": {}}),
            ));
        }
        // A question the server asked and the client's answer are not the client's requests.
        r.server_sent(
            &json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {}})
                .to_string()
                .into_bytes(),
        );
        r.client_sent(
            json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept"}})
                .to_string()
                .as_bytes(),
        );
        r.server_sent(&reply(2, json!({})));
        assert_eq!(r.in_flight(), 2);
        let left: Vec<_> = r.take_in_flight();
        assert_eq!(left.len(), 2);
        let ids: Vec<Value> = left
            .iter()
            .map(|f| serde_json::from_slice::<Value>(&f.text).unwrap()["id"].clone())
            .collect();
        assert_eq!(ids, [json!(1), json!(3)]);
        assert_eq!(r.in_flight(), 0);
    }

    #[test]
    fn ids_of_every_json_kind_stay_apart_and_each_is_cleared_by_its_own_reply() {
        let mut r = Resume::default();
        let ids = [
            json!(7),
            json!("7"),
            json!(-7),
            json!(u64::MAX),
            json!(7.5),
            json!("caf\u{e9} \"7\""),
        ];
        for id in &ids {
            r.client_sent(
                json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
                    .to_string()
                    .as_bytes(),
            );
        }
        assert_eq!(r.in_flight(), ids.len());
        // Answered in another order, one at a time: each clears its own request alone.
        for (k, id) in ids.iter().rev().enumerate() {
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string();
            assert_eq!(r.server_sent(reply.as_bytes()), FromServer::Pass);
            assert_eq!(r.in_flight(), ids.len() - k - 1, "after {id}");
        }
        // A reply to nothing in flight changes nothing.
        r.client_sent(br#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#);
        r.server_sent(br#"{"jsonrpc":"2.0","id":"8","result":{}}"#);
        assert_eq!(r.in_flight(), 1, "`\"8\"` is not `8`");
    }

    #[test]
    fn an_unanswered_call_gets_an_error_saying_it_may_have_run_and_how_to_find_out() {
        let call = InFlight {
            text: request(
                5,
                "tools/call",
                json!({"name": "scene.createEntity", "arguments": {}}),
            )
            .into(),
            order: 1,
        };
        let line = unanswered(&call, 4242, Some("alice")).unwrap();
        let reply: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(reply["id"], 5);
        assert_eq!(reply["error"]["code"], HOST_UNAVAILABLE);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("(pid 4242) ended while the call of `scene.createEntity` was in flight: it may or may not have run"), "{message}");
        assert!(
            message.contains(
                r#"call `trace.tail` with {"actorId": "alice", "type": "skill.executed"}"#
            ),
            "{message}"
        );
        let list = InFlight {
            text: request(6, "tools/list", json!({})).into(),
            order: 2,
        };
        let reply: Value = serde_json::from_slice(&unanswered(&list, 1, None).unwrap()).unwrap();
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("the `tools/list` request")
        );
    }
}
