//! Leaving a granted path prefix by what servers do to paths (`tests/guests/pathtrick`): the
//! guest is granted `http://127.0.0.1:PORT/api` and writes paths that start with `/api` but
//! name `/admin` once a server decodes, drops parameters or resolves dot segments. Each trick
//! is a class of its own: refused under `net.grant` naming the path rule and the segment, with
//! nothing sent — or, for plain dot segments, normalized first and judged (and sent) as
//! normalized. Whatever was sent, the real local server only ever saw paths inside `/api`.

use crate::local_http::{LocalHttp, Seen};
use crate::support::{Client, package_dir, repo};
use serde_json::{Value, json};

struct Trickster {
    c: Client,
    server: LocalHttp,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

/// A host serving `pathtrick`, granted (and given) `/api` on a fresh local server.
fn trickster() -> Trickster {
    let server = LocalHttp::start();
    let grant = format!("{}/api", server.base());
    let packages = package_dir(
        &repo().join("tests/guests/pathtrick"),
        &repo().join("target/components/pathtrick.wasm"),
    );
    let manifest = packages.path().join("pathtrick/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        r#"network = ["http://127.0.0.1:9/api"]"#,
        &format!("network = [\"{grant}\"]"),
    );
    std::fs::write(&manifest, text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.probe]\npermissions = [\"scene.read\", \"net.outbound\"]\n\n[packages.pathtrick.grants]\nnetwork = [\"{grant}\"]\n"
        ),
    )
    .unwrap();
    let c = Client::session(
        "probe",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    Trickster {
        c,
        server,
        _dirs: (packages, dir),
    }
}

impl Trickster {
    fn reach(&mut self, trick: &str) -> Value {
        let base = self.server.base();
        self.c
            .call_ok("pathtrick.reach", json!({"base": base, "trick": trick}))
    }

    fn traced(&mut self, kind: &str) -> Vec<Value> {
        self.c
            .call_ok("trace.tail", json!({"type": kind, "limit": 100}))["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["payload"].clone())
            .collect()
    }
}

/// Every request the server saw stayed inside `/api`, with nothing left a server could
/// resolve elsewhere: no dot segment, no escape of `.`, `/`, `\`, `%` or NUL, no `;`, no `\`.
fn assert_inside(seen: &[Seen]) {
    for s in seen {
        let path = s.target.split('?').next().unwrap();
        let lower = path.to_ascii_lowercase();
        assert!(
            path == "/api" || path.starts_with("/api/"),
            "the server saw {path}"
        );
        assert!(
            !path.split('/').any(|seg| seg == "." || seg == ".."),
            "{path}"
        );
        for bad in ["%2e", "%2f", "%5c", "%25", "%00", "%c0", "%c1", "\\", ";"] {
            assert!(!lower.contains(bad), "the server saw {path}");
        }
    }
}

/// `trick` is refused before anything is sent: `HttpRequestDenied` to the guest, a
/// `net.grant` denial naming `rule` and `segment`, no `net.request`, the server untouched,
/// and the host answers the next call.
fn assert_refused(trick: &str, rule: &str, segment: &str) {
    let mut t = trickster();
    let out = t.reach(trick);
    assert_eq!(out["error"], "HttpRequestDenied", "{trick}: {out}");
    let denied = t.traced("security.permission.denied");
    assert_eq!(denied.len(), 1, "{trick}: {denied:?}");
    assert_eq!(denied[0]["rule"], "net.grant", "{trick}");
    let reason = denied[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!("`{rule}`")) && reason.contains(&format!("`{segment}`")),
        "{trick}: {reason}"
    );
    assert_eq!(t.traced("net.request"), Vec::<Value>::new(), "{trick}");
    assert!(t.server.seen().is_empty(), "{trick}: {:?}", t.server.seen());
    t.c.call_ok("scene.queryEntities", json!({}));
}

/// `trick` is normalized to `sent`, which the grant covers: the server gets exactly that.
fn assert_sent_normalized(trick: &str, sent: &str) {
    let mut t = trickster();
    let out = t.reach(trick);
    assert_eq!(out["status"], 200, "{trick}: {out}");
    let seen = t.server.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].target, sent, "{trick}");
    assert_inside(&seen);
    let requests = t.traced("net.request");
    assert_eq!(requests[0]["path"], sent, "the trace says what was sent");
}

#[test]
fn plain_dot_segments_are_resolved_before_the_grant_judges_them() {
    let mut t = trickster();
    let out = t.reach("dotSegments");
    assert_eq!(out["error"], "HttpRequestDenied", "{out}");
    let denied = t.traced("security.permission.denied");
    let reason = denied[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("(normalized `/admin`)") && reason.contains("outside the network grants"),
        "{reason}"
    );
    assert!(t.server.seen().is_empty());
}

#[test]
fn dot_segments_that_stay_inside_are_sent_resolved() {
    assert_sent_normalized("dotSegmentsInside", "/api/v2");
}

#[test]
fn an_empty_segment_before_dots_is_resolved_as_rfc_3986_says() {
    // A server merging slashes first would read `/api//../admin` as `/admin`; it is sent
    // as `/api/admin`, which it cannot.
    assert_sent_normalized("emptySegmentThenDots", "/api/admin");
}

#[test]
fn percent_encoded_dots_are_refused() {
    assert_refused("encodedDot", "path.encodedDot", "%2e%2e");
}

#[test]
fn upper_case_encoded_dots_are_refused() {
    assert_refused("encodedDotUpper", "path.encodedDot", "%2E%2E");
}

#[test]
fn a_dot_mixed_with_an_encoded_dot_is_refused() {
    assert_refused("mixedDot", "path.encodedDot", ".%2e");
}

#[test]
fn an_encoded_slash_is_refused() {
    assert_refused("encodedSlash", "path.encodedSlash", "..%2fadmin");
}

#[test]
fn an_encoded_backslash_is_refused() {
    assert_refused("encodedBackslash", "path.encodedBackslash", "..%5cadmin");
}

#[test]
fn a_literal_backslash_is_refused() {
    assert_refused("backslash", "path.backslash", "..\\admin");
}

#[test]
fn a_doubly_encoded_dot_is_refused() {
    assert_refused("doubleEncodedDot", "path.doubleEncoded", "%252e%252e");
}

#[test]
fn a_doubly_encoded_slash_is_refused() {
    assert_refused("doubleEncodedSlash", "path.doubleEncoded", "..%252fadmin");
}

#[test]
fn a_dot_segment_behind_a_parameter_is_refused() {
    assert_refused("dotParameter", "path.dotParameter", "..;");
}

#[test]
fn a_dot_segment_behind_a_parameter_with_a_value_is_refused() {
    assert_refused("dotParameterValue", "path.dotParameter", "..;jsessionid=1");
}

#[test]
fn overlong_utf8_dots_are_refused() {
    assert_refused("overlongUtf8", "path.overlongUtf8", "%c0%ae%c0%ae");
}

#[test]
fn fullwidth_dots_are_refused() {
    assert_refused("lookalike", "path.lookalike", "%ef%bc%8e%ef%bc%8e");
}

#[test]
fn a_nul_that_truncates_to_a_dot_segment_is_refused() {
    assert_refused("nulTruncation", "path.encodedNul", "..%00x");
}

#[test]
fn iis_unicode_escapes_are_refused() {
    assert_refused("iisUnicode", "path.malformedEscape", "%u002e%u002e");
}

#[test]
fn dots_with_a_trailing_space_are_refused() {
    assert_refused("trailingSpace", "path.dotLike", "..%20");
}
