//! The index directory on disk, apart from its tables: creating it (with
//! a `.gitignore` and a write probe), `meta.json`, whole-or-absent writes,
//! clearing the tables for a rebuild, its size, and `tsq clean`.

use std::path::{Path, PathBuf};

use super::layout::{is_tsq_file, INCOMING, INDEX_FILES, JOURNAL, ORIGIN, OUTGOING};
use super::schema::TABLES;
use super::{confine, index_dir, io, lock, IndexError, Meta};

/// Removes the index of `root`: only what tsq made (the tables and tsq's
/// own files); the user's `config.toml` and anything else stay, and a
/// `.tsq` that is a link is refused, never followed.
pub fn clean(root: &Path) -> Result<bool, IndexError> {
    let dir = index_dir(root);
    if !confine::check(&dir)? {
        return Ok(false);
    }
    // No pass is writing its records meanwhile (nor their temporary files).
    let _pass = lock::acquire_pass(&dir).map_err(|e| io(&dir, e))?;
    let _lock = lock::acquire(&dir).map_err(|e| io(&dir, e))?;
    let mut removed = false;
    for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
        let entry = entry.map_err(|e| io(&dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = TABLES.iter().any(|t| name == format!("{t}.lance"))
            || LEGACY.contains(&name.as_str())
            || (is_tsq_file(&name) && name != "config.toml")
            || name == INCOMING
            || name == OUTGOING
            || name.ends_with(".tmp");
        if !ours {
            continue;
        }
        let path = entry.path();
        let is_dir = std::fs::symlink_metadata(&path).map_err(|e| io(&path, e))?.is_dir();
        if is_dir { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) }.map_err(|e| io(&path, e))?;
        removed = true;
    }
    // Empty now unless the user kept something there.
    let _ = std::fs::remove_dir(&dir);
    Ok(removed)
}

/// Creates the index directory (or checks the one there: `confine`).
/// `root`, when given, is the workspace whose git must not track `dir`
/// (a committed index is a checkout's, never tsq's: `refuse_tracked`).
pub(super) fn prepare_dir(dir: &Path, root: Option<&Path>) -> Result<PathBuf, IndexError> {
    confine::check(dir)?;
    if let Some(root) = root {
        refuse_tracked(root, dir)?;
    }
    make_dir(dir).map_err(|e| io(dir, e))
}

/// Refuses an index directory that git tracks in the repository holding
/// `root`: what a checkout commits under `.tsq/` is its own, and a sync
/// writing there would put the user's index into their next commit.
pub(super) fn refuse_tracked(root: &Path, dir: &Path) -> Result<(), IndexError> {
    let Some(name) = dir.file_name().and_then(|n| n.to_str()) else { return Ok(()) };
    if dir.parent() != Some(root) || !dir.is_dir() || !crate::git::tracks(root, name) {
        return Ok(());
    }
    Err(IndexError::Unsafe {
        path: dir.display().to_string(),
        message: format!(
            "git tracks it (the repository committed an index; tsq never uses one from a checkout). Untrack it with `git rm -r --cached {name}` (the files stay), then run tsq again"
        ),
    })
}

/// Where the index of a workspace whose `.tsq` cannot be written (a
/// read-only checkout, `.tsq` a file) lives instead: `index-<tag>` (the
/// root's hash) under a directory of this user's own, never a name in a
/// shared temp directory that another user could have made first.
/// `$XDG_CACHE_HOME/tsq` (absolute), else `~/.cache/tsq`, else
/// `<temp>/tsq-<uid>`; created 0700 and refused unless it is a directory
/// (not a link) this user owns that no one else may read or write.
pub(super) fn fallback_dir(root: &Path) -> Result<PathBuf, IndexError> {
    use sha2::Digest;
    let tag = crate::ts::hex(&sha2::Sha256::digest(root.display().to_string().as_bytes())[..8]);
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let cache = std::env::var_os("XDG_CACHE_HOME").and_then(absolute).or_else(|| std::env::var_os("HOME").and_then(absolute).map(|h| h.join(".cache")));
    let base = match cache {
        Some(c) => {
            std::fs::create_dir_all(&c).map_err(|e| io(&c, e))?;
            c.join("tsq")
        }
        None => std::env::temp_dir().join(format!("tsq-{}", user_id())),
    };
    private_dir(&base)?;
    Ok(base.join(format!("index-{tag}")))
}

