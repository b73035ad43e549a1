//! Streamable HTTP as 2026-07-28 has it: the headers a stateless POST must carry and how its
//! errors map to HTTP statuses. `http/mod.rs` asks this module, so that the transport holds no
//! revision's rules of its own.
//!
//! - `MCP-Protocol-Version` must be sent and equal `_meta`'s version; `Mcp-Method` must equal
//!   the body's method; `Mcp-Name` must equal `params.name` (or `params.uri`) for
//!   `tools/call`, `resources/read` and `prompts/get`, decoded first when it comes as
//!   `=?base64?…?=`. Anything missing, malformed or different: 400 with -32020.
//! - A version this server does not speak: 400 with -32022 and the supported list.
//! - A method it does not have: 404 with -32601.

use crate::mcp::wire::modern::{self, HEADER_MISMATCH, UNSUPPORTED_VERSION};
use hyper::StatusCode;
use hyper::header::HeaderMap;
use serde_json::Value;

/// Why a stateless POST was refused before it reached the engine.
#[derive(Debug)]
pub struct Refusal {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

/// Whether a POST speaks 2026-07-28: its `_meta` names a protocol version, or its
/// `MCP-Protocol-Version` header names this one (then a body without `_meta` is refused).
pub fn speaks_modern(headers: &HeaderMap, message: &Value) -> bool {
    let in_body = message
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(modern::VERSION_KEY))
        .is_some();
    in_body
        || headers
            .get("mcp-protocol-version")
            .is_some_and(|v| v.as_bytes() == modern::VERSION.as_bytes())
}

/// The refusal of an `MCP-Protocol-Version` header naming no version this server speaks, in
/// either era (-32022, which both eras' clients read as a refusal).
pub fn unknown_version(headers: &HeaderMap) -> Option<Refusal> {
    let sent = headers.get("mcp-protocol-version")?;
    let sent = String::from_utf8_lossy(sent.as_bytes()).into_owned();
    if modern::supported_versions().contains(&sent.as_str()) {
        return None;
    }
    let error = modern::unsupported(&sent);
    Some(Refusal {
        code: error.code(),
        message: format!("unsupported MCP-Protocol-Version: {}", error.message()),
        data: error.data().cloned(),
    })
}

/// Checks a stateless request's headers against its body.
pub fn check(headers: &HeaderMap, message: &Value) -> Result<(), Refusal> {
    let params = message.get("params").unwrap_or(&Value::Null);
    // A header naming another version than the body is a mismatch before it is anything else.
    let body_version = params
        .pointer("/_meta")
        .and_then(|m| m.get(modern::VERSION_KEY))
        .and_then(Value::as_str);
    if let (Some(sent), Some(body)) = (header(headers, "mcp-protocol-version")?, body_version)
        && sent != body
    {
        return same("MCP-Protocol-Version", Some(sent), Some(body));
    }
    match modern::envelope(params) {
        Some(Ok(_)) => {}
        Some(Err(error)) => {
            return Err(Refusal {
                code: error.code(),
                message: error.message().to_string(),
                data: error.data().cloned(),
            });
        }
        None if message.get("id").is_some() => {
            return Err(Refusal {
                code: crate::mcp::wire::jsonrpc::INVALID_PARAMS,
                message: format!(
                    "a {} request carries `params._meta` with `{}` and `{}`",
                    modern::VERSION,
                    modern::VERSION_KEY,
                    modern::CAPABILITIES_KEY
                ),
                data: None,
            });
        }
        None => {}
    }
    same(
        "MCP-Protocol-Version",
        header(headers, "mcp-protocol-version")?,
        body_version,
    )?;
    let method = message.get("method").and_then(Value::as_str);
    same("Mcp-Method", header(headers, "mcp-method")?, method)?;
    if matches!(
        method,
        Some("tools/call" | "resources/read" | "prompts/get")
    ) {
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str);
        let sent = header(headers, "mcp-name")?.map(decode).transpose()?;
        same("Mcp-Name", sent, name)?;
    }
    Ok(())
}

/// A header's value; an error when it is not visible ASCII.
fn header(headers: &HeaderMap, name: &str) -> Result<Option<String>, Refusal> {
    match headers.get(name) {
        None => Ok(None),
        Some(value) => value
            .to_str()
            .map(|v| Some(v.to_string()))
            .map_err(|_| mismatch(format!("the {name} header holds characters a header may not; encode the value as =?base64?…?="))),
    }
}

/// Requires the header `name` to be sent and equal the body's value.
fn same(name: &str, sent: Option<String>, body: Option<&str>) -> Result<(), Refusal> {
    match (sent, body) {
        (None, _) => Err(mismatch(format!(
            "Header mismatch: the {name} header is required on a {} request",
            modern::VERSION
        ))),
        (Some(sent), Some(body)) if sent == body => Ok(()),
        (Some(sent), body) => Err(mismatch(format!(
            "Header mismatch: {name} header value '{sent}' does not match body value '{}'",
            body.unwrap_or("")
        ))),
    }
}

