//! What the occurrence index depends on besides the indexed files
//! (ARCHITECTURE.md, "The occurrence sync's inputs"):
//! - the layout (`layout_hash`): the walked configs, the configs their
//!   `extends` chains and `references` read (`read_configs`, kept in the
//!   marker), the workspace's `.d.ts` files and the engine's fingerprint.
//!   A change re-indexes everything;
//! - every other file a program read (`Inputs`): per file, what its
//!   module resolution read (`OccFileRow::lookups` and `affecting`, from
//!   TypeScript's `failedLookupLocations` and `affectingLocations`) and
//!   the files TypeScript's builder reaches from it that the walk does
//!   not index (`OccFileRow::reads`: node_modules declarations, JSON
//!   modules, ignored sources); per program, every such file it read. A
//!   changed input re-indexes the files that read it, and everything
//!   that reaches them; one no file's row names, every file of the
//!   programs that read it. A file created at a failed lookup location
//!   (found by its directory's modification time, or by the walk)
//!   re-indexes the files that looked there. Each such change is listed
//!   in the sync's report (`InputChange`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use sha2::Digest;

use crate::files::is_declaration_file;
use crate::index::occurrences::{OccDeclarationRow, OccFileRow};
use crate::index::{relative, Index, IndexError};
use crate::source::Tree;
use crate::ts::files::FileView;
use crate::ts::sha256_hex;
use crate::workspace::Workspace;

pub const LAYOUT_MARKER: &str = "occurrences-layout";
/// The record of every input the walk does not index (`Inputs`).
const AFFECTING: &str = "occurrence-inputs";
/// The record of files a cascade queued and no sync has re-indexed yet.
const PENDING: &str = "occurrence-pending";

/// The hash of everything that changes the project layout or the global
/// scope without being indexed itself: configs and workspace `.d.ts`
/// files; plus the engine's fingerprint (its JS and TypeScript version).
/// (Other inputs are per file: `Inputs`.)
pub(crate) fn layout_hash(tree: &Tree, root: &Path, view: &FileView, extra: &[String]) -> String {
    let mut h = sha2::Sha256::new();
    let mut parts: Vec<(String, String)> = tree.configs.iter().map(|c| relative(c, root)).map(|rel| (rel.clone(), stamp_of(root, &rel, None).hash)).collect();
    // The configs TypeScript read beyond the walked ones: `extends` chains
    // and `references` (any file name; one outside the root, a link to a
    // device, or over the cap is stamped by its size, never read).
    for x in extra {
        parts.push((format!("<read>{x}"), stamp_of(root, x, None).hash));
    }
    for s in &tree.sources {
        let rel = relative(s, root);
        if is_declaration_file(&rel) {
            parts.push((rel, view.get(s).map(|e| e.hash.clone()).unwrap_or_default()));
        }
    }
    // The engine that computes the rows: rows from another tsq's JS or
    // TypeScript are recomputed.
    parts.push(("<engine>".to_string(), tsq_engine::engine_fingerprint().to_string()));
    parts.sort();
    for (p, x) in parts {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(x.as_bytes());
        h.update([0]);
    }
    crate::ts::hex(&h.finalize())
}

/// The layout marker: the layout hash on its first line, then the extra
/// config inputs it covered, one a line.
pub(crate) fn read_marker(path: &Path) -> (Option<String>, Vec<String>) {
    let text = crate::index::read_record(path).unwrap_or_default();
    let mut lines = text.lines();
    let hash = lines.next().filter(|l| !l.is_empty()).map(str::to_string);
    (hash, lines.map(str::to_string).collect())
}

/// The configs the workspace's programs read that the walk does not list
/// as configs: each project's `extends` chain and its `references`.
pub(crate) fn read_configs(ws: &Workspace, tree: &Tree, root: &Path) -> Vec<String> {
    let walked: HashSet<String> = tree.configs.iter().map(|c| relative(c, root)).collect();
    ws.configs_read().into_iter().filter(|x| !walked.contains(x)).collect()
}

/// The stored files whose `list` (`lookups`, `affecting`) names one of
/// `paths`: for created files, those whose resolution failed there (a
/// file there now answers their import); for changed package.json files,
/// those whose resolution read them.
pub fn naming<'a>(stored: &'a HashMap<String, OccFileRow>, list: fn(&OccFileRow) -> &[String], paths: &[String]) -> impl Iterator<Item = &'a String> + 'a {
    let paths: HashSet<String> = paths.iter().cloned().collect();
    stored.iter().filter(move |(_, r)| list(r).iter().any(|l| paths.contains(l))).map(|(p, _)| p)
}

