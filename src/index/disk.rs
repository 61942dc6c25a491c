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
