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
//! Only tsq's own journal is rolled forward: it is sealed with this
//! install's key (`seal`), which lives outside every checkout, and each
//! staged entry is checked again right before its rename
//! (`confine::check_staged`). A journal that is not sealed here, or whose
//! entries fail the checks, is renamed aside (`refused-swap-<stamp>.json`,
//! with `outgoing/` as `refused-outgoing-<stamp>`) and reported on stderr:
//! a checkout can commit `swap.json` and links in `incoming/`, and a swap
//! it rolled forward would rename them into place.
//!
//! Readers never take the writer lock; they compare `generation` before
//! and after an answer (`Engine::answer`) and reopen when it moved.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::seal::Key;
use super::{confine, io, lock, write_atomic, IndexError};

use super::layout::REFUSED;
pub(crate) use super::layout::{GENERATION, INCOMING, OUTGOING, SWAP};

/// `tsq-swap-1` journals were not sealed; they are refused like any other.
const MAGIC: &str = "tsq-swap-2";
/// The generation's suffix while a swap moves files.
const SWAPPING: &str = "-swapping";

#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    magic: String,
    /// The staged index's top-level entries.
    entries: Vec<String>,
    /// This install's seal over the magic, the index directory and the
    /// entries (`sealed`).
    #[serde(default)]
    seal: String,
}

/// What the journal's seal covers: the format, the index directory it
/// was written in (so it moves nothing in another), and its entries.
fn sealed(dir: &Path, magic: &str, entries: &[String]) -> Vec<Vec<u8>> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut parts = vec![magic.as_bytes().to_vec(), dir.to_string_lossy().as_bytes().to_vec()];
    parts.extend(entries.iter().map(|e| e.as_bytes().to_vec()));
    parts
}

fn parts(sealed: &[Vec<u8>]) -> Vec<&[u8]> {
    sealed.iter().map(Vec::as_slice).collect()
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
    let key = Key::load_or_create()?;
    let staging = dir.join(INCOMING);
    sync_tree(&staging)?;
    let mut entries: Vec<String> =
        std::fs::read_dir(&staging).map_err(|e| io(&staging, e))?.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())).collect();
    entries.sort();
    // Refused before the journal exists: the old index stays as it was.
    for name in &entries {
        confine::check_staged(dir, name)?;
    }
    let seal = key.seal(&parts(&sealed(dir, MAGIC, &entries)));
    let journal = Journal { magic: MAGIC.into(), entries, seal };
    write_atomic(&dir.join(SWAP), &serde_json::to_vec(&journal).unwrap_or_default())?;
    sync_dir(dir)?;
    roll_forward(dir, &journal).inspect_err(|e| {
        if matches!(e, IndexError::Unsafe { .. }) {
            let _ = set_aside(dir, &e.to_string());
        }
    })
}

fn next_generation() -> String {
    format!("{}-{}", super::now_ms(), std::process::id())
}