/// One changed input of the rows and what it re-checked (before any
/// cascade from those files).
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct InputChange {
    /// The file (relative), or the directory whose failed lookup answers now.
    pub input: String,
    /// Why those files read it: "read by module resolution" (a package.json),
    /// "referenced (TypeScript's builder)", "read by the program" (no file's
    /// references name it: every file of the programs that read it),
    /// "created at a failed lookup", "a failed lookup answers now".
    pub rule: &'static str,
    pub rechecked: usize,
    /// The files it re-checked (relative).
    #[serde(skip)]
    pub files: Vec<String>,
}

/// A declaration whose compiler signature moved while its file's text did
/// not: an input the file reads changed (`npm install` of another
/// version, a package.json's `types`). The sync sees both sides as it
/// replaces the rows; `tsq impact` reports it as an API change, since git
/// shows no change in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureChange {
    pub file: String,
    /// The input that re-checked the file.
    pub input: String,
    /// Containers, then the name.
    pub names: Vec<String>,
    pub kind: String,
    pub lines: (u32, u32),
    pub before: String,
    pub after: String,
}

/// The declarations of `new` (rows of files re-checked for `seeded`'s
/// inputs, file -> input) whose signature differs from their `old` row's
/// (by key).
pub(crate) fn signature_changes(old: &[OccDeclarationRow], new: &[OccDeclarationRow], seeded: &HashMap<String, String>) -> Vec<SignatureChange> {
    let parse = |r: &OccDeclarationRow| serde_json::from_str::<super::rows::DeclarationRow>(&r.answer).ok();
    let before: HashMap<(&str, &str), String> = old.iter().filter_map(|r| Some(((r.relative_path.as_str(), r.key.as_str()), parse(r)?.signature))).collect();
    new.iter()
        .filter_map(|r| {
            let input = seeded.get(&r.relative_path)?;
            let was = before.get(&(r.relative_path.as_str(), r.key.as_str()))?;
            let d = parse(r)?;
            (d.signature != *was).then(|| SignatureChange {
                file: r.relative_path.clone(),
                input: input.clone(),
                names: d.containers.iter().cloned().chain([d.name.clone()]).collect(),
                kind: r.key.rsplit('|').next().unwrap_or("").to_string(),
                lines: (d.matched.start_line, d.matched.end_line),
                before: was.clone(),
                after: d.signature,
            })
        })
        .collect()
}

/// A file input as the rows saw it: its content hash ("" when it did not
/// exist), and the length and modification time it was hashed at (a file
/// whose stamp holds is not read again).
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Stamp {
    hash: String,
    len: u64,
    mtime: u128,
}

/// A directory's modification time in ns, `None` when it does not exist.
type DirStamp = Option<u128>;

/// Every input of the rows that the walk does not index, with what it was
/// when the rows were made (ARCHITECTURE.md, "The occurrence sync's
/// inputs"):
/// - `files`: each file of the root a program read besides the walked
///   sources (the package.json files resolution consulted, the builder's
///   `reads`: node_modules declarations, JSON modules, ignored sources;
///   every program's `reads`), with its stamp;
/// - `dirs`: each directory holding a failed lookup location (a path's
///   parent; a node_modules package directory itself), with its
///   modification time: a file created there changes it, and the lookups
///   in it are then checked one by one.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Inputs {
    files: BTreeMap<String, Stamp>,
    #[serde(default)]
    dirs: BTreeMap<String, DirStamp>,
}

/// The directory whose entries decide a failed lookup `l` (relative): a
/// package directory (`node_modules/x/`, with its trailing slash) is its
/// own; a path's is its parent ("" for the root).
pub(crate) fn lookup_dir(l: &str) -> String {
    if let Some(d) = l.strip_suffix('/') {
        return d.to_string();
    }
    l.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default()
}

/// Whether a failed lookup `l` answers now: a file exists at its path, or
/// its package directory exists.
pub(crate) fn lookup_answers(root: &Path, l: &str) -> bool {
    match l.strip_suffix('/') {
        Some(d) => root.join(d).is_dir(),
        None => root.join(l).is_file(),
    }
}

