//! A compact JWS (the form a JWT access token takes): split, decoded, its algorithm checked
//! against the allow-list and its signature verified with `ring` against a key from the
//! provider's key set. Only asymmetric algorithms exist here: `none` and the HMAC family are
//! refused by name, so a token can never make the host treat a public key as a shared secret.
//! Keys come only from the configured key set; `jwk`, `jku`, `x5u` and `x5c` in a header are
//! never followed.

use super::jwk::{Curve, Key, Material};
use super::refusal::Refusal;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde_json::{Map, Value};

/// A signature algorithm the host can verify (RFC 7518 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alg {
    RS256,
    RS384,
    RS512,
    PS256,
    PS384,
    PS512,
    ES256,
    ES384,
    EdDSA,
}

impl Alg {
    /// Every algorithm the host can verify, in the order the documentation lists them.
    pub const ALL: [Alg; 9] = [
        Alg::RS256,
        Alg::RS384,
        Alg::RS512,
        Alg::PS256,
        Alg::PS384,
        Alg::PS512,
        Alg::ES256,
        Alg::ES384,
        Alg::EdDSA,
    ];

    /// The algorithm named `name`; the error says why `none` and `HS*` are never accepted.
    pub fn parse(name: &str) -> Result<Alg, String> {
        if let Some(alg) = Alg::ALL.into_iter().find(|a| a.name() == name) {
            return Ok(alg);
        }
        Err(match name {
            "none" => "`none` means an unsigned token, which is never accepted".into(),
            n if n.starts_with("HS") => format!(
                "`{n}` is an HMAC (shared-secret) algorithm; a resource server checks tokens against the provider's public keys only"
            ),
            n => format!(
                "`{}` is not an algorithm the host verifies (it knows {})",
                printable(n),
                Alg::ALL.map(|a| a.name()).join(", ")
            ),
        })
    }

    /// The RFC 7518 name.
    pub fn name(self) -> &'static str {
        match self {
            Alg::RS256 => "RS256",
            Alg::RS384 => "RS384",
            Alg::RS512 => "RS512",
            Alg::PS256 => "PS256",
            Alg::PS384 => "PS384",
            Alg::PS512 => "PS512",
            Alg::ES256 => "ES256",
            Alg::ES384 => "ES384",
            Alg::EdDSA => "EdDSA",
        }
    }

    /// Whether `key` is of the kind this algorithm signs with.
    pub fn fits(self, key: &Key) -> bool {
        let rsa = matches!(
            self,
            Alg::RS256 | Alg::RS384 | Alg::RS512 | Alg::PS256 | Alg::PS384 | Alg::PS512
        );
        match &key.material {
            Material::Rsa { .. } => rsa,
            Material::Ec { curve, .. } => {
                (*curve, self) == (Curve::P256, Alg::ES256)
                    || (*curve, self) == (Curve::P384, Alg::ES384)
            }
            Material::Ed25519(_) => self == Alg::EdDSA,
        }
    }

    /// Whether `signature` over `message` verifies with `key` (which [`Alg::fits`]).
    fn verify(self, key: &Key, message: &[u8], signature: &[u8]) -> bool {
        match &key.material {
            Material::Rsa { n, e } => {
                let params = match self {
                    Alg::RS256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Alg::RS384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Alg::RS512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Alg::PS256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Alg::PS384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Alg::PS512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return false,
                };
                RsaPublicKeyComponents { n, e }
                    .verify(params, message, signature)
                    .is_ok()
            }
            Material::Ec { curve, point } => {
                let algorithm = match (curve, self) {
                    (Curve::P256, Alg::ES256) => &signature::ECDSA_P256_SHA256_FIXED,
                    (Curve::P384, Alg::ES384) => &signature::ECDSA_P384_SHA384_FIXED,
                    _ => return false,
                };
                UnparsedPublicKey::new(algorithm, point)
                    .verify(message, signature)
                    .is_ok()
            }
            Material::Ed25519(x) if self == Alg::EdDSA => {
                UnparsedPublicKey::new(&signature::ED25519, x)
                    .verify(message, signature)
                    .is_ok()
            }
            Material::Ed25519(_) => false,
        }
    }
}