fn roll_forward(dir: &Path, journal: &Journal) -> Result<(), IndexError> {
    let (staging, outgoing) = (dir.join(INCOMING), dir.join(OUTGOING));
    let staged = |name: &str| std::fs::symlink_metadata(staging.join(name)).is_ok();
    // Every staged entry passes before anything moves, and again right
    // before its own rename (below).
    for name in journal.entries.iter().filter(|n| staged(n)) {
        confine::check_staged(dir, name)?;
    }
    // Readers that see this wait for the swap (`wait_for_swap`); an answer
    // that straddles it sees the generation move and is computed again.
    let next = next_generation();
    write_atomic(&dir.join(GENERATION), format!("{next}{SWAPPING}").as_bytes())?;
    std::fs::create_dir_all(&outgoing).map_err(|e| io(&outgoing, e))?;
    // The old index's entries move through it: never through a link.
    confine::real_dir(&outgoing)?;
    // The old index's entries leave first (those the staged index replaces
    // or lacks), then the staged ones come in.
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let name = entry.map_err(|e| io(dir, e))?.file_name().to_string_lossy().into_owned();
        // Only the index's own entries: a user's files in `.tsq/` stay.
        if !super::layout::is_index_entry(&name) || super::layout::is_local_only(&name) || (journal.entries.contains(&name) && !staged(&name)) {
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
            confine::check_staged(dir, name)?;
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
/// did), and clears what a finished one left. A journal this install did
/// not seal, or whose staged entries fail the checks, is set aside
/// (`set_aside`), never acted on.
pub(crate) fn recover(dir: &Path) -> Result<bool, IndexError> {
    recover_with(dir, Key::load)
}

/// `recover` with the install's key from `key` (read only when a journal
/// is there).
fn recover_with(dir: &Path, key: impl FnOnce() -> Result<Key, String>) -> Result<bool, IndexError> {
    if std::fs::symlink_metadata(dir.join(SWAP)).is_ok() {
        // A pull swapping now holds the lock: wait for it, then look again.
        let _lock = lock::acquire(dir).map_err(|e| io(dir, e))?;
        let journal = match read_journal(dir, key()) {
            Found::Absent => return Ok(false),
            Found::Refused(why) => {
                set_aside(dir, &why)?;
                return Ok(false);
            }
            Found::Sealed(journal) => journal,
        };
        return match roll_forward(dir, &journal) {
            Ok(()) => Ok(true),
            Err(e @ IndexError::Unsafe { .. }) => {
                set_aside(dir, &e.to_string())?;
                Ok(false)
            }
            Err(e) => Err(e),
        };
    }
    if std::fs::symlink_metadata(dir.join(OUTGOING)).is_ok_and(|m| m.is_dir()) {
        if let Some(_lock) = lock::try_acquire(dir).map_err(|e| io(dir, e))? {
            if std::fs::symlink_metadata(dir.join(SWAP)).is_err() {
                let _ = remove_any(&dir.join(OUTGOING));
            }
        }
    }
    Ok(false)
}

enum Found {
    Absent,
    /// Why this journal is not one to act on.
    Refused(String),
    Sealed(Journal),
}

fn read_journal(dir: &Path, key: Result<Key, String>) -> Found {
    let path = dir.join(SWAP);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(_) => return Found::Absent,
    };
    if !meta.is_file() || meta.len() >= 1 << 20 {
        return Found::Refused("it is not a file tsq writes".into());
    }
    let Some(journal) = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice::<Journal>(&b).ok()) else {
        return Found::Refused("it is not a journal tsq writes".into());
    };
    if journal.magic != MAGIC {
        return Found::Refused(format!("its format `{}` is not this tsq's `{MAGIC}`", journal.magic.escape_debug()));
    }
    let plain = |n: &String| !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\\']) && !super::layout::is_local_only(n);
    if !journal.entries.iter().all(plain) {
        return Found::Refused("it names entries outside the index directory or tsq's local files".into());
    }
    let key = match key {
        Ok(k) => k,
        Err(why) => return Found::Refused(format!("there is no install key to check its seal against ({why})")),
    };
    if !key.verifies(&parts(&sealed(dir, &journal.magic, &journal.entries)), &journal.seal) {
        return Found::Refused("its seal is not this install's: this tsq did not write it".into());
    }
    Found::Sealed(journal)
}

