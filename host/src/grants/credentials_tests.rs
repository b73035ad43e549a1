use super::*;
use serde_json::json;

/// Fake credentials of every shape (made up; built from parts so no file holds one whole).
pub(crate) fn samples() -> Vec<(&'static str, String)> {
    let pem = format!(
        "-----BEGIN {}PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nbm90IGEgcmVhbCBrZXk=\n-----END {}PRIVATE KEY-----",
        "RSA ", "RSA "
    );
    vec![
        ("private_key", pem),
        ("aws_access_key_id", format!("AKIA{}", "IOSFODNN7EXAMPLE")),
        ("aws_access_key_id", format!("ASIA{}", "Y3EXAMPLE7QWERTY")),
        (
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiJ9.{}.{}",
                "eyJzdWIiOiIxMjM0NTY3ODkwIn0", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
            ),
        ),
        (
            "github_token",
            format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
        ),
        (
            "github_token",
            format!(
                "github_pat_{}",
                "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
            ),
        ),
        (
            "slack_token",
            format!("xoxb-{}", "1234567890-0987654321-AbCdEfGhIjKl"),
        ),
        (
            "anthropic_key",
            format!("sk-ant-api03-{}", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCd"),
        ),
        (
            "openai_key",
            format!("sk-proj-{}", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78"),
        ),
        (
            "google_api_key",
            format!("AIza{}", "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
        ),
        ("stripe_key", format!("sk_live_{}", "51H8cXyZaBcDeFgHiJ")),
        ("gitlab_token", format!("glpat-{}", "xYz123AbC456dEf789Gh")),
        (
            "npm_token",
            format!("npm_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
        ),
    ]
}

#[test]
fn every_shape_is_found_where_it_lies() {
    for (kind, token) in samples() {
        let text = format!("the tool said: {token} (keep it safe)");
        let found = find(&text);
        assert_eq!(found.len(), 1, "{kind}: {found:?}");
        assert_eq!(found[0].kind, kind, "{token}");
        assert_eq!(&text[found[0].start..found[0].end], token, "{kind}");
        assert!(may_hold(&text));
    }
}

#[test]
fn ordinary_text_holds_none() {
    for text in [
        "ask-me-anything-about-the-task-list-please-now",
        "the sk-learn-compatible-estimator-library-for-python",
        "eyJ is how base64 of {\" starts",
        "AKIA is a prefix; AKIAshort is not a key",
        "xoxb- too short",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "-----BEGIN PUBLIC KEY-----",
        "ghp_short",
        "{\"temperature\": 21.5, \"city\": \"Lisbon\"}",
    ] {
        assert!(find(text).is_empty(), "{text}: {:?}", find(text));
    }
    assert!(!may_hold("{\"temperature\": 21.5}"));
}

#[test]
fn a_token_must_start_a_word() {
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    assert!(find(&format!("x{token}")).is_empty());
    assert_eq!(find(&format!("Bearer {token}")).len(), 1);
    assert_eq!(find(&format!("token={token}")).len(), 1);
}

#[test]
fn a_private_key_cut_short_is_redacted_to_the_end() {
    let text = "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
    let (clean, kinds) = redact(text).unwrap();
    assert_eq!(clean, "key:\n[redacted:private_key]");
    assert_eq!(kinds, ["private_key"]);
}

#[test]
fn values_are_redacted_in_every_string_and_refusal_only_finds() {
    let samples = samples();
    let mut value = json!({
        "content": [{"type": "text", "text": format!("aws {} and {}", samples[1].1, samples[4].1)}],
        "nested": {"list": [samples[3].1.clone(), 7, null]},
        "plain": "nothing here",
    });
    let mut untouched = value.clone();
    assert_eq!(
        find_in_value(&mut untouched),
        ["aws_access_key_id", "github_token", "jwt"]
    );
    assert_eq!(untouched, value, "finding changes nothing");
    let kinds = redact_value(&mut value);
    assert_eq!(kinds, ["aws_access_key_id", "github_token", "jwt"]);
    assert_eq!(
        value["content"][0]["text"],
        "aws [redacted:aws_access_key_id] and [redacted:github_token]"
    );
    assert_eq!(value["nested"]["list"][0], "[redacted:jwt]");
    assert_eq!(value["plain"], "nothing here");
}

#[test]
fn the_choice_is_parsed_with_a_fix_in_its_error() {
    assert_eq!(ScanResults::parse("refuse"), Ok(ScanResults::Refuse));
    assert_eq!(ScanResults::default(), ScanResults::Redact);
    assert!(
        ScanResults::parse("maybe")
            .unwrap_err()
            .contains("\"redact\" (the default)")
    );
}

#[test]
fn the_shortest_shape_is_not_skipped_by_the_walk() {
    let shortest = format!("xoxb-{}", "1234567890");
    assert_eq!(shortest.len(), SHORTEST);
    let mut value = json!({"t": shortest, "short": "xoxb-12345"});
    assert_eq!(find_in_value(&mut value), ["slack_token"]);
}

#[test]
fn a_credential_as_an_object_key_is_redacted_too() {
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let mut value = json!({"outer": {token.clone(): 1, "plain": 2}});
    assert_eq!(find_in_value(&mut value.clone()), ["github_token"]);
    assert_eq!(redact_value(&mut value), ["github_token"]);
    assert_eq!(
        value,
        json!({"outer": {"[redacted:github_token]": 1, "plain": 2}})
    );
}

#[test]
fn a_start_spelled_with_json_escapes_is_not_skipped_by_the_raw_pass() {
    // `\u0041` is `A`: the text as written holds no start, the parsed string does.
    let raw = format!("{{\"t\":\"\\u0041KIA{}\"}}", "IOSFODNN7EXAMPLE");
    assert!(!may_hold(&raw));
    assert!(may_hold_json(&raw));
    let mut value: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(redact_value(&mut value), ["aws_access_key_id"]);
    assert!(!may_hold_json("{\"temperature\": 21.5}"));
}

#[test]
fn a_bad_choice_in_the_configuration_names_the_key_the_line_and_the_choices() {
    assert_eq!(
        crate::config::Config::parse("[outbound]\nscanResults = \"refuse\"\n")
            .unwrap()
            .scan_results,
        ScanResults::Refuse
    );
    assert_eq!(
        crate::config::Config::parse("").unwrap().scan_results,
        ScanResults::Redact
    );
    let err = crate::config::Config::parse("\n[outbound]\nscanResults = \"maybe\"\n").unwrap_err();
    assert!(
        err.contains("3:")
            && err.contains("`outbound.scanResults`: `maybe` is not a choice")
            && err.contains("\"refuse\""),
        "{err}"
    );
}
