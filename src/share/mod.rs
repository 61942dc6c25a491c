//! The shared team index: CI publishes the index of a clean checkout once
//! per commit (`tsq publish --to <url>`), and every clone or sandbox pulls
//! the nearest published ancestor's (`tsq index --from <url>`, or
//! `[share] from` in tsq.toml for `tsq serve`), then syncs locally as
//! usual: only files whose content differs are re-indexed.
//!
//! The remote layout (under `s3://bucket/prefix` or `file:///dir`):
//! - `objects/<sha256>`: the index's files, stored by content. Lance data
//!   files are immutable, so a commit's index shares most objects with
//!   its parent's, a publish uploads only objects not there yet, and a
//!   pull downloads only files the local index lacks;
//! - `indexes/<scope>/<commit>.json`: the manifest (`manifest::Manifest`),
//!   written last and only if absent, so a reader never sees a partial
//!   index and two publishers never replace each other's. The scope is
//!   the `Key` (schema, TypeScript, embedder).
//!
//! A pull verifies the manifest (size, key, commit, paths, the Ed25519
//! signature when a public key is configured: `sign`) and every
//! downloaded byte (sha256, streamed to disk) before the index directory
//! is touched; then the caller checks the staged chunks against the
//! checkout (`index::verify_pull`) and swaps (`index::install_pulled`).

mod git;
pub mod manifest;
pub mod remote;
pub mod sign;
pub mod trust;

use std::path::{Path, PathBuf};

use futures::{StreamExt, TryStreamExt};
use serde::Serialize;
use sha2::Digest;

pub use git::{ancestors, dirty, head};
pub use manifest::Key;
pub(crate) use manifest::{Manifest, Trust};
pub use remote::Remote;

use crate::progress::Progress;

#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    #[error("{url}: {message}")]
    Url { url: String, message: String },
    #[error("{url}: {message}")]
    Remote { url: String, message: String },
    #[error("refused the published index {url}: {message}")]
    Refused { url: String, message: String },
    #[error("{0}")]
    Git(String),
    #[error("the checkout differs from HEAD in {count} paths (first: {first}): publish from a clean checkout, so that the index is the commit's")]
    Dirty { count: usize, first: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{0}")]
    Config(String),
}

fn io(path: &Path, e: std::io::Error) -> ShareError {
    ShareError::Io { path: path.display().to_string(), message: e.to_string() }
}

/// How far back a pull looks for a published ancestor.
pub(crate) const MAX_ANCESTORS: usize = 100;
/// Objects moved at once.
const PARALLEL: usize = 8;

/// Sharing settings, built once at the edge.
#[derive(Clone)]
pub struct ShareConfig {
    /// `TSQ_SHARE_SIGNING_KEY` (CI only): publishes are signed with it.
    /// Never printed.
    pub signing_key: Option<ed25519_dalek::SigningKey>,
    /// `[share] publicKey` / `TSQ_SHARE_PUBLIC_KEY`: pulls refuse indexes
    /// it did not sign; without it they are taken and reported unsigned.
    pub public_key: Option<ed25519_dalek::VerifyingKey>,
    pub max_ancestors: usize,
    /// The most a pulled index may hold in all (`TSQ_SHARE_MAX_BYTES`):
    /// a store cannot fill the disk with an index of many files each
    /// under the per-file cap.
    pub max_total_bytes: u64,
}

/// `max_total_bytes` unless `TSQ_SHARE_MAX_BYTES` says otherwise.
pub(crate) const MAX_TOTAL_BYTES: u64 = 8 << 30;

impl ShareConfig {
    /// From the environment (the signing key) and the settings (the public
    /// key). The retired HMAC key is an error that says what replaced it.
    pub fn new(public_key: Option<&str>) -> Result<ShareConfig, ShareError> {
        let bad = |message: String| ShareError::Config(message);
        if std::env::var(sign::RETIRED_KEY_VAR).is_ok_and(|k| !k.is_empty()) {
            return Err(bad(format!(
                "{} (an HMAC key) is no longer read: a key that verifies could also forge. Make a key pair with `tsq publish --keygen`; CI signs with {} and readers verify with [share] publicKey or TSQ_SHARE_PUBLIC_KEY",
                sign::RETIRED_KEY_VAR,
                sign::SIGNING_KEY_VAR
            )));
        }
        let signing_key = match std::env::var(sign::SIGNING_KEY_VAR).ok().filter(|k| !k.trim().is_empty()) {
            Some(k) => Some(sign::signing_key(&k).map_err(bad)?),
            None => None,
        };
        let public_key = match public_key {
            Some(k) => Some(sign::public_key(k).map_err(|e| bad(format!("share.publicKey: {e}")))?),
            None => None,
        };
        let max_total_bytes = match std::env::var("TSQ_SHARE_MAX_BYTES").ok().filter(|v| !v.trim().is_empty()) {
            Some(v) => v.trim().parse().map_err(|e| bad(format!("TSQ_SHARE_MAX_BYTES: `{v}`: {e} (a number of bytes)")))?,
            None => MAX_TOTAL_BYTES,
        };
        Ok(ShareConfig { signing_key, public_key, max_ancestors: MAX_ANCESTORS, max_total_bytes })
    }
}

