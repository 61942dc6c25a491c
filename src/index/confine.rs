//! The index directory is confined: tsq never creates, renames or deletes
//! anything through a symbolic link. `<root>/.tsq` must be a real
//! directory, and nothing under it may be a link; the names tsq itself
//! uses must have the type tsq gives them. The check uses
//! `symlink_metadata`, which never follows a link, and runs before every
//! open, clean, publish and pull. A refusal says what to remove.
//!
//! Why: a checkout can commit `.tsq -> ..`; writing through it would put
//! the index (and a pull's deletions) in the parent directory.

use std::path::Path;

use super::IndexError;

/// Deeper than any index tsq writes (`<table>.lance/_indices/<uuid>/…`).
const MAX_DEPTH: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    File,
    Dir,
}

/// The type tsq gives a top-level name it uses; `None` for other names,
/// which tsq leaves alone.
fn expected(name: &str) -> Option<Kind> {
    if name.ends_with(".lance") || name == super::layout::INCOMING || name == super::layout::OUTGOING {
        return Some(Kind::Dir);
    }
    super::layout::is_tsq_file(name).then_some(Kind::File)
}

fn refuse(path: &Path, message: String) -> IndexError {
    IndexError::Unsafe { path: path.display().to_string(), message }
}

/// Checks the index directory `dir`: false when it does not exist, true
/// when it is a real directory holding no link; an error otherwise.
pub fn check(dir: &Path) -> Result<bool, IndexError> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(super::io(dir, e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(dir).map(|t| t.display().to_string()).unwrap_or_else(|_| "?".into());
        return Err(refuse(
            dir,
            format!(
                "is a symbolic link (to {target}); tsq keeps its index only in a real directory of the workspace and never writes through a link. Remove the link (`rm {}`) and run again: tsq then creates a real `.tsq/`",
                dir.display()
            ),
        ));
    }
    if !meta.is_dir() {
        // Not an escape, just a place tsq cannot write: an open falls back
        // to the temp directory, as for a read-only workspace.
        return Err(IndexError::Io {
            path: dir.display().to_string(),
            message: format!("is not a directory; tsq keeps its index there. Move it away (`mv {0} {0}.bak`) and run again", dir.display()),
        });
    }
    for entry in std::fs::read_dir(dir).map_err(|e| super::io(dir, e))? {
        let entry = entry.map_err(|e| super::io(dir, e))?;
        let path = entry.path();
        let Some(kind) = entry_kind(&path)? else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(want) = expected(&name) {
            if want != kind {
                let (is, should) = if kind == Kind::Dir { ("a directory", "a file") } else { ("a file", "a directory") };
                return Err(refuse(
                    &path,
                    format!("is {is}, but tsq writes {should} there; remove it (or the whole index, `rm -r {}`) and run again", dir.display()),
                ));
            }
        }
        // A pull's staging areas change under another process's lock while
        // this runs; the swap moves their entries in by rename (never
        // following a link), and they are checked here once in place.
        if kind == Kind::Dir && name != super::layout::INCOMING && name != super::layout::OUTGOING {
            walk(&path, dir, 1)?;
        }
    }
    Ok(true)
}

/// Another writer may delete files meanwhile (old versions pruned): an
/// entry that is gone is no link.
fn gone(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound
}

/// `None` for an entry that is gone.
fn entry_kind(path: &Path) -> Result<Option<Kind>, IndexError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if gone(&e) => return Ok(None),
        Err(e) => return Err(super::io(path, e)),
    };
    if meta.file_type().is_symlink() {
        return Err(refuse(
            path,
            "is a symbolic link inside the index directory; tsq never follows one there. Remove it (or the whole index with `rm -r .tsq`) and run again".into(),
        ));
    }
    Ok(Some(if meta.is_dir() { Kind::Dir } else { Kind::File }))
}

fn walk(path: &Path, dir: &Path, depth: usize) -> Result<(), IndexError> {
    if depth > MAX_DEPTH {
        return Err(refuse(path, format!("is nested deeper than any index tsq writes; remove the index (`rm -r {}`) and run again", dir.display())));
    }
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) if gone(&e) => return Ok(()),
        Err(e) => return Err(super::io(path, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| super::io(path, e))?;
        let child = entry.path();
        if entry_kind(&child)? == Some(Kind::Dir) {
            walk(&child, dir, depth + 1)?;
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_and_wrong_types_are_refused_and_nothing_is_followed() {
        let base = std::env::temp_dir().join(format!("tsq-confine-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("ws")).unwrap();
        let dir = base.join("ws/.tsq");
        assert!(!check(&dir).unwrap());
        std::os::unix::fs::symlink("..", &dir).unwrap();
        let err = check(&dir).unwrap_err().to_string();
        assert!(err.contains("symbolic link (to ..)") && err.contains("rm "), "{err}");
        std::fs::remove_file(&dir).unwrap();
        std::fs::create_dir_all(dir.join("chunks.lance/data")).unwrap();
        assert!(check(&dir).unwrap());
        std::os::unix::fs::symlink(&base, dir.join("chunks.lance/data/x")).unwrap();
        assert!(check(&dir).unwrap_err().to_string().contains("symbolic link inside"));
        std::fs::remove_file(dir.join("chunks.lance/data/x")).unwrap();
        std::fs::create_dir(dir.join("meta.json")).unwrap();
        assert!(check(&dir).unwrap_err().to_string().contains("is a directory, but tsq writes a file"));
        std::fs::remove_dir(dir.join("meta.json")).unwrap();
        std::fs::write(dir.join("files.lance"), b"").unwrap();
        assert!(check(&dir).unwrap_err().to_string().contains("is a file, but tsq writes a directory"));
        let _ = std::fs::remove_dir_all(&base);
    }
}
