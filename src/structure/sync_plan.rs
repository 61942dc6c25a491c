//! Where an occurrence sync starts: whether it has anything to do
//! (`pending`, cheap: the file rows and the view's hashes), the stored
//! rows and records it reads, and the files it re-indexes first by the
//! invalidation rule (`plan`; `cascade` follows importers transitively,
//! as TypeScript's builder). `occurrence_sync` runs the batches.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use super::inputs::{self, layout_hash, lookup_answers, lookup_dir, read_marker, InputChange, Inputs, Pending, LAYOUT_MARKER};
use super::scope::Scope;
use super::StructureError;
use crate::index::occurrences::OccFileRow;
use crate::index::{relative, Index};
use crate::source::Tree;
use crate::ts::files::FileView;
use crate::workspace::Workspace;

/// Each indexed file's imports and re-exports. The imports include the
/// walked files TypeScript's builder reaches from the file (`deps`:
/// through node_modules declarations, ambient modules, augmentations,
/// triple-slash references).
pub(super) type Imports = HashMap<String, (Vec<String>, Vec<String>)>;

/// A file's edges for `Imports`: its imports and its builder `deps`.
pub(super) fn edges(imports: &[String], deps: &[String], reexports: &[String]) -> (Vec<String>, Vec<String>) {
    let mut all: Vec<String> = imports.iter().chain(deps).cloned().collect();
    all.sort();
    all.dedup();
    (all, reexports.to_vec())
}

/// The files that import `target` (or re-export from it).
fn importers_of(imports: &Imports, target: &str) -> Vec<String> {
    imports.iter().filter(|(_, (i, r))| i.iter().chain(r).any(|x| x == target)).map(|(p, _)| p.clone()).collect()
}

/// Whether `sync` has anything to do: a file's hash differs from its
/// rows', a file is new or gone, the layout changed, or nothing is
/// indexed yet. Cheap (the file rows and the view's hashes): an answer
/// that needs no re-indexing loads no TypeScript project.
pub(crate) fn needs_sync(index: &Index, tree: &Tree, view: &FileView) -> Result<bool, StructureError> {
    Ok(pending(index, tree, view)? > 0)
}

/// How many files `sync` would re-index before any cascade: those whose
/// hash differs from their rows', new and deleted ones; every file when
/// the layout changed or nothing is indexed yet. 0: the rows are fresh.
pub fn pending(index: &Index, tree: &Tree, view: &FileView) -> Result<usize, StructureError> {
    let started = std::time::Instant::now();
    let pending = count_pending(index, tree, view)?;
    tracing::debug!(ms = started.elapsed().as_millis() as u64, pending, "occurrence freshness check");
    Ok(pending)
}

fn count_pending(index: &Index, tree: &Tree, view: &FileView) -> Result<usize, StructureError> {
    let root = index.root().to_path_buf();
    let stored: HashMap<String, String> = index.occ_file_hashes()?.into_iter().map(|r| (r.relative_path, r.content_hash)).collect();
    let everything = || tree.sources.len().max(1);
    let (hash, extra) = read_marker(&index.dir().join(LAYOUT_MARKER));
    if stored.is_empty() || hash != Some(layout_hash(tree, &root, view, &extra)) {
        return Ok(everything());
    }
    if index.usage_missing()? {
        return Ok(1);
    }
    // An input the walk does not index changed (a package.json, a
    // node_modules declaration, a JSON module, an ignored source), or a
    // directory holding a failed lookup location.
    let affecting = Inputs::load(index).pending(&root);
    // Files an earlier cascade queued and no sync re-indexed yet.
    let queued = Pending::load(index).files.len();
    // The chunk sync just checked every file's mtime and size: where
    // they hold, its stored hash is the file's, and nothing is read.
    let stamped = index.stamped_hashes(&tree.sources)?;
    let (mut seen, mut changed) = (0, 0);
    for s in &tree.sources {
        let rel = relative(s, &root);
        let hash = match stamped.get(&rel) {
            Some(h) => h.clone(),
            None => {
                let Ok(e) = view.get(s) else { continue };
                if e.text.is_err() {
                    continue;
                }
                e.hash.clone()
            }
        };
        match stored.get(&rel) {
            Some(h) => {
                seen += 1;
                if h != &hash {
                    changed += 1;
                }
            }
            None => changed += 1,
        }
    }
    // Files with rows that the walk no longer has.
    Ok(changed + affecting + queued + (stored.len() - seen.min(stored.len())))
}

