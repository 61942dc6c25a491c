//! Finding and reading source files: the walk, the supported extensions,
//! and the per-file checks (size, binary, UTF-8) that turn bad input into a
//! recorded skip instead of a crash.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// Extensions tsq parses (the blueprint's `TS_PARSEABLE_EXTS`).
pub const EXTENSIONS: &[&str] = &["ts", "tsx", "js", "jsx", "mts", "mjs", "cts", "cjs"];

/// Files larger than this are skipped: 16 MiB holds the largest real file
/// in our corpus (`typescript.js`, 9 MiB) with room to spare.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Directories never walked: dependencies, VCS data, tsq's own index.
const SKIPPED_DIRS: &[&str] = &["node_modules", ".git", ".tsq"];

/// Why a file was not parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum SourceError {
    #[error("no such file or directory")]
    Missing,
    #[error("unsupported extension (tsq reads .ts .tsx .js .jsx .mts .mjs .cts .cjs)")]
    UnsupportedExtension,
    #[error("file is {size} bytes, over the {limit}-byte limit")]
    TooLarge { size: u64, limit: u64 },
    #[error("binary file (NUL byte at offset {offset})")]
    Binary { offset: usize },
    #[error("invalid UTF-8 at byte {offset}")]
    InvalidUtf8 { offset: usize },
    #[error("path leaves the workspace")]
    OutsideWorkspace,
    #[error("cannot read: {message}")]
    Io { message: String },
}

/// A file that was not parsed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub path: String,
    #[serde(flatten)]
    pub error: SourceError,
    pub message: String,
}

impl Skipped {
    pub fn new(path: &Path, error: SourceError) -> Skipped {
        Skipped { path: path.display().to_string(), message: error.to_string(), error }
    }
}

/// Limits for reading files.
#[derive(Debug, Clone)]
pub struct ReadConfig {
    pub max_file_bytes: u64,
}

impl Default for ReadConfig {
    fn default() -> Self {
        ReadConfig { max_file_bytes: DEFAULT_MAX_FILE_BYTES }
    }
}

pub fn is_supported(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e))
}

/// Reads one source file, checking extension, size, NUL bytes and UTF-8.
pub fn read_source(path: &Path, config: &ReadConfig) -> Result<String, SourceError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SourceError::Missing,
        _ => SourceError::Io { message: e.to_string() },
    })?;
    if !is_supported(path) {
        return Err(SourceError::UnsupportedExtension);
    }
    if !meta.is_file() {
        return Err(SourceError::Io { message: "not a regular file".into() });
    }
    if meta.len() > config.max_file_bytes {
        return Err(SourceError::TooLarge { size: meta.len(), limit: config.max_file_bytes });
    }
    let bytes = std::fs::read(path).map_err(|e| SourceError::Io { message: e.to_string() })?;
    decode(bytes)
}

/// Checks bytes for NUL and UTF-8; strips a UTF-8 byte-order mark.
pub fn decode(bytes: Vec<u8>) -> Result<String, SourceError> {
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(SourceError::Binary { offset });
    }
    let mut text = String::from_utf8(bytes).map_err(|e| SourceError::InvalidUtf8 { offset: e.utf8_error().valid_up_to() })?;
    if text.starts_with('\u{feff}') {
        text.drain(..3);
    }
    Ok(text)
}

/// The result of walking: files to parse and the ones skipped on the way.
#[derive(Debug, Default)]
pub struct WalkResult {
    pub files: Vec<PathBuf>,
    pub skipped: Vec<Skipped>,
}

/// One walk of a workspace: its source files, its tsconfig/jsconfig
/// files, and what was skipped on the way. A query walks once and every
/// part of tsq (the index sync, the Language Service's file lists, path
/// checks) reads this one view.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tree {
    pub sources: Vec<PathBuf>,
    pub configs: Vec<PathBuf>,
    pub skipped: Vec<Skipped>,
}

