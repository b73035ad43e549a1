//! The path rule: one reading of a URL path, held wherever the host checks one (network
//! grants, upstream URLs, the HTTP server's routes and the viewer's files).
//!
//! A grant's path prefix is only worth what the server makes of the path. Servers resolve
//! dot segments, decode percent escapes (some twice), drop `;` parameters, treat `\` as `/`,
//! read overlong UTF-8 or fold look-alike characters — and a path that starts with `/api` on
//! the wire can then name `/admin`. So a path is first held to the rule, segment by segment,
//! and refused when a server could read it as something other than it looks
//! ([`PathRefusal`] names the rule and the segment):
//!
//! - `path.malformedEscape`: a `%` that does not start `%XX` (`%u002e` is `.` to IIS);
//! - `path.encodedDot`, `path.encodedSlash`, `path.encodedBackslash`, `path.encodedNul`:
//!   `%2e`, `%2f`, `%5c`, `%00` in either case, anywhere in a segment;
//! - `path.doubleEncoded`: any of those after decoding again, at any depth (`%252e`,
//!   `%25%32%65`) — some stacks decode twice (a proxy, then the application), so all are;
//! - `path.overlongUtf8`: escapes forming overlong UTF-8 (`%c0%ae` is `.` to a lax decoder);
//! - `path.lookalike`: characters compatibility normalization turns into `.`, `/` or `\`
//!   (`．` `／` `＼` `․` `‥` `…` `﹒` `﹨`), literal or escaped;
//! - `path.backslash`: a literal `\`, a separator to Windows servers;
//! - `path.dotParameter`: a segment that is `.` or `..` before its `;` parameters (`..;x`):
//!   servers that drop parameters resolve it;
//! - `path.dotLike`: a segment of dots and spaces other than `.` and `..` (`...`, `..%20`),
//!   which servers that trim names read as one.
//!
//! A path that passes is then normalized as RFC 3986 §5.2.4 says (remove_dot_segments): the
//! prefix check judges the normalized path, and exactly that path is what is sent or served.
//! What is left holds no dot segment and no escape a server could turn into one, so whatever
//! the server does to it next, it names what the check judged.

use std::fmt;

/// A path the rule refused: which rule, on which segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRefusal {
    /// The rule's name (`path.encodedDot`, …).
    pub rule: &'static str,
    /// The offending segment as written (cut to 80 bytes).
    pub segment: String,
    /// What a server could make of it.
    pub why: &'static str,
}

impl fmt::Display for PathRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the path segment `{}` breaks the path rule `{}`: {}",
            self.segment, self.rule, self.why
        )
    }
}

/// Characters Unicode compatibility normalization (NFKC) maps to `.`, `/` or `\`, or to
/// runs of dots.
const LOOKALIKES: [char; 8] = [
    '\u{2024}', '\u{2025}', '\u{2026}', '\u{FE52}', '\u{FF0E}', '\u{FF0F}', '\u{FF3C}', '\u{FE68}',
];

/// Holds `path` (a request path, without its query) to the rule and returns it normalized.
pub fn normalize(path: &str) -> Result<String, PathRefusal> {
    for segment in path.split('/') {
        check_segment(segment)?;
    }
    let normalized = remove_dot_segments(path);
    Ok(if normalized.is_empty() {
        "/".to_string()
    } else {
        normalized
    })
}

/// [`normalize`] for a request target's path and query: the query is kept as it is.
pub fn normalize_target(target: &str) -> Result<String, PathRefusal> {
    match target.split_once('?') {
        Some((path, query)) => Ok(format!("{}?{query}", normalize(path)?)),
        None => normalize(target),
    }
}

fn refuse(segment: &str, rule: &'static str, why: &'static str) -> PathRefusal {
    let mut end = segment.len().min(80);
    while !segment.is_char_boundary(end) {
        end -= 1;
    }
    PathRefusal {
        rule,
        segment: segment[..end].to_string(),
        why,
    }
}

fn check_segment(segment: &str) -> Result<(), PathRefusal> {
    if segment.contains('\\') {
        return Err(refuse(
            segment,
            "path.backslash",
            "`\\` is a separator to some servers; use `/`",
        ));
    }
    let decoded = check_escapes(segment)?;
    let head = match segment.split_once(';') {
        Some((head, _)) => {
            if head == "." || head == ".." {
                return Err(refuse(
                    segment,
                    "path.dotParameter",
                    "servers that drop `;` parameters read it as a dot segment and resolve it",
                ));
            }
            head
        }
        None => segment,
    };
    // The head decoded (its escapes are harmless by now): dots and spaces only.
    let head_decoded = if head.len() == segment.len() {
        decoded
    } else {
        percent_decode(head.as_bytes())
    };
    let dots_and_spaces = head_decoded
        .iter()
        .all(|b| *b == b'.' || b.is_ascii_whitespace());
    if dots_and_spaces && head_decoded.contains(&b'.') && head != "." && head != ".." {
        return Err(refuse(
            segment,
            "path.dotLike",
            "a run of dots and spaces that servers trimming names read as a dot segment",
        ));
    }
    Ok(())
}

