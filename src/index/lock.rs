//! One writer per index: an in-process mutex plus an OS lock on
//! `.tsq/lock`, which the OS releases when the process dies (so `kill -9`
//! never leaves a stale lock).

use std::fs::File;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

static IN_PROCESS: Mutex<()> = Mutex::new(());

/// Held while writing; dropping it releases both locks.
pub struct WriterLock {
    _file: File,
    _guard: MutexGuard<'static, ()>,
}

fn lock_file(dir: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join("lock"))
}

/// Waits for the writer lock.
pub fn acquire(dir: &Path) -> std::io::Result<WriterLock> {
    let guard = IN_PROCESS.lock().unwrap_or_else(|p| p.into_inner());
    let file = lock_file(dir)?;
    file.lock()?;
    Ok(WriterLock { _file: file, _guard: guard })
}

/// The writer lock if nobody holds it; `None` when another writer does.
pub fn try_acquire(dir: &Path) -> std::io::Result<Option<WriterLock>> {
    let guard = match IN_PROCESS.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return Ok(None),
    };
    let file = lock_file(dir)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(WriterLock { _file: file, _guard: guard })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}
