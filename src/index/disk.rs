//! The index directory on disk, apart from its tables: creating it (with
//! a `.gitignore` and a write probe), `meta.json`, whole-or-absent writes,
//! clearing the tables for a rebuild, its size, and `tsq clean`.

use std::path::{Path, PathBuf};

use super::{index_dir, io, lock, store, sync, IndexError, Meta};

/// Removes the index of `root`.
pub fn clean(root: &Path) -> Result<bool, IndexError> {
    let dir = index_dir(root);
    if !dir.exists() {
        return Ok(false);
    }
    let _lock = lock::acquire(&dir).map_err(|e| io(&dir, e))?;
    std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
    Ok(true)
}

pub(super) fn prepare_dir(dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n")?;
    }
    // Probe that it is writable (create_dir_all succeeds on an existing dir).
    let probe = dir.join(".write-probe");
    std::fs::write(&probe, b"")?;
    let _ = std::fs::remove_file(probe);
    Ok(dir.to_path_buf())
}

pub(super) fn clear_tables(dir: &Path) -> Result<(), IndexError> {
    for name in store::TABLES {
        let p = dir.join(format!("{name}.lance"));
        if p.exists() {
            std::fs::remove_dir_all(&p).map_err(|e| io(&p, e))?;
        }
    }
    let _ = std::fs::remove_file(dir.join(sync::JOURNAL));
    let _ = std::fs::remove_file(dir.join("meta.json"));
    let _ = std::fs::remove_file(dir.join(ORIGIN));
    Ok(())
}

pub(super) fn read_meta(dir: &Path) -> Option<Meta> {
    let text = std::fs::read_to_string(dir.join("meta.json")).ok()?;
    match serde_json::from_str(&text) {
        Ok(m) => Some(m),
        // Unreadable metadata: treat as another schema, so the index rebuilds.
        Err(_) => Some(Meta { schema_version: 0, tsq_version: String::new(), embedder: None, dimension: 0, last_sync: None }),
    }
}

/// Writes through a temporary file and a rename, so it is whole or absent.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
    f.write_all(bytes).and_then(|_| f.sync_all()).map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))
}

pub(super) fn write_meta(dir: &Path, meta: &Meta) -> Result<(), IndexError> {
    write_atomic(&dir.join("meta.json"), serde_json::to_string_pretty(meta).unwrap_or_default().as_bytes())
}

pub(super) fn dir_size(dir: &Path) -> u64 {
    walk_size(dir).unwrap_or(0)
}

fn walk_size(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let m = e.metadata()?;
        total += if m.is_dir() { walk_size(&e.path()).unwrap_or(0) } else { m.len() };
    }
    Ok(total)
}

/// What stays local in the index directory: the writer lock, the user's
/// `config.toml`, the write journal, a pull's staging and marker, where
/// the index came from. Everything else is the index a publish uploads
/// and a pull replaces.
const LOCAL_ONLY: &[&str] = &["lock", ".gitignore", "config.toml", sync::JOURNAL, ORIGIN, INCOMING, PULLING, ".write-probe"];
/// A pull's downloads, verified, before they are moved into place.
pub const INCOMING: &str = "incoming";
/// Present while a pull swaps files: an index that opens with it is
/// incomplete and is rebuilt.
const PULLING: &str = "pulling";
/// Where a pulled index came from (`Origin`).
const ORIGIN: &str = "origin.json";

/// Whether `rel` (relative to the index directory) names a local-only
/// file, which no pulled index may bring.
pub fn is_local_only(rel: &str) -> bool {
    LOCAL_ONLY.contains(&rel.split('/').next().unwrap_or(rel)) || rel.ends_with(".tmp")
}

/// The index's files, relative to `dir` and sorted: what `tsq publish`
/// uploads. The caller holds the writer lock.
pub fn snapshot_files(dir: &Path) -> Result<Vec<String>, IndexError> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            let path = e.path();
            let rel = path.strip_prefix(base).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if (dir == base && is_local_only(&rel)) || rel.ends_with(".tmp") {
                continue;
            }
            if e.file_type()?.is_dir() {
                walk(base, &path, out)?;
            } else {
                out.push(rel);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out).map_err(|e| io(dir, e))?;
    out.sort();
    Ok(out)
}