impl Inputs {
    pub fn load(index: &Index) -> Inputs {
        index.record(AFFECTING).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    /// The recorded inputs as they are now: a file whose length and
    /// modification time hold keeps its hash unread.
    pub fn read(&self, root: &Path) -> Inputs {
        let files = self.files.iter().map(|(p, s)| (p.clone(), stamp_of(root, p, Some(s)))).collect();
        let dirs = self.dirs.keys().map(|d| (d.clone(), dir_stamp(root, d))).collect();
        Inputs { files, dirs }
    }

    /// The recorded files whose content differs in `now` (`read`).
    pub fn changed(&self, now: &Inputs) -> Vec<String> {
        self.files.iter().filter(|(p, s)| now.files.get(*p).map(|n| &n.hash) != Some(&s.hash)).map(|(p, _)| p.clone()).collect()
    }

    /// The recorded directories whose entries may differ in `now`.
    pub fn changed_dirs(&self, now: &Inputs) -> Vec<String> {
        self.dirs.iter().filter(|(d, s)| now.dirs.get(*d) != Some(*s)).map(|(d, _)| d.clone()).collect()
    }

    /// Whether any recorded input's stamp differs in `now` (its content,
    /// or only its length or time: the record is written again, so that
    /// the next check does not read it).
    pub fn moved(&self, now: &Inputs) -> bool {
        self.files != now.files || self.dirs != now.dirs
    }

    /// How many recorded inputs differ now (files by content,
    /// directories by modification time): the freshness check's count.
    pub fn pending(&self, root: &Path) -> usize {
        let now = self.read(root);
        self.changed(&now).len() + self.changed_dirs(&now).len()
    }

    /// The record for the rows: every file and lookup directory they
    /// read, each as `before` (read before the pass, so that an edit during
    /// the pass is seen by the next sync) or, first read now, as it is.
    pub fn of<'a>(root: &Path, files: impl Iterator<Item = &'a String>, lookups: impl Iterator<Item = &'a String>, before: &Inputs) -> Inputs {
        let mut out = Inputs::default();
        out.add_new(root, files, lookups, Some(before));
        out
    }

    /// Adds the files and lookup directories the record lacks (as `before`
    /// holds them, else as they are now); true when any was. Recorded ones
    /// keep their stamp, so a change not yet re-indexed is still seen.
    pub fn add_new<'a>(
        &mut self,
        root: &Path,
        files: impl Iterator<Item = &'a String>,
        lookups: impl Iterator<Item = &'a String>,
        before: Option<&Inputs>,
    ) -> bool {
        let mut added = false;
        for f in files {
            if let std::collections::btree_map::Entry::Vacant(v) = self.files.entry(f.clone()) {
                v.insert(before.and_then(|b| b.files.get(f).cloned()).unwrap_or_else(|| stamp_of(root, f, None)));
                added = true;
            }
        }
        for l in lookups {
            let d = lookup_dir(l);
            if let std::collections::btree_map::Entry::Vacant(v) = self.dirs.entry(d) {
                let s = before.and_then(|b| b.dirs.get(v.key()).cloned()).unwrap_or_else(|| dir_stamp(root, v.key()));
                v.insert(s);
                added = true;
            }
        }
        added
    }

    pub fn save(&self, index: &Index) -> Result<(), IndexError> {
        index.put_record(AFFECTING, &serde_json::to_string(self).unwrap_or_default())
    }
}

/// The inputs each warm workspace of this process last synced its rows
/// against, by (root, workspace): another process may re-index after a
/// change (a package installed, a file created at a failed lookup) and
/// record it, and this process's warm programs still hold the old
/// resolutions. `since_seen` finds what moved in between.
static SEEN: std::sync::Mutex<Option<HashMap<(std::path::PathBuf, usize), Inputs>>> = std::sync::Mutex::new(None);

/// The files and lookup directories whose recorded stamps differ between
/// what workspace `key` last synced against and `record` (the record as
/// another process may have written it since); `None` the first time.
pub(crate) fn since_seen(key: &(std::path::PathBuf, usize), record: &Inputs) -> Option<(Vec<String>, Vec<String>)> {
    let seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    let before = seen.as_ref()?.get(key)?;
    Some((before.changed(record), before.changed_dirs(record)))
}