/// The index for a moment: the caller holds its lock only inside the call.
pub(crate) type WithIndexMut<'a> = dyn Fn(&mut dyn FnMut(&mut Index) -> Result<(), StructureError>) -> Result<(), StructureError> + 'a;

/// What a sync starts from: the stored rows and records.
pub(super) struct Start {
    pub(super) root: PathBuf,
    pub(super) stored: HashMap<String, OccFileRow>,
    pub(super) marker: PathBuf,
    /// Which programs hold which files (the live answers' scope).
    pub(super) scope: Scope,
    pub(super) inputs: Inputs,
    pub(super) pending: Pending,
}

pub(super) fn read_start(index: &WithIndexMut<'_>) -> Result<Start, StructureError> {
    let mut start = None;
    index(&mut |ix| {
        start = Some(Start {
            root: ix.root().to_path_buf(),
            stored: ix.occ_files(false)?.into_iter().map(|r| (r.relative_path.clone(), r)).collect(),
            marker: ix.dir().join(LAYOUT_MARKER),
            scope: Scope::load(ix),
            inputs: Inputs::load(ix),
            pending: Pending::load(ix),
        });
        Ok(())
    })?;
    Ok(start.expect("read above"))
}

/// What a sync re-indexes first, by the stored rows, the walk and the
/// invalidation rule (the module header).
pub(super) struct Plan {
    /// Every walked source with text: (path, content hash), read once
    /// (the race guard compares against these).
    pub(super) current: BTreeMap<String, (PathBuf, String)>,
    /// The sources that get rows: every walked source with text,
    /// declaration files included.
    pub(super) indexable: BTreeSet<String>,
    pub(super) deleted: Vec<String>,
    pub(super) queue: BTreeSet<String>,
    pub(super) full: bool,
    /// Importers, from the stored rows (updated as files are re-indexed).
    pub(super) imports: Imports,
    /// What each file read that the walk does not index (updated as files
    /// are re-indexed): (files: package.json files and builder reads,
    /// failed lookups); the next record of `Inputs`.
    pub(super) consulted: HashMap<String, (Vec<String>, Vec<String>)>,
    /// The recorded inputs as read before the pass.
    pub(super) inputs_now: Inputs,
    /// Some recorded input changed: the record is written again.
    pub(super) inputs_moved: bool,
    /// Per changed input, how many files it re-checks and by which rule.
    pub(super) changes: Vec<InputChange>,
    /// Files were created or deleted, or an input of resolution changed:
    /// what a module specifier resolves to may have changed in any program.
    pub(super) resolution_moved: bool,
}

/// The file rows that consulted what `consulted` (a file row's files
/// and lookups) shows, as (files, lookups).
pub(super) fn consulted_by(r: &OccFileRow) -> (Vec<String>, Vec<String>) {
    (r.affecting.iter().chain(&r.reads).cloned().collect(), r.lookups.clone())
}

