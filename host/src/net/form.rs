//! `application/x-www-form-urlencoded`, for the forms the host posts itself (token
//! introspection, OAuth client credentials) and the credentials RFC 6749 §2.3.1 encodes the
//! same way.

/// One value form-encoded: ASCII letters, digits and `*-._` as they are, a space as `+`,
/// every other byte of its UTF-8 as `%XX` (the WHATWG form serializer's set).
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn a_value_keeps_the_unreserved_bytes_and_encodes_the_rest() {
        assert_eq!(encode("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
        assert_eq!(encode("Az09*-._~+%"), "Az09*-._%7E%2B%25");
    }
}
