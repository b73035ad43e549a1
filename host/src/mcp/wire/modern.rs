//! MCP 2026-07-28, the stateless revision: what its messages look like around the one
//! dispatcher. A request whose `params._meta` names a protocol version is served on its own
//! (no `initialize`, no session): this module reads that envelope, refuses versions it does
//! not speak (-32022), stamps every result with `resultType` and the server's identity, puts
//! the caching fields on listings, and shapes `server/discover` and `subscriptions/listen`.
//! The 2025-11-25 (and older) shapes stay in `classic.rs` and the dispatcher's `server.rs`
//! and `session.rs`; HTTP's headers for this revision are in `transport/http/modern.rs`.

use super::classic::PROTOCOL_VERSIONS;
use super::jsonrpc;
use super::jsonrpc::RpcError;
use crate::limits::MODERN_LIST_TTL_MS;
use crate::log::Level;
use serde_json::{Value, json};

/// The revision this module speaks.
pub const VERSION: &str = "2026-07-28";
/// `_meta` key: the protocol version a request speaks.
pub const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: what the client can do.
pub const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the least severe log level the client wants for this request.
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key on results: who answered.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key on listen notifications: the `subscriptions/listen` request they belong to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key on listings (Limina): the registry generation they were built from.
pub const GENERATION_KEY: &str = "io.limina/registryGeneration";
/// The tasks extension's identifier (`tasks.rs` in the dispatcher serves it).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The listen filter key (Limina) that asks for `state/delta`s on the listen stream.
pub const STATE_DELTAS_KEY: &str = "io.limina/stateDeltas";

/// Error: the request's protocol version is not one this server speaks.
pub const UNSUPPORTED_VERSION: i64 = -32022;
/// Error: the request's `_meta` lacks a capability object, or HTTP headers disagree with it.
pub const HEADER_MISMATCH: i64 = -32020;

/// What a stateless request says about itself.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// Guest log lines at or above this level travel with the reply; none when absent.
    pub log_level: Option<Level>,
    /// What the client declared it can do (`_meta.io.modelcontextprotocol/clientCapabilities`).
    pub capabilities: Value,
}

/// The envelope of a request that speaks this revision; `None` when it speaks an older one
/// (no version in `_meta`), an error when it names a version or envelope this server refuses.
pub fn envelope(params: &Value) -> Option<Result<Envelope, RpcError>> {
    let meta = params.get("_meta")?;
    let version = meta.get(VERSION_KEY)?;
    Some(read_envelope(meta, version))
}

fn read_envelope(meta: &Value, version: &Value) -> Result<Envelope, RpcError> {
    if version.as_str() != Some(VERSION) {
        let requested = version
            .as_str()
            .map_or_else(|| version.to_string(), str::to_string);
        return Err(unsupported(&requested));
    }
    let capabilities = match meta.get(CAPABILITIES_KEY) {
        Some(capabilities @ Value::Object(_)) => capabilities.clone(),
        _ => {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!(
                    "`_meta.{CAPABILITIES_KEY}` must be an object (`{{}}` when the client declares none)"
                ),
            ));
        }
    };
    let log_level = match meta.get(LOG_LEVEL_KEY) {
        None | Some(Value::Null) => None,
        Some(level) => Some(level.as_str().and_then(Level::from_mcp).ok_or_else(|| {
            RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!("`_meta.{LOG_LEVEL_KEY}` must be one of debug, info, notice, warning, error, critical, alert, emergency; got {level}"),
            )
        })?),
    };
    Ok(Envelope {
        log_level,
        capabilities,
    })
}

/// Every version this server speaks: this one per request, the older ones through `initialize`.
pub fn supported_versions() -> Vec<&'static str> {
    std::iter::once(VERSION).chain(PROTOCOL_VERSIONS).collect()
}

/// The -32022 error for a request naming `requested`.
pub fn unsupported(requested: &str) -> RpcError {
    RpcError::new(
        UNSUPPORTED_VERSION,
        format!(
            "Unsupported protocol version `{requested}`: send `{VERSION}` in `_meta.{VERSION_KEY}`, or `initialize` for {}",
            PROTOCOL_VERSIONS.join(", ")
        ),
    )
    .with_data(json!({"supported": supported_versions(), "requested": requested}))
}

