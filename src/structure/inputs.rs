//! What the occurrence index depends on besides the indexed files
//! (ARCHITECTURE.md, "The occurrence sync's inputs"):
//! - the layout (`layout_hash`): the walked configs, the configs their
//!   `extends` chains and `references` read (`read_configs`, kept in the
//!   marker), the workspace's `.d.ts` files and the engine's fingerprint.
//!   A change re-indexes everything;
//! - per file, what its module resolution read (`OccFileRow::lookups`
//!   and `affecting`, from TypeScript's `failedLookupLocations` and
//!   `affectingLocations`): a file created at a failed lookup location
//!   re-indexes the files that looked there (`naming`); a changed
//!   package.json re-indexes the files whose resolution consulted it
//!   (`Affecting::changed`), as TypeScript's watch mode invalidates
//!   exactly those resolutions.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use sha2::Digest;

use crate::files::is_declaration_file;
use crate::index::occurrences::OccFileRow;
use crate::index::{relative, Index, IndexError};
use crate::source::Tree;
use crate::ts::files::FileView;
use crate::ts::sha256_hex;
use crate::workspace::Workspace;

pub const LAYOUT_MARKER: &str = "occurrences-layout";
/// The record of every package.json file resolution consulted, with the
/// hash of its text when the rows were written.
const AFFECTING: &str = "occurrence-inputs";
/// The record of files a cascade queued and no sync has re-indexed yet.
const PENDING: &str = "occurrence-pending";

/// The hash of everything that changes the project layout or the global
/// scope without being indexed itself: configs and workspace `.d.ts`
/// files; plus the engine's fingerprint (its JS and TypeScript version).
/// (package.json files are per-file inputs: `Affecting`.)
pub(crate) fn layout_hash(tree: &Tree, root: &Path, view: &FileView, extra: &[String]) -> String {
    let mut h = sha2::Sha256::new();
    let mut parts: Vec<(String, String)> = tree.configs.iter().map(|c| (relative(c, root), sha256_hex(&std::fs::read(c).unwrap_or_default()))).collect();
    // The configs TypeScript read beyond the walked ones: `extends` chains
    // and `references` (any file name, maybe outside the root).
    for x in extra {
        parts.push((format!("<read>{x}"), sha256_hex(&std::fs::read(root.join(x)).unwrap_or_default())));
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
    let text = std::fs::read_to_string(path).unwrap_or_default();
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

/// The package.json files resolution consulted, each with the hash of
/// its text as the rows saw it ("" when it did not exist).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Affecting(BTreeMap<String, String>);

impl Affecting {
    pub fn load(index: &Index) -> Affecting {
        index.record(AFFECTING).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    /// The recorded files as they are now.
    pub fn read(&self, root: &Path) -> Affecting {
        Affecting(self.0.keys().map(|p| (p.clone(), hash_of(root, p))).collect())
    }

    /// The recorded files whose hash differs in `now` (`read`).
    pub fn changed(&self, now: &Affecting) -> Vec<String> {
        self.0.iter().filter(|(p, h)| now.0.get(*p) != Some(*h)).map(|(p, _)| p.clone()).collect()
    }

    /// The record for the rows: every file their resolution consulted, with
    /// its hash as read before the pass (`before`), so that an edit during
    /// the pass is seen by the next sync; a file first consulted now is
    /// read now.
    pub fn of<'a>(root: &Path, consulted: impl Iterator<Item = &'a String>, before: &Affecting) -> Affecting {
        let mut out = BTreeMap::new();
        for a in consulted {
            if !out.contains_key(a) {
                let hash = before.0.get(a).cloned().unwrap_or_else(|| hash_of(root, a));
                out.insert(a.clone(), hash);
            }
        }
        Affecting(out)
    }

    /// Adds the files of `consulted` the record lacks, with their hash
    /// now (as `of` reads a file first consulted); true when any was.
    /// Recorded files keep their hash, so a change not yet re-indexed is
    /// still seen.
    pub fn add_new<'a>(&mut self, root: &Path, consulted: impl Iterator<Item = &'a String>) -> bool {
        let mut added = false;
        for a in consulted {
            if !self.0.contains_key(a) {
                self.0.insert(a.clone(), hash_of(root, a));
                added = true;
            }
        }
        added
    }

    pub fn save(&self, index: &Index) -> Result<(), IndexError> {
        index.put_record(AFFECTING, &serde_json::to_string(self).unwrap_or_default())
    }
}

fn hash_of(root: &Path, rel: &str) -> String {
    std::fs::read(root.join(rel)).map(|b| sha256_hex(&b)).unwrap_or_default()
}

/// The files a cascade queued that are not re-indexed yet: saved before
/// the rows that caused the cascade are written, so that an interrupted
/// or deferred sync (a file edited meanwhile, `kill -9`, `tsq serve`'s
/// inline budget) leaves them for the next one; their own hashes did not
/// change, so nothing else would find them.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Pending(pub BTreeSet<String>);

impl Pending {
    pub fn load(index: &Index) -> Pending {
        index.record(PENDING).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    pub fn save(&self, index: &Index) -> Result<(), IndexError> {
        index.put_record(PENDING, &serde_json::to_string(self).unwrap_or_default())
    }
}
