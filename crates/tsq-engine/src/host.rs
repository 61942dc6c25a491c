//! The compiler host's file system, as Rust serves it to JS: the workspace
//! (and nothing outside it) plus the vendored lib files at a virtual path.
//! Plain functions, tested without an engine; `isolate` wraps them in ops.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::protocol::DirEntries;
use crate::files::FileView;
use crate::source::{self, ReadConfig};

/// Where the vendored `lib.*.d.ts` files appear to the compiler.
pub const LIB_DIR: &str = "/__tsq__/lib";

/// Directories the host never lists.
const HIDDEN_DIRS: &[&str] = &[".git", ".tsq"];

/// The workspace as the compiler sees it.
pub struct WorkspaceFs {
    root: PathBuf,
    libs: HashMap<&'static str, &'static str>,
    /// File texts and content hashes, shared with the index sync.
    view: Arc<FileView>,
    /// Script versions (content hashes) as checked in an epoch.
    versions: HashMap<PathBuf, Version>,
    /// Bumped per service request: within one request a file is stat'ed
    /// once, however often the Language Service asks for its version.
    epoch: u64,
    /// Bumped whenever a file the compiler has read changed (the
    /// Language Service host's `getProjectVersion`), and the epoch it was
    /// last checked in.
    generation: u64,
    generation_checked: u64,
}

struct Version {
    hash: String,
    checked_in: u64,
}

impl WorkspaceFs {
    pub fn new(root: &Path, libs: &[(&'static str, &'static str)]) -> WorkspaceFs {
        WorkspaceFs::with_view(root, libs, Arc::new(FileView::new(ReadConfig::default())))
    }

    /// A host reading through `view`, which the caller shares.
    pub fn with_view(root: &Path, libs: &[(&'static str, &'static str)], view: Arc<FileView>) -> WorkspaceFs {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        WorkspaceFs { root, libs: libs.iter().copied().collect(), view, versions: HashMap::new(), epoch: 0, generation: 0, generation_checked: u64::MAX }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn lib(&self, path: &str) -> Option<&'static str> {
        path.strip_prefix(LIB_DIR).and_then(|p| p.strip_prefix('/')).and_then(|name| self.libs.get(name).copied())
    }

