//! The compiler host's file system, as Rust serves it to JS: the workspace
//! (and nothing outside it) plus the vendored lib files at a virtual path.
//! A path is inside when what it resolves to is: a link out of the root
//! (a source the walk skips but a walked file imports, a `tsconfig.json`
//! that `extends` a link to `/dev/zero`) reads as absent. Only the
//! workspace's own `node_modules`, where it is a link, may resolve
//! elsewhere. Every read is bounded (regular files, `max_file_bytes`).
//! Plain functions, tested without an engine; `isolate` wraps them in ops.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    /// Where reads may resolve: the root, and the workspace's own
    /// `node_modules` when it is a link elsewhere.
    allowed: Vec<PathBuf>,
    /// Directories' real paths, resolved once per request (`None`: absent).
    real_dirs: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
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
        let mut allowed = vec![root.clone()];
        if let Ok(modules) = root.join("node_modules").canonicalize() {
            if !modules.starts_with(&root) && modules.is_dir() {
                allowed.push(modules);
            }
        }
        WorkspaceFs {
            root,
            libs: libs.iter().copied().collect(),
            view,
            versions: HashMap::new(),
            epoch: 0,
            generation: 0,
            generation_checked: u64::MAX,
            allowed,
            real_dirs: Mutex::new(HashMap::new()),
        }
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
        if !out.starts_with(&self.root) {
            return None;
        }
        // Contained by what it resolves to: the directory's real path (once
        // per request), then the entry itself when it is a link.
        let allowed = |real: &Path| self.allowed.iter().any(|a| real.starts_with(a));
        if let Some(parent) = out.parent().filter(|p| p.starts_with(&self.root)) {
            let real = {
                let mut dirs = self.real_dirs.lock().unwrap_or_else(|p| p.into_inner());
                dirs.entry(parent.to_path_buf()).or_insert_with(|| parent.canonicalize().ok()).clone()
            };
            if real.is_some_and(|r| !allowed(&r)) {
                return None;
            }
        }
        match std::fs::symlink_metadata(&out) {
            Ok(m) if m.file_type().is_symlink() => out.canonicalize().ok().filter(|r| allowed(r)).map(|_| out),
            _ => Some(out),
        }
    }

    /// A regular file's bytes, when it is at most `max_file_bytes` (a
    /// config, package.json or other text the compiler asks for); a file
    /// refused is said on stderr.
    fn bounded(&self, p: &Path) -> Option<Vec<u8>> {
        let meta = std::fs::metadata(p).ok()?;
        let limit = self.view.read_config().max_file_bytes;
        if !meta.is_file() || meta.len() > limit {
            tracing::warn!(
                "{}: not read by the compiler: {}",
                p.display(),
                if meta.is_file() { format!("{} bytes, over the {limit}-byte limit (maxFileBytes)", meta.len()) } else { "not a regular file".to_string() }
            );
            return None;
        }
        use std::io::Read;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::fs::File::open(p).ok()?.take(limit + 1).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= limit).then_some(bytes)
    }

    pub fn read(&self, path: &str) -> Option<String> {
        if let Some(text) = self.lib(path) {
            return Some(text.to_string());
        }
        let p = self.inside(path)?;
        if p.extension().is_some_and(|e| e == "json") {
            return String::from_utf8(self.bounded(&p)?).ok();
        }
        if source::is_supported(&p) {
            return self.view.get(&p).ok()?.text.as_ref().ok().map(|t| t.to_string());
        }
        // Other text the compiler asks for.
        source::decode(self.bounded(&p)?).ok()
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
        self.real_dirs.get_mut().unwrap_or_else(|p| p.into_inner()).clear();
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

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_root_read_as_absent() {
        let base = std::env::temp_dir().join(format!("tsq-host-links-{}", std::process::id()));
        let (root, outside) = (base.join("ws"), base.join("secret"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("key.ts"), "export const key = \"hunter2\";\n").unwrap();
        std::fs::write(root.join("src/inside.ts"), "export const a = 1;\n").unwrap();
        std::os::unix::fs::symlink(outside.join("key.ts"), root.join("src/key.ts")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("linked")).unwrap();
        std::os::unix::fs::symlink(root.join("src/inside.ts"), root.join("src/alias.ts")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.json")).unwrap();
        std::fs::write(root.join("big.json"), vec![b' '; 64]).unwrap();
        let fs = WorkspaceFs::with_view(&root, &[], Arc::new(FileView::new(ReadConfig { max_file_bytes: 32 })));
        let real = root.canonicalize().unwrap();
        let at = |rel: &str| format!("{}/{rel}", real.display());
        assert_eq!(fs.read(&at("src/key.ts")), None, "a file link out of the root");
        assert!(!fs.file_exists(&at("src/key.ts")));
        assert_eq!(fs.read(&at("linked/key.ts")), None, "a file under a directory link out of the root");
        assert!(!fs.dir_exists(&at("linked")));
        assert_eq!(fs.read(&at("src/alias.ts")).as_deref(), Some("export const a = 1;\n"), "a link inside the root");
        assert_eq!(fs.read(&at("zero.json")), None, "a config linked to a device");
        assert_eq!(fs.read(&at("big.json")), None, "a config over the size limit");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