/// Methods the older revisions have and this one removed; the error says what replaced them.
pub fn removed(method: &str) -> Option<RpcError> {
    let instead = match method {
        "initialize" | "notifications/initialized" => {
            "requests carry their version in `_meta`; call `server/discover` to learn what the server speaks"
        }
        "ping" => "any request shows the server is alive; `server/discover` is the cheapest",
        "logging/setLevel" => {
            "send the level with each request in `_meta.io.modelcontextprotocol/logLevel`"
        }
        "shutdown" => "there is no session to end",
        "resources/subscribe" | "resources/unsubscribe" => {
            "subscribe with `subscriptions/listen` {\"notifications\": {\"resourceSubscriptions\": [URI, …]}}; cancel that request to stop"
        }
        _ => return None,
    };
    Some(RpcError::new(
        jsonrpc::METHOD_NOT_FOUND,
        format!("Method not found: `{method}` is not part of MCP {VERSION}: {instead}"),
    ))
}

/// The identity stamped on results (in `_meta`).
pub fn server_info() -> Value {
    json!({"name": "limina", "version": env!("CARGO_PKG_VERSION")})
}

/// The server's capabilities in this revision: tools, resources and prompts that change
/// (hot reload, the world), resources subscribed on `subscriptions/listen`, completion.
pub fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": true},
        "prompts": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
        "completions": {},
        "logging": {},
        "extensions": {TASKS_EXTENSION: {}},
    })
}

/// The `server/discover` result.
pub fn discover(instructions: &str) -> Value {
    json!({
        "supportedVersions": supported_versions(),
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": instructions,
        "ttlMs": 0,
        "cacheScope": "public",
    })
}

/// A result as this revision sends it: `resultType` and the server's identity added.
pub fn complete(mut result: Value) -> Value {
    if !result.is_object() {
        result = json!({});
    }
    if result.get("resultType").is_none() {
        result["resultType"] = json!("complete");
    }
    if !result.get("_meta").is_some_and(Value::is_object) {
        result["_meta"] = json!({});
    }
    result["_meta"][SERVER_INFO_KEY] = server_info();
    result
}

/// The caching fields of a listing built from registry generation `generation`: private (it
/// depends on the caller's profile and tier), fresh for `MODERN_LIST_TTL_MS` unless the host
/// watches packages for hot reload, where any moment may change it (then 0). A change of the
/// skill set or a tier also reaches `subscriptions/listen` streams as `tools/list_changed`.
pub fn cache(result: &mut Value, generation: u64, hot_reload: bool) {
    result["ttlMs"] = json!(if hot_reload { 0 } else { MODERN_LIST_TTL_MS });
    result["cacheScope"] = json!("private");
    if !result.get("_meta").is_some_and(Value::is_object) {
        result["_meta"] = json!({});
    }
    result["_meta"][GENERATION_KEY] = json!(generation);
}

/// What a `subscriptions/listen` request opts in to, as honoured: tool, prompt and resource
/// list changes, resource updates (`resourceSubscriptions`, which the caller narrows to the
/// URIs it may subscribe to), and (Limina) state deltas. The error names a filter field of
/// the wrong type.
pub fn listen_filter(params: &Value) -> Result<Value, RpcError> {
    let filter = params.get("notifications").unwrap_or(&Value::Null);
    if !filter.is_object() {
        return Err(RpcError::new(
            jsonrpc::INVALID_PARAMS,
            "`notifications` must be an object such as {\"toolsListChanged\": true}",
        ));
    }
    let mut honoured = json!({});
    if filter.get("toolsListChanged") == Some(&json!(true)) {
        honoured["toolsListChanged"] = json!(true);
    }
    for flag in ["promptsListChanged", "resourcesListChanged"] {
        if filter.get(flag) == Some(&json!(true)) {
            honoured[flag] = json!(true);
        }
    }
    match filter.get("resourceSubscriptions") {
        None | Some(Value::Null) => {}
        Some(Value::Array(uris)) if uris.iter().all(Value::is_string) => {
            honoured["resourceSubscriptions"] = json!(uris);
        }
        Some(other) => {
            return Err(RpcError::new(
                jsonrpc::INVALID_PARAMS,
                format!(
                    "`notifications.resourceSubscriptions` must be an array of resource URIs, got {other}"
                ),
            ));
        }
    }
    if filter.get(STATE_DELTAS_KEY) == Some(&json!(true)) {
        honoured[STATE_DELTAS_KEY] = json!(true);
    }
    Ok(honoured)
}

