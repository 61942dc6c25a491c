//! Installing a pulled index so that a crash never splits it: the pulled
//! index is staged whole in `.tsq/incoming/` (downloads, plus hard links
//! to the local files it shares), fsynced, then a journal (`swap.json`,
//! written whole or not at all) commits the swap. From then on the swap
//! only rolls forward: the old index's entries move to `outgoing/`, the
//! staged ones move in, the generation changes, the journal goes. Every
//! step is a rename inside `.tsq/`, and each can be repeated, so an open
//! that finds the journal (the pull was killed mid-swap) finishes it.
//! Before the journal exists the old index is untouched, and an
//! interrupted pull leaves only `incoming/`, which the next pull clears.
//!
//! Readers never take the writer lock; they compare `generation` before
//! and after an answer (`Engine::answer`) and reopen when it moved.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{io, lock, write_atomic, IndexError};

pub(crate) use super::layout::{GENERATION, INCOMING, OUTGOING, SWAP};

const MAGIC: &str = "tsq-swap-1";
/// The generation's suffix while a swap moves files.
const SWAPPING: &str = "-swapping";

#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    magic: String,
    /// The staged index's top-level entries.
    entries: Vec<String>,
}

/// Test hook: `TSQ_TEST_PAUSE=<step>` stops a pull at that step
/// (`download`, `stage`, `verify`, `swap`), or an occurrence pass before
/// its last records (`occurrences-finish`), says so on stderr and waits,
/// so that a test can `kill -9` it there.
pub(crate) fn crash_point(step: &str) {
    if std::env::var("TSQ_TEST_PAUSE").is_ok_and(|s| s == step) {
        eprintln!("tsq: paused at {step}");
        std::thread::sleep(std::time::Duration::from_secs(600));
    }
}

/// The current generation of the index in `dir` (empty before any swap).
pub(crate) fn generation(dir: &Path) -> String {
    match std::fs::symlink_metadata(dir.join(GENERATION)) {
        Ok(m) if m.is_file() && m.len() < 256 => std::fs::read_to_string(dir.join(GENERATION)).unwrap_or_default(),
        _ => String::new(),
    }
}

/// Puts `rel` (a file of the local index, unchanged in the pulled one)
/// into the staging directory: a hard link, or a copy where links fail.
pub(crate) fn stage_local(dir: &Path, staging: &Path, rel: &str) -> Result<(), IndexError> {
    let (from, to) = (dir.join(rel), staging.join(rel));
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    let _ = std::fs::remove_file(&to);
    if std::fs::hard_link(&from, &to).is_err() {
        std::fs::copy(&from, &to).map_err(|e| io(&from, e))?;
    }
    Ok(())
}

/// fsyncs every file and directory under `path`, then `path` itself.
pub(crate) fn sync_tree(path: &Path) -> Result<(), IndexError> {
    for entry in std::fs::read_dir(path).map_err(|e| io(path, e))? {
        let entry = entry.map_err(|e| io(path, e))?;
        let p = entry.path();
        if entry.file_type().map_err(|e| io(&p, e))?.is_dir() {
            sync_tree(&p)?;
        } else {
            std::fs::File::open(&p).and_then(|f| f.sync_all()).map_err(|e| io(&p, e))?;
        }
    }
    sync_dir(path)
}

fn sync_dir(path: &Path) -> Result<(), IndexError> {
    std::fs::File::open(path).and_then(|f| f.sync_all()).map_err(|e| io(path, e))
}

/// Swaps the staged index in `dir/incoming` for the index in `dir`. The
/// caller holds the writer lock, and the staging directory holds the
/// whole pulled index.
pub fn install(dir: &Path) -> Result<(), IndexError> {
    let staging = dir.join(INCOMING);
    sync_tree(&staging)?;
    let mut entries: Vec<String> =
        std::fs::read_dir(&staging).map_err(|e| io(&staging, e))?.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())).collect();
    entries.sort();
    let journal = Journal { magic: MAGIC.into(), entries };
    write_atomic(&dir.join(SWAP), &serde_json::to_vec(&journal).unwrap_or_default())?;
    sync_dir(dir)?;
    roll_forward(dir, &journal)
}

fn roll_forward(dir: &Path, journal: &Journal) -> Result<(), IndexError> {
    let (staging, outgoing) = (dir.join(INCOMING), dir.join(OUTGOING));
    // Readers that see this wait for the swap (`wait_for_swap`); an answer
    // that straddles it sees the generation move and is computed again.
    let next = format!("{}-{}", super::now_ms(), std::process::id());
    write_atomic(&dir.join(GENERATION), format!("{next}{SWAPPING}").as_bytes())?;
    std::fs::create_dir_all(&outgoing).map_err(|e| io(&outgoing, e))?;
    let staged = |name: &str| std::fs::symlink_metadata(staging.join(name)).is_ok();
    // The old index's entries leave first (those the staged index replaces
    // or lacks), then the staged ones come in.
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let name = entry.map_err(|e| io(dir, e))?.file_name().to_string_lossy().into_owned();
        if super::layout::is_local_only(&name) || (journal.entries.contains(&name) && !staged(&name)) {
            continue;
        }
        let (from, to) = (dir.join(&name), outgoing.join(&name));
        if std::fs::symlink_metadata(&to).is_ok() {
            remove_any(&to)?;
        }
        std::fs::rename(&from, &to).map_err(|e| io(&from, e))?;
    }
    let mut first = true;
    for name in &journal.entries {
        if staged(name) {
            let (from, to) = (staging.join(name), dir.join(name));
            std::fs::rename(&from, &to).map_err(|e| io(&from, e))?;
            if std::mem::take(&mut first) {
                crash_point("swap");
            }
        }
    }
    // The old index's write journal would delete the pulled rows it names.
    let _ = std::fs::remove_file(dir.join(super::layout::JOURNAL));
    sync_dir(dir)?;
    write_atomic(&dir.join(GENERATION), next.as_bytes())?;
    std::fs::remove_file(dir.join(SWAP)).map_err(|e| io(dir, e))?;
    sync_dir(dir)?;
    remove_any(&outgoing)?;
    let _ = remove_any(&staging);
    Ok(())
}