#[cfg(unix)]
fn user_id() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn user_id() -> u32 {
    0
}

/// Creates `dir` private (0700) unless it exists, then checks it is this
/// user's own: a directory, not a link, owned by this user, closed to
/// others.
fn private_dir(dir: &Path) -> Result<(), IndexError> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(io(dir, e)),
        _ => {}
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| io(dir, e))?;
    let unsafe_dir = |message: String| Err(IndexError::Unsafe { path: dir.display().to_string(), message });
    if !meta.is_dir() {
        return unsafe_dir("is not a directory (a link or a file someone else may have put there); remove it and run tsq again".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if meta.uid() != user_id() {
            return unsafe_dir(format!("is owned by another user (uid {}); tsq keeps a fallback index only in a directory of its user's own", meta.uid()));
        }
        if meta.permissions().mode() & 0o077 != 0 {
            return unsafe_dir("is open to other users; `chmod 700` it (or remove it) and run tsq again".into());
        }
    }
    Ok(())
}

fn make_dir(dir: &Path) -> std::io::Result<PathBuf> {
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
    for name in TABLES {
        let p = dir.join(format!("{name}.lance"));
        if p.exists() {
            std::fs::remove_dir_all(&p).map_err(|e| io(&p, e))?;
        }
    }
    for name in LEGACY {
        let p = dir.join(name);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&p).map_err(|e| io(&p, e))?,
            Ok(_) => std::fs::remove_file(&p).map_err(|e| io(&p, e))?,
            Err(_) => {}
        }
    }
    let _ = std::fs::remove_file(dir.join(JOURNAL));
    let _ = std::fs::remove_file(dir.join("meta.json"));
    let _ = std::fs::remove_file(dir.join(ORIGIN));
    Ok(())
}

/// The most tsq reads of one of its own files in the index directory
/// (records, journals, `meta.json`): a file over it (or not a regular
/// file) was not written by tsq and reads as absent.
const MAX_RECORD_BYTES: u64 = 256 << 20;

/// The text of `path`, an index file of tsq's own, when it is a regular
/// file within `MAX_RECORD_BYTES`: what a planted index directory holds
/// is never read without a bound.
pub(crate) fn read_record(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_RECORD_BYTES {
        if meta.is_file() {
            tracing::warn!("{}: {} bytes, over the {MAX_RECORD_BYTES}-byte cap of tsq's own records: ignored", path.display(), meta.len());
        }
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(path).ok()?.take(MAX_RECORD_BYTES).read_to_string(&mut text).ok()?;
    Some(text)
}

pub(super) fn read_meta(dir: &Path) -> Option<Meta> {
    let text = read_record(&dir.join("meta.json"))?;
    match serde_json::from_str(&text) {
        Ok(m) => Some(m),
        // Unreadable metadata: treat as another schema, so the index rebuilds.
        Err(_) => Some(Meta { schema_version: 0, tsq_version: String::new(), embedder: None, dimension: 0, last_sync: None }),
    }
}

/// Writes through a temporary file and a rename, so it is whole or absent.
///
/// The temporary file is this write's own (`<name>.<pid>-<n>-<ns>.tmp`, created
/// exclusively): records are written outside the writer lock (the
/// occurrence pass's), so two processes may write one record at once, and
/// with a shared temporary name one's rename would find the other's file
/// already moved. Each rename is whole, so the last one wins. An exclusive
/// create never opens what is already there (a planted link included).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // A name a killed writer left (pids repeat) is passed over, not opened.
    let (tmp, mut f) = loop {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let tmp = path.with_file_name(format!("{name}.{}-{}-{nanos}.tmp", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&tmp, e)),
        }
    };
    let written = f.write_all(bytes).and_then(|_| f.sync_all()).map_err(|e| io(&tmp, e)).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| io(path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A temporary file older than this was left by a writer that died
/// between create and rename (`write_atomic`); a live write takes
/// milliseconds.
const ABANDONED: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes temporary files at the top of the index directory that a
/// killed writer left (each write has its own name, so nothing else
/// replaces them). Best effort, after a sync that wrote.
pub(super) fn sweep_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let abandoned = e.file_name().to_string_lossy().ends_with(".tmp")
            && e.metadata().is_ok_and(|m| m.is_file() && m.modified().is_ok_and(|t| t.elapsed().is_ok_and(|age| age > ABANDONED)));
        if abandoned {
            let _ = std::fs::remove_file(e.path());
        }
    }
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

