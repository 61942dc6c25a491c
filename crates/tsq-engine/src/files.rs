//! The one view of a workspace's file contents that every part of tsq
//! shares: the index sync (hashes, texts to parse), the Language Service's
//! compiler host (texts, script versions) and the Language Service's
//! candidate and importer searches. Each file is read, checked and hashed
//! once per change: an entry is reused while the file's mtime and size
//! hold, so a query that finds nothing changed reads no file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::source::{self, ReadConfig, SourceError};

/// One file as last read.
#[derive(Debug)]
pub struct FileEntry {
    pub mtime: Option<SystemTime>,
    pub len: u64,
    /// Hex sha256 of the bytes; empty when the file was not read (too large).
    pub hash: String,
    /// The checked text (NUL-free UTF-8 without a BOM), or why there is none.
    pub text: Result<Arc<str>, SourceError>,
    /// Relative module specifiers the text imports, resolved lexically
    /// (`relative_imports`), computed on first use.
    imports: OnceLock<Vec<String>>,
}

impl FileEntry {
    /// The text, or "" when the file could not be read.
    pub fn text_or_empty(&self) -> &str {
        self.text.as_deref().unwrap_or("")
    }

    /// `relative_imports` of this file, computed once per content.
    pub fn imports(&self, path: &Path) -> &[String] {
        self.imports.get_or_init(|| relative_imports(path, self.text_or_empty()))
    }
}

/// The shared view: path → the entry for its current mtime and size.
pub struct FileView {
    read: ReadConfig,
    entries: Mutex<HashMap<PathBuf, Arc<FileEntry>>>,
    reads: AtomicUsize,
}

impl FileView {
    pub fn new(read: ReadConfig) -> FileView {
        FileView { read, entries: Mutex::new(HashMap::new()), reads: AtomicUsize::new(0) }
    }

    pub fn read_config(&self) -> &ReadConfig {
        &self.read
    }

    /// How many files this view has read from disk (a debug counter).
    pub fn reads(&self) -> usize {
        self.reads.load(Ordering::Relaxed)
    }

    /// Drops every cached entry: each file is read again when next asked.
    pub fn forget_all(&self) {
        self.lock().clear();
    }