/// Records the inputs workspace `key` synced against.
pub(crate) fn saw(key: (std::path::PathBuf, usize), inputs: &Inputs) {
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    seen.get_or_insert_with(HashMap::new).insert(key, inputs.clone());
}

/// A file input's stamp now; `known`'s hash is kept when its length and
/// modification time hold. Only paths inside the root are read: an input
/// that resolves outside it (a link) counts as missing.
fn stamp_of(root: &Path, rel: &str, known: Option<&Stamp>) -> Stamp {
    let p = root.join(rel);
    let Ok(meta) = std::fs::metadata(&p) else { return Stamp::default() };
    let mtime = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    if let Some(k) = known.filter(|k| !k.hash.is_empty() && k.len == meta.len() && k.mtime == mtime) {
        return k.clone();
    }
    let inside = p.canonicalize().ok().zip(root.canonicalize().ok()).is_some_and(|(p, r)| p.starts_with(r));
    if !inside || !meta.is_file() || meta.len() > MAX_INPUT_BYTES {
        return Stamp { hash: format!("unread:{}", meta.len()), len: meta.len(), mtime };
    }
    let hash = std::fs::read(&p).map(|b| sha256_hex(&b)).unwrap_or_default();
    Stamp { hash, len: meta.len(), mtime }
}

/// Inputs larger than this are stamped by length and time only (a
/// declaration bundle of a few MB is read; a data file of hundreds is not).
const MAX_INPUT_BYTES: u64 = 64 << 20;

fn dir_stamp(root: &Path, rel: &str) -> DirStamp {
    let meta = std::fs::metadata(root.join(rel)).ok().filter(|m| m.is_dir())?;
    Some(meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos()))
}

/// The files a cascade queued that are not re-indexed yet: saved before
/// the rows that caused the cascade are written, so that an interrupted
/// or deferred sync (a file edited meanwhile, `kill -9`, `tsq serve`'s
/// inline budget, an answer waiting for the background pass) leaves them
/// for the next one; their own hashes did not change, so nothing else
/// would find them.
///
/// `names_current`: every change that queued them kept what other files'
/// names are bound to (`Defer::Cascade`'s condition), so their rows still
/// name what they reference and only their types wait. Read as false
/// from a record that lacks it.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(from = "PendingRecord")]
pub(crate) struct Pending {
    pub files: BTreeSet<String>,
    #[serde(rename = "namesCurrent")]
    pub names_current: bool,
    /// Files whose rows a kept-binding cascade wrote (`Defer::Cascade`):
    /// path → [the hash of the text the rows came from, the hash of the
    /// base text whose bindings that text keeps]. Kept when `files`
    /// empties; an entry counts only while both hashes still match.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kept: BTreeMap<String, [String; 2]>,
}

/// The record as written now (an object) or before (the files alone).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum PendingRecord {
    Now {
        files: BTreeSet<String>,
        #[serde(rename = "namesCurrent", default)]
        names_current: bool,
        #[serde(default)]
        kept: BTreeMap<String, [String; 2]>,
    },
    Before(BTreeSet<String>),
}

impl From<PendingRecord> for Pending {
    fn from(r: PendingRecord) -> Pending {
        match r {
            PendingRecord::Now { files, names_current, kept } => Pending { files, names_current, kept },
            PendingRecord::Before(files) => Pending { files, ..Pending::default() },
        }
    }
}

impl Pending {
    pub fn load(index: &Index) -> Pending {
        index.record(PENDING).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    pub fn save(&self, index: &Index) -> Result<(), IndexError> {
        index.put_record(PENDING, &serde_json::to_string(self).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::Pending;

    #[test]
    fn a_pending_record_written_before_names_were_kept_reads_as_names_unknown() {
        let old: Pending = serde_json::from_str(r#"["a.ts","b.ts"]"#).unwrap();
        assert_eq!(old.files.len(), 2);
        assert!(!old.names_current);
        let now = Pending { files: old.files.clone(), names_current: true, kept: [("a.ts".to_string(), ["h1".to_string(), "h0".to_string()])].into() };
        let back: Pending = serde_json::from_str(&serde_json::to_string(&now).unwrap()).unwrap();
        assert_eq!(back, now);
        let partial: Pending = serde_json::from_str(r#"{"files":["a.ts"]}"#).unwrap();
        assert!(!partial.names_current);
    }
}
