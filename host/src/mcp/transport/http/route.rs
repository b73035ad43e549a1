//! What a session's router reads of each message the engine sends it, to know where it goes
//! (a request's response, its stream, or the session's stream): the envelope only. The result
//! or params are skipped over, never built into a tree, so a large reply costs a scan.

use serde::Deserialize;
use serde_json::Value;

/// `id` (present even when null), `method`, and the params that route a notification.
#[derive(Deserialize, Default)]
pub(super) struct Envelope {
    #[serde(default, deserialize_with = "present")]
    pub id: Option<Value>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize, Default)]
struct Params {
    #[serde(default, rename = "progressToken")]
    progress_token: Option<Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize, Default)]
struct Meta {
    #[serde(default, rename = "io.limina/relatedRequestId")]
    related: Option<Value>,
}

/// A field that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Envelope {
    /// The request a question is about (`params._meta["io.limina/relatedRequestId"]`).
    pub fn related(&self) -> Option<&Value> {
        self.params.as_ref()?.meta.as_ref()?.related.as_ref()
    }

    /// A progress notification's token.
    pub fn progress_token(&self) -> Option<&Value> {
        self.params.as_ref()?.progress_token.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::dispatch::approval::RELATED_KEY;
    use serde_json::json;

    #[test]
    fn the_related_key_is_spelled_as_the_approval_module_sends_it() {
        // serde needs the key spelled out in `Meta`.
        assert_eq!(RELATED_KEY, "io.limina/relatedRequestId");
    }

    fn read(message: Value) -> Envelope {
        serde_json::from_str(&message.to_string()).unwrap()
    }

    #[test]
    fn the_envelope_reads_what_routing_needs_and_skips_the_rest() {
        let reply = read(json!({"jsonrpc": "2.0", "id": 7, "result": {"big": [1, 2, {"x": "y"}]}}));
        assert_eq!(reply.id, Some(json!(7)));
        assert_eq!(reply.method, None);
        let null_id = read(json!({"jsonrpc": "2.0", "id": null, "error": {"code": 1}}));
        assert_eq!(null_id.id, Some(Value::Null), "a null id is still an id");
        let progress = read(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                   "params": {"progressToken": "t1", "progress": 1}}));
        assert_eq!(progress.method.as_deref(), Some("notifications/progress"));
        assert_eq!(progress.progress_token(), Some(&json!("t1")));
        assert_eq!(progress.id, None);
        let question = read(
            json!({"jsonrpc": "2.0", "id": "q", "method": "elicitation/create",
                                   "params": {"_meta": {RELATED_KEY: 3}, "message": "ok?"}}),
        );
        assert_eq!(question.related(), Some(&json!(3)));
        let delta =
            read(json!({"jsonrpc": "2.0", "method": "state/delta", "params": {"changes": []}}));
        assert_eq!(delta.related(), None);
        assert_eq!(delta.progress_token(), None);
    }
}
