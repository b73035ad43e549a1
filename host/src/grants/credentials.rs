//! Credential shapes in results: what upstream servers and packages return is scanned for
//! well-known credential formats before a caller sees it (`[outbound] scanResults`), so a
//! key a tool read from somewhere does not travel on to an agent, a log or a transcript.
//!
//! A scan looks for the literal start of each shape at once (one Aho-Corasick automaton,
//! SIMD-accelerated), then checks the rest of the shape by hand; text holding no start costs
//! one pass. The shapes, each named by its `kind`:
//!
//! | kind | shape |
//! |---|---|
//! | `private_key` | a PEM `-----BEGIN … PRIVATE KEY-----` block (RSA, EC, OPENSSH, DSA, ENCRYPTED, PGP …), to its `-----END …-----` |
//! | `aws_access_key_id` | `AKIA`, `ASIA`, `AGPA`, `AIDA`, `AROA`, `AIPA`, `ANPA`, `ANVA`, `ABIA`, `ACCA` + 16 of `A-Z0-9` |
//! | `jwt` | `eyJ…` `.` `ey…` `.` signature, base64url (a bearer token's usual form) |
//! | `github_token` | `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 or more alphanumerics; `github_pat_` + 22 or more |
//! | `slack_token` | `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-`, `xoxe-` + 10 or more of `A-Za-z0-9-` |
//! | `anthropic_key` | `sk-ant-` + 32 or more of `A-Za-z0-9_-` |
//! | `openai_key` | `sk-` + 32 or more of `A-Za-z0-9_-`, with a digit, an upper- and a lower-case letter |
//! | `google_api_key` | `AIza` + 35 of `A-Za-z0-9_-` |
//! | `stripe_key` | `sk_live_`, `rk_live_` + 16 or more alphanumerics |
//! | `gitlab_token` | `glpat-` + 20 or more of `A-Za-z0-9_-` |
//! | `npm_token` | `npm_` + 36 or more alphanumerics |
//!
//! A token shape must start a word (no letter, digit, `_` or `-` before it), so `task-…` is
//! no `sk-` key.

use aho_corasick::{AhoCorasick, Input, MatchKind};
use serde_json::Value;
use std::sync::LazyLock;

/// What a found credential is replaced by: `[redacted:KIND]`.
pub fn marker(kind: &str) -> String {
    format!("[redacted:{kind}]")
}

/// `[outbound] scanResults`: what a credential found in a result does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScanResults {
    /// It is replaced by `[redacted:KIND]`; the call succeeds.
    #[default]
    Redact,
    /// The call fails: nothing of the result reaches the caller.
    Refuse,
    /// Results are not scanned.
    Off,
}

impl ScanResults {
    pub fn parse(text: &str) -> Result<ScanResults, String> {
        match text {
            "redact" => Ok(ScanResults::Redact),
            "refuse" => Ok(ScanResults::Refuse),
            "off" => Ok(ScanResults::Off),
            other => Err(format!(
                "`outbound.scanResults`: `{other}` is not a choice; use \"redact\" (the default), \"refuse\" or \"off\""
            )),
        }
    }
}

/// The shapes' literal starts, and the kind each begins.
const STARTS: &[(&str, Shape)] = &[
    ("-----BEGIN ", Shape::PrivateKey),
    ("AKIA", Shape::Aws),
    ("ASIA", Shape::Aws),
    ("AGPA", Shape::Aws),
    ("AIDA", Shape::Aws),
    ("AROA", Shape::Aws),
    ("AIPA", Shape::Aws),
    ("ANPA", Shape::Aws),
    ("ANVA", Shape::Aws),
    ("ABIA", Shape::Aws),
    ("ACCA", Shape::Aws),
    ("eyJ", Shape::Jwt),
    ("ghp_", Shape::GitHub),
    ("gho_", Shape::GitHub),
    ("ghu_", Shape::GitHub),
    ("ghs_", Shape::GitHub),
    ("ghr_", Shape::GitHub),
    ("github_pat_", Shape::GitHubPat),
    ("xox", Shape::Slack),
    ("sk-ant-", Shape::Anthropic),
    ("sk-", Shape::OpenAi),
    ("AIza", Shape::Google),
    ("sk_live_", Shape::Stripe),
    ("rk_live_", Shape::Stripe),
    ("glpat-", Shape::GitLab),
    ("npm_", Shape::Npm),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    PrivateKey,
    Aws,
    Jwt,
    GitHub,
    GitHubPat,
    Slack,
    Anthropic,
    OpenAi,
    Google,
    Stripe,
    GitLab,
    Npm,
}

