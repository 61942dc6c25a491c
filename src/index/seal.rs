//! Seals tsq's own journals: a journal that can move files (the swap's
//! `swap.json`) carries an HMAC-SHA256 under this install's key, a random
//! secret kept in the user's data directory (`$XDG_DATA_HOME/tsq/install-id`,
//! else `~/.local/share/tsq/install-id`; `%LOCALAPPDATA%\tsq\install-id` on
//! Windows), created on the first pull, private to the user (0600).
//!
//! Why: everything under `.tsq/` may come from a checkout, which can
//! commit a journal as easily as tsq writes one. The key never lives in
//! the workspace, so no checkout can bring it, and only this machine's tsq
//! can seal a journal its recovery will act on (`swap::recover`).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{io, IndexError};

const KEY_FILE: &str = "install-id";

/// This install's secret.
pub(super) struct Key([u8; 32]);

/// Where the key lives: only absolute directories count (a relative
/// `XDG_DATA_HOME` would name a place inside the current directory, which
/// may be the checkout).
fn key_path() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let dir = if cfg!(windows) {
        std::env::var_os("LOCALAPPDATA").and_then(absolute)
    } else {
        std::env::var_os("XDG_DATA_HOME").and_then(absolute).or_else(|| std::env::var_os("HOME").and_then(absolute).map(|h| h.join(".local/share")))
    };
    dir.map(|d| d.join("tsq").join(KEY_FILE))
}

impl Key {
    /// The install's key; `Err` says why there is none to trust (absent,
    /// unreadable, readable by others, malformed), for a refusal to quote.
    pub(super) fn load() -> Result<Key, String> {
        let path = key_path().ok_or("neither XDG_DATA_HOME nor HOME names an absolute directory for tsq's install key")?;
        Key::read(&path).map_err(|why| format!("{}: {why}", path.display()))
    }

    /// The install's key, created when there is none yet (a pull needs one
    /// to seal its swap journal).
    pub(super) fn load_or_create() -> Result<Key, IndexError> {
        let path = key_path().ok_or_else(|| IndexError::Io {
            path: "XDG_DATA_HOME".into(),
            message: "neither XDG_DATA_HOME nor HOME names an absolute directory; tsq keeps its install key (which seals its swap journals) there".into(),
        })?;
        if std::fs::symlink_metadata(&path).is_err() {
            create(&path)?;
        }
        Key::read(&path).map_err(|message| IndexError::Unsafe { path: path.display().to_string(), message })
    }

    fn read(path: &Path) -> Result<Key, String> {
        let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Another user who can read the key can seal journals too.
            if meta.permissions().mode() & 0o077 != 0 {
                return Err("can be read or written by other users; tsq trusts only a private key (`chmod 600` it, or remove it and pull again)".into());
            }
        }
        const MALFORMED: &str = "is not a tsq install key (remove it; the next pull creates one)";
        if !meta.is_file() || meta.len() > 1024 {
            return Err(MALFORMED.into());
        }
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        from_hex(text.trim()).map(Key).ok_or_else(|| MALFORMED.into())
    }

    /// The seal of `parts` (each length-prefixed, so no two lists of
    /// parts seal alike), in hex.
    pub(super) fn seal(&self, parts: &[&[u8]]) -> String {
        let mut message = Vec::new();
        for p in parts {
            message.extend_from_slice(&(p.len() as u64).to_le_bytes());
            message.extend_from_slice(p);
        }
        crate::ts::hex(&hmac_sha256(&self.0, &message))
    }

    /// Whether `seal` is the seal of `parts`, compared in constant time.
    pub(super) fn verifies(&self, parts: &[&[u8]], seal: &str) -> bool {
        let want = self.seal(parts);
        want.len() == seal.len() && want.bytes().zip(seal.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    #[cfg(test)]
    pub(super) fn for_tests(byte: u8) -> Key {
        Key([byte; 32])
    }
}

/// Creates the key file whole or not at all: written privately under a
/// name of its own, then hard-linked into place, which fails when another
/// process made one first (then that one is used).
fn create(path: &Path) -> Result<(), IndexError> {
    use std::io::Write;
    let parent = path.parent().unwrap_or(path);
    let mut dirs = std::fs::DirBuilder::new();
    dirs.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut dirs, 0o700);
    dirs.create(parent).map_err(|e| io(parent, e))?;
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| IndexError::Io { path: path.display().to_string(), message: format!("no system randomness: {e}") })?;
    let tmp = path.with_file_name(format!("{KEY_FILE}.{}-{}.tmp", std::process::id(), super::now_ms()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&tmp)
        .and_then(|mut f| f.write_all(format!("{}\n", crate::ts::hex(&secret)).as_bytes()).and_then(|()| f.sync_all()))
        .map_err(|e| io(&tmp, e))
        .and_then(|()| match std::fs::hard_link(&tmp, path) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(io(path, e)),
            _ => Ok(()),
        });
    let _ = std::fs::remove_file(&tmp);
    written
}

fn from_hex(text: &str) -> Option<[u8; 32]> {
    let digits = text.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in digits.chunks(2).enumerate() {
        out[i] = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}

/// HMAC-SHA256 (RFC 2104) over sha2, which the tree already has.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new().chain_update(pad(0x36)).chain_update(message).finalize();
    Sha256::new().chain_update(pad(0x5c)).chain_update(inner).finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2.
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(crate::ts::hex(&mac), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn a_seal_binds_every_part_and_the_key() {
        let (key, other) = (Key::for_tests(1), Key::for_tests(2));
        let seal = key.seal(&[b"a", b"bc"]);
        assert!(key.verifies(&[b"a", b"bc"], &seal));
        assert!(!key.verifies(&[b"ab", b"c"], &seal));
        assert!(!other.verifies(&[b"a", b"bc"], &seal));
        assert!(!key.verifies(&[b"a", b"bc"], ""));
    }
}
