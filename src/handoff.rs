//! The warm hand-off: a `tsq search`, `tsq lookup` or `tsq impact` run
//! while a `tsq serve` holds the same workspace is answered by that
//! server's warm engine (its programs built, its lib files bound), and the
//! command prints exactly what it would have printed itself
//! (`api::printed`). Anything else (no server, another build or
//! environment, a server that declines or dies) answers in the process.
//!
//! Trust: the socket lives in a directory of the user's own
//! (`$XDG_RUNTIME_DIR/tsq`, else `<tmp>/tsq-<uid>`), created 0700 and
//! refused unless it is a real directory the user owns that nobody else
//! may enter; its name is a hash of the canonical root, so nothing in a
//! checkout decides where tsq connects or listens. The server also checks
//! that the peer runs as the same user. The checkout's `.tsq` is never
//! used: a socket there would be the checkout's to plant.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::api::printed::{self, Format, Printed};
use crate::api::{Engine, QueryInput};
use crate::impact::ImpactRequest;

/// The longest call a server reads, in bytes.
const MAX_CALL_BYTES: u64 = 1 << 20;
/// The longest reply a client reads, in bytes.
const MAX_REPLY_BYTES: u64 = 256 << 20;

/// What a command asks the server to answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Work {
    /// `tsq search` / `tsq lookup`. `complete`: the command would have
    /// indexed every file first (a search without `--no-wait`), so an
    /// answer from a partly built index is declined.
    Query { input: Box<QueryInput>, format: Format, complete: bool },
    /// `tsq impact`.
    Impact { request: ImpactRequest, json: bool },
}

/// One call: who asks (`ticket`), on which root, for what.
#[derive(Debug, Serialize, Deserialize)]
pub struct Call {
    pub ticket: String,
    pub root: PathBuf,
    pub work: Work,
}

/// The server's answer: what the command prints, or why it answers
/// itself instead.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Reply {
    Printed(Printed),
    Declined(String),
}

/// Answers one call on the server's engine as the command would answer
/// itself (`api::printed`); a search that would have waited for the whole
/// index is declined while the index is still being built.
pub fn answer(engine: &Engine, work: Work) -> Reply {
    let progress = crate::progress::silent();
    let printed = match work {
        Work::Query { input, format, complete } => {
            let printed = printed::query(engine, *input, format, &progress);
            if complete && engine.parse_pending() > 0 {
                return Reply::Declined("the index is still being built, and the command waits for all of it".into());
            }
            printed
        }
        Work::Impact { request, json } => printed::impact(engine, &request, json, &progress),
    };
    Reply::Printed(printed.unwrap_or_else(|e| Printed::failed(&e)))
}

/// Who may be answered for whom: the same tsq build (version, engine,
/// executable) in the same environment (every `TSQ_*` setting but the log
/// level, the Voyage key, the user's config home), since settings come
/// from the environment of the process that resolves them. Hashed: the
/// key is never sent.
pub fn ticket() -> &'static str {
    use sha2::Digest;
    static TICKET: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TICKET.get_or_init(|| {
        let mut h = sha2::Sha256::new();
        let mut part = |s: &str| {
            h.update(s.as_bytes());
            h.update([0]);
        };
        part(env!("CARGO_PKG_VERSION"));
        part(tsq_engine::engine_fingerprint());
        if let Ok(exe) = std::env::current_exe() {
            part(&exe.display().to_string());
            if let Ok(m) = std::fs::metadata(&exe) {
                let modified = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
                part(&format!("{}:{modified}", m.len()));
            }
        }
        let mut vars: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
            .filter(|(k, _)| (k.starts_with("TSQ_") && k != "TSQ_LOG") || k == "VOYAGE_API_KEY" || k == "HOME" || k == "XDG_CONFIG_HOME")
            .collect();
        vars.sort();
        for (k, v) in vars {
            part(&k);
            part(&v);
        }
        tsq_engine::hex(&h.finalize())
    })
}

/// The socket of `root`'s server (canonical root), or `None` when no
/// private directory can hold it.
#[cfg(unix)]
fn socket_path(root: &Path) -> Option<PathBuf> {
    use sha2::Digest;
    let dir = private_dir()?;
    let name = tsq_engine::hex(&sha2::Sha256::digest(root.as_os_str().as_encoded_bytes()));
    Some(dir.join(format!("{}.sock", &name[..32])))
}

/// `$XDG_RUNTIME_DIR/tsq`, else `<tmp>/tsq-<uid>`: made 0700, and used
/// only if it is a directory (not a link) the user owns and nobody else
/// may enter.
#[cfg(unix)]
fn private_dir() -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_absolute() && d.is_dir()) {
        Some(runtime) => runtime.join("tsq"),
        None => std::env::temp_dir().join(format!("tsq-{uid}")),
    };
    if let Err(e) = std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            tracing::debug!("warm hand-off off: {}: {e}", dir.display());
            return None;
        }
    }
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    if !meta.file_type().is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        tracing::warn!("warm hand-off off: {} is not a private directory of this user (a link, another owner, or open to others); remove it", dir.display());
        return None;
    }
    Some(dir)
}