impl std::fmt::Debug for ShareConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShareConfig")
            .field("signing_key", &self.signing_key.as_ref().map(|_| "<set>"))
            .field("public_key", &self.public_key.as_ref().map(|k| crate::ts::hex(k.as_bytes())))
            .field("max_ancestors", &self.max_ancestors)
            .field("max_total_bytes", &self.max_total_bytes)
            .finish()
    }
}

fn manifest_path(key: &Key, commit: &str) -> String {
    format!("indexes/{}/{commit}.json", key.scope())
}

fn object_path(sha: &str) -> String {
    format!("objects/{sha}")
}

/// The AWS SDK brings rustls' aws-lc-rs provider beside the ring one that
/// reqwest uses; with two and no process default, rustls cannot choose
/// and panics. tsq uses ring, installed once before any TLS client.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn runtime() -> Result<tokio::runtime::Runtime, ShareError> {
    install_crypto_provider();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ShareError::Io { path: "tokio".into(), message: e.to_string() })
}

/// `tsq publish`'s report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishReport {
    pub url: String,
    pub commit: String,
    pub key: Key,
    pub files: usize,
    pub bytes: u64,
    /// Objects uploaded (the rest were there already).
    pub uploaded: usize,
    pub uploaded_bytes: u64,
    /// Another publisher had published this commit first; its manifest is
    /// kept (and was verified).
    pub already_published: bool,
    pub signed: bool,
    pub ms: u64,
}

/// Uploads the index files `files` (relative to `dir`, the index
/// directory, which the caller keeps from changing) as `commit`'s.
pub fn publish(
    url: &str,
    commit: &str,
    key: &Key,
    dir: &Path,
    files: &[String],
    config: &ShareConfig,
    progress: &dyn Progress,
) -> Result<PublishReport, ShareError> {
    let started = std::time::Instant::now();
    runtime()?.block_on(async {
        let remote = Remote::open(url).await?;
        let done = std::sync::atomic::AtomicU64::new(0);
        let total = files.len() as u64;
        let entries: Vec<(manifest::Entry, Option<u64>)> = futures::stream::iter(files.iter().map(|rel| {
            let remote = &remote;
            let done = &done;
            async move {
                let path = dir.join(rel);
                let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
                let sha = crate::ts::sha256_hex(&bytes);
                let size = bytes.len() as u64;
                let object = object_path(&sha);
                let uploaded = if remote.exists(&object).await? {
                    None
                } else {
                    match remote.put_if_absent(&object, bytes).await? {
                        remote::Created::Written => Some(size),
                        remote::Created::Existed => None,
                    }
                };
                progress.update("publishing the index", done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
                Ok::<_, ShareError>((manifest::Entry { path: rel.clone(), size, sha256: sha }, uploaded))
            }
        }))
        .buffer_unordered(PARALLEL)
        .try_collect()
        .await?;
        let mut report = PublishReport {
            url: remote.url().to_string(),
            commit: commit.to_string(),
            key: key.clone(),
            files: entries.len(),
            bytes: entries.iter().map(|(e, _)| e.size).sum(),
            uploaded: entries.iter().filter(|(_, u)| u.is_some()).count(),
            uploaded_bytes: entries.iter().filter_map(|(_, u)| *u).sum(),
            already_published: false,
            signed: config.signing_key.is_some(),
            ms: 0,
        };
        let mut files: Vec<manifest::Entry> = entries.into_iter().map(|(e, _)| e).collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut m = Manifest {
            format: manifest::FORMAT,
            commit: commit.to_string(),
            key: key.clone(),
            tsq_version: env!("CARGO_PKG_VERSION").to_string(),
            created_ms: crate::index::now_ms(),
            files,
            signature: None,
        };
        if let Some(k) = &config.signing_key {
            m.sign(k);
        }
        // The manifest last, and only if absent: readers see the whole
        // index or none of it, and a second publisher keeps the first's.
        let at = manifest_path(key, commit);
        if remote.put_if_absent(&at, m.to_json()).await? == remote::Created::Existed {
            let theirs = remote.get_capped(&at, manifest::MAX_MANIFEST_BYTES).await?.unwrap_or_default();
            let ours = config.signing_key.as_ref().map(|k| k.verifying_key()).or(config.public_key);
            Manifest::verify(&theirs, &format!("{}/{at}", remote.url()), commit, key, ours.as_ref())?;
            report.already_published = true;
        }
        report.ms = started.elapsed().as_millis() as u64;
        Ok(report)
    })
}

/// What a pull found and brought.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pulled {
    pub url: String,
    /// The commit whose index was pulled: HEAD's, or the nearest
    /// published ancestor's.
    pub commit: String,
    pub head: String,
    pub files: usize,
    /// Files downloaded, and their bytes; the rest were already local.
    pub downloaded: usize,
    pub bytes_pulled: u64,
    pub reused: usize,
    /// `verified` (signed, and the configured public key agrees) or
    /// `unsigned` (no public key configured: nothing was checked).
    pub trust: Trust,
    pub ms: u64,
    /// The files already local with the right content (staged as links).
    #[serde(skip)]
    pub local: Vec<String>,
}

