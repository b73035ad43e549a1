//! Which MCP [`Revision`] the host speaks to an upstream server. It asks `server/discover`
//! (2026-07-28) first and falls back to `initialize` (2025-11-25) when the server does not
//! know it; what differs afterwards is only how a request says which revision it speaks
//! ([`stamped`]). The wire names are the server side's (`crate::mcp::wire`), so both sides
//! share them.

use super::link::{Conversation, RequestError};
use crate::mcp::wire::Revision;
use crate::mcp::wire::modern::{CAPABILITIES_KEY, SERVER_INFO_KEY, VERSION, VERSION_KEY};
use serde_json::{Value, json};
use std::time::Duration;

/// `params` as `revision` sends them: in 2026-07-28 they carry the revision and our
/// capabilities (none) in `_meta`; in 2025-11-25 they go as they are.
pub fn stamped(revision: Revision, mut params: Value) -> Value {
    if revision == Revision::Modern {
        params["_meta"][VERSION_KEY] = json!(VERSION);
        params["_meta"][CAPABILITIES_KEY] = json!({});
    }
    params
}

/// Opens the conversation: `server/discover`, else `initialize` + `notifications/initialized`.
/// Returns the revision and the server's name as it gives it.
pub fn handshake(
    link: &dyn Conversation,
    timeout: Duration,
) -> Result<(Revision, String), RequestError> {
    let discover = link.request(
        "server/discover",
        stamped(Revision::Modern, json!({})),
        timeout,
        None,
        None,
    );
    match discover {
        Ok(result) if speaks_modern(&result) => {
            return Ok((Revision::Modern, server_name(&result)));
        }
        // Unknown method, or an answer without our revision: the older handshake.
        Ok(_) | Err(RequestError::Rpc { .. }) => {}
        Err(other) => return Err(other),
    }
    let result = link.request(
        "initialize",
        json!({
            "protocolVersion": Revision::Classic.version(),
            "capabilities": {},
            "clientInfo": {"name": "limina", "version": env!("CARGO_PKG_VERSION")},
        }),
        timeout,
        None,
        None,
    )?;
    link.notify("notifications/initialized", json!({}));
    Ok((Revision::Classic, server_name(&result)))
}

/// Asks to hear when the server's tools change. In 2025-11-25 the server sends
/// `notifications/tools/list_changed` on its own (over HTTP, on the stream a GET opens); in
/// 2026-07-28 only on a `subscriptions/listen` stream. Either is kept for the connection's life.
pub fn listen_for_changes(link: &dyn Conversation, revision: Revision) {
    link.listen_for_changes(revision);
}

/// The `subscriptions/listen` request that asks for tool list changes (2026-07-28).
pub fn listen_request(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "subscriptions/listen",
        "params": stamped(Revision::Modern, json!({"notifications": {"toolsListChanged": true}})),
    })
}

fn speaks_modern(discover: &Value) -> bool {
    discover
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|v| v == VERSION))
        || discover.get("protocolVersion").and_then(Value::as_str) == Some(VERSION)
}

fn server_name(result: &Value) -> String {
    result
        .pointer("/serverInfo/name")
        .or_else(|| {
            result
                .get("_meta")
                .and_then(|m| m.get(SERVER_INFO_KEY))
                .and_then(|i| i.get("name"))
        })
        .and_then(Value::as_str)
        .unwrap_or("unnamed")
        .chars()
        .take(128)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modern_requests_carry_the_revision_and_classic_ones_do_not() {
        let p = stamped(Revision::Modern, json!({"name": "x"}));
        assert_eq!(p["_meta"][VERSION_KEY], VERSION);
        assert_eq!(p["name"], "x");
        assert_eq!(
            stamped(Revision::Classic, json!({"name": "x"})),
            json!({"name": "x"})
        );
    }

    #[test]
    fn discover_counts_only_when_it_names_our_revision() {
        assert!(speaks_modern(&json!({"supportedVersions": [VERSION]})));
        assert!(!speaks_modern(
            &json!({"supportedVersions": ["2099-01-01"]})
        ));
    }
}
