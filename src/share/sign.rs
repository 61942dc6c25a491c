//! Manifest signatures that readers cannot forge: Ed25519. CI holds the
//! private key (`TSQ_SHARE_SIGNING_KEY`) and signs each manifest it
//! publishes; readers hold only the public key (`[share] publicKey`,
//! `TSQ_SHARE_PUBLIC_KEY`), which verifies but cannot sign. (The HMAC
//! key this replaces let every reader that could verify also forge.)
//! Keys are 32 bytes in hex; `tsq publish --keygen` makes a pair.

use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};

/// The environment variable that holds CI's private key. Never printed.
pub(crate) const SIGNING_KEY_VAR: &str = "TSQ_SHARE_SIGNING_KEY";
/// The retired HMAC key: refused with a pointer to the new keys.
pub(crate) const RETIRED_KEY_VAR: &str = "TSQ_SHARE_KEY";

fn bytes32(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim();
    let hex = hex.strip_prefix("ed25519:").unwrap_or(hex);
    let v = unhex(hex)?;
    v.try_into().ok()
}

/// Parses a public key (64 hex digits, optionally `ed25519:`-prefixed).
pub(crate) fn public_key(hex: &str) -> Result<VerifyingKey, String> {
    let b = bytes32(hex).ok_or("not an Ed25519 public key: 64 hex digits, as `tsq publish --keygen` prints")?;
    VerifyingKey::from_bytes(&b).map_err(|_| "not a valid Ed25519 public key (not a curve point)".to_string())
}

/// Parses a private key (the 32-byte seed, 64 hex digits). The message
/// never holds the key.
pub fn signing_key(hex: &str) -> Result<SigningKey, String> {
    bytes32(hex)
        .map(|b| SigningKey::from_bytes(&b))
        .ok_or_else(|| format!("{SIGNING_KEY_VAR} is not an Ed25519 private key: 64 hex digits, as `tsq publish --keygen` prints"))
}

/// A new key pair: (private, public), hex.
pub fn keygen() -> Result<(String, String), String> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| format!("no system randomness: {e}"))?;
    let key = SigningKey::from_bytes(&seed);
    Ok((crate::ts::hex(&seed), crate::ts::hex(key.verifying_key().as_bytes())))
}

pub fn sign(key: &SigningKey, bytes: &[u8]) -> String {
    crate::ts::hex(&key.sign(bytes).to_bytes())
}

/// Whether `signature` (hex) is `key`'s signature of `bytes`.
pub fn verify(key: &VerifyingKey, bytes: &[u8], signature: &str) -> bool {
    let Some(sig) = unhex(signature).and_then(|s| <[u8; 64]>::try_from(s).ok()) else { return false };
    key.verify(bytes, &ed25519_dalek::Signature::from_bytes(&sig)).is_ok()
}

/// The bytes of lower-case or upper-case hex, or `None`.
pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_public_key_only() {
        let (private, public) = keygen().unwrap();
        let (_, other) = keygen().unwrap();
        let key = signing_key(&private).unwrap();
        let sig = sign(&key, b"manifest");
        assert!(verify(&public_key(&public).unwrap(), b"manifest", &sig));
        assert!(!verify(&public_key(&public).unwrap(), b"manifest2", &sig));
        assert!(!verify(&public_key(&other).unwrap(), b"manifest", &sig));
        assert!(!verify(&public_key(&public).unwrap(), b"manifest", "00"));
        assert!(public_key("zz").is_err() && signing_key("12").unwrap_err().contains("64 hex digits"));
        assert!(public_key(&format!("ed25519:{public}")).is_ok());
    }
}