/// Finds the published index of the nearest of `candidates` (HEAD first),
/// verifies it and downloads what `dir` lacks into `staging`; `None` when
/// none of them is published under `key`. Nothing in `dir` is changed: the
/// caller stages the local files the pull reuses (`Pulled::local`),
/// checks and installs (`index::install_pulled`).
pub fn fetch(
    url: &str,
    candidates: &[String],
    key: &Key,
    dir: &Path,
    staging: &Path,
    config: &ShareConfig,
    progress: &dyn Progress,
) -> Result<Option<Pulled>, ShareError> {
    let started = std::time::Instant::now();
    let head = candidates.first().cloned().unwrap_or_default();
    runtime()?.block_on(async {
        let remote = Remote::open(url).await?;
        let mut found = None;
        for commit in candidates.iter().take(config.max_ancestors) {
            let at = manifest_path(key, commit);
            if let Some(bytes) = remote.get_capped(&at, manifest::MAX_MANIFEST_BYTES).await? {
                found = Some((commit.clone(), Manifest::verify(&bytes, &format!("{}/{at}", remote.url()), commit, key, config.public_key.as_ref())?));
                break;
            }
        }
        let Some((commit, (m, trust))) = found else { return Ok(None) };
        let total: u64 = m.files.iter().map(|e| e.size).sum();
        if total > config.max_total_bytes {
            return Err(ShareError::Refused {
                url: remote.url().to_string(),
                message: format!(
                    "it holds {total} bytes, over the pull cap of {} bytes (set TSQ_SHARE_MAX_BYTES to raise it if the store is yours)",
                    config.max_total_bytes
                ),
            });
        }
        let _ = std::fs::remove_dir_all(staging);
        std::fs::create_dir_all(staging).map_err(|e| io(staging, e))?;
        let done = std::sync::atomic::AtomicU64::new(0);
        let total = m.files.len() as u64;
        let results: Vec<(&str, Option<u64>)> = futures::stream::iter(m.files.iter().map(|e| {
            let remote = &remote;
            let done = &done;
            async move {
                let fetched = fetch_one(remote, e, dir, staging).await;
                progress.update("pulling the index", done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
                if fetched.as_ref().is_ok_and(|f| f.is_some()) {
                    crate::index::crash_point("download");
                }
                // Completion order, not the manifest's: each result names its file.
                fetched.map(|f| (e.path.as_str(), f))
            }
        }))
        .buffer_unordered(PARALLEL)
        .try_collect()
        .await
        .inspect_err(|_| {
            let _ = std::fs::remove_dir_all(staging);
        })?;
        let local = results.iter().filter(|(_, r)| r.is_none()).map(|(p, _)| p.to_string()).collect();
        Ok(Some(Pulled {
            url: remote.url().to_string(),
            commit,
            head,
            files: m.files.len(),
            downloaded: results.iter().filter(|(_, r)| r.is_some()).count(),
            bytes_pulled: results.iter().filter_map(|(_, r)| *r).sum(),
            reused: results.iter().filter(|(_, r)| r.is_none()).count(),
            trust,
            ms: started.elapsed().as_millis() as u64,
            local,
        }))
    })
}

/// One file: kept when the local copy already has its hash (`None`), else
/// streamed into `staging`, hashed as it comes, and checked (its size).
async fn fetch_one(remote: &Remote, e: &manifest::Entry, dir: &Path, staging: &Path) -> Result<Option<u64>, ShareError> {
    let local = dir.join(&e.path);
    if std::fs::symlink_metadata(&local).is_ok_and(|m| m.is_file() && m.len() == e.size) && file_sha256(&local).is_ok_and(|h| h == e.sha256) {
        return Ok(None);
    }
    let object = object_path(&e.sha256);
    let where_ = format!("{}/{object}", remote.url());
    let out: PathBuf = staging.join(&e.path);
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).map_err(|err| io(parent, err))?;
    }
    let (got, size) = remote
        .download(&object, &out, e.size)
        .await?
        .ok_or_else(|| ShareError::Refused { url: where_.clone(), message: format!("missing: the manifest lists it for {}", e.path) })?;
    if got != e.sha256 || size != e.size {
        let _ = std::fs::remove_file(&out);
        return Err(ShareError::Refused {
            url: where_,
            message: format!(
                "its content does not match the manifest (sha256 {got}, {size} bytes; expected {}, {} bytes): tampered or damaged",
                e.sha256, e.size
            ),
        });
    }
    Ok(Some(e.size))
}

/// A file's sha256 (hex), read in blocks.
fn file_sha256(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(crate::ts::hex(&h.finalize()));
        }
        h.update(&buf[..n]);
    }
}