impl Tree {
    /// Walks `root` once (as `walk` does) for sources and configs.
    pub fn walk(root: &Path) -> Tree {
        let all = walk_matching(root, |p| is_supported(p) || is_config(p));
        let (configs, sources) = all.files.into_iter().partition(|p| is_config(p));
        Tree { sources, configs, skipped: all.skipped }
    }

    /// Whether any source file lies at or under the workspace-relative
    /// `rel` (a file or a directory).
    pub fn has_sources_under(&self, root: &Path, rel: &str) -> bool {
        let base = root.join(rel);
        self.sources.iter().any(|f| f.starts_with(&base))
    }
}

fn is_config(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == "tsconfig.json" || n == "jsconfig.json")
}

static WALKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many walks this process has made (a debug counter: tests assert
/// that a warm query walks the tree once).
pub fn walk_count() -> usize {
    WALKS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Lists the supported files under `root`, honouring `.gitignore` (also
/// outside a git repository) and `.tsqignore`, skipping
/// `node_modules`, `.git` and `.tsq`, following symlinks but never out of
/// `root` and never round a loop. Sorted, so runs are deterministic.
pub fn walk(root: &Path) -> WalkResult {
    walk_matching(root, is_supported)
}

fn walk_matching(root: &Path, wanted: fn(&Path) -> bool) -> WalkResult {
    WALKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut result = WalkResult::default();
    let Ok(canonical_root) = root.canonicalize() else {
        result.skipped.push(Skipped::new(root, SourceError::Missing));
        return result;
    };
    // A directory symlink that leaves the root is never entered (its files
    // would be walked as the workspace's); it is recorded as skipped.
    let outside: std::sync::Arc<std::sync::Mutex<Vec<PathBuf>>> = Default::default();
    let seen_outside = std::sync::Arc::clone(&outside);
    let inside_root = canonical_root.clone();
    // The ignore rules git uses for cleanliness, the global excludes file
    // included: what a clean checkout's index holds (`tsq publish`).
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(true)
        .hidden(false)
        .git_global(true)
        .require_git(false)
        .add_custom_ignore_filename(".tsqignore")
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if is_dir && SKIPPED_DIRS.iter().any(|d| e.file_name() == *d) {
                return false;
            }
            if is_dir && e.path_is_symlink() && !e.path().canonicalize().is_ok_and(|t| t.starts_with(&inside_root)) {
                seen_outside.lock().unwrap_or_else(|p| p.into_inner()).push(e.path().to_path_buf());
                return false;
            }
            true
        })
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let path = entry.path();
                if !entry.file_type().is_some_and(|t| t.is_file()) || !wanted(path) {
                    continue;
                }
                if entry.path_is_symlink() {
                    match path.canonicalize() {
                        Ok(target) if target.starts_with(&canonical_root) => {}
                        Ok(_) => {
                            result.skipped.push(Skipped::new(path, SourceError::OutsideWorkspace));
                            continue;
                        }
                        Err(e) => {
                            result.skipped.push(Skipped::new(path, SourceError::Io { message: e.to_string() }));
                            continue;
                        }
                    }
                }
                result.files.push(path.to_path_buf());
            }
            Err(err) => {
                let path = match &err {
                    ignore::Error::WithPath { path, .. } => path.clone(),
                    ignore::Error::Loop { child, .. } => child.clone(),
                    _ => root.to_path_buf(),
                };
                let message = err.to_string();
                result.skipped.push(Skipped::new(&path, SourceError::Io { message }));
            }
        }
    }
    for path in std::mem::take(&mut *outside.lock().unwrap_or_else(|p| p.into_inner())) {
        result.skipped.push(Skipped::new(&path, SourceError::OutsideWorkspace));
    }
    result.files.sort();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rejects_nul_and_bad_utf8() {
        assert_eq!(decode(b"ab\0c".to_vec()), Err(SourceError::Binary { offset: 2 }));
        assert_eq!(decode(vec![b'a', 0xff, b'b']), Err(SourceError::InvalidUtf8 { offset: 1 }));
        assert_eq!(decode("\u{feff}x".as_bytes().to_vec()), Ok("x".to_string()));
    }
}