fn mismatch(message: String) -> Refusal {
    Refusal {
        code: HEADER_MISMATCH,
        message,
        data: None,
    }
}

/// A header value as sent, or decoded from the `=?base64?…?=` sentinel.
fn decode(value: String) -> Result<String, Refusal> {
    let Some(inner) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Ok(value);
    };
    base64_decode(inner)
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| {
            mismatch(format!(
                "the header value `{value}` is not valid base64 of UTF-8 text"
            ))
        })
}

/// Standard base64 (RFC 4648, padding optional); `None` when malformed.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let text = text.trim_end_matches('=').as_bytes();
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= digit(*c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// The HTTP status a stateless request's reply travels with.
pub fn status(reply: &Value) -> StatusCode {
    match reply.pointer("/error/code").and_then(Value::as_i64) {
        Some(UNSUPPORTED_VERSION | HEADER_MISMATCH | -32021) => StatusCode::BAD_REQUEST,
        Some(-32601) => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name,
            "_meta": {modern::VERSION_KEY: modern::VERSION, modern::CAPABILITIES_KEY: {}}}})
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, v.parse().unwrap());
        }
        map
    }

    #[test]
    fn matching_headers_pass_and_base64_names_are_decoded() {
        let ok = [
            ("mcp-protocol-version", modern::VERSION),
            ("mcp-method", "tools/call"),
        ];
        let mut with_name = ok.to_vec();
        with_name.push(("mcp-name", "dice.roll"));
        assert!(check(&headers(&with_name), &call("dice.roll")).is_ok());
        let mut encoded = ok.to_vec();
        encoded.push(("mcp-name", "=?base64?SGVsbG8sIOS4lueVjA==?="));
        assert!(check(&headers(&encoded), &call("Hello, 世界")).is_ok());
    }

    #[test]
    fn missing_or_different_headers_are_a_mismatch_naming_the_header() {
        let cases: [(&[(&'static str, &str)], &str); 4] = [
            (
                &[("mcp-method", "tools/call"), ("mcp-name", "a")],
                "MCP-Protocol-Version",
            ),
            (
                &[("mcp-protocol-version", "2026-07-28"), ("mcp-name", "a")],
                "Mcp-Method",
            ),
            (
                &[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                ],
                "Mcp-Name",
            ),
            (
                &[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "b"),
                ],
                "'b' does not match body value 'a'",
            ),
        ];
        for (pairs, named) in cases {
            let refusal = check(&headers(pairs), &call("a")).unwrap_err();
            assert_eq!(refusal.code, HEADER_MISMATCH);
            assert!(refusal.message.contains(named), "{}", refusal.message);
        }
    }

    #[test]
    fn an_unsupported_version_is_refused_before_the_headers() {
        let mut message = call("a");
        message["params"]["_meta"][modern::VERSION_KEY] = json!("1900-01-01");
        let refusal = check(&HeaderMap::new(), &message).unwrap_err();
        assert_eq!(refusal.code, UNSUPPORTED_VERSION);
        assert_eq!(refusal.data.unwrap()["requested"], "1900-01-01");
    }

    #[test]
    fn a_header_disagreeing_with_the_body_version_is_a_mismatch_first() {
        let mut message = call("a");
        message["params"]["_meta"][modern::VERSION_KEY] = json!("v999.0.0");
        let sent = headers(&[("mcp-protocol-version", modern::VERSION)]);
        assert_eq!(check(&sent, &message).unwrap_err().code, HEADER_MISMATCH);
        let sent = headers(&[("mcp-protocol-version", "v999.0.0")]);
        assert_eq!(
            check(&sent, &message).unwrap_err().code,
            UNSUPPORTED_VERSION
        );
    }

    #[test]
    fn modern_errors_travel_as_4xx() {
        let error = |code: i64| json!({"error": {"code": code}});
        assert_eq!(status(&error(-32022)), StatusCode::BAD_REQUEST);
        assert_eq!(status(&error(-32601)), StatusCode::NOT_FOUND);
        assert_eq!(status(&error(-32602)), StatusCode::OK);
        assert_eq!(status(&json!({"result": {}})), StatusCode::OK);
    }

    #[test]
    fn base64_round_trips_what_the_spec_shows() {
        assert_eq!(base64_decode("IHBhZGRlZCA=").unwrap(), b" padded ");
        assert_eq!(base64_decode("bGluZTEKbGluZTI=").unwrap(), b"line1\nline2");
        assert!(base64_decode("a").is_none());
        assert!(base64_decode("a$==").is_none());
    }
}