impl Shape {
    fn kind(self) -> &'static str {
        match self {
            Shape::PrivateKey => "private_key",
            Shape::Aws => "aws_access_key_id",
            Shape::Jwt => "jwt",
            Shape::GitHub | Shape::GitHubPat => "github_token",
            Shape::Slack => "slack_token",
            Shape::Anthropic => "anthropic_key",
            Shape::OpenAi => "openai_key",
            Shape::Google => "google_api_key",
            Shape::Stripe => "stripe_key",
            Shape::GitLab => "gitlab_token",
            Shape::Npm => "npm_token",
        }
    }
}

/// Longest start first at a position, so `sk-ant-` wins over `sk-`.
static STARTS_AUTOMATON: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(STARTS.iter().map(|(s, _)| s))
        .expect("the credential starts form an automaton")
});

/// A credential found: its kind and where it lies in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
}

/// Whether `text` holds the start of any shape: the one pass most results end at.
pub fn may_hold(text: &str) -> bool {
    STARTS_AUTOMATON.find(text).is_some()
}

/// Whether serialized JSON `raw` may hold a credential in one of its strings once parsed: a
/// start as written, or a `\u` escape that could spell one (`\u0041KIA…`).
pub fn may_hold_json(raw: &str) -> bool {
    may_hold(raw) || memchr::memmem::find(raw.as_bytes(), b"\\u").is_some()
}

/// Every credential in `text`, in order, not overlapping.
pub fn find(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(m) = STARTS_AUTOMATON.find(Input::new(text).range(at..)) else {
            break;
        };
        let shape = STARTS[m.pattern().as_usize()].1;
        match end_of(shape, bytes, m.start(), m.end()) {
            Some(end) => {
                found.push(Found {
                    kind: shape.kind(),
                    start: m.start(),
                    end,
                });
                at = end;
            }
            None => at = m.start() + 1,
        }
    }
    found
}

/// `text` with every credential replaced by its [`marker`], and the kinds replaced.
pub fn redact(text: &str) -> Option<(String, Vec<&'static str>)> {
    let found = find(text);
    if found.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for f in &found {
        out.push_str(&text[last..f.start]);
        out.push_str(&marker(f.kind));
        last = f.end;
    }
    out.push_str(&text[last..]);
    Some((out, found.iter().map(|f| f.kind).collect()))
}

/// Replaces every credential in the strings of `value`, object keys included; the kinds
/// replaced.
pub fn redact_value(value: &mut Value) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    walk(value, &mut |text| {
        if let Some((clean, found)) = redact(text) {
            *text = clean;
            kinds.extend(found);
        }
    });
    kinds
}

/// The kinds of credential in the strings of `value`, changing nothing.
pub fn find_in_value(value: &mut Value) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    walk(value, &mut |text| {
        kinds.extend(find(text).into_iter().map(|f| f.kind));
    });
    kinds
}

/// The shortest text any shape can be (`xoxb-` and ten more): shorter strings are skipped
/// without a look, which most strings of a result are.
const SHORTEST: usize = 15;

fn walk(value: &mut Value, visit: &mut impl FnMut(&mut String)) {
    match value {
        Value::String(text) if text.len() >= SHORTEST && may_hold(text) => visit(text),
        Value::Array(items) => items.iter_mut().for_each(|v| walk(v, visit)),
        Value::Object(map) if map.keys().any(|k| k.len() >= SHORTEST && may_hold(k)) => {
            // A key is no less read than a value; the map is rebuilt to change one.
            for (mut key, mut v) in std::mem::take(map) {
                if key.len() >= SHORTEST && may_hold(&key) {
                    visit(&mut key);
                }
                walk(&mut v, visit);
                map.insert(key, v);
            }
        }
        Value::Object(map) => map.values_mut().for_each(|v| walk(v, visit)),
        _ => {}
    }
}

fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// The end of a run of bytes of `class` from `from`.
fn run(bytes: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    from + bytes[from..].iter().take_while(|b| class(**b)).count()
}

/// Where the shape starting at `start` (its literal start ending at `after`) ends, if the
/// text there is one.
fn end_of(shape: Shape, bytes: &[u8], start: usize, after: usize) -> Option<usize> {
    if shape != Shape::PrivateKey && start > 0 && word(bytes[start - 1]) {
        return None;
    }
    let at_least = |end: usize, n: usize| (end - after >= n).then_some(end);
    match shape {
        Shape::PrivateKey => private_key_end(bytes, after),
        Shape::Aws => {
            let end = run(bytes, after, |b| {
                b.is_ascii_uppercase() || b.is_ascii_digit()
            });
            (end - after == 16 && !bytes.get(end).is_some_and(|b| b.is_ascii_alphanumeric()))
                .then_some(end)
        }
        Shape::Jwt => {
            let header = run(bytes, after, b64url);
            if header - start < 10 || bytes.get(header) != Some(&b'.') {
                return None;
            }
            let payload = run(bytes, header + 1, b64url);
            if payload - header - 1 < 4 || &bytes[header + 1..header + 3] != b"ey" {
                return None;
            }
            if bytes.get(payload) != Some(&b'.') {
                return None;
            }
            Some(run(bytes, payload + 1, b64url))
        }
        Shape::GitHub => at_least(run(bytes, after, |b| b.is_ascii_alphanumeric()), 36),
        Shape::GitHubPat => at_least(
            run(bytes, after, |b| b.is_ascii_alphanumeric() || b == b'_'),
            22,
        ),
        Shape::Slack => {
            let kind = *bytes.get(after)?;
            if !matches!(kind, b'a' | b'b' | b'p' | b'r' | b's' | b'e')
                || bytes.get(after + 1) != Some(&b'-')
            {
                return None;
            }
            let end = run(bytes, after + 2, |b| b.is_ascii_alphanumeric() || b == b'-');
            (end - after - 2 >= 10).then_some(end)
        }
        Shape::Anthropic | Shape::GitLab => at_least(
            run(bytes, after, b64url),
            if shape == Shape::GitLab { 20 } else { 32 },
        ),
        Shape::OpenAi => {
            let end = run(bytes, after, b64url);
            let body = &bytes[after..end];
            let random = body.iter().any(u8::is_ascii_digit)
                && body.iter().any(u8::is_ascii_uppercase)
                && body.iter().any(u8::is_ascii_lowercase);
            (body.len() >= 32 && random).then_some(end)
        }
        Shape::Google => {
            let end = run(bytes, after, b64url);
            (end - after == 35).then_some(end)
        }
        Shape::Stripe => at_least(run(bytes, after, |b| b.is_ascii_alphanumeric()), 16),
        Shape::Npm => at_least(run(bytes, after, |b| b.is_ascii_alphanumeric()), 36),
    }
}

/// A PEM private key block: `-----BEGIN <label> PRIVATE KEY[ BLOCK]-----`, through the
/// matching `-----END …-----` (or the end of the text, when it was cut).
fn private_key_end(bytes: &[u8], after: usize) -> Option<usize> {
    let label_end = run(bytes, after, |b| {
        b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' '
    });
    let label = &bytes[after..label_end];
    if label.len() > 48 || !bytes[label_end..].starts_with(b"-----") {
        return None;
    }
    let label = std::str::from_utf8(label).ok()?;
    if !(label.ends_with("PRIVATE KEY") || label.ends_with("PRIVATE KEY BLOCK")) {
        return None;
    }
    let body = label_end + 5;
    let Some(end) = memchr::memmem::find(&bytes[body..], b"-----END ") else {
        return Some(bytes.len());
    };
    let close = body + end + 9;
    match memchr::memmem::find(&bytes[close..], b"-----") {
        Some(i) => Some(close + i + 5),
        None => Some(bytes.len()),
    }
}

#[cfg(test)]
#[path = "credentials_tests.rs"]
mod tests;
