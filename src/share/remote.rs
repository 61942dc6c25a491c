//! A shared index's remote: `s3://bucket/prefix` (S3 and S3-compatible
//! stores, through a custom endpoint) or `file:///path`, opened with
//! LanceDB's own object-store layer (`lance_io`, over `object_store`):
//! credentials, endpoint and region come from the standard AWS
//! environment and config chain (`AWS_ACCESS_KEY_ID`, `AWS_PROFILE`,
//! `AWS_ENDPOINT_URL`, `AWS_REGION`, …), never from tsq's flags or files.
//! Writes that must not replace anything use the store's conditional
//! create (`If-None-Match: *` on S3), as Lance's own commits do.

use std::sync::Arc;

use lance_io::object_store::{ObjectStore, ObjectStoreParams, ObjectStoreRegistry};
use object_store::path::Path;
use object_store::{ObjectStoreExt, PutPayload};

use super::ShareError;

/// An opened remote, with the URL it was opened from (for messages).
pub struct Remote {
    url: String,
    store: Arc<ObjectStore>,
    base: Path,
}

/// What a conditional create did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Created {
    /// The object is new.
    Written,
    /// Another writer had created it first; nothing was replaced.
    Existed,
}

impl Remote {
    /// Opens `url`; only `s3://` and absolute `file://` URLs are taken.
    pub async fn open(url: &str) -> Result<Remote, ShareError> {
        let bad = |why: &str| ShareError::Url { url: url.to_string(), message: why.to_string() };
        if let Some(rest) = url.strip_prefix("s3://") {
            if rest.split('/').next().unwrap_or("").is_empty() {
                return Err(bad("no bucket: write s3://bucket/prefix"));
            }
        } else if let Some(rest) = url.strip_prefix("file://") {
            if !rest.starts_with('/') {
                return Err(bad("a file:// URL needs an absolute path: file:///path/to/dir"));
            }
        } else {
            return Err(bad(
                "unsupported scheme: use s3://bucket/prefix (S3 or an S3-compatible store, AWS_ENDPOINT_URL for a custom endpoint) or file:///absolute/path",
            ));
        }
        let url = url.trim_end_matches('/').to_string();
        let registry = Arc::new(ObjectStoreRegistry::default());
        let (store, base) = ObjectStore::from_uri_and_params(registry, &url, &ObjectStoreParams::default())
            .await
            .map_err(|e| ShareError::Remote { url: url.clone(), message: e.to_string() })?;
        Ok(Remote { url, store, base })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    fn path(&self, rel: &str) -> Path {
        rel.split('/').filter(|p| !p.is_empty()).fold(self.base.clone(), |p, part| p.join(part))
    }

    fn error(&self, rel: &str, e: impl std::fmt::Display) -> ShareError {
        ShareError::Remote { url: format!("{}/{rel}", self.url), message: e.to_string() }
    }

    pub async fn exists(&self, rel: &str) -> Result<bool, ShareError> {
        self.store.exists(&self.path(rel)).await.map_err(|e| self.error(rel, e))
    }

    /// The object's bytes; `None` when it does not exist.
    pub async fn get(&self, rel: &str) -> Result<Option<Vec<u8>>, ShareError> {
        if !self.exists(rel).await? {
            return Ok(None);
        }
        let bytes = self.store.read_one_all(&self.path(rel)).await.map_err(|e| self.error(rel, e))?;
        Ok(Some(bytes.to_vec()))
    }

    /// The object's bytes if it is at most `cap` bytes; `None` when it does
    /// not exist. The size is read first, so an oversized object is never
    /// downloaded.
    pub(crate) async fn get_capped(&self, rel: &str, cap: u64) -> Result<Option<Vec<u8>>, ShareError> {
        let path = self.path(rel);
        let size = match self.store.inner.head(&path).await {
            Ok(meta) => meta.size,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.error(rel, e)),
        };
        if size > cap {
            return Err(ShareError::Refused { url: format!("{}/{rel}", self.url), message: format!("{size} bytes, over the {cap}-byte cap") });
        }
        self.get(rel).await
    }

    /// Streams the object into the file `out`, hashing as it comes, and
    /// stops as soon as it passes `cap` bytes: memory stays bounded by one
    /// network chunk whatever the object's size. Answers the sha256 (hex)
    /// and the byte count; `None` when the object does not exist.
    pub async fn download(&self, rel: &str, out: &std::path::Path, cap: u64) -> Result<Option<(String, u64)>, ShareError> {
        use futures::StreamExt;
        use sha2::Digest;
        use std::io::Write;
        let got = match self.store.inner.get(&self.path(rel)).await {
            Ok(g) => g,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.error(rel, e)),
        };
        let io = |e: std::io::Error| ShareError::Io { path: out.display().to_string(), message: e.to_string() };
        let mut file = std::fs::File::create(out).map_err(io)?;
        let mut hash = sha2::Sha256::new();
        let mut total = 0u64;
        let mut stream = got.into_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| self.error(rel, e))?;
            total += chunk.len() as u64;
            if total > cap {
                drop(file);
                let _ = std::fs::remove_file(out);
                return Err(ShareError::Refused { url: format!("{}/{rel}", self.url), message: format!("longer than the {cap} bytes the manifest lists") });
            }
            hash.update(&chunk);
            file.write_all(&chunk).map_err(io)?;
        }
        file.sync_all().map_err(io)?;
        Ok(Some((crate::ts::hex(&hash.finalize()), total)))
    }

    /// Creates the object unless it exists (a conditional write: two
    /// writers never replace each other's object).
    pub(crate) async fn put_if_absent(&self, rel: &str, bytes: Vec<u8>) -> Result<Created, ShareError> {
        match self.store.put_if_absent(&self.path(rel), PutPayload::from(bytes)).await {
            Ok(()) => Ok(Created::Written),
            Err(object_store::Error::AlreadyExists { .. }) | Err(object_store::Error::Precondition { .. }) => Ok(Created::Existed),
            Err(e) => Err(self.error(rel, e)),
        }
    }

    /// Writes the object, replacing it (tests' tampering; `publish` never
    /// replaces).
    pub async fn put(&self, rel: &str, bytes: &[u8]) -> Result<(), ShareError> {
        self.store.put(&self.path(rel), bytes).await.map(|_| ()).map_err(|e| self.error(rel, e))
    }
}
