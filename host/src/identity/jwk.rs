//! The provider's public keys (a JWK Set, RFC 7517): RSA, EC P-256/P-384 and Ed25519 keys for
//! signatures. A key that is not for signing, is too short, holds private parts or cannot be
//! read is left out of the set with a note (the provider may publish keys for other uses), and
//! the rest are kept.

use super::jws::printable;
use crate::limits::IDENTITY_MAX_KEYS;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// An elliptic curve the host verifies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curve {
    P256,
    P384,
}

/// A public key's numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Material {
    /// Modulus and exponent, big-endian.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// An uncompressed point (`04 || x || y`).
    Ec { curve: Curve, point: Vec<u8> },
    /// The 32-byte public key.
    Ed25519(Vec<u8>),
}

/// One verification key of the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub kid: Option<String>,
    /// The algorithm the key is published for, if the provider says.
    pub alg: Option<String>,
    pub material: Material,
}

/// The keys of one fetch of the key set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeySet {
    pub keys: Vec<Key>,
}

impl KeySet {
    /// Reads a JWK Set document; the notes say which keys were left out and why.
    pub fn parse(document: &Value) -> Result<(KeySet, Vec<String>), String> {
        let entries = document
            .get("keys")
            .and_then(Value::as_array)
            .ok_or("the key set has no `keys` array")?;
        let mut set = KeySet::default();
        let mut notes = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            if set.keys.len() == IDENTITY_MAX_KEYS {
                notes.push(format!(
                    "only the first {IDENTITY_MAX_KEYS} keys are kept; {} more ignored",
                    entries.len() - i
                ));
                break;
            }
            match Key::parse(entry) {
                Ok(key) => set.keys.push(key),
                Err(why) => notes.push(format!("key {i} left out: {why}")),
            }
        }
        Ok((set, notes))
    }

    /// The key a token's header names: by `kid`, or, for a token without one, the only key
    /// `fits` accepts.
    pub fn find(&self, kid: Option<&str>, fits: impl Fn(&Key) -> bool) -> Option<&Key> {
        match kid {
            Some(kid) => self.keys.iter().find(|k| k.kid.as_deref() == Some(kid)),
            None => {
                let mut fitting = self.keys.iter().filter(|k| fits(k));
                let only = fitting.next()?;
                fitting.next().is_none().then_some(only)
            }
        }
    }

    /// Whether a key with this id is in the set.
    pub fn holds(&self, kid: &str) -> bool {
        self.keys.iter().any(|k| k.kid.as_deref() == Some(kid))
    }
}

impl Key {
    /// One JWK; the error says why it cannot be used for verifying signatures.
    pub fn parse(jwk: &Value) -> Result<Key, String> {
        let text = |name: &str| jwk.get(name).and_then(Value::as_str);
        let bytes = |name: &str| -> Result<Vec<u8>, String> {
            let value = text(name).ok_or_else(|| format!("no `{name}`"))?;
            URL_SAFE_NO_PAD
                .decode(value)
                .map_err(|_| format!("`{name}` is not base64url"))
        };
        let kid = text("kid").map(str::to_string);
        if let Some(usage) = text("use").filter(|u| *u != "sig") {
            return Err(format!("it is for `{}`, not signatures", printable(usage)));
        }
        if let Some(ops) = jwk.get("key_ops").and_then(Value::as_array)
            && !ops.iter().any(|op| op == "verify")
        {
            return Err("its `key_ops` do not include `verify`".into());
        }
        // A published private key is a provider's mistake; the host will not hold one.
        if jwk.get("d").is_some() {
            return Err("it holds private key material (`d`); publish only public keys".into());
        }
        let material = match text("kty") {
            Some("RSA") => {
                let n = strip_zeros(bytes("n")?);
                let e = strip_zeros(bytes("e")?);
                if n.len() < 256 {
                    return Err(format!(
                        "its modulus is {} bits; at least 2048 are required",
                        n.len() * 8
                    ));
                }
                Material::Rsa { n, e }
            }
            Some("EC") => {
                let (curve, size) = match text("crv") {
                    Some("P-256") => (Curve::P256, 32),
                    Some("P-384") => (Curve::P384, 48),
                    other => {
                        return Err(format!(
                            "curve `{}` is not one the host verifies (P-256, P-384)",
                            printable(other.unwrap_or("none"))
                        ));
                    }
                };
                let (x, y) = (bytes("x")?, bytes("y")?);
                if x.len() != size || y.len() != size {
                    return Err("its coordinates are not the curve's size".into());
                }
                let mut point = vec![4u8];
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                Material::Ec { curve, point }
            }
            Some("OKP") if text("crv") == Some("Ed25519") => {
                let x = bytes("x")?;
                if x.len() != 32 {
                    return Err("its Ed25519 key is not 32 bytes".into());
                }
                Material::Ed25519(x)
            }
            Some("oct") => return Err("it is a shared-secret (`oct`) key".into()),
            other => {
                return Err(format!(
                    "key type `{}` is not one the host verifies (RSA, EC, OKP Ed25519)",
                    printable(other.unwrap_or("none"))
                ));
            }
        };
        Ok(Key {
            kid,
            alg: text("alg").map(str::to_string),
            material,
        })
    }
}