    /// The path, lexically normalized, if it lies inside the workspace.
    fn inside(&self, path: &str) -> Option<PathBuf> {
        let mut out = PathBuf::new();
        for c in Path::new(path).components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other),
            }
        }
        out.starts_with(&self.root).then_some(out)
    }

    pub fn read(&self, path: &str) -> Option<String> {
        if let Some(text) = self.lib(path) {
            return Some(text.to_string());
        }
        let p = self.inside(path)?;
        if p.extension().is_some_and(|e| e == "json") {
            return std::fs::read_to_string(&p).ok();
        }
        if source::is_supported(&p) {
            return self.view.get(&p).ok()?.text.as_ref().ok().map(|t| t.to_string());
        }
        // Other text the compiler asks for.
        let bytes = std::fs::read(&p).ok()?;
        (bytes.len() as u64 <= self.view.read_config().max_file_bytes).then_some(())?;
        source::decode(bytes).ok()
    }

    pub fn file_exists(&self, path: &str) -> bool {
        self.lib(path).is_some() || self.inside(path).is_some_and(|p| p.is_file())
    }

    pub fn dir_exists(&self, path: &str) -> bool {
        path == LIB_DIR || self.inside(path).is_some_and(|p| p.is_dir())
    }

    pub fn entries(&self, path: &str) -> DirEntries {
        let mut out = DirEntries::default();
        if path == LIB_DIR {
            out.files = self.libs.keys().map(|s| s.to_string()).collect();
            out.files.sort();
            return out;
        }
        let Some(dir) = self.inside(path) else { return out };
        let Ok(read) = std::fs::read_dir(dir) else { return out };
        for entry in read.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // Follows symlinks, like the compiler's own host.
            match std::fs::metadata(entry.path()) {
                Ok(m) if m.is_dir() && !HIDDEN_DIRS.contains(&name.as_str()) => out.directories.push(name),
                Ok(m) if m.is_file() => out.files.push(name),
                _ => {}
            }
        }
        out.files.sort();
        out.directories.sort();
        out
    }

    /// Starts a new request: versions are checked against the disk again.
    pub fn next_epoch(&mut self) {
        self.epoch += 1;
    }

    /// A content hash; stable while the file's bytes are.
    pub fn version(&mut self, path: &str) -> String {
        if self.lib(path).is_some() {
            return "lib".to_string();
        }
        let Some(p) = self.inside(path) else { return "missing".to_string() };
        if let Some(v) = self.versions.get(&p) {
            if v.checked_in == self.epoch {
                return v.hash.clone();
            }
        }
        let hash = self.current(&p);
        self.versions.insert(p, Version { hash: hash.clone(), checked_in: self.epoch });
        hash
    }

    fn current(&self, p: &Path) -> String {
        match self.view.get(p) {
            Ok(e) if !e.hash.is_empty() => e.hash.clone(),
            Ok(e) => format!("unread-{}", e.len),
            Err(_) => "missing".to_string(),
        }
    }

    /// A number that changes whenever a file the compiler has asked the
    /// version of changed on disk: the Language Service host's
    /// `getProjectVersion`, so an unchanged project is not synchronized
    /// file by file on every call. Checked once per request (one stat per
    /// known file, in Rust).
    pub fn generation(&mut self) -> u64 {
        if self.generation_checked != self.epoch {
            self.generation_checked = self.epoch;
            let paths: Vec<PathBuf> = self.versions.keys().cloned().collect();
            for p in paths {
                let hash = self.current(&p);
                let epoch = self.epoch;
                let v = self.versions.get_mut(&p).expect("listed above");
                if v.hash != hash {
                    self.generation += 1;
                    v.hash = hash;
                }
                v.checked_in = epoch;
            }
        }
        self.generation
    }

    pub fn realpath(&self, path: &str) -> String {
        match self.inside(path).and_then(|p| p.canonicalize().ok()) {
            Some(real) if real.starts_with(&self.root) => real.display().to_string(),
            _ => path.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs() -> (WorkspaceFs, PathBuf) {
        let dir = std::env::temp_dir().join(format!("tsq-host-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/a.ts"), "export const a = 1;\n").unwrap();
        (WorkspaceFs::new(&dir, &[("lib.es5.d.ts", "declare var x: number;")]), dir.canonicalize().unwrap())
    }

    #[test]
    fn serves_the_workspace_and_libs_but_nothing_outside() {
        let (mut fs, dir) = fs();
        let a = format!("{}/src/a.ts", dir.display());
        assert_eq!(fs.read(&a).as_deref(), Some("export const a = 1;\n"));
        assert!(fs.file_exists(&a));
        assert_eq!(fs.read("/__tsq__/lib/lib.es5.d.ts").as_deref(), Some("declare var x: number;"));
        assert_eq!(fs.read("/etc/passwd"), None);
        assert_eq!(fs.read(&format!("{}/../../etc/passwd", dir.display())), None);
        assert!(!fs.file_exists("/etc/passwd"));
        assert_eq!(fs.entries(&dir.display().to_string()).directories, vec!["src".to_string()]);
        let v1 = fs.version(&a);
        assert_eq!(v1, fs.version(&a));
        let g0 = fs.generation();
        std::fs::write(dir.join("src/a.ts"), "export const a = 22;\n").unwrap();
        assert_eq!(v1, fs.version(&a), "within one request the version holds");
        assert_eq!(g0, fs.generation(), "within one request the project version holds");
        fs.next_epoch();
        assert_ne!(g0, fs.generation(), "a changed file changes the project version");
        assert_ne!(v1, fs.version(&a));
        fs.next_epoch();
        let g = fs.generation();
        fs.next_epoch();
        assert_eq!(g, fs.generation(), "nothing changed: the same project version");
    }
}
