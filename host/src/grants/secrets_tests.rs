use super::*;

const SECRET: &str = "t0ken-0f-the-fetcher";

fn needles(value: &str) -> Vec<String> {
    let mut all = encodings(value.as_bytes());
    all.push(value.to_string());
    all.sort_by_key(|v| std::cmp::Reverse(v.len()));
    all
}

/// Decodes every run of base64 characters (either alphabet) in `text`, at each of the four
/// alignments a run could start at, leniently: what a reader could recover.
fn decoded_runs(text: &str) -> Vec<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_ascii() || value(c as u8).is_none()) {
        for skip in 0..4.min(run.len()) {
            let sextets: Vec<u8> = run.bytes().skip(skip).filter_map(value).collect();
            let mut bytes = Vec::new();
            for quad in sextets.chunks(4) {
                let n = quad
                    .iter()
                    .enumerate()
                    .fold(0u32, |n, (i, s)| n | ((*s as u32) << (18 - 6 * i)));
                for i in 0..quad.len().saturating_sub(1) {
                    bytes.push((n >> (16 - 8 * i)) as u8);
                }
            }
            out.push(bytes);
        }
    }
    out
}

fn holds(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

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

#[test]
fn base64_of_a_value_is_taken_out_at_every_alignment_in_both_alphabets() {
    let values = needles(SECRET);
    for before in 0..6 {
        // `{"k":"` is six bytes: every alignment, twice.
        for after in 0..4 {
            let mut blob = b"{\"k\":\"".to_vec();
            blob.truncate(before);
            blob.extend_from_slice(SECRET.as_bytes());
            blob.extend(std::iter::repeat_n(b'"', after));
            let standard = base64(&blob, STANDARD);
            let url_safe = standard.replace('+', "-").replace('/', "_");
            for encoded in [
                standard.clone(),
                standard.trim_end_matches('=').to_string(),
                url_safe.clone(),
                url_safe.trim_end_matches('=').to_string(),
            ] {
                let text = format!("payload={encoded}&next=1");
                let out = redact(&text, &values);
                assert!(out.contains(REDACTED), "{before}/{after}: {out}");
                for run in decoded_runs(&out) {
                    assert!(
                        !holds(&run, SECRET.as_bytes()),
                        "{before}/{after}: `{out}` still decodes to the secret"
                    );
                }
            }
        }
    }
}

#[test]
fn hex_of_a_value_is_taken_out_in_any_case() {
    let values = needles(SECRET);
    let lower = hex::encode(SECRET);
    let upper = lower.to_ascii_uppercase();
    let mixed: String = lower
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i % 3 == 0 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect();
    for form in [lower, upper, mixed] {
        let text = format!("id {form}!");
        let out = redact(&text, &values);
        assert_eq!(out, "id [redacted]!", "{form}");
    }
}

#[test]
fn percent_encoding_of_some_or_all_bytes_is_taken_out() {
    let values = needles(SECRET);
    let all: String = SECRET.bytes().map(|b| format!("%{b:02X}")).collect();
    let all_lower = all.to_ascii_lowercase();
    let some = SECRET.replace('-', "%2D").replace('t', "%74");
    for form in [all, all_lower, some] {
        let text = format!("https://evil.example/?k={form}&x=1");
        let out = redact(&text, &values);
        assert_eq!(out, "https://evil.example/?k=[redacted]&x=1", "{form}");
    }
    let spaced = vec!["open sesame now".to_string()];
    assert_eq!(redact("q=open+sesame%20now", &spaced), "q=[redacted]");
    // Escapes that decode to something else are left as they are.
    assert_eq!(redact("a%20b%zz", &values), "a%20b%zz");
}

#[test]
fn short_values_are_matched_plainly_only() {
    assert!(encodings(b"abc12").is_empty());
    assert!(!encodings(b"abc123").is_empty());
    let values = needles("pw");
    assert_eq!(values, ["pw"]);
}

#[test]
fn base64_is_the_standard_encoding() {
    for (raw, encoded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(base64(raw.as_bytes(), STANDARD), encoded);
    }
}

#[test]
fn a_value_spelled_with_json_escapes_is_taken_out_of_a_json_answer() {
    let values = needles(SECRET);
    // `\u0074` is `t`; `\/` is `/` in the value's base64 at some alignment.
    let spelled = format!("{{\"echo\":\"\\u0074{}\"}}", &SECRET[1..]);
    assert!(matches!(redact(&spelled, &values), Cow::Borrowed(_)));
    let out = redact_json(&spelled, &values);
    assert_eq!(out, "{\"echo\":\"[redacted]\"}");
    let slashed = needles("s3cret???value");
    let b64 = base64(b"s3cret???value", STANDARD);
    assert!(b64.contains('/'), "{b64}");
    let written = format!("{{\"echo\":\"{}\"}}", b64.replace('/', "\\/"));
    assert!(matches!(redact(&written, &slashed), Cow::Borrowed(_)));
    assert_eq!(redact_json(&written, &slashed), "{\"echo\":\"[redacted]\"}");
    // Not JSON: redacted as written; no escape: untouched.
    assert_eq!(
        redact_json(&format!("\\u00 {SECRET}"), &values),
        "\\u00 [redacted]"
    );
    assert!(matches!(
        redact_json("{\"echo\":\"nothing\"}", &values),
        Cow::Borrowed(_)
    ));
}