/// Replaces the index in `dir` by a pulled one: `all` is every file of
/// the pulled index, `downloaded` those waiting in `dir/incoming` (the
/// others are already in `dir` with the right content). Files of the old
/// index that the pulled one lacks are removed. The caller holds the
/// writer lock; a crash midway leaves the `pulling` marker, and the next
/// open rebuilds instead of reading a half-swapped index.
pub fn install_pulled(dir: &Path, all: &std::collections::HashSet<String>, downloaded: &std::collections::HashSet<String>) -> Result<(), IndexError> {
    let marker = dir.join(PULLING);
    std::fs::write(&marker, b"").map_err(|e| io(&marker, e))?;
    for rel in snapshot_files(dir)? {
        if !all.contains(&rel) || downloaded.contains(&rel) {
            let p = dir.join(&rel);
            std::fs::remove_file(&p).map_err(|e| io(&p, e))?;
        }
    }
    let incoming = dir.join(INCOMING);
    for rel in downloaded {
        let (from, to) = (incoming.join(rel), dir.join(rel));
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        std::fs::rename(&from, &to).map_err(|e| io(&from, e))?;
    }
    let _ = std::fs::remove_dir_all(&incoming);
    // The old index's write journal would delete the pulled rows it names.
    let _ = std::fs::remove_file(dir.join(sync::JOURNAL));
    remove_empty_dirs(dir);
    std::fs::remove_file(&marker).map_err(|e| io(&marker, e))
}

fn remove_empty_dirs(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            remove_empty_dirs(&e.path());
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// An index whose last pull did not finish: everything but the local-only
/// files goes, so that it is rebuilt. True when there was one.
pub(super) fn discard_interrupted_pull(dir: &Path) -> Result<bool, IndexError> {
    if !dir.join(PULLING).exists() {
        return Ok(false);
    }
    // A pull that is swapping now holds the lock: wait for it, then look
    // again (a finished pull removed the marker).
    let _lock = lock::acquire(dir).map_err(|e| io(dir, e))?;
    if !dir.join(PULLING).exists() {
        return Ok(false);
    }
    for rel in snapshot_files(dir)? {
        let p = dir.join(&rel);
        std::fs::remove_file(&p).map_err(|e| io(&p, e))?;
    }
    remove_empty_dirs(dir);
    let _ = std::fs::remove_file(dir.join(ORIGIN));
    let _ = std::fs::remove_dir_all(dir.join(INCOMING));
    std::fs::remove_file(dir.join(PULLING)).map_err(|e| io(dir, e))?;
    Ok(true)
}

/// Where a pulled index came from, as answers say it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    pub url: String,
    pub commit: String,
    /// Files re-indexed locally after the pull (their content differed).
    pub reindexed: usize,
}

impl Origin {
    /// `index: from s3://…@1a2b3c4, 14 files re-indexed locally`.
    pub fn line(&self) -> String {
        let short: String = self.commit.chars().take(12).collect();
        format!("index: from {}@{short}, {} files re-indexed locally", self.url, self.reindexed)
    }
}

pub fn read_origin(dir: &Path) -> Option<Origin> {
    serde_json::from_slice(&std::fs::read(dir.join(ORIGIN)).ok()?).ok()
}

pub fn write_origin(dir: &Path, origin: Option<&Origin>) -> Result<(), IndexError> {
    match origin {
        Some(o) => write_atomic(&dir.join(ORIGIN), &serde_json::to_vec_pretty(o).unwrap_or_default()),
        None => {
            let _ = std::fs::remove_file(dir.join(ORIGIN));
            Ok(())
        }
    }
}

/// Runs `f` on the index directory of `root` (created if absent) under
/// the writer lock: what a publish reads and a pull swaps.
pub fn with_writer_lock<T>(root: &Path, f: impl FnOnce(&Path) -> T) -> Result<T, IndexError> {
    let dir = prepare_dir(&super::index_dir(root)).map_err(|e| io(root, e))?;
    let _lock = lock::acquire(&dir).map_err(|e| io(&dir, e))?;
    Ok(f(&dir))
}