/// Asks a `tsq serve` on `root` to answer; `None` (answer here) when no
/// server listens or it declines, with the reason in the debug log.
#[cfg(unix)]
pub fn call(root: &Path, work: Work) -> Option<Printed> {
    use std::io::{Read, Write};
    let root = root.canonicalize().ok()?;
    let path = socket_path(&root)?;
    let mut stream = std::os::unix::net::UnixStream::connect(&path).ok()?;
    let call = Call { ticket: ticket().to_string(), root, work };
    let sent = serde_json::to_writer(&mut stream, &call).map_err(std::io::Error::from).and_then(|()| {
        stream.write_all(b"\n")?;
        stream.shutdown(std::net::Shutdown::Write)
    });
    if let Err(e) = sent {
        tracing::debug!("warm hand-off: sending to {}: {e}; answering here", path.display());
        return None;
    }
    let mut bytes = Vec::new();
    if let Err(e) = stream.take(MAX_REPLY_BYTES).read_to_end(&mut bytes) {
        tracing::debug!("warm hand-off: reading from {}: {e}; answering here", path.display());
        return None;
    }
    match serde_json::from_slice::<Reply>(&bytes) {
        Ok(Reply::Printed(p)) => {
            tracing::debug!("answered by the tsq serve at {}", path.display());
            Some(p)
        }
        Ok(Reply::Declined(why)) => {
            tracing::debug!("warm hand-off declined: {why}; answering here");
            None
        }
        // A server that died mid-answer closes the socket early.
        Err(e) => {
            tracing::debug!("warm hand-off: no reply ({e}); answering here");
            None
        }
    }
}

#[cfg(not(unix))]
pub fn call(_root: &Path, _work: Work) -> Option<Printed> {
    None
}

/// A bound socket; `serve` answers on it until the process ends.
pub struct Listener {
    #[cfg(unix)]
    inner: tokio::net::UnixListener,
    path: PathBuf,
}

/// Listens for `root`'s commands, unless another live server does (the
/// first one keeps them). A socket left by a server that died is
/// replaced. Must run inside a tokio runtime.
#[cfg(unix)]
pub fn bind(root: &Path) -> Option<Listener> {
    use std::os::unix::fs::FileTypeExt;
    // Now, while the executable is the one running: a rebuild later must
    // not lend this process the new build's ticket.
    ticket();
    let path = socket_path(root)?;
    if let Ok(meta) = std::fs::symlink_metadata(&path) {
        if std::os::unix::net::UnixStream::connect(&path).is_ok() {
            tracing::info!("another tsq serve answers the CLI on this workspace; this one answers MCP only");
            return None;
        }
        if !meta.file_type().is_socket() {
            tracing::warn!("warm hand-off off: {} is not a socket; remove it", path.display());
            return None;
        }
        let _ = std::fs::remove_file(&path);
    }
    match tokio::net::UnixListener::bind(&path) {
        Ok(inner) => Some(Listener { inner, path }),
        Err(e) => {
            tracing::warn!("warm hand-off off: binding {}: {e}", path.display());
            None
        }
    }
}

#[cfg(not(unix))]
pub fn bind(_root: &Path) -> Option<Listener> {
    None
}

impl Listener {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Answers each connection with `answer` (one call, one reply), on
    /// its own task, until the process ends. Calls from another user,
    /// another build or environment, or for another root are declined.
    #[cfg(unix)]
    pub async fn serve<F, Fut>(self, root: PathBuf, answer: F)
    where
        F: Fn(Work) -> Fut + Clone + Send + Sync + 'static,
        Fut: std::future::Future<Output = Reply> + Send,
    {
        loop {
            let stream = match self.inner.accept().await {
                Ok((s, _)) => s,
                Err(e) => {
                    tracing::warn!("warm hand-off: accept: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            let (answer, root) = (answer.clone(), root.clone());
            tokio::spawn(async move {
                if let Err(e) = reply_to(stream, &root, answer).await {
                    tracing::debug!("warm hand-off: {e}");
                }
            });
        }
    }

    #[cfg(not(unix))]
    pub async fn serve<F, Fut>(self, _root: PathBuf, _answer: F)
    where
        F: Fn(Work) -> Fut + Clone + Send + Sync + 'static,
        Fut: std::future::Future<Output = Reply> + Send,
    {
    }

    /// Removes the socket (at the server's exit).
    pub fn remove(path: &Path) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(unix)]
async fn reply_to<F, Fut>(stream: tokio::net::UnixStream, root: &Path, answer: F) -> std::io::Result<()>
where
    F: Fn(Work) -> Fut,
    Fut: std::future::Future<Output = Reply>,
{
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    if stream.peer_cred()?.uid() != uid {
        return Err(std::io::Error::other("a call from another user, dropped"));
    }
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    tokio::io::BufReader::new(read.take(MAX_CALL_BYTES)).read_line(&mut line).await?;
    let reply = match serde_json::from_str::<Call>(&line) {
        Err(e) => Reply::Declined(format!("unreadable call: {e}")),
        Ok(call) if call.ticket != ticket() => Reply::Declined("another tsq build or environment (TSQ_* settings, key, config home)".into()),
        Ok(call) if call.root != root => Reply::Declined(format!("this server answers for {}", root.display())),
        Ok(call) => answer(call.work).await,
    };
    let mut bytes = serde_json::to_vec(&reply).map_err(std::io::Error::from)?;
    bytes.push(b'\n');
    write.write_all(&bytes).await?;
    write.shutdown().await
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_socket_is_named_by_the_root_alone_in_a_private_directory() {
        let a = socket_path(Path::new("/work/a")).expect("a private directory");
        let b = socket_path(Path::new("/work/b")).expect("a private directory");
        assert_ne!(a, b);
        assert_eq!(a, socket_path(Path::new("/work/a")).unwrap());
        assert!(a.as_os_str().len() < 100, "{} fits a socket address", a.display());
        use std::os::unix::fs::MetadataExt;
        let mode = std::fs::symlink_metadata(a.parent().unwrap()).unwrap().mode();
        assert_eq!(mode & 0o077, 0, "nobody else may enter {}", a.parent().unwrap().display());
    }
}