/// Sets aside a journal that is not acted on: `swap.json` becomes
/// `refused-swap-<stamp>.json` and `outgoing/`, when it holds anything,
/// `refused-outgoing-<stamp>`, so nothing is rolled forward and nothing
/// is deleted (should the journal be a killed pull's, the old index's
/// entries it had moved out are there). Says on stderr what was found and
/// what was done. The caller holds the writer lock.
fn set_aside(dir: &Path, why: &str) -> Result<(), IndexError> {
    let stamp = next_generation();
    let journal = dir.join(format!("{REFUSED}swap-{stamp}.json"));
    let from = dir.join(SWAP);
    std::fs::rename(&from, &journal).map_err(|e| io(&from, e))?;
    let mut done = format!("renamed it to {}", journal.display());
    let outgoing = dir.join(OUTGOING);
    if std::fs::symlink_metadata(&outgoing).is_ok_and(|m| m.is_dir()) && std::fs::read_dir(&outgoing).is_ok_and(|mut d| d.next().is_some()) {
        let to = dir.join(format!("{REFUSED}outgoing-{stamp}"));
        std::fs::rename(&outgoing, &to).map_err(|e| io(&outgoing, e))?;
        done.push_str(&format!(", and what a swap had moved out of the index (`{OUTGOING}/`) to {}", to.display()));
    }
    // Readers would otherwise wait for a swap that never ends.
    if generation(dir).ends_with(SWAPPING) {
        write_atomic(&dir.join(GENERATION), next_generation().as_bytes())?;
    }
    sync_dir(dir)?;
    tracing::warn!(
        "{}: a swap journal this tsq will not act on ({why}). It was not rolled forward; tsq {done}. A checkout may have brought it: look, then remove what was renamed. If a `tsq index --from` of yours was stopped, run it again",
        from.display()
    );
    Ok(())
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

    fn key() -> Result<Key, String> {
        Ok(Key::for_tests(7))
    }

    fn journal(dir: &Path, entries: &[&str], key: &Key) -> Vec<u8> {
        let entries: Vec<String> = entries.iter().map(|e| e.to_string()).collect();
        let seal = key.seal(&parts(&sealed(dir, MAGIC, &entries)));
        serde_json::to_vec(&Journal { magic: MAGIC.into(), entries, seal }).unwrap()
    }

    #[test]
    fn a_committed_swap_rolls_forward_from_any_point() {
        let base = std::env::temp_dir().join(format!("tsq-swap-{}", std::process::id()));
        for stop_after in 0..4 {
            let dir = base.join(format!("s{stop_after}"));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("chunks.lance")).unwrap();
            std::fs::write(dir.join("chunks.lance/old"), "old").unwrap();
            std::fs::create_dir_all(dir.join("usage.lance")).unwrap();
            std::fs::write(dir.join("meta.json"), "old").unwrap();
            std::fs::write(dir.join("config.toml"), "mine").unwrap();
            // A user's own file: never moved out.
            std::fs::write(dir.join("notes.txt"), "mine").unwrap();
            std::fs::create_dir_all(dir.join("incoming/chunks.lance")).unwrap();
            std::fs::write(dir.join("incoming/chunks.lance/new"), "new").unwrap();
            std::fs::write(dir.join("incoming/meta.json"), "new").unwrap();
            write_atomic(&dir.join(SWAP), &journal(&dir, &["chunks.lance", "meta.json"], &key().unwrap())).unwrap();
            // A crash after `stop_after` renames of the forward pass.
            let moves: Vec<(String, String)> = vec![
                ("chunks.lance".into(), "outgoing/chunks.lance".into()),
                ("usage.lance".into(), "outgoing/usage.lance".into()),
                ("meta.json".into(), "outgoing/meta.json".into()),
            ];
            std::fs::create_dir_all(dir.join(OUTGOING)).unwrap();
            for (from, to) in moves.iter().take(stop_after) {
                std::fs::rename(dir.join(from), dir.join(to)).unwrap();
            }
            assert!(recover_with(&dir, key).unwrap());
            let got = tree(&dir);
            let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).filter(|n| *n != GENERATION && *n != "lock").collect();
            assert_eq!(names, ["chunks.lance/new", "config.toml", "meta.json", "notes.txt"], "after {stop_after} moves");
            assert_eq!(std::fs::read_to_string(dir.join("meta.json")).unwrap(), "new");
            assert!(!generation(&dir).is_empty());
        }
        let _ = std::fs::remove_dir_all(&base);
    }

    /// What `dir` holds apart from the lock, with the names tsq gave what
    /// it set aside reduced to their prefix.
    fn left(dir: &Path) -> Vec<(String, String)> {
        let mut got: Vec<(String, String)> = tree(dir)
            .into_iter()
            .filter(|(n, _)| n != "lock" && n != GENERATION)
            .map(|(n, c)| {
                let name = if let Some(rest) = n.strip_prefix("refused-outgoing-") {
                    format!("refused-outgoing/{}", rest.split_once('/').map_or("", |(_, r)| r))
                } else if n.starts_with("refused-swap-") {
                    "refused-swap".into()
                } else {
                    n
                };
                (name, c)
            })
            .collect();
        got.sort();
        got
    }

    #[test]
    fn a_journal_not_sealed_here_is_set_aside_and_nothing_moves() {
        let dir = std::env::temp_dir().join(format!("tsq-swap-planted-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let other = Key::for_tests(8);
        let forged = [
            r#"{"magic":"x","entries":[]}"#.as_bytes().to_vec(),
            r#"{"magic":"tsq-swap-1","entries":["a.lance"]}"#.as_bytes().to_vec(),
            r#"{"magic":"tsq-swap-2","entries":["../x"],"seal":""}"#.as_bytes().to_vec(),
            r#"{"magic":"tsq-swap-2","entries":["lock"],"seal":""}"#.as_bytes().to_vec(),
            r#"{"magic":"tsq-swap-2","entries":["a.lance"],"seal":"00"}"#.as_bytes().to_vec(),
            b"garbage".to_vec(),
        ];
        let mut cases: Vec<(Vec<u8>, Result<Key, String>)> = forged.into_iter().map(|j| (j, key())).collect();
        // Sealed, but by another install; sealed here, but nothing to check it with.
        cases.push((journal(&dir, &["a.lance"], &other), key()));
        cases.push((journal(&dir, &["a.lance"], &key().unwrap()), Err("no key".into())));
        for (bad, key) in cases {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("a.lance")).unwrap();
            std::fs::write(dir.join("a.lance/old"), "old").unwrap();
            std::fs::create_dir_all(dir.join("incoming/a.lance")).unwrap();
            std::fs::write(dir.join("incoming/a.lance/new"), "planted").unwrap();
            std::fs::create_dir_all(dir.join("outgoing/b.lance")).unwrap();
            std::fs::write(dir.join("outgoing/b.lance/kept"), "kept").unwrap();
            std::fs::write(dir.join(GENERATION), format!("1{SWAPPING}")).unwrap();
            std::fs::write(dir.join(SWAP), &bad).unwrap();
            let shown = String::from_utf8_lossy(&bad).into_owned();
            assert!(!recover_with(&dir, || key).unwrap(), "{shown}");
            let want: Vec<(String, String)> = vec![
                ("a.lance/old".into(), "old".into()),
                ("incoming/a.lance/new".into(), "planted".into()),
                ("refused-outgoing/b.lance/kept".into(), "kept".into()),
                ("refused-swap".into(), shown.clone()),
            ];
            assert_eq!(left(&dir), want, "{shown}");
            assert!(!generation(&dir).ends_with(SWAPPING), "{shown}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_sealed_journal_with_a_staged_link_is_set_aside_before_any_rename() {
        let base = std::env::temp_dir().join(format!("tsq-swap-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (dir, sibling) = (base.join("ws/.tsq"), base.join("other/.tsq"));
        std::fs::create_dir_all(sibling.join("a.lance")).unwrap();
        std::fs::write(sibling.join("a.lance/theirs"), "theirs").unwrap();
        std::fs::create_dir_all(dir.join("incoming")).unwrap();
        std::fs::write(dir.join("incoming/meta.json"), "new").unwrap();
        std::fs::write(dir.join("meta.json"), "old").unwrap();
        std::os::unix::fs::symlink("../../other/.tsq/a.lance", dir.join("incoming/a.lance")).unwrap();
        write_atomic(&dir.join(SWAP), &journal(&dir, &["a.lance", "meta.json"], &key().unwrap())).unwrap();
        assert!(!recover_with(&dir, key).unwrap());
        assert_eq!(std::fs::read_to_string(dir.join("meta.json")).unwrap(), "old", "nothing was renamed");
        assert!(std::fs::symlink_metadata(dir.join("a.lance")).is_err());
        assert!(std::fs::symlink_metadata(dir.join(SWAP)).is_err());
        assert_eq!(tree(&sibling), [("a.lance/theirs".to_string(), "theirs".to_string())]);
        let _ = std::fs::remove_dir_all(&base);
    }
}
