//! Package integrity: the content hash a manifest pins and the ed25519 signature over it.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

/// What the signature on a package says.
#[derive(Debug, Clone, PartialEq)]
pub enum SignatureCheck {
    /// The manifest carries no attestation.
    Absent,
    /// A valid signature by this key (hex).
    Valid { public_key: String },
    /// An attestation that does not verify; the message says why.
    Invalid(String),
}

/// `sha256:<hex>` of the component bytes: what manifests pin and signatures cover.
pub fn content_hash(component: &[u8]) -> String {
    format!("sha256:{}", crate::sandbox::content_hash(component))
}

/// Verifies `signature_hex` by `public_key_hex` over the bytes of `content_hash`.
pub fn verify(content_hash: &str, public_key_hex: &str, signature_hex: &str) -> SignatureCheck {
    let key = match hex_array::<32>(public_key_hex) {
        Some(bytes) => match VerifyingKey::from_bytes(&bytes) {
            Ok(k) => k,
            Err(e) => {
                return SignatureCheck::Invalid(format!(
                    "`attestation.public_key` is not an ed25519 key: {e}"
                ));
            }
        },
        None => {
            return SignatureCheck::Invalid(
                "`attestation.public_key` must be 64 hex digits (an ed25519 public key)".into(),
            );
        }
    };
    let Some(sig) = hex_array::<64>(signature_hex) else {
        return SignatureCheck::Invalid("`attestation.signature` must be 128 hex digits".into());
    };
    match key.verify(content_hash.as_bytes(), &Signature::from_bytes(&sig)) {
        Ok(()) => SignatureCheck::Valid {
            public_key: public_key_hex.to_ascii_lowercase(),
        },
        Err(_) => SignatureCheck::Invalid(format!(
            "the signature does not match the component (content hash {content_hash}): it was changed after signing, or signed with another key"
        )),
    }
}

/// Signs `content_hash` with a 32-byte ed25519 seed (hex); returns (public key, signature) hex.
pub fn sign(content_hash: &str, seed_hex: &str) -> Result<(String, String), String> {
    let seed = hex_array::<32>(seed_hex.trim())
        .ok_or("a signing key is 64 hex digits (an ed25519 seed)")?;
    let key = SigningKey::from_bytes(&seed);
    let signature = key.sign(content_hash.as_bytes());
    Ok((
        hex::encode(key.verifying_key().to_bytes()),
        hex::encode(signature.to_bytes()),
    ))
}

fn hex_array<const N: usize>(text: &str) -> Option<[u8; N]> {
    hex::decode(text).ok()?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "0101010101010101010101010101010101010101010101010101010101010101";

    #[test]
    fn a_signature_verifies_only_for_the_signed_hash() {
        let hash = content_hash(b"component bytes");
        let (public_key, signature) = sign(&hash, SEED).unwrap();
        assert!(matches!(
            verify(&hash, &public_key, &signature),
            SignatureCheck::Valid { .. }
        ));
        let tampered = content_hash(b"component bytes!");
        assert!(matches!(
            verify(&tampered, &public_key, &signature),
            SignatureCheck::Invalid(_)
        ));
        assert!(
            matches!(verify(&hash, "zz", &signature), SignatureCheck::Invalid(m) if m.contains("public_key"))
        );
    }
}
