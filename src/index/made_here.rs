//! Whether this install made the index directory it opens. A `.tsq/`
//! found in a checkout (committed, shipped in an archive or a CI cache,
//! copied from another machine) is not tsq's own until checked: the
//! marker `made-here` holds a seal (`seal::Key`, this install's secret)
//! over the root's device and inode, written when this install creates
//! the index or adopts one. A moved workspace keeps them (a rename keeps
//! the inode), so its index stays its own; a copy, an archive or a clone
//! has another inode. No checkout can bring a marker that
//! verifies, since the key never lives in a workspace.
//!
//! An index without a marker that verifies is adopted as a pulled one is
//! checked (`Index::claim`): every file's stamp is cleared, so the next
//! sync compares each file's sha256 with its rows' (never mtime and size)
//! and re-indexes what differs; the occurrence index, whose checker text
//! (signatures, types) no file can confirm, is emptied and rebuilt
//! locally; a pull's `origin.json` it brought is dropped. Code in
//! answers is read from the checkout anyway (`checkout`).

use std::path::Path;

use super::layout::MADE_HERE;
use super::seal::Key;
use super::store::Store;
use super::{disk, Index, IndexError};

/// The sealed parts: what the marker vouches for.
fn parts(root: &Path) -> Option<Vec<Vec<u8>>> {
    let root = root.canonicalize().ok()?;
    let meta = std::fs::metadata(&root).ok()?;
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = {
        let _ = meta;
        (0u64, 0u64)
    };
    Some(vec![b"tsq made-here 2".to_vec(), dev.to_le_bytes().to_vec(), ino.to_le_bytes().to_vec()])
}

/// Whether `dir` holds a marker `key` sealed for `root`.
fn holds(key: &Key, dir: &Path, root: &Path) -> bool {
    let path = dir.join(MADE_HERE);
    let Ok(meta) = std::fs::symlink_metadata(&path) else { return false };
    if !meta.is_file() || meta.len() > 256 {
        return false;
    }
    let (Some(parts), Ok(seal)) = (parts(root), std::fs::read_to_string(&path)) else { return false };
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    key.verifies(&parts, seal.trim())
}

/// Writes the marker `key` seals for `root` into `dir`.
fn write(key: &Key, dir: &Path, root: &Path) -> Result<(), IndexError> {
    let parts = parts(root).ok_or_else(|| IndexError::Io { path: root.display().to_string(), message: "cannot stat the workspace root".into() })?;
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    disk::write_atomic(&dir.join(MADE_HERE), format!("{}\n", key.seal(&parts)).as_bytes())
}

/// Records that this install made (or checked and adopted) the index in
/// `dir` for `root`: after a verified pull is installed.
pub(crate) fn mark(dir: &Path, root: &Path) -> Result<(), IndexError> {
    write(&Key::load_or_create()?, dir, root)
}

/// The records the occurrence pass derives, dropped with its tables.
const DERIVED_RECORDS: &[&str] = &["occurrence-scope.json", "occurrence-inputs.json", "occurrence-pending.json", super::layout::ORIGIN];

impl Index {
    /// Makes the opened index this install's own (see the module header):
    /// a no-op when its marker verifies.
    pub(super) fn claim(&mut self) -> Result<(), IndexError> {
        let key = match Key::load_or_create() {
            Ok(k) => k,
            Err(e) => {
                // Nowhere to keep a key: nothing can be told apart, and
                // emptying the index at every open would lose it. Code in
                // answers is still read from the checkout (`checkout`).
                self.notes.push(format!("cannot tell whether this index was made here ({e}); its code is still checked against the checkout"));
                return Ok(());
            }
        };
        if holds(&key, &self.dir, &self.root) {
            return Ok(());
        }
        let rows = self
            .runtime
            .block_on(async { Ok::<usize, IndexError>(Store::count(&self.store.files, None).await? + Store::count(&self.store.occ_files, None).await?) })?;
        if rows > 0 {
            self.with_lock(|ix| {
                ix.runtime.block_on(async {
                    for t in [&ix.store.occurrences, &ix.store.occ_files, &ix.store.occ_declarations, &ix.store.usage] {
                        Store::delete(t, "true").await?;
                    }
                    ix.store.files.update().column("mtime", "-1").execute().await.map_err(|e| IndexError::Lance(e.to_string()))?;
                    Ok::<(), IndexError>(())
                })?;
                for name in DERIVED_RECORDS {
                    match std::fs::remove_file(ix.dir.join(name)) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(super::io(&ix.dir.join(name), e)),
                        _ => {}
                    }
                }
                Ok(())
            })?;
            self.notes.push(
                "this index was not made by tsq on this machine (no marker of this install): every file is checked by its sha256 at this sync, and the occurrence index is rebuilt here"
                    .into(),
            );
        }
        if let Err(e) = write(&key, &self.dir, &self.root) {
            self.notes.push(format!("cannot record this index as made here ({e}): it is checked again at the next open"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_names_its_root() {
        let a = std::env::temp_dir().join(format!("tsq-made-here-a-{}", std::process::id()));
        let b = std::env::temp_dir().join(format!("tsq-made-here-b-{}", std::process::id()));
        for d in [&a, &b] {
            std::fs::create_dir_all(d).unwrap();
        }
        let (pa, pb) = (parts(&a).unwrap(), parts(&b).unwrap());
        assert_ne!(pa, pb, "another root seals other parts");
        let key = Key::for_tests(7);
        let seal = key.seal(&pa.iter().map(Vec::as_slice).collect::<Vec<_>>());
        assert!(key.verifies(&pa.iter().map(Vec::as_slice).collect::<Vec<_>>(), &seal));
        assert!(!key.verifies(&pb.iter().map(Vec::as_slice).collect::<Vec<_>>(), &seal), "a marker copied to another root does not verify");
        assert!(!Key::for_tests(8).verifies(&pa.iter().map(Vec::as_slice).collect::<Vec<_>>(), &seal), "nor under another install's key");
        for d in [&a, &b] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }
}