    /// The file's entry: the cached one while mtime and size hold, else a
    /// fresh read. `Err` when the file cannot be stat'ed.
    pub fn get(&self, path: &Path) -> Result<Arc<FileEntry>, SourceError> {
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => SourceError::Missing,
            _ => SourceError::Io { message: e.to_string() },
        })?;
        self.get_with(path, &meta)
    }

    /// As `get`, with metadata the caller already has.
    pub fn get_with(&self, path: &Path, meta: &std::fs::Metadata) -> Result<Arc<FileEntry>, SourceError> {
        let (mtime, len) = (meta.modified().ok(), meta.len());
        if let Some(e) = self.lock().get(path) {
            if e.mtime == mtime && e.len == len {
                return Ok(Arc::clone(e));
            }
        }
        let entry = Arc::new(self.read_entry(path, meta, mtime, len));
        self.lock().insert(path.to_path_buf(), Arc::clone(&entry));
        Ok(entry)
    }

    fn read_entry(&self, path: &Path, meta: &std::fs::Metadata, mtime: Option<SystemTime>, len: u64) -> FileEntry {
        let entry = |hash: String, text| FileEntry { mtime, len, hash, text, imports: OnceLock::new() };
        if !meta.is_file() {
            return entry(String::new(), Err(SourceError::Io { message: "not a regular file".into() }));
        }
        if len > self.read.max_file_bytes {
            return entry(String::new(), Err(SourceError::TooLarge { size: len, limit: self.read.max_file_bytes }));
        }
        self.reads.fetch_add(1, Ordering::Relaxed);
        match std::fs::read(path) {
            Ok(bytes) => {
                let hash = crate::hex(&Sha256::digest(&bytes));
                entry(hash, source::decode(bytes).map(Arc::from))
            }
            Err(e) => entry(String::new(), Err(SourceError::Io { message: e.to_string() })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Arc<FileEntry>>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Files that import any of `targets` through relative specifiers,
    /// transitively (barrels re-exporting a module count), up to 4 hops.
    /// Reads only files changed since the view last saw them.
    pub fn importers(&self, sources: &[PathBuf], targets: &[String]) -> Vec<String> {
        let graph: Vec<(String, Vec<String>)> =
            sources.iter().filter_map(|f| self.get(f).ok().map(|e| (f.display().to_string(), e.imports(f).to_vec()))).collect();
        importers_in(&graph, targets)
    }
}

fn importers_in(graph: &[(String, Vec<String>)], targets: &[String]) -> Vec<String> {
    let mut keys: std::collections::HashSet<String> = std::collections::HashSet::new();
    let add_keys = |keys: &mut std::collections::HashSet<String>, f: &str| {
        let k = strip_source_ext(f);
        if let Some(dir) = k.strip_suffix("/index") {
            keys.insert(dir.to_string());
        }
        keys.insert(k);
    };
    for t in targets {
        add_keys(&mut keys, t);
    }
    let mut found: Vec<String> = Vec::new();
    for _ in 0..4 {
        let before = found.len();
        for (f, imports) in graph {
            if !found.contains(f) && !targets.contains(f) && imports.iter().any(|i| keys.contains(i)) {
                found.push(f.clone());
            }
        }
        if found.len() == before {
            break;
        }
        for f in &found[before..] {
            add_keys(&mut keys, f);
        }
    }
    found
}

/// Relative module specifiers a file imports (`from './x'`, `require('../y')`,
/// `import('./z')`), resolved lexically against its directory, without
/// extension: enough to find which files import which, without a parse.
pub fn relative_imports(file: &Path, text: &str) -> Vec<String> {
    let dir = file.parent().unwrap_or(Path::new("/"));
    let mut out = Vec::new();
    for marker in ["from ", "require(", "import(", "import "] {
        for (i, _) in text.match_indices(marker) {
            let rest = text[i + marker.len()..].trim_start();
            let Some(q) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') else { continue };
            let Some(end) = rest[1..].find(q) else { continue };
            let spec = &rest[1..1 + end];
            if spec.starts_with("./") || spec.starts_with("../") {
                let joined = normalize(&dir.join(spec));
                out.push(strip_source_ext(&joined));
            }
        }
    }
    out
}

fn normalize(p: &Path) -> String {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out.display().to_string()
}

/// `a/b.ts` -> `a/b`; `a/index.ts` -> `a/index` (and `a` matches it too).
fn strip_source_ext(p: &str) -> String {
    for ext in [".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"] {
        if let Some(s) = p.strip_suffix(ext) {
            return s.to_string();
        }
    }
    p.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_imports_resolve_lexically_and_importers_are_transitive() {
        let imports = relative_imports(Path::new("/w/a/b.ts"), "import { x } from './c';\nconst y = require(\"../d/index.js\");\nimport 'lib';");
        assert_eq!(imports, vec!["/w/a/c".to_string(), "/w/d/index".to_string()]);
        let dir = std::env::temp_dir().join(format!("tsq-importers-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("core")).unwrap();
        std::fs::create_dir_all(dir.join("app")).unwrap();
        let f = |p: &str, t: &str| {
            std::fs::write(dir.join(p), t).unwrap();
            dir.join(p)
        };
        let math = f("core/math.ts", "export const add = 1;");
        let barrel = f("core/index.ts", "export { add } from './math';");
        let app = f("app/main.ts", "import { add } from '../core';");
        let other = f("app/other.ts", "import { x } from './main2';");
        let view = FileView::new(ReadConfig::default());
        let all = [math.clone(), barrel.clone(), app.clone(), other];
        let found = view.importers(&all, &[math.display().to_string()]);
        assert_eq!(found, vec![barrel.display().to_string(), app.display().to_string()]);
        let reads = view.reads();
        view.importers(&all, &[math.display().to_string()]);
        assert_eq!(view.reads(), reads, "unchanged files are not read again");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
