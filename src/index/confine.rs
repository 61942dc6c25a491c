//! The index directory is confined: tsq never creates, renames or deletes
//! anything through a symbolic link. `<root>/.tsq` must be a real
//! directory, and nothing under it may be a link, a pull's staging areas
//! (`incoming/`, `outgoing/`) included; the names tsq itself uses must
//! have the type tsq gives them, there too. The check uses
//! `symlink_metadata`, which never follows a link, and runs before every
//! open, clean, publish and pull; a swap checks each staged entry again
//! right before it renames it into place (`check_staged`). A refusal says
//! what to remove.
//!
//! Why: a checkout can commit `.tsq -> ..`; writing through it would put
//! the index (and a pull's deletions) in the parent directory. It can as
//! well commit `.tsq/incoming/chunks.lance -> ../../other/.tsq/chunks.lance`
//! with a swap journal, which a swap would rename into place.

use std::path::Path;

use super::layout::{INCOMING, OUTGOING};
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
    if name.ends_with(".lance") || name == INCOMING || name == OUTGOING {
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
        // to a private directory of the user's (`disk::fallback_dir`), as
        // for a read-only workspace.
        return Err(IndexError::Io {
            path: dir.display().to_string(),
            message: format!("is not a directory; tsq keeps its index there. Move it away (`mv {0} {0}.bak`) and run again", dir.display()),
        });
    }
    for entry in std::fs::read_dir(dir).map_err(|e| super::io(dir, e))? {
        let entry = entry.map_err(|e| super::io(dir, e))?;
        check_entry(&entry.path(), &entry.file_name().to_string_lossy(), dir, 1)?;
    }
    Ok(true)
}

/// Checks one entry `depth` levels below `dir`: no link, the type tsq
/// gives its name, and no link anywhere beneath it. A pull's staging
/// areas hold entries named as the index's own, which a swap moves in
/// and out by rename, so their entries are checked as the top level's
/// are: a checkout can commit `incoming/` as easily as `.tsq/` itself.
fn check_entry(path: &Path, name: &str, dir: &Path, depth: usize) -> Result<(), IndexError> {
    let Some(kind) = entry_kind(path)? else { return Ok(()) };
    if let Some(want) = expected(name) {
        if want != kind {
            let (is, should) = if kind == Kind::Dir { ("a directory", "a file") } else { ("a file", "a directory") };
            return Err(refuse(
                path,
                format!("is {is}, but tsq writes {should} there; remove it (or the whole index, `rm -r {}`) and run again", dir.display()),
            ));
        }
    }
    if kind == Kind::File {
        return Ok(());
    }
    if depth > 1 || (name != INCOMING && name != OUTGOING) {
        return walk(path, dir, depth);
    }
    // Another process's pull may be filling or emptying the staging area
    // meanwhile: what is gone is no link.
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) if gone(&e) => return Ok(()),
        Err(e) => return Err(super::io(path, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| super::io(path, e))?;
        check_entry(&entry.path(), &entry.file_name().to_string_lossy(), dir, depth + 1)?;
    }
    Ok(())
}

/// Checks an entry of the staging directory right before a swap moves it
/// into the index (`swap`), for it may have changed since the last
/// `check`: `dir` and `incoming/` are real directories, never links, and
/// the entry is one of the index's own names (a table's directory or a
/// file beside the tables), no link, of the type tsq gives that name, and
/// holds no link.
pub(super) fn check_staged(dir: &Path, name: &str) -> Result<(), IndexError> {
    let staging = dir.join(INCOMING);
    real_dir(dir)?;
    real_dir(&staging)?;
    let path = staging.join(name);
    let plain = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\']);
    if !plain || super::layout::is_local_only(name) || expected(name).is_none() {
        return Err(refuse(
            &path,
            format!(
                "is not a name a pull installs (a table, or a file beside the tables); remove the staging directory (`rm -r {}`) and run again",
                staging.display()
            ),
        ));
    }
    check_entry(&path, name, dir, 2)
}

/// Refuses `path` unless it is a real directory (not a link to one).
pub(super) fn real_dir(path: &Path) -> Result<(), IndexError> {
    match entry_kind(path)? {
        Some(Kind::Dir) => Ok(()),
        None => Err(super::io(path, std::io::ErrorKind::NotFound.into())),
        Some(Kind::File) => Err(refuse(path, "is not a directory, but tsq keeps one there; remove it and run again".into())),
    }
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
        std::fs::remove_file(dir.join("files.lance")).unwrap();
        // The staging areas are checked as the top level is.
        std::fs::create_dir_all(dir.join("incoming/files.lance")).unwrap();
        assert!(check(&dir).unwrap());
        check_staged(&dir, "files.lance").unwrap();
        std::os::unix::fs::symlink("../../elsewhere/.tsq/chunks.lance", dir.join("incoming/chunks.lance")).unwrap();
        assert!(check(&dir).unwrap_err().to_string().contains("incoming/chunks.lance: is a symbolic link inside"));
        assert!(check_staged(&dir, "chunks.lance").is_err());
        std::fs::remove_file(dir.join("incoming/chunks.lance")).unwrap();
        std::fs::write(dir.join("incoming/chunks.lance"), b"").unwrap();
        assert!(check(&dir).unwrap_err().to_string().contains("is a file, but tsq writes a directory"));
        std::fs::remove_file(dir.join("incoming/chunks.lance")).unwrap();
        std::fs::write(dir.join("incoming/notes.txt"), b"").unwrap();
        assert!(check_staged(&dir, "notes.txt").unwrap_err().to_string().contains("not a name a pull installs"));
        assert!(check_staged(&dir, "lock").is_err());
        std::os::unix::fs::symlink(&base, dir.join("outgoing")).unwrap();
        assert!(check(&dir).unwrap_err().to_string().contains("outgoing: is a symbolic link inside"));
        std::fs::remove_file(dir.join("outgoing")).unwrap();
        std::fs::remove_dir_all(dir.join("incoming")).unwrap();
        std::os::unix::fs::symlink(&base, dir.join("incoming")).unwrap();
        assert!(check_staged(&dir, "files.lance").unwrap_err().to_string().contains("symbolic link"));
        let _ = std::fs::remove_dir_all(&base);
    }
}
