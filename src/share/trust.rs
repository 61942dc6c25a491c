//! The share keys and stores this user trusts (`tsq trust`), kept in the
//! user's config directory (`$XDG_CONFIG_HOME/tsq/trusted.json`, else
//! `~/.config/tsq/trusted.json`; `%APPDATA%\tsq\trusted.json` on Windows),
//! never in a workspace.
//!
//! Why: a checkout's `tsq.toml` is the checkout author's word. A
//! `[share] publicKey` it names would let a hostile repository vouch for
//! its own forged index, and a `[share] from` would let it choose what
//! `tsq serve` pulls on start. Both count only once the user trusts them
//! here (or sets `TSQ_SHARE_PUBLIC_KEY` / `TSQ_SHARE_FROM` themselves):
//! `config::Settings` resolves which values count.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::ShareError;

const FILE: &str = "trusted.json";
/// A trust file larger than this is not one tsq wrote.
const MAX_BYTES: u64 = 1 << 20;

/// What the user trusts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Trusted {
    /// Ed25519 public keys (hex, lower case) whose signatures verify.
    #[serde(default)]
    pub public_keys: Vec<String>,
    /// Stores (`s3://…`, `file:///…`) `tsq serve` may pull on start.
    #[serde(default)]
    pub stores: Vec<String>,
}

fn normal_key(k: &str) -> String {
    k.trim().to_ascii_lowercase()
}

fn normal_store(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

impl Trusted {
    pub fn key(&self, public_key: &str) -> bool {
        let k = normal_key(public_key);
        self.public_keys.contains(&k)
    }

    pub fn store(&self, url: &str) -> bool {
        let u = normal_store(url);
        self.stores.contains(&u)
    }
}

/// Where the trust file lives; only absolute directories count (a
/// relative one would name a place inside the current directory, which
/// may be the checkout).
pub fn path() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let dir = if cfg!(windows) {
        std::env::var_os("APPDATA").and_then(absolute)
    } else {
        std::env::var_os("XDG_CONFIG_HOME").and_then(absolute).or_else(|| std::env::var_os("HOME").and_then(absolute).map(|h| h.join(".config")))
    };
    dir.map(|d| d.join("tsq").join(FILE))
}

/// What the user trusts: nothing when there is no trust file. A file
/// that others may write, or that is not one tsq wrote, counts for
/// nothing, with a warning on stderr that says what to do.
pub fn load() -> Trusted {
    let Some(path) = path() else { return Trusted::default() };
    match read(&path) {
        Ok(t) => t,
        Err(why) => {
            tracing::warn!("{}: {why}; trusting no share key or store from it", path.display());
            Trusted::default()
        }
    }
}

fn read(path: &std::path::Path) -> Result<Trusted, String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Trusted::default()),
        Err(e) => return Err(e.to_string()),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o022 != 0 {
            return Err("can be written by other users (`chmod 600` it)".into());
        }
    }
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return Err("is not a tsq trust file (remove it; `tsq trust` writes a new one)".into());
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("is not a tsq trust file ({e}; remove it, `tsq trust` writes a new one)"))
}

/// Adds `public_key` and `store` (either may be absent) to the trust
/// file, created private (0600 in a 0700 directory); returns its path and
/// what it now holds.
pub fn record(public_key: Option<&str>, store: Option<&str>) -> Result<(PathBuf, Trusted), ShareError> {
    let path = path().ok_or_else(|| {
        ShareError::Config("neither XDG_CONFIG_HOME nor HOME names an absolute directory; tsq keeps the keys and stores you trust there".into())
    })?;
    let mut trusted = read(&path).map_err(|why| ShareError::Config(format!("{}: {why}", path.display())))?;
    if let Some(k) = public_key {
        super::sign::public_key(k).map_err(|e| ShareError::Config(format!("publicKey: {e}")))?;
        if !trusted.key(k) {
            trusted.public_keys.push(normal_key(k));
        }
    }
    if let Some(u) = store {
        if !(u.starts_with("s3://") || u.starts_with("file:///")) {
            return Err(ShareError::Url { url: u.to_string(), message: "a store is s3://bucket/prefix or file:///absolute/path".into() });
        }
        if !trusted.store(u) {
            trusted.stores.push(normal_store(u));
        }
    }
    let dir = path.parent().expect("the trust file has a directory");
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| ShareError::Config(format!("{}: {e}", dir.display())))?;
    write_private(&path, &serde_json::to_vec_pretty(&trusted).unwrap_or_default())?;
    Ok((path, trusted))
}

/// Writes `bytes` to `path` whole (a private temporary file renamed over it).
fn write_private(path: &std::path::Path, bytes: &[u8]) -> Result<(), ShareError> {
    use std::io::Write;
    let tmp = path.with_file_name(format!("{FILE}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| ShareError::Config(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_stores_compare_as_written_by_hand() {
        let t = Trusted { public_keys: vec![normal_key(" ABcd ")], stores: vec![normal_store("s3://team/tsq/")] };
        assert!(t.key("abcd") && t.key("ABCD\n") && !t.key("abce"));
        assert!(t.store("s3://team/tsq") && t.store("s3://team/tsq/") && !t.store("s3://team/other"));
    }
}