fn remove_any(path: &Path) -> Result<(), IndexError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| io(path, e))?;
    if meta.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) }.map_err(|e| io(path, e))
}

/// Waits while a pull swaps files in `dir` (the generation says so), and
/// finishes the swap of a pull that was killed doing it.
pub(crate) fn wait_for_swap(dir: &Path) -> Result<(), IndexError> {
    if generation(dir).ends_with(SWAPPING) && super::confine::check(dir)? {
        drop(lock::acquire(dir).map_err(|e| io(dir, e))?);
        recover(dir)?;
    }
    Ok(())
}

/// On open: finishes a swap that a killed pull committed (true when it
/// did), and clears what a finished one left. A journal that is not
/// tsq's (wrong type or content) is never acted on.
pub(crate) fn recover(dir: &Path) -> Result<bool, IndexError> {
    if read_journal(dir).is_some() {
        // A pull swapping now holds the lock: wait for it, then look again.
        let _lock = lock::acquire(dir).map_err(|e| io(dir, e))?;
        if let Some(journal) = read_journal(dir) {
            roll_forward(dir, &journal)?;
            return Ok(true);
        }
        return Ok(false);
    }
    if std::fs::symlink_metadata(dir.join(OUTGOING)).is_ok_and(|m| m.is_dir()) {
        if let Some(_lock) = lock::try_acquire(dir).map_err(|e| io(dir, e))? {
            if read_journal(dir).is_none() {
                let _ = remove_any(&dir.join(OUTGOING));
            }
        }
    }
    Ok(false)
}

fn read_journal(dir: &Path) -> Option<Journal> {
    let path = dir.join(SWAP);
    if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() < 1 << 20) {
        return None;
    }
    let journal: Journal = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    let plain = |n: &String| !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\\']) && !super::layout::is_local_only(n);
    (journal.magic == MAGIC && journal.entries.iter().all(plain)).then_some(journal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().unwrap().is_dir() {
                for (n, c) in tree(&e.path()) {
                    out.push((format!("{name}/{n}"), c));
                }
            } else {
                out.push((name, std::fs::read_to_string(e.path()).unwrap_or_default()));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_committed_swap_rolls_forward_from_any_point() {
        let base = std::env::temp_dir().join(format!("tsq-swap-{}", std::process::id()));
        for stop_after in 0..4 {
            let dir = base.join(format!("s{stop_after}"));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("a.lance")).unwrap();
            std::fs::write(dir.join("a.lance/old"), "old").unwrap();
            std::fs::create_dir_all(dir.join("gone.lance")).unwrap();
            std::fs::write(dir.join("meta.json"), "old").unwrap();
            std::fs::write(dir.join("config.toml"), "mine").unwrap();
            std::fs::create_dir_all(dir.join("incoming/a.lance")).unwrap();
            std::fs::write(dir.join("incoming/a.lance/new"), "new").unwrap();
            std::fs::write(dir.join("incoming/meta.json"), "new").unwrap();
            let journal = Journal { magic: MAGIC.into(), entries: vec!["a.lance".into(), "meta.json".into()] };
            write_atomic(&dir.join(SWAP), &serde_json::to_vec(&journal).unwrap()).unwrap();
            // A crash after `stop_after` renames of the forward pass.
            let moves: Vec<(String, String)> = vec![
                ("a.lance".into(), "outgoing/a.lance".into()),
                ("gone.lance".into(), "outgoing/gone.lance".into()),
                ("meta.json".into(), "outgoing/meta.json".into()),
            ];
            std::fs::create_dir_all(dir.join(OUTGOING)).unwrap();
            for (from, to) in moves.iter().take(stop_after) {
                std::fs::rename(dir.join(from), dir.join(to)).unwrap();
            }
            assert!(recover(&dir).unwrap());
            let got = tree(&dir);
            let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).filter(|n| *n != GENERATION && *n != "lock").collect();
            assert_eq!(names, ["a.lance/new", "config.toml", "meta.json"], "after {stop_after} moves");
            assert_eq!(std::fs::read_to_string(dir.join("meta.json")).unwrap(), "new");
            assert!(!generation(&dir).is_empty());
        }
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_planted_journal_is_never_acted_on() {
        let dir = std::env::temp_dir().join(format!("tsq-swap-planted-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a.lance")).unwrap();
        for bad in [r#"{"magic":"x","entries":[]}"#, r#"{"magic":"tsq-swap-1","entries":["../x"]}"#, r#"{"magic":"tsq-swap-1","entries":["lock"]}"#, "garbage"]
        {
            std::fs::write(dir.join(SWAP), bad).unwrap();
            assert!(!recover(&dir).unwrap(), "{bad}");
            assert!(dir.join("a.lance").is_dir());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