pub(super) fn plan(ws: &Workspace, tree: &Tree, view: &FileView, start: &Start) -> Result<Plan, StructureError> {
    let (root, stored) = (&start.root, &start.stored);
    let mut current: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
    for s in &tree.sources {
        let rel = relative(s, root);
        if let Ok(e) = view.get(s) {
            if e.text.is_ok() {
                current.insert(rel, (s.clone(), e.hash.clone()));
            }
        }
    }
    let indexable: BTreeSet<String> = current.keys().cloned().collect();
    let (stored_layout, extra) = read_marker(&start.marker);
    let layout_changed = stored_layout != Some(layout_hash(tree, root, view, &extra));
    let inputs_now = start.inputs.read(root);
    // What another process re-indexed since this workspace's last sync:
    // its rows are fresh, but the warm programs still hold the old
    // resolutions, and the rows no longer say which files read what moved
    // (a lookup that now answers is no lookup in the new rows). Rare, so
    // every file's resolutions are redone.
    let key = (root.clone(), ws as *const Workspace as usize);
    if let Some((files, dirs)) = inputs::since_seen(&key, &start.inputs) {
        if !files.is_empty() || !dirs.is_empty() {
            let all: Vec<PathBuf> = current.values().map(|(p, _)| p.clone()).collect();
            ws.invalidate_resolutions(&all)?;
        }
    }
    inputs::saw(key, &inputs_now);
    let inputs_changed = start.inputs.changed(&inputs_now);
    let dirs_changed = start.inputs.changed_dirs(&inputs_now);
    let deleted: Vec<String> = stored.keys().filter(|p| !indexable.contains(*p)).cloned().collect();
    let created: Vec<String> = indexable.iter().filter(|p| !stored.contains_key(*p)).cloned().collect();
    // A deleted file that was global took its declarations out of every
    // program's global scope.
    let mut full = layout_changed || stored.is_empty() || deleted.iter().any(|d| stored[d].global);
    let mut queue: BTreeSet<String> = BTreeSet::new();
    let imports: Imports = stored.iter().map(|(p, r)| (p.clone(), edges(&r.imports, &r.deps, &r.reexports))).collect();
    let consulted = stored.iter().filter(|(p, _)| indexable.contains(*p)).map(|(p, r)| (p.clone(), consulted_by(r))).collect();
    let mut changes = Vec::new();
    let mut answered_lookups = false;
    if full {
        queue.extend(indexable.iter().cloned());
    } else {
        queue.extend(indexable.iter().filter(|p| stored.get(*p).is_some_and(|row| row.content_hash != current[*p].1)).cloned());
        queue.extend(created.iter().cloned());
        // What an earlier cascade queued and left.
        queue.extend(start.pending.files.iter().filter(|p| indexable.contains(*p)).cloned());
        // Deleted files: their importers' references no longer resolve,
        // and through re-exports (`export * from './gone'` emits the same
        // text) those of the re-exporters' importers.
        let mut cascaded_deleted = HashSet::new();
        for d in &deleted {
            if cascade(d, &imports, &indexable, &HashSet::new(), &[], stored, &mut queue, &mut cascaded_deleted) {
                // A global importer passes the deletion on to every file.
                full = true;
            }
        }
        // Files whose inputs moved under them: each is re-indexed, its
        // resolutions redone, and everything that reaches it follows (its
        // own emit may not show the change: `export * from "pkg"`).
        let mut seeds: BTreeSet<String> = BTreeSet::new();
        let mut seed = |input: &str, rule: &'static str, files: BTreeSet<String>, changes: &mut Vec<InputChange>| {
            let files: BTreeSet<String> = files.into_iter().filter(|p| indexable.contains(p)).collect();
            changes.push(InputChange { input: input.to_string(), rule, rechecked: files.len(), files: files.iter().cloned().collect() });
            seeds.extend(files);
        };
        // Created files: the files whose resolution looked there.
        for c in &created {
            let namers: BTreeSet<String> = inputs::naming(stored, |r| &r.lookups, std::slice::from_ref(c)).cloned().collect();
            if !namers.is_empty() {
                seed(c, "created at a failed lookup", namers, &mut changes);
            }
        }
        // Changed inputs the walk does not index: the files that read
        // them (resolution's package.json files, the builder's reads);
        // one no row names is an input of every file of the programs that
        // read it.
        for c in &inputs_changed {
            let namers: BTreeSet<String> = stored.iter().filter(|(_, r)| r.affecting.contains(c)).map(|(p, _)| p.clone()).collect();
            let readers: BTreeSet<String> = stored.iter().filter(|(_, r)| r.reads.contains(c)).map(|(p, _)| p.clone()).collect();
            let unplaced = namers.is_empty() && readers.is_empty();
            if !namers.is_empty() {
                seed(c, "read by module resolution", namers, &mut changes);
            }
            if !readers.is_empty() {
                seed(c, "referenced (TypeScript's builder)", readers, &mut changes);
            }
            if unplaced {
                seed(c, "read by the program", start.scope.readers_of(c), &mut changes);
            }
        }
        // Directories holding failed lookups that changed: the files
        // whose lookup there answers now.
        for d in &dirs_changed {
            let mut namers = BTreeSet::new();
            for (p, r) in stored {
                if r.lookups.iter().any(|l| lookup_dir(l) == *d && lookup_answers(root, l)) {
                    namers.insert(p.clone());
                }
            }
            if !namers.is_empty() {
                answered_lookups = true;
                seed(d, "a failed lookup answers now", namers, &mut changes);
            }
        }
        if !seeds.is_empty() {
            let paths: Vec<PathBuf> = seeds.iter().map(|p| current[p].0.clone()).collect();
            ws.invalidate_resolutions(&paths)?;
            let mut cascaded = HashSet::new();
            for s in &seeds {
                if cascade(s, &imports, &indexable, &HashSet::new(), &[], stored, &mut queue, &mut cascaded) {
                    full = true;
                }
            }
            queue.extend(seeds);
        }
        // A program with no referenced map (`module: none`, `outFile`):
        // the builder re-checks every file on any change.
        if !queue.is_empty() && stored.values().any(|r| r.opaque) {
            full = true;
        }
        if full {
            queue.extend(indexable.iter().cloned());
        }
    }
    let inputs_moved = start.inputs.moved(&inputs_now);
    let resolution_moved = !deleted.is_empty() || !created.is_empty() || !inputs_changed.is_empty() || answered_lookups;
    Ok(Plan { current, indexable, deleted, queue, full, imports, consulted, inputs_now, inputs_moved, changes, resolution_moved })
}