/// Big-endian integer bytes without leading zeros (ring wants the minimal encoding).
fn strip_zeros(mut bytes: Vec<u8>) -> Vec<u8> {
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    bytes.drain(..zeros.min(bytes.len().saturating_sub(1)));
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn b64(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }

    #[test]
    fn usable_keys_are_kept_and_the_others_noted() {
        let ec = json!({"kty": "EC", "crv": "P-256", "kid": "e1", "x": b64(&[1; 32]), "y": b64(&[2; 32])});
        let rsa =
            json!({"kty": "RSA", "kid": "r1", "n": b64(&[0xc1; 256]), "e": "AQAB", "alg": "RS256"});
        let ed = json!({"kty": "OKP", "crv": "Ed25519", "kid": "d1", "x": b64(&[3; 32])});
        let set = json!({"keys": [
            ec, rsa, ed,
            {"kty": "RSA", "kid": "short", "n": b64(&[0xc1; 128]), "e": "AQAB"},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": b64(&[0xc1; 256]), "e": "AQAB"},
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "EC", "crv": "secp256k1", "x": "AA", "y": "AA"},
            {"kty": "RSA", "kid": "private", "n": b64(&[0xc1; 256]), "e": "AQAB", "d": "AQAB"},
        ]});
        let (keys, notes) = KeySet::parse(&set).unwrap();
        let kids: Vec<_> = keys.keys.iter().map(|k| k.kid.clone().unwrap()).collect();
        assert_eq!(kids, ["e1", "r1", "d1"]);
        let notes = notes.join("\n");
        for words in [
            "1024 bits",
            "for `enc`",
            "shared-secret",
            "secp256k1",
            "private key material",
        ] {
            assert!(notes.contains(words), "{words}: {notes}");
        }
        assert!(keys.holds("r1") && !keys.holds("zz"));
        assert_eq!(
            keys.find(Some("d1"), |_| true).unwrap().kid.as_deref(),
            Some("d1")
        );
        // Without a kid only an unambiguous key is taken.
        assert!(keys.find(None, |_| true).is_none());
        let only_ed = keys.find(None, |k| matches!(k.material, Material::Ed25519(_)));
        assert_eq!(only_ed.unwrap().kid.as_deref(), Some("d1"));
        assert!(KeySet::parse(&json!({"nokeys": []})).is_err());
    }

    #[test]
    fn leading_zeros_of_a_modulus_are_dropped() {
        assert_eq!(strip_zeros(vec![0, 0, 1, 2]), vec![1, 2]);
        assert_eq!(strip_zeros(vec![0]), vec![0]);
    }
}