/// Checks the escapes of `segment` at every depth of decoding; the segment decoded once.
fn check_escapes(segment: &str) -> Result<Vec<u8>, PathRefusal> {
    let mut current = segment.as_bytes().to_vec();
    let mut once = None;
    for depth in 0.. {
        if let Some((rule, why)) = bad_escape(&current, depth) {
            return Err(refuse(segment, rule, why));
        }
        let decoded = percent_decode(&current);
        if has_overlong_utf8(&decoded) {
            return Err(refuse(
                segment,
                "path.overlongUtf8",
                "an overlong UTF-8 form (`%c0%ae`) that lax decoders read as `.` or `/`",
            ));
        }
        if String::from_utf8_lossy(&decoded).contains(LOOKALIKES) {
            return Err(refuse(
                segment,
                "path.lookalike",
                "a character that Unicode compatibility normalization turns into `.`, `/` or `\\` (`．` `／` `＼` `‥`)",
            ));
        }
        let again = decoded.contains(&b'%') && decoded != current;
        if depth == 0 {
            once = Some(decoded.clone());
        }
        if !again {
            break;
        }
        // Each round removes at least two bytes, so this ends.
        current = decoded;
    }
    Ok(once.unwrap_or_default())
}

/// The first escape in `bytes` a server could decode into `.`, `/`, `\` or NUL (at depth 0
/// also a malformed one).
fn bad_escape(bytes: &[u8], depth: usize) -> Option<(&'static str, &'static str)> {
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'%', &bytes[i..]) {
        let at = i + at;
        let pair = bytes.get(at + 1..at + 3);
        let value = pair.and_then(|p| Some((hex_value(p[0])? << 4) | hex_value(p[1])?));
        i = at + 1;
        let Some(value) = value else {
            if depth == 0 {
                return Some((
                    "path.malformedEscape",
                    "a `%` must start a `%XX` escape; servers read other forms (`%u002e`) their own way",
                ));
            }
            continue;
        };
        if depth > 0 && matches!(value, b'.' | b'/' | b'\\' | 0) {
            return Some((
                "path.doubleEncoded",
                "decoded again (`%252e` → `%2e` → `.`), it holds `.`, `/`, `\\` or NUL, and some servers decode twice",
            ));
        }
        match value {
            b'.' => {
                return Some((
                    "path.encodedDot",
                    "`%2e` is `.` once the server decodes it, which can make a dot segment the check never saw; write `.` plainly",
                ));
            }
            b'/' => {
                return Some((
                    "path.encodedSlash",
                    "`%2f` is `/` once the server decodes it, a separator the check never saw",
                ));
            }
            b'\\' => {
                return Some((
                    "path.encodedBackslash",
                    "`%5c` is `\\` once the server decodes it, a separator to some servers",
                ));
            }
            0 => {
                return Some((
                    "path.encodedNul",
                    "`%00` ends the path early in some servers, which can leave a dot segment",
                ));
            }
            _ => {}
        }
    }
    None
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `%XX` escapes decoded; anything else (a stray `%` included) kept as it is.
pub fn percent_decode(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|p| Some((hex_value(p[0])? << 4) | hex_value(p[1])?));
        match escaped {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

/// Bytes that only an overlong (invalid) UTF-8 encoding uses: `C0`/`C1` leads, and `E0`/`F0`
/// leads followed by a continuation too small for them.
fn has_overlong_utf8(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().any(|(i, b)| match b {
        0xC0 | 0xC1 => true,
        0xE0 => bytes.get(i + 1).is_some_and(|n| (0x80..0xA0).contains(n)),
        0xF0 => bytes.get(i + 1).is_some_and(|n| (0x80..0x90).contains(n)),
        _ => false,
    })
}

/// RFC 3986 §5.2.4, step by step: `.` and `..` segments resolved against what precedes them.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut output = String::with_capacity(path.len());
    let drop_last = |output: &mut String| match output.rfind('/') {
        Some(i) => output.truncate(i),
        None => output.clear(),
    };
    while !input.is_empty() {
        if let Some(rest) = input
            .strip_prefix("../")
            .or_else(|| input.strip_prefix("./"))
        {
            input = rest;
        } else if input.starts_with("/./") {
            input = &input[2..];
        } else if input == "/." {
            input = "/";
        } else if input.starts_with("/../") {
            input = &input[3..];
            drop_last(&mut output);
        } else if input == "/.." {
            input = "/";
            drop_last(&mut output);
        } else if input == "." || input == ".." {
            input = "";
        } else {
            let from = usize::from(input.starts_with('/'));
            let end = input[from..].find('/').map_or(input.len(), |i| i + from);
            output.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    output
}

#[cfg(test)]
#[path = "path_tests.rs"]
mod tests;
