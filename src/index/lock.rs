//! One writer per index: an in-process lock per index directory plus an OS
//! lock on `.tsq/lock`, which the OS releases when the process dies (so
//! `kill -9` never leaves a stale lock). Two engines of one process on
//! different workspaces never wait for each other.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

static LOCKED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
static RELEASED: Condvar = Condvar::new();

/// How long `try_acquire` waits for a writer of this same process (its
/// writes are short batches: a background structure commit, say) before
/// answering `None`.
const IN_PROCESS_WAIT: Duration = Duration::from_secs(5);

/// Held while writing; dropping it releases both locks.
pub(crate) struct WriterLock {
    _file: File,
    dir: PathBuf,
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let mut locked = LOCKED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(set) = locked.as_mut() {
            set.remove(&self.dir);
        }
        RELEASED.notify_all();
    }
}

/// Opens (creating) the lock file `name` in `dir`: `lock` for writers,
/// `layout::PASS_LOCK` for occurrence passes.
fn lock_file(dir: &Path, name: &str) -> std::io::Result<File> {
    std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(name))
}

/// Takes this process's lock on `dir`, waiting at most `wait` (forever
/// when `None`); false when the wait ran out.
fn enter(dir: &Path, wait: Option<Duration>) -> bool {
    let deadline = wait.map(|w| std::time::Instant::now() + w);
    let mut locked = LOCKED.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let set = locked.get_or_insert_with(HashSet::new);
        if !set.contains(dir) {
            set.insert(dir.to_path_buf());
            return true;
        }
        match deadline {
            None => locked = RELEASED.wait(locked).unwrap_or_else(|p| p.into_inner()),
            Some(d) => {
                let now = std::time::Instant::now();
                if now >= d {
                    return false;
                }
                locked = RELEASED.wait_timeout(locked, d - now).unwrap_or_else(|p| p.into_inner()).0;
            }
        }
    }
}

fn leave(dir: &Path) {
    let mut locked = LOCKED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(set) = locked.as_mut() {
        set.remove(dir);
    }
    RELEASED.notify_all();
}

/// Waits for the writer lock.
pub(crate) fn acquire(dir: &Path) -> std::io::Result<WriterLock> {
    enter(dir, None);
    let file = match lock_file(dir, "lock").and_then(|f| f.lock().map(|()| f)) {
        Ok(f) => f,
        Err(e) => {
            leave(dir);
            return Err(e);
        }
    };
    Ok(WriterLock { _file: file, dir: dir.to_path_buf() })
}

/// The writer lock if no other process holds it (a writer of this process
/// is waited for briefly); `None` when another writer does.
pub(crate) fn try_acquire(dir: &Path) -> std::io::Result<Option<WriterLock>> {
    if !enter(dir, Some(IN_PROCESS_WAIT)) {
        return Ok(None);
    }
    let file = match lock_file(dir, "lock") {
        Ok(f) => f,
        Err(e) => {
            leave(dir);
            return Err(e);
        }
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(WriterLock { _file: file, dir: dir.to_path_buf() })),
        Err(std::fs::TryLockError::WouldBlock) => {
            leave(dir);
            Ok(None)
        }
        Err(std::fs::TryLockError::Error(e)) => {
            leave(dir);
            Err(e)
        }
    }
}

/// Held while an occurrence pass runs (`Index::occurrence_pass`): one pass
/// per index across processes. A pass writes its rows batch by batch
/// under the writer lock and checks each batch without it; a second
/// process that ran its own pass meanwhile would check every file again
/// for nothing. This process's passes are ordered by the engine's own
/// mutex; this lock orders processes (and engines) on one index.
pub(crate) struct PassLock {
    _file: File,
}

/// Waits for the occurrence pass lock.
pub(crate) fn acquire_pass(dir: &Path) -> std::io::Result<PassLock> {
    let file = lock_file(dir, super::layout::PASS_LOCK)?;
    file.lock()?;
    Ok(PassLock { _file: file })
}

/// The occurrence pass lock if no other pass holds it; `None` when one does.
pub(crate) fn try_acquire_pass(dir: &Path) -> std::io::Result<Option<PassLock>> {
    let file = lock_file(dir, super::layout::PASS_LOCK)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(PassLock { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}
