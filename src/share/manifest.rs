//! A published index's manifest: which commit and versions it was built
//! for, and every file of the index with its size and sha256 (the objects
//! are stored by that hash). It is what a reader verifies before using a
//! byte of the index, and what an HMAC key signs.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::ShareError;

/// The manifest layout this tsq writes and reads.
pub const FORMAT: u32 = 1;

/// What an index must have been built with to be used: tsq's index
/// schema, the TypeScript that resolved its rows, and the embedder of its
/// vectors. Part of where it is published, and checked again on pull.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Key {
    pub schema_version: u32,
    pub typescript: String,
    /// `model-<dimension>d`, or `none` (BM25 only).
    pub embedder: String,
}

impl Key {
    /// The remote folder of indexes with this key.
    pub fn scope(&self) -> String {
        let clean = |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect::<String>();
        format!("s{}-ts{}-{}", self.schema_version, clean(&self.typescript), clean(&self.embedder))
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "index schema v{}, TypeScript {}, embedder {}", self.schema_version, self.typescript, self.embedder)
    }
}

/// One file of the index, relative to `.tsq/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub path: String,
    pub size: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format: u32,
    pub commit: String,
    pub key: Key,
    pub tsq_version: String,
    pub created_ms: u64,
    /// Sorted by path.
    pub files: Vec<Entry>,
    /// HMAC-SHA256 (hex) of the manifest without this field, when the
    /// publisher had a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl Manifest {
    /// The bytes a signature covers: the manifest without its signature.
    fn signed_bytes(&self) -> Vec<u8> {
        let unsigned = Manifest { signature: None, ..self.clone() };
        serde_json::to_vec(&unsigned).expect("a manifest serializes")
    }

    pub fn sign(&mut self, key: &[u8]) {
        self.signature = Some(crate::ts::hex(&mac(key, &self.signed_bytes())));
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).expect("a manifest serializes")
    }

    /// Parses and checks a manifest found at `where_` for `commit`: the
    /// format, the key, the commit, its paths (inside the index directory)
    /// and, when a signing key is configured, its signature.
    pub fn verify(bytes: &[u8], where_: &str, commit: &str, key: &Key, signing: Option<&[u8]>) -> Result<Manifest, ShareError> {
        let refused = |why: String| ShareError::Refused { url: where_.to_string(), message: why };
        let m: Manifest = serde_json::from_slice(bytes).map_err(|e| refused(format!("not a tsq index manifest ({e})")))?;
        if let Some(k) = signing {
            let Some(sig) = &m.signature else {
                return Err(refused("unsigned, and TSQ_SHARE_KEY is set: only indexes signed with that key are used".into()));
            };
            let ok = unhex(sig).is_some_and(|sig| {
                let mut h = <Hmac<Sha256> as Mac>::new_from_slice(k).expect("HMAC takes any key length");
                h.update(&m.signed_bytes());
                h.verify_slice(&sig).is_ok()
            });
            if !ok {
                return Err(refused("its signature does not match TSQ_SHARE_KEY (tampered, or signed with another key)".into()));
            }
        }
        if m.format != FORMAT {
            return Err(refused(format!("manifest format {} (this tsq reads {FORMAT}); upgrade tsq or publish again", m.format)));
        }
        if &m.key != key {
            return Err(refused(format!("built with {} but this tsq needs {key}", m.key)));
        }
        if m.commit != commit {
            return Err(refused(format!("it names commit {} but is published as {commit}", m.commit)));
        }
        for e in &m.files {
            if !safe_path(&e.path) || e.sha256.len() != 64 || !e.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(refused(format!("bad entry `{}`: paths stay inside the index directory, hashes are sha256", e.path)));
            }
        }
        Ok(m)
    }
}

fn mac(key: &[u8], bytes: &[u8]) -> Vec<u8> {
    let mut h = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    h.update(bytes);
    h.finalize().into_bytes().to_vec()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

/// A relative path of plain segments (no `..`, no root, no backslash).
pub fn safe_path(p: &str) -> bool {
    !p.is_empty() && !p.starts_with('/') && !p.contains('\\') && p.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key { schema_version: 9, typescript: "6.0.3".into(), embedder: "none".into() }
    }

    fn manifest() -> Manifest {
        Manifest {
            format: FORMAT,
            commit: "abc".into(),
            key: key(),
            tsq_version: "0.1.0".into(),
            created_ms: 1,
            files: vec![Entry { path: "meta.json".into(), size: 2, sha256: "a".repeat(64) }],
            signature: None,
        }
    }

    #[test]
    fn a_signed_manifest_verifies_with_its_key_only() {
        let mut m = manifest();
        m.sign(b"k1");
        let bytes = m.to_json();
        assert_eq!(Manifest::verify(&bytes, "u", "abc", &key(), Some(b"k1")).unwrap(), m);
        let err = Manifest::verify(&bytes, "u", "abc", &key(), Some(b"k2")).unwrap_err().to_string();
        assert!(err.contains("signature does not match"), "{err}");
        // Without a key configured, a signed manifest is read as is.
        assert!(Manifest::verify(&bytes, "u", "abc", &key(), None).is_ok());
    }

    #[test]
    fn tampering_with_a_signed_manifest_is_caught() {
        let mut m = manifest();
        m.sign(b"k1");
        m.files[0].size = 3;
        let err = Manifest::verify(&m.to_json(), "u", "abc", &key(), Some(b"k1")).unwrap_err().to_string();
        assert!(err.contains("signature does not match"), "{err}");
    }

    #[test]
    fn unsigned_wrong_version_wrong_commit_and_escaping_paths_are_refused() {
        let m = manifest();
        let err = Manifest::verify(&m.to_json(), "u", "abc", &key(), Some(b"k1")).unwrap_err().to_string();
        assert!(err.contains("unsigned"), "{err}");
        let other = Key { typescript: "5.9.0".into(), ..key() };
        let err = Manifest::verify(&m.to_json(), "u", "abc", &other, None).unwrap_err().to_string();
        assert!(err.contains("TypeScript 6.0.3") && err.contains("needs index schema v9, TypeScript 5.9.0"), "{err}");
        let err = Manifest::verify(&m.to_json(), "u", "def", &key(), None).unwrap_err().to_string();
        assert!(err.contains("names commit abc"), "{err}");
        for bad in ["../x", "/etc/passwd", "a/../../b", "a\\b", ""] {
            let mut m = manifest();
            m.files[0].path = bad.into();
            assert!(Manifest::verify(&m.to_json(), "u", "abc", &key(), None).is_err(), "{bad} was taken");
        }
        assert!(Manifest::verify(b"{}", "u", "abc", &key(), None).unwrap_err().to_string().contains("not a tsq index manifest"));
    }

    #[test]
    fn scopes_are_single_path_segments() {
        let k = Key { schema_version: 9, typescript: "6.0.3".into(), embedder: "voyage/code 3-1024d".into() };
        assert_eq!(k.scope(), "s9-ts6.0.3-voyage_code_3-1024d");
    }
}