/// The first message of a listen stream.
pub fn acknowledged(subscription: &Value, honoured: &Value) -> Value {
    jsonrpc::notification(
        "notifications/subscriptions/acknowledged",
        json!({"notifications": honoured, "_meta": {SUBSCRIPTION_ID_KEY: subscription}}),
    )
}

/// A notification tagged for the listen stream `subscription`.
pub fn tagged(mut notification: Value, subscription: &Value) -> Value {
    if !notification["params"].is_object() {
        notification["params"] = json!({});
    }
    if !notification["params"]["_meta"].is_object() {
        notification["params"]["_meta"] = json!({});
    }
    notification["params"]["_meta"][SUBSCRIPTION_ID_KEY] = subscription.clone();
    notification
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(version: Value) -> Value {
        json!({"_meta": {VERSION_KEY: version, CAPABILITIES_KEY: {}}})
    }

    #[test]
    fn a_request_without_a_version_speaks_an_older_revision() {
        assert!(envelope(&json!({})).is_none());
        assert!(envelope(&json!({"_meta": {"progressToken": 1}})).is_none());
        assert!(envelope(&meta(json!(VERSION))).unwrap().is_ok());
    }

    #[test]
    fn an_unknown_version_is_refused_with_the_supported_list() {
        for requested in [json!("1900-01-01"), json!("2025-11-25"), json!(7)] {
            let error = envelope(&meta(requested.clone())).unwrap().unwrap_err();
            assert_eq!(error.code(), UNSUPPORTED_VERSION);
            let data = error.data().unwrap();
            assert_eq!(data["supported"][0], VERSION);
            assert!(
                data["supported"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("2025-11-25"))
            );
            assert!(error.message().contains(VERSION), "{}", error.message());
        }
    }

    #[test]
    fn missing_capabilities_and_bad_log_levels_name_the_field() {
        let error = envelope(&json!({"_meta": {VERSION_KEY: VERSION}}))
            .unwrap()
            .unwrap_err();
        assert_eq!(error.code(), jsonrpc::INVALID_PARAMS);
        assert!(error.message().contains(CAPABILITIES_KEY));
        let mut params = meta(json!(VERSION));
        params["_meta"][LOG_LEVEL_KEY] = json!("loud");
        let error = envelope(&params).unwrap().unwrap_err();
        assert!(error.message().contains(LOG_LEVEL_KEY) && error.message().contains("loud"));
        params["_meta"][LOG_LEVEL_KEY] = json!("debug");
        assert_eq!(
            envelope(&params).unwrap().ok().unwrap().log_level,
            Some(Level::Debug)
        );
    }

    #[test]
    fn results_carry_their_type_and_listings_their_cache_fields() {
        let result = complete(json!({"tools": []}));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["_meta"][SERVER_INFO_KEY]["name"], "limina");
        let mut listing = result.clone();
        cache(&mut listing, 4, false);
        assert_eq!(listing["ttlMs"], MODERN_LIST_TTL_MS);
        assert_eq!(listing["cacheScope"], "private");
        assert_eq!(listing["_meta"][GENERATION_KEY], 4);
        cache(&mut listing, 5, true);
        assert_eq!(listing["ttlMs"], 0);
    }

    #[test]
    fn removed_methods_say_what_replaced_them() {
        assert!(
            removed("ping")
                .unwrap()
                .message()
                .contains("server/discover")
        );
        assert!(
            removed("logging/setLevel")
                .unwrap()
                .message()
                .contains(LOG_LEVEL_KEY)
        );
        assert!(removed("tools/list").is_none());
    }
}
