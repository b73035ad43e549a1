use super::*;

fn rule_of(path: &str) -> &'static str {
    match normalize(path) {
        Err(refusal) => refusal.rule,
        Ok(p) => panic!("`{path}` passed as `{p}`"),
    }
}

#[test]
fn dot_segments_are_removed_as_rfc_3986_says() {
    // The examples of RFC 3986 §5.2.4 and §5.4, and the edges.
    for (path, normalized) in [
        ("/a/b/c/./../../g", "/a/g"),
        ("mid/content=5/../6", "mid/6"),
        ("/api/v1/../v2", "/api/v2"),
        ("/api/./x", "/api/x"),
        ("/api/x/.", "/api/x/"),
        ("/api/x/..", "/api/"),
        ("/api/..", "/"),
        ("/../../etc/passwd", "/etc/passwd"),
        ("/api/../admin", "/admin"),
        ("/api//../admin", "/api/admin"),
        ("/api/..//admin", "//admin"),
        ("/", "/"),
        ("", "/"),
        (".", "/"),
        ("/a;x=1/b", "/a;x=1/b"),
        ("/a/%41%20b", "/a/%41%20b"),
        ("/file.json", "/file.json"),
    ] {
        assert_eq!(normalize(path).as_deref(), Ok(normalized), "{path}");
    }
}

#[test]
fn a_normalized_path_is_its_own_normal_form() {
    for path in ["/a/b/../c", "/x/./y/", "/api//../admin", "/a/..//b/./c/.."] {
        let once = normalize(path).unwrap();
        assert_eq!(normalize(&once).unwrap(), once, "{path}");
    }
}

#[test]
fn escapes_a_server_decodes_into_separators_or_dots_are_refused() {
    for (path, rule) in [
        ("/api/%2e%2e/admin", "path.encodedDot"),
        ("/api/%2E%2E/admin", "path.encodedDot"),
        ("/api/.%2e/admin", "path.encodedDot"),
        ("/api/%2e./admin", "path.encodedDot"),
        ("/api/file%2ejson", "path.encodedDot"),
        ("/api/..%2fadmin", "path.encodedSlash"),
        ("/api/x%2F..%2F..%2Fadmin", "path.encodedSlash"),
        ("/api/..%5cadmin", "path.encodedBackslash"),
        ("/api/..%5Cadmin", "path.encodedBackslash"),
        ("/api/..%00x/admin", "path.encodedNul"),
        ("/api/..\\admin", "path.backslash"),
        ("/api/%252e%252e/admin", "path.doubleEncoded"),
        ("/api/%252E%252E/admin", "path.doubleEncoded"),
        ("/api/%25%32%65%25%32%65/admin", "path.doubleEncoded"),
        ("/api/..%252fadmin", "path.doubleEncoded"),
        ("/api/%25252e%25252e/admin", "path.doubleEncoded"),
        ("/api/..%255cadmin", "path.doubleEncoded"),
        ("/api/%c0%ae%c0%ae/admin", "path.overlongUtf8"),
        ("/api/..%c0%afadmin", "path.overlongUtf8"),
        ("/api/%e0%80%ae/admin", "path.overlongUtf8"),
        ("/api/%25c0%25ae/admin", "path.overlongUtf8"),
        ("/api/%ef%bc%8e%ef%bc%8e/admin", "path.lookalike"),
        ("/api/..%ef%bc%8fadmin", "path.lookalike"),
        ("/api/%e2%80%a5/admin", "path.lookalike"),
        ("/api/%u002e%u002e/admin", "path.malformedEscape"),
        ("/api/%/admin", "path.malformedEscape"),
        ("/api/%2/admin", "path.malformedEscape"),
        ("/api/..;/admin", "path.dotParameter"),
        ("/api/..;jsessionid=1/admin", "path.dotParameter"),
        ("/api/.;x/admin", "path.dotParameter"),
        ("/api/.../admin", "path.dotLike"),
        ("/api/..%20/admin", "path.dotLike"),
        ("/api/..%09/admin", "path.dotLike"),
        ("/api/..%20;x/admin", "path.dotLike"),
    ] {
        assert_eq!(rule_of(path), rule, "{path}");
    }
}

#[test]
fn a_refusal_names_its_rule_and_the_segment_as_written() {
    let refusal = normalize("/api/v1/..%2Fadmin/x").unwrap_err();
    assert_eq!(refusal.segment, "..%2Fadmin");
    let text = refusal.to_string();
    assert!(
        text.contains("`..%2Fadmin`") && text.contains("`path.encodedSlash`"),
        "{text}"
    );
    let long = format!("/{}%2e", "é".repeat(100));
    assert!(normalize(&long).unwrap_err().segment.len() <= 80);
}

#[test]
fn harmless_escapes_and_parameters_pass_unchanged() {
    for path in [
        "/api/a%20b",
        "/api/%41",
        "/api/caf%c3%a9",
        "/api/x;v=1",
        "/api/x;..",
        "/api/%25",
        "/api/%2541",
        "/api/100%25zz",
        "/api/..x",
        "/api/x..",
        "/api/.hidden",
    ] {
        assert_eq!(normalize(path).as_deref(), Ok(path), "{path}");
    }
}

#[test]
fn a_target_keeps_its_query_as_it_is() {
    assert_eq!(
        normalize_target("/a/../b?x=%2e%2e/../y").as_deref(),
        Ok("/b?x=%2e%2e/../y")
    );
    assert_eq!(normalize_target("/a/./b").as_deref(), Ok("/a/b"));
    assert_eq!(
        normalize_target("/a/%2e%2e/b?q").unwrap_err().rule,
        "path.encodedDot"
    );
}
