//! Secrets: which ones a call's guest sees, and taking their values out of whatever the guest
//! says back (log lines, error messages, trace payloads, its output), so a value reaches no
//! trace, host log or client even when a guest echoes it.

use super::{Grants, HostGrants};
use std::borrow::Cow;

/// What a redacted value is replaced by.
pub const REDACTED: &str = "[redacted]";

/// The secrets `package` declared that the host still gives it, with their values.
pub fn visible(package: &str, declared: &Grants, host: &HostGrants) -> Vec<(String, String)> {
    let given = host.given(package);
    declared
        .secrets
        .iter()
        .filter(|name| given.allows_secret(name))
        .filter_map(|name| {
            host.secret(name)
                .map(|s| (name.clone(), s.expose().to_string()))
        })
        .collect()
}

/// The values to take out of what a package's guest says: every secret it declared that the
/// host defines (whether or not this call may see it, so a value seen in an earlier call or
/// profile is still caught). Longest first, so a value containing another goes whole.
pub fn values_of(declared: &Grants, host: &HostGrants) -> Vec<String> {
    let mut values: Vec<String> = declared
        .secrets
        .iter()
        .filter_map(|name| host.secret(name))
        .map(|s| s.expose().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values.dedup();
    values
}

/// `text` with every value replaced by [`REDACTED`] — also as JSON escapes it, so a value
/// with quotes or backslashes is caught inside serialized JSON too.
pub fn redact<'a>(text: &'a str, values: &[String]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for value in values {
        if out.contains(value.as_str()) {
            out = Cow::Owned(out.replace(value.as_str(), REDACTED));
        }
        let escaped = serde_json::to_string(value).unwrap_or_default();
        let escaped = &escaped[1..escaped.len().saturating_sub(1).max(1)];
        if escaped != value && !escaped.is_empty() && out.contains(escaped) {
            out = Cow::Owned(out.replace(escaped, REDACTED));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_taken_out_plain_and_as_json_escapes_longest_first() {
        let values = vec!["tok\"en-123".to_string(), "tok".to_string()];
        let mut sorted = values.clone();
        sorted.sort_by_key(|v| std::cmp::Reverse(v.len()));
        assert_eq!(
            redact("key=tok\"en-123 and tok", &sorted),
            "key=[redacted] and [redacted]"
        );
        let json = serde_json::json!({"echo": "tok\"en-123"}).to_string();
        let out = redact(&json, &sorted);
        assert!(!out.contains("en-123"), "{out}");
        assert!(
            serde_json::from_str::<serde_json::Value>(&out).is_ok(),
            "{out}"
        );
        assert!(matches!(redact("nothing here", &sorted), Cow::Borrowed(_)));
    }
}
