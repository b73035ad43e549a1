//! MCP 2025-11-25 and the revisions before it: a session bound at `initialize`, which
//! negotiates the version every later message of the connection speaks. The 2026-07-28
//! revision, where each request names its own, is `modern.rs`.

use serde_json::Value;

/// Protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The version to answer with: the requested one if supported, else the newest.
pub fn negotiate(requested: Option<&str>) -> &'static str {
    PROTOCOL_VERSIONS
        .iter()
        .find(|v| Some(**v) == requested)
        .copied()
        .unwrap_or(PROTOCOL_VERSIONS[0])
}

/// Whether client capabilities (`initialize`'s or a request's `_meta`) declare form
/// elicitation: `elicitation: {}` (form by default) or `elicitation: {form: {}}`.
pub fn declares_elicitation(capabilities: &Value) -> bool {
    match capabilities.get("elicitation") {
        Some(Value::Object(modes)) => {
            modes.is_empty() || modes.contains_key("form") || !modes.contains_key("url")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn elicitation_is_declared_by_an_object_with_form_or_no_mode() {
        assert!(declares_elicitation(&json!({"elicitation": {}})));
        assert!(declares_elicitation(&json!({"elicitation": {"form": {}}})));
        assert!(!declares_elicitation(&json!({"elicitation": {"url": {}}})));
        assert!(!declares_elicitation(&json!({"sampling": {}})));
        assert!(!declares_elicitation(&json!({"elicitation": true})));
    }
}