/// What indexes before schema 8 held beside today's tables (the
/// per-declaration structure store): removed by a rebuild and by `clean`,
/// never published.
const LEGACY: &[&str] = &["structure.lance", "imports.lance", "names.lance", "structure-configs", "structure-workspace.json"];

/// The index's files, relative to `dir` and sorted: what `tsq publish`
/// uploads. Only the index's own: the tables' directories and
/// `INDEX_FILES`, never a stray file beside them. The caller holds the
/// writer lock (and `confine` checked the directory).
pub(crate) fn snapshot_files(dir: &Path) -> Result<Vec<String>, IndexError> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            let path = e.path();
            let rel = path.strip_prefix(base).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if rel.ends_with(".tmp") {
                continue;
            }
            let kind = std::fs::symlink_metadata(&path)?.file_type();
            if kind.is_dir() {
                walk(base, &path, out)?;
            } else if kind.is_file() {
                out.push(rel);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for name in TABLES.iter().map(|t| format!("{t}.lance")) {
        let table = dir.join(&name);
        if std::fs::symlink_metadata(&table).is_ok_and(|m| m.is_dir()) {
            walk(dir, &table, &mut out).map_err(|e| io(&table, e))?;
        }
    }
    for name in INDEX_FILES {
        if std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file()) {
            out.push(name.to_string());
        }
    }
    out.sort();
    Ok(out)
}

/// Where a pulled index came from, as answers say it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    pub url: String,
    pub commit: String,
    /// Files re-indexed locally after the pull (their content differed).
    pub reindexed: usize,
    /// Whether a configured public key verified the manifest's signature.
    #[serde(default = "unsigned")]
    pub trust: Trust,
}

fn unsigned() -> Trust {
    Trust::Unsigned
}

impl Origin {
    /// `index: from s3://…@1a2b3c4 (signature verified), 14 files
    /// re-indexed locally`.
    pub fn line(&self) -> String {
        let short: String = self.commit.chars().take(12).collect();
        let trust = match self.trust {
            Trust::Verified => "signature verified",
            Trust::Unsigned => "unsigned",
        };
        format!("index: from {}@{short} ({trust}), {} files re-indexed locally", self.url, self.reindexed)
    }
}

pub fn read_origin(dir: &Path) -> Option<Origin> {
    serde_json::from_str(&read_record(&dir.join(ORIGIN))?).ok()
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
/// the writer lock: what a publish reads and a pull swaps. The occurrence
/// pass lock is taken first: a pass writes its records outside the writer
/// lock, so a publish would read them half-updated and a pull's swap
/// would have its records overwritten by a pass that started before it.
pub(crate) fn with_writer_lock<T>(root: &Path, f: impl FnOnce(&Path) -> T) -> Result<T, IndexError> {
    let dir = prepare_dir(&super::index_dir(root), Some(root))?;
    let _pass = lock::acquire_pass(&dir).map_err(|e| io(&dir, e))?;
    let _lock = lock::acquire(&dir).map_err(|e| io(&dir, e))?;
    Ok(f(&dir))
}

/// How far a verified manifest can be trusted (`share::manifest`), as the
/// origin of a pulled index records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    /// Signed, and the signature matches the configured public key.
    Verified,
    /// No public key is configured: the signature (if any) was not checked.
    Unsigned,
}

impl Trust {
    pub fn word(self) -> &'static str {
        match self {
            Trust::Verified => "signature verified",
            Trust::Unsigned => "unsigned (no public key configured)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write_atomic;

    /// Two writers of one record at once (the occurrence pass writes its
    /// records outside the writer lock): each write is whole, the record
    /// is one of them, and no temporary file is left.
    #[test]
    fn concurrent_writes_of_one_record_all_succeed_whole() {
        let dir = std::env::temp_dir().join(format!("tsq-write-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("occurrence-pending.json");
        let texts: Vec<String> = (0..4).map(|t| format!("[\"{}\"]", t.to_string().repeat(100_000))).collect();
        std::thread::scope(|s| {
            for text in &texts {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..50 {
                        write_atomic(path, text.as_bytes()).unwrap();
                    }
                });
            }
        });
        let got = std::fs::read_to_string(&path).unwrap();
        assert!(texts.contains(&got), "the record is one whole write");
        let names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["occurrence-pending.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