/// Queues every file that imports a file whose API changed, directly or
/// transitively (TypeScript's builder re-checks the same files): what an
/// importer passes on is not only what its own emit shows (a re-exported
/// class's heritage, an alias of an alias). An importer that affects the
/// global scope by TypeScript's rule (`global_scope`: a script, a
/// `declare global`) passes the change on to every file, as the
/// builder's `handleDtsMayChangeOfGlobalScope` does: `true` is
/// returned, and the caller re-indexes everything. One that augments
/// workspace modules passes it on to their importers. (A `/// <reference>`
/// or an external module's augmentation names nothing of the workspace
/// globally.)
#[allow(clippy::too_many_arguments)]
#[must_use]
pub(super) fn cascade(
    changed: &str,
    imports: &Imports,
    indexable: &BTreeSet<String>,
    done: &HashSet<String>,
    batch: &[String],
    stored: &HashMap<String, OccFileRow>,
    queue: &mut BTreeSet<String>,
    cascaded: &mut HashSet<String>,
) -> bool {
    let mut stack = vec![changed.to_string()];
    let mut seen = HashSet::new();
    while let Some(f) = stack.pop() {
        if !seen.insert(f.clone()) {
            continue;
        }
        for importer in importers_of(imports, &f) {
            if let Some(row) = stored.get(&importer) {
                if row.global_scope {
                    return true;
                }
                if row.global {
                    stack.extend(row.augments.iter().cloned());
                }
            }
            if !indexable.contains(&importer) || done.contains(&importer) || batch.contains(&importer) {
                // Already re-indexed in this pass (or now): its importers
                // still follow.
                stack.push(importer);
                continue;
            }
            if queue.insert(importer.clone()) && stored.contains_key(&importer) {
                cascaded.insert(importer.clone());
            }
            stack.push(importer);
        }
    }
    false
}
