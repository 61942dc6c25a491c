//! A published index's manifest: which commit and versions it was built
//! for, and every file of the index with its size and sha256 (the objects
//! are stored by that hash). It is what a reader verifies before using a
//! byte of the index, and what CI's Ed25519 key signs (`sign`).

use std::collections::HashSet;

use ed25519_dalek::{SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::{sign, ShareError};
use crate::index::names;
pub(crate) use crate::index::Trust;

/// The manifest layout this tsq writes and reads (2: Ed25519 signatures).
pub(crate) const FORMAT: u32 = 2;
/// The largest manifest a pull reads, in bytes.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 16 << 20;
/// The largest file a manifest may list, in bytes.
pub(crate) const MAX_OBJECT_BYTES: u64 = 4 << 30;
/// The most files a manifest may list.
pub(crate) const MAX_FILES: usize = 200_000;

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
pub(crate) struct Entry {
    pub path: String,
    pub size: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Manifest {
    pub format: u32,
    pub commit: String,
    pub key: Key,
    pub tsq_version: String,
    pub created_ms: u64,
    /// Sorted by path.
    pub files: Vec<Entry>,
    /// Ed25519 (hex) of the manifest without this field, when the
    /// publisher had a signing key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl Manifest {
    /// The bytes a signature covers: the manifest without its signature.
    fn signed_bytes(&self) -> Vec<u8> {
        let unsigned = Manifest { signature: None, ..self.clone() };
        serde_json::to_vec(&unsigned).expect("a manifest serializes")
    }

    pub fn sign(&mut self, key: &SigningKey) {
        self.signature = Some(sign::sign(key, &self.signed_bytes()));
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).expect("a manifest serializes")
    }

    /// Parses and checks a manifest found at `where_` for `commit`: its
    /// size, its signature when a public key is configured, the format,
    /// the key, the commit, and every entry (a safe relative path, not a
    /// local-only name nor one that folds onto another, a sha256, a size
    /// under the cap).
    pub fn verify(bytes: &[u8], where_: &str, commit: &str, key: &Key, public: Option<&VerifyingKey>) -> Result<(Manifest, Trust), ShareError> {
        let refused = |why: String| ShareError::Refused { url: where_.to_string(), message: why };
        if bytes.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(refused(format!("the manifest is {} bytes, over the {MAX_MANIFEST_BYTES}-byte cap", bytes.len())));
        }
        let m: Manifest = serde_json::from_slice(bytes).map_err(|e| refused(format!("not a tsq index manifest ({e})")))?;
        let trust = match public {
            None => Trust::Unsigned,
            Some(k) => {
                let Some(sig) = &m.signature else {
                    return Err(refused(
                        "unsigned, and a public key is configured (share.publicKey): only indexes signed with its private key are used".into(),
                    ));
                };
                if !sign::verify(k, &m.signed_bytes(), sig) {
                    return Err(refused("its signature does not match the configured public key (tampered, or signed with another key)".into()));
                }
                Trust::Verified
            }
        };
        if m.format != FORMAT {
            return Err(refused(format!("manifest format {} (this tsq reads {FORMAT}); upgrade tsq or publish again", m.format)));
        }
        if &m.key != key {
            return Err(refused(format!("built with {} but this tsq needs {key}", m.key)));
        }
        if m.commit != commit {
            return Err(refused(format!("it names commit {} but is published as {commit}", m.commit)));
        }
        if m.files.len() > MAX_FILES {
            return Err(refused(format!("it lists {} files, over the cap of {MAX_FILES}", m.files.len())));
        }
        let mut seen = HashSet::new();
        for e in &m.files {
            let bad = |why: &str| refused(format!("bad entry `{}`: {why}", e.path.escape_debug()));
            if !names::safe_path(&e.path) {
                return Err(bad("paths are relative, stay inside the index directory, and name no drive, share or device"));
            }
            if crate::index::is_local_only(&e.path) {
                return Err(bad("a local-only file, which no pulled index may bring"));
            }
            if !crate::index::is_index_entry(&e.path) {
                return Err(bad("not in a tsq index (its tables and records), which is all a pull brings: a user's own files in .tsq stay theirs"));
            }
            if !seen.insert(names::fold(&e.path)) {
                return Err(bad("it repeats another entry (compared as a case-insensitive file system would)"));
            }
            if e.sha256.len() != 64 || !e.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad("hashes are sha256 in hex"));
            }
            if e.size > MAX_OBJECT_BYTES {
                return Err(bad(&format!("{} bytes, over the {MAX_OBJECT_BYTES}-byte cap per file", e.size)));
            }
        }
        Ok((m, trust))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    fn pair() -> (SigningKey, VerifyingKey) {
        let (private, public) = sign::keygen().unwrap();
        (sign::signing_key(&private).unwrap(), sign::public_key(&public).unwrap())
    }

    #[test]
    fn a_signed_manifest_verifies_with_its_public_key_only() {
        let (k1, p1) = pair();
        let (_, p2) = pair();
        let mut m = manifest();
        m.sign(&k1);
        let bytes = m.to_json();
        assert_eq!(Manifest::verify(&bytes, "u", "abc", &key(), Some(&p1)).unwrap(), (m.clone(), Trust::Verified));
        let err = Manifest::verify(&bytes, "u", "abc", &key(), Some(&p2)).unwrap_err().to_string();
        assert!(err.contains("signature does not match"), "{err}");
        // Without a public key, a signed manifest is read but not trusted.
        assert_eq!(Manifest::verify(&bytes, "u", "abc", &key(), None).unwrap().1, Trust::Unsigned);
        // A forged signature is never "verified".
        let mut forged = manifest();
        forged.signature = Some("00".into());
        assert_eq!(Manifest::verify(&forged.to_json(), "u", "abc", &key(), None).unwrap().1, Trust::Unsigned);
        assert!(Manifest::verify(&forged.to_json(), "u", "abc", &key(), Some(&p1)).is_err());
    }

    #[test]
    fn tampering_with_a_signed_manifest_is_caught() {
        let (k1, p1) = pair();
        let mut m = manifest();
        m.sign(&k1);
        m.files[0].size = 3;
        let err = Manifest::verify(&m.to_json(), "u", "abc", &key(), Some(&p1)).unwrap_err().to_string();
        assert!(err.contains("signature does not match"), "{err}");
    }

    #[test]
    fn unsigned_wrong_version_wrong_commit_and_escaping_paths_are_refused() {
        let (_, p1) = pair();
        let m = manifest();
        let err = Manifest::verify(&m.to_json(), "u", "abc", &key(), Some(&p1)).unwrap_err().to_string();
        assert!(err.contains("unsigned"), "{err}");
        let other = Key { typescript: "5.9.0".into(), ..key() };
        let err = Manifest::verify(&m.to_json(), "u", "abc", &other, None).unwrap_err().to_string();
        assert!(err.contains("TypeScript 6.0.3") && err.contains("needs index schema v9, TypeScript 5.9.0"), "{err}");
        let err = Manifest::verify(&m.to_json(), "u", "def", &key(), None).unwrap_err().to_string();
        assert!(err.contains("names commit abc"), "{err}");
        for bad in ["../x", "/etc/passwd", "a/../../b", "a\\b", "", "C:/x", "..\\x", "Config.toml", "LOCK", "Incoming/x", "con.txt"] {
            let mut m = manifest();
            m.files[0].path = bad.into();
            assert!(Manifest::verify(&m.to_json(), "u", "abc", &key(), None).is_err(), "{bad} was taken");
        }
        let mut m = manifest();
        m.files.push(Entry { path: "META.json".into(), ..m.files[0].clone() });
        assert!(Manifest::verify(&m.to_json(), "u", "abc", &key(), None).unwrap_err().to_string().contains("repeats another entry"));
        let mut m = manifest();
        m.files[0].size = MAX_OBJECT_BYTES + 1;
        assert!(Manifest::verify(&m.to_json(), "u", "abc", &key(), None).unwrap_err().to_string().contains("cap per file"));
        let huge = vec![b' '; MAX_MANIFEST_BYTES as usize + 1];
        assert!(Manifest::verify(&huge, "u", "abc", &key(), None).unwrap_err().to_string().contains("cap"));
        assert!(Manifest::verify(b"{}", "u", "abc", &key(), None).unwrap_err().to_string().contains("not a tsq index manifest"));
    }

    #[test]
    fn scopes_are_single_path_segments() {
        let k = Key { schema_version: 9, typescript: "6.0.3".into(), embedder: "voyage/code 3-1024d".into() };
        assert_eq!(k.scope(), "s9-ts6.0.3-voyage_code_3-1024d");
    }

    fn segment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("..".to_string()),
            Just(".".to_string()),
            Just("".to_string()),
            Just("C:".to_string()),
            Just("LOCK".to_string()),
            Just("Config.toml".to_string()),
            Just("nul".to_string()),
            "[a-zA-Z0-9._\\\\: -]{1,8}",
            "\\PC{1,4}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Whatever the paths and bytes, an accepted manifest's every
        /// entry joins under the index directory to a path that stays
        /// inside it, names no local-only file, and no two entries fold
        /// to one name; arbitrary bytes never panic.
        #[test]
        fn accepted_manifests_stay_inside_the_index(paths in proptest::collection::vec(proptest::collection::vec(segment(), 1..4), 1..6), noise in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = Manifest::verify(&noise, "u", "abc", &key(), None);
            let mut m = manifest();
            m.files = paths.iter().map(|segs| Entry { path: segs.join("/"), size: 1, sha256: "b".repeat(64) }).collect();
            if let Ok((got, _)) = Manifest::verify(&m.to_json(), "u", "abc", &key(), None) {
                let base = std::path::Path::new("/idx/.tsq");
                let mut folded = HashSet::new();
                for e in &got.files {
                    let joined = base.join(&e.path);
                    prop_assert!(joined.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::RootDir)), "{}", e.path);
                    prop_assert!(joined.starts_with(base));
                    prop_assert!(!e.path.contains(['\\', ':']));
                    prop_assert!(!crate::index::is_local_only(&e.path));
                    prop_assert!(folded.insert(names::fold(&e.path)));
                }
            }
        }
    }
}
