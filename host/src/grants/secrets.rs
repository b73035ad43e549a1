//! Secrets: which ones a call's guest sees, and taking their values out of whatever the guest
//! says back (log lines, error messages, trace payloads, its output), so a value reaches no
//! trace, host log or client even when a guest echoes it — plainly, as JSON escapes, or in the
//! encodings a guest could use to slip it past a plain match:
//!
//! - base64, standard and URL-safe, padded or not. A value's base64 depends on where it falls
//!   in the encoded bytes (its offset modulo 3), so each of the three alignments is matched,
//!   by the characters that depend on the value alone;
//! - hex, in any letter case;
//! - percent-encoding, of some or all of its bytes, in either case (`form` encoding's `+` for
//!   a space too): the text is matched decoded as well, and the escaped span replaced.
//!
//! Encodings are matched for values of at least [`MIN_ENCODED_SECRET_BYTES`]: a shorter
//! value's encodings are a few characters that ordinary text holds by chance.

use super::{Grants, HostGrants};
use crate::limits::MIN_ENCODED_SECRET_BYTES;
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

/// The texts to take out of what a package's guest says: every secret it declared that the
/// host defines (whether or not this call may see it, so a value seen in an earlier call or
/// profile is still caught), each with its encodings ([`encodings`]). Longest first, so a
/// text containing another goes whole.
pub fn values_of(declared: &Grants, host: &HostGrants) -> Vec<String> {
    let mut values: Vec<String> = declared
        .secrets
        .iter()
        .filter_map(|name| host.secret(name))
        .map(|s| s.expose().to_string())
        .filter(|v| !v.is_empty())
        .flat_map(|v| {
            let mut all = encodings(v.as_bytes());
            all.push(v);
            all
        })
        .collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values.dedup();
    values
}

/// The encoded forms of `value` matched besides the value itself: base64 (standard and
/// URL-safe; whole with and without padding, and the value-only characters at each of the
/// three alignments) and lowercase hex (matched in any case). None for a short value.
pub fn encodings(value: &[u8]) -> Vec<String> {
    if value.len() < MIN_ENCODED_SECRET_BYTES {
        return Vec::new();
    }
    let mut out = Vec::new();
    let whole = base64(value, STANDARD);
    out.push(whole.clone());
    out.push(whole.trim_end_matches('=').to_string());
    for offset in 0..3 {
        // The value after `offset` bytes of anything: only the characters whose six bits all
        // come from the value are the same whatever surrounds it.
        let mut padded = vec![0u8; offset];
        padded.extend_from_slice(value);
        padded.extend_from_slice(&[0, 0]);
        let encoded = base64(&padded, STANDARD);
        let first = (8 * offset).div_ceil(6);
        let last = (8 * (offset + value.len())) / 6;
        out.push(encoded[first..last].to_string());
    }
    let url_safe: Vec<String> = out
        .iter()
        .map(|s| s.replace('+', "-").replace('/', "_"))
        .collect();
    out.extend(url_safe);
    out.push(hex::encode(value));
    out.sort();
    out.dedup();
    out
}

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Padded base64 of `bytes`.
fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | ((*b as u32) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(alphabet[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Whether `needle` is matched in any letter case: lowercase hex digits only.
fn any_case(needle: &str) -> bool {
    needle.len() >= 2 * MIN_ENCODED_SECRET_BYTES
        && needle
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `text` with every value replaced by [`REDACTED`] — also as JSON escapes it, so a value
/// with quotes or backslashes is caught inside serialized JSON too; hex in any case; and
/// through percent-escapes.
pub fn redact<'a>(text: &'a str, values: &[String]) -> Cow<'a, str> {
    if values.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let lower = values
        .iter()
        .any(|v| any_case(v))
        .then(|| text.to_ascii_lowercase());
    for value in values {
        find_all(text.as_bytes(), value.as_bytes(), &mut spans);
        // Only a value JSON would escape has another form inside serialized JSON.
        if value.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            let escaped = serde_json::to_string(value).unwrap_or_default();
            let escaped = &escaped[1..escaped.len().saturating_sub(1).max(1)];
            find_all(text.as_bytes(), escaped.as_bytes(), &mut spans);
        }
        if let Some(lower) = &lower
            && any_case(value)
        {
            find_all(lower.as_bytes(), value.as_bytes(), &mut spans);
        }
    }
    if text.contains(['%', '+']) {
        percent_spans(text, values, &mut spans);
    }
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in spans {
        if end <= last {
            continue;
        }
        if start >= last {
            out.push_str(&text[last..start]);
            out.push_str(REDACTED);
        }
        // An overlapping span widens the one already replaced.
        last = end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// [`redact`] for a guest's JSON answer: a guest may spell a value with escapes JSON readers
/// undo (`\u0074…`, `\/`), so an answer holding one is read and written again plainly
/// first (an answer that is no JSON is redacted as written; reading it fails later anyway).
pub fn redact_json<'a>(text: &'a str, values: &[String]) -> Cow<'a, str> {
    let escaped = |e: &[u8]| memchr::memmem::find(text.as_bytes(), e).is_some();
    if values.is_empty() || !(escaped(b"\\u") || escaped(b"\\/")) {
        return redact(text, values);
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(plain) => Cow::Owned(redact(&plain.to_string(), values).into_owned()),
        Err(_) => redact(text, values),
    }
}

/// Every occurrence of `needle` in `haystack`, as byte spans.
fn find_all(haystack: &[u8], needle: &[u8], spans: &mut Vec<(usize, usize)>) {
    if needle.is_empty() {
        return;
    }
    for at in memchr::memmem::find_iter(haystack, needle) {
        spans.push((at, at + needle.len()));
    }
}

/// The values found in `text` once its `%XX` escapes (and `+`) are decoded, as spans of the
/// text as written; only spans that hold an escape or a `+` (plain ones are found already).
fn percent_spans(text: &str, values: &[String], spans: &mut Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    // Decoded bytes and, for each, where it starts in `text`; one past the end closes it.
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut origin = Vec::with_capacity(bytes.len() + 1);
    let mut i = 0;
    while i < bytes.len() {
        let escape = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|p| std::str::from_utf8(p).ok())
            .and_then(|p| u8::from_str_radix(p, 16).ok());
        origin.push(i);
        match escape {
            Some(b) => {
                decoded.push(b);
                i += 3;
            }
            None => {
                decoded.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
                i += 1;
            }
        }
    }
    origin.push(bytes.len());
    for value in values {
        for at in memchr::memmem::find_iter(&decoded, value.as_bytes()) {
            let (start, end) = (origin[at], origin[at + value.len()]);
            let written = end - start != value.len() || &bytes[start..end] != value.as_bytes();
            if written && text.is_char_boundary(start) && text.is_char_boundary(end) {
                spans.push((start, end));
            }
        }
    }
}

#[cfg(test)]
#[path = "secrets_tests.rs"]
mod tests;