/// A token split and decoded, its signature not yet checked.
#[derive(Debug)]
pub struct Jws<'t> {
    /// The algorithm its header names (already on the allow-list).
    pub alg: Alg,
    /// The key id its header names, if any.
    pub kid: Option<String>,
    /// The claims, decoded (to be trusted only after [`Jws::verify`]).
    pub claims: Map<String, Value>,
    /// `header.payload`, the bytes the signature covers.
    signed: &'t str,
    signature: Vec<u8>,
}

/// Whether `token` has the shape of a compact JWS (three base64url parts); anything else is an
/// opaque token, for introspection.
pub fn is_jws(token: &str) -> bool {
    token.split('.').count() == 3
}

impl<'t> Jws<'t> {
    /// Splits and decodes `token`, refusing a malformed one and an algorithm not in `allowed`.
    pub fn parse(token: &'t str, allowed: &[Alg]) -> Result<Jws<'t>, Refusal> {
        let malformed = |why: &str| Refusal::invalid("malformed", format!("the token {why}"));
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(malformed("is not a compact JWS (three base64url parts)"));
        };
        let header: Map<String, Value> = decode_json(header)
            .ok_or_else(|| malformed("header is not base64url-encoded JSON object"))?;
        let name = header
            .get("alg")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("header names no `alg`"))?;
        let alg = Alg::parse(name).map_err(|why| Refusal::invalid("algorithm", why))?;
        if !allowed.contains(&alg) {
            return Err(Refusal::invalid(
                "algorithm",
                format!(
                    "`{}` is not among the algorithms this host accepts ({}; `[identity] algorithms`)",
                    alg.name(),
                    allowed
                        .iter()
                        .map(|a| a.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        // Extensions the host does not implement must not be silently skipped (RFC 7515 §4.1.11).
        if let Some(crit) = header.get("crit") {
            return Err(Refusal::invalid(
                "malformed",
                format!(
                    "the header marks extensions critical ({}), which this host does not implement",
                    printable(&crit.to_string())
                ),
            ));
        }
        if let Some(typ) = header.get("typ").and_then(Value::as_str) {
            let typ = typ.to_ascii_lowercase();
            let typ = typ.strip_prefix("application/").unwrap_or(&typ);
            if typ != "at+jwt" && typ != "jwt" {
                return Err(Refusal::invalid(
                    "token_type",
                    format!(
                        "the token's type is `{}`, not an access token (`at+jwt`)",
                        printable(typ)
                    ),
                ));
            }
        }
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.clone()),
            Some(_) => return Err(malformed("header's `kid` is not a string")),
        };
        let claims: Map<String, Value> = decode_json(payload)
            .ok_or_else(|| malformed("payload is not base64url-encoded JSON object"))?;
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| malformed("signature is not base64url"))?;
        let signed = &token[..header_len(token, payload)];
        Ok(Jws {
            alg,
            kid,
            claims,
            signed,
            signature,
        })
    }

    /// Checks the signature with `key`.
    pub fn verify(&self, key: &Key) -> Result<(), Refusal> {
        if !self.alg.fits(key) {
            return Err(Refusal::invalid(
                "algorithm",
                format!(
                    "the token says `{}` but its key `{}` is not a key for it",
                    self.alg.name(),
                    printable(key.kid.as_deref().unwrap_or("(no kid)"))
                ),
            ));
        }
        if let Some(published) = key.alg.as_deref()
            && published != self.alg.name()
        {
            return Err(Refusal::invalid(
                "algorithm",
                format!(
                    "the token says `{}` but its key `{}` is published for `{}`",
                    self.alg.name(),
                    printable(key.kid.as_deref().unwrap_or("(no kid)")),
                    printable(published)
                ),
            ));
        }
        if self
            .alg
            .verify(key, self.signed.as_bytes(), &self.signature)
        {
            Ok(())
        } else {
            Err(Refusal::invalid(
                "signature",
                "the signature does not verify with the provider's key: the token was altered or not issued by it",
            ))
        }
    }
}

/// Length of `header.payload` in `token`, whose payload part is `payload`.
fn header_len(token: &str, payload: &str) -> usize {
    token.find('.').map_or(0, |dot| dot + 1 + payload.len())
}

/// A base64url (unpadded) JSON object.
fn decode_json(part: &str) -> Option<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(part).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// `text` fit for a log line and a header: printable ASCII without quotes or backslashes, at
/// most 64 characters. What a token says goes through it before it is repeated anywhere.
pub fn printable(text: &str) -> String {
    let mut out: String = text
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .filter(|c| *c != '"' && *c != '\\')
        .take(64)
        .collect();
    if text.chars().count() > 64 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(text: &str) -> String {
        URL_SAFE_NO_PAD.encode(text)
    }

    #[test]
    fn none_and_hmac_are_refused_by_name_and_others_named() {
        assert!(Alg::parse("none").unwrap_err().contains("unsigned"));
        assert!(Alg::parse("HS256").unwrap_err().contains("HMAC"));
        assert!(Alg::parse("XY1").unwrap_err().contains("RS256, RS384"));
        assert_eq!(Alg::parse("EdDSA"), Ok(Alg::EdDSA));
        let token = format!("{}.{}.", b64(r#"{"alg":"none"}"#), b64(r#"{"sub":"a"}"#));
        let err = Jws::parse(&token, &Alg::ALL).unwrap_err();
        assert_eq!(err.code(), "algorithm");
        assert!(err.reason().contains("unsigned"), "{}", err.reason());
    }

    #[test]
    fn malformed_tokens_say_which_part_is_wrong() {
        let cases = [
            ("abc", "three base64url parts"),
            ("a.b.c.d", "three base64url parts"),
            ("!!.e30.", "header is not base64url"),
            (
                &format!("{}.e30.", b64(r#"{"typ":"JWT"}"#)),
                "names no `alg`",
            ),
            (
                &format!("{}.bm90IGpzb24.", b64(r#"{"alg":"RS256"}"#)),
                "payload is not",
            ),
            (
                &format!("{}.e30.***", b64(r#"{"alg":"RS256"}"#)),
                "signature is not base64url",
            ),
            (
                &format!("{}.e30.", b64(r#"{"alg":"RS256","crit":["exp"]}"#)),
                "critical",
            ),
            (
                &format!("{}.e30.", b64(r#"{"alg":"RS256","kid":7}"#)),
                "`kid` is not a string",
            ),
        ];
        for (token, words) in cases {
            let err = Jws::parse(token, &Alg::ALL).unwrap_err();
            assert!(err.reason().contains(words), "{token}: {}", err.reason());
        }
        let id_token = format!("{}.e30.", b64(r#"{"alg":"RS256","typ":"logout+jwt"}"#));
        let err = Jws::parse(&id_token, &Alg::ALL).unwrap_err();
        assert_eq!(err.code(), "token_type");
        let at = format!(
            "{}.e30.",
            b64(r#"{"alg":"RS256","typ":"application/at+JWT"}"#)
        );
        assert!(Jws::parse(&at, &Alg::ALL).is_ok());
    }

    #[test]
    fn an_algorithm_off_the_allow_list_is_refused_naming_the_list() {
        let token = format!("{}.e30.", b64(r#"{"alg":"PS256"}"#));
        let err = Jws::parse(&token, &[Alg::RS256, Alg::ES256]).unwrap_err();
        assert!(
            err.reason().contains("`PS256` is not among") && err.reason().contains("RS256, ES256"),
            "{}",
            err.reason()
        );
    }

    #[test]
    fn printable_strips_what_could_break_a_header_or_a_log_line() {
        assert_eq!(printable("a\"b\\c\nd"), "abcd");
        assert_eq!(printable(&"x".repeat(80)).chars().count(), 65);
    }
}
