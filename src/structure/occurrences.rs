//! The occurrence index: one checker pass per file (`js/60_occurrences.js`)
//! stores every resolved identifier, call edge and base member
//! (`index::occurrences`); references, callers and callees are derived
//! from those rows by query, as tsserver would answer them.
//!
//! **Invalidation is TypeScript's builder rule, per file.** An edited file
//! is re-indexed. Its importers are re-indexed only when its API changed:
//! its declaration emit (`apiText`, hashed), or it re-exports from a file
//! whose API changed, transitively while APIs keep changing. A file that
//! affects the global scope (a script, `declare global`,
//! `declare module "x"`), a `.d.ts`, a tsconfig/jsconfig or package.json
//! change re-indexes everything. Created files re-index the files whose
//! text names them (their stem or directory), deleted files their
//! importers.
//!
//! **No stale row is written.** Every workspace file's hash is read before
//! a batch is computed and again after; if any changed, the batch is
//! dropped and the sync reports it (the next sync redoes it).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::Digest;

use super::StructureError;
use crate::index::occurrences::{OccDeclarationRow, OccFileRow, OccurrenceRow};
use crate::index::{relative, Index, Progress};
use crate::inspect::Workspace;
use crate::source::Tree;
use crate::ts::files::FileView;
use crate::ts::protocol::{BaseEdge, CallEdge, CallEntry, CallItem, FileReferences, OccurrenceDeclaration, References, SymbolRef};

/// Files per request to the service isolate (one progress step).
const BATCH: usize = 64;

/// A file's facts besides its occurrences (stored as JSON in `occ_files`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Facts {
    pub declarations: Vec<OccurrenceDeclaration>,
    pub items: Vec<CallItem>,
    pub calls: Vec<CallEdge>,
    pub bases: Vec<BaseEdge>,
}

/// What an occurrence sync did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OccurrenceReport {
    /// Files whose rows were (re)computed.
    pub indexed: usize,
    /// Of those, files re-indexed because a file they import changed its API.
    pub cascaded: usize,
    pub removed: usize,
    /// Files that failed, with the error (retried after their next change).
    pub failed: Vec<(String, String)>,
    /// Rows written.
    pub occurrences: usize,
    /// Everything was re-indexed (first index, layout or global change).
    pub full: bool,
    /// A file changed while a batch was computed: that batch was dropped.
    pub interrupted: bool,
    pub ms: u64,
}

fn sha(bytes: &[u8]) -> String {
    crate::index::hex(&sha2::Sha256::digest(bytes))
}

fn is_declaration_file(rel: &str) -> bool {
    rel.ends_with(".d.ts") || rel.ends_with(".d.mts") || rel.ends_with(".d.cts")
}

/// The hash of everything that changes the project layout or the global
/// scope without being indexed itself: configs, package.json files and
/// workspace `.d.ts` files.
fn layout_hash(tree: &Tree, root: &Path, view: &FileView) -> String {
    let mut h = sha2::Sha256::new();
    let mut parts: Vec<(String, String)> = tree.configs.iter().map(|c| (relative(c, root), sha(&std::fs::read(c).unwrap_or_default()))).collect();
    for s in &tree.sources {
        let rel = relative(s, root);
        if is_declaration_file(&rel) {
            parts.push((rel, view.get(s).map(|e| e.hash.clone()).unwrap_or_default()));
        }
    }
    // package.json files beside the configs (exports, types, workspaces).
    let mut dirs: BTreeSet<PathBuf> = tree.configs.iter().filter_map(|c| c.parent().map(Path::to_path_buf)).collect();
    dirs.insert(root.to_path_buf());
    for d in dirs {
        let p = d.join("package.json");
        if let Ok(bytes) = std::fs::read(&p) {
            parts.push((relative(&p, root), sha(&bytes)));
        }
    }
    parts.sort();
    for (p, x) in parts {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(x.as_bytes());
        h.update([0]);
    }
    crate::index::hex(&h.finalize())
}

const LAYOUT_MARKER: &str = "occurrences-layout";

/// Each indexed file's imports and re-exports.
type Imports = HashMap<String, (Vec<String>, Vec<String>)>;

/// Edges of one call-hierarchy item: (other item, call-site lines).
type Edges = Vec<(String, Vec<u32>)>;

/// The files that import `target`, and whether each re-exports from it.
fn importers_of(imports: &Imports, target: &str) -> Vec<(String, bool)> {
    imports.iter().filter(|(_, (i, _))| i.iter().any(|x| x == target)).map(|(p, (_, r))| (p.clone(), r.iter().any(|x| x == target))).collect()
}

/// Whether `sync` has anything to do: a file's hash differs from its
/// rows', a file is new or gone, the layout changed, or nothing is
/// indexed yet. Cheap (the file rows and the view's hashes): an answer
/// that needs no re-indexing loads no TypeScript project.
pub fn needs_sync(index: &Index, tree: &Tree, view: &FileView) -> Result<bool, StructureError> {
    let root = index.root().to_path_buf();
    let stored: HashMap<String, String> = index.occ_files(false)?.into_iter().map(|r| (r.relative_path, r.content_hash)).collect();
    if stored.is_empty() || std::fs::read_to_string(index.dir().join(LAYOUT_MARKER)).ok() != Some(layout_hash(tree, &root, view)) {
        return Ok(true);
    }
    let mut seen = 0;
    for s in &tree.sources {
        let rel = relative(s, &root);
        if is_declaration_file(&rel) {
            continue;
        }
        let Ok(e) = view.get(s) else { continue };
        if e.text.is_err() {
            continue;
        }
        seen += 1;
        if stored.get(&rel) != Some(&e.hash) {
            return Ok(true);
        }
    }
    Ok(seen != stored.len())
}

/// Brings the occurrence index up to date with the walk.
pub fn sync(index: &mut Index, ws: &Workspace, tree: &Tree, view: &FileView, progress: &dyn Progress) -> Result<OccurrenceReport, StructureError> {
    let started = std::time::Instant::now();
    let root = index.root().to_path_buf();
    let mut report = OccurrenceReport::default();
    let stored: HashMap<String, OccFileRow> = index.occ_files(false)?.into_iter().map(|r| (r.relative_path.clone(), r)).collect();
    // Hashes of every walked source, read once here (the race guard compares against these).
    let mut current: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
    for s in &tree.sources {
        let rel = relative(s, &root);
        if let Ok(e) = view.get(s) {
            if e.text.is_ok() {
                current.insert(rel, (s.clone(), e.hash.clone()));
            }
        }
    }
    let indexable: BTreeSet<String> = current.keys().filter(|r| !is_declaration_file(r)).cloned().collect();
    let layout = layout_hash(tree, &root, view);
    let marker = index.dir().join(LAYOUT_MARKER);
    let layout_changed = std::fs::read_to_string(&marker).ok().as_deref() != Some(layout.as_str());

    let deleted: Vec<String> = stored.keys().filter(|p| !indexable.contains(*p)).cloned().collect();
    let created: Vec<String> = indexable.iter().filter(|p| !stored.contains_key(*p)).cloned().collect();
    let mut queue: BTreeSet<String> = BTreeSet::new();
    if layout_changed || stored.is_empty() {
        report.full = true;
        queue.extend(indexable.iter().cloned());
    } else {
        for p in &indexable {
            if let Some(row) = stored.get(p) {
                if row.content_hash != current[p].1 {
                    queue.insert(p.clone());
                }
            }
        }
        queue.extend(created.iter().cloned());
    }
    // Importers, from the stored rows (updated as files are re-indexed).
    let mut imports: Imports = stored.iter().map(|(p, r)| (p.clone(), (r.imports.clone(), r.reexports.clone()))).collect();
    if !report.full {
        // Deleted files: their importers' references no longer resolve,
        // and through re-exports (`export * from './gone'` emits the same
        // text) those of the re-exporters' importers.
        let mut cascaded_deleted = HashSet::new();
        for d in &deleted {
            cascade(d, &imports, &indexable, &HashSet::new(), &[], &stored, &mut queue, &mut cascaded_deleted);
        }
        // Created files: whoever names them may now resolve to them.
        for c in &created {
            let stem = Path::new(c).file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            let dir = Path::new(c).parent().and_then(|d| d.file_name()).and_then(|s| s.to_str()).unwrap_or_default().to_string();
            for (p, (path, _)) in &current {
                if indexable.contains(p) && !queue.contains(p) {
                    let text = view.get(path).map(|e| e.text_or_empty().to_string()).unwrap_or_default();
                    if text.contains(&stem) || (stem == "index" && !dir.is_empty() && text.contains(&dir)) {
                        queue.insert(p.clone());
                    }
                }
            }
        }
    }
    if !deleted.is_empty() {
        index.delete_occurrences(&deleted)?;
        report.removed = deleted.len();
    }

    // Files per request (`TSQ_OCCURRENCE_BATCH`, a knob for the kill -9 test).
    let batch_size = std::env::var("TSQ_OCCURRENCE_BATCH").ok().and_then(|v| v.parse().ok()).unwrap_or(BATCH).max(1);
    let mut done: HashSet<String> = HashSet::new();
    let mut cascaded: HashSet<String> = HashSet::new();
    let total = |q: &BTreeSet<String>, d: &HashSet<String>| (q.len() + d.len()) as u64;
    while !queue.is_empty() {
        let batch: Vec<String> = queue.iter().take(batch_size).cloned().collect();
        for b in &batch {
            queue.remove(b);
        }
        progress.update("indexing occurrences", done.len() as u64, total(&queue, &done) + batch.len() as u64);
        let paths: Vec<PathBuf> = batch.iter().map(|p| current[p].0.clone()).collect();
        let (files, failed) = ws.occurrences(&paths, report.full)?;
        // The race guard: nothing in the workspace changed meanwhile.
        let moved = current.values().any(|(path, hash)| view.get(path).map(|e| &e.hash != hash).unwrap_or(true));
        if moved {
            report.interrupted = true;
            break;
        }
        let now = crate::index::now_ms() as i64;
        let mut rows = Vec::new();
        let mut file_rows = Vec::new();
        let mut declaration_rows = Vec::new();
        for f in files {
            let api_hash = f.api_text.as_deref().map(|t| sha(t.as_bytes()));
            let old = stored.get(&f.relative_path);
            let api_changed = old.is_none_or(|o| o.api_hash != api_hash || o.api_hash.is_none() || o.error.is_some());
            if api_changed && !report.full {
                if f.global {
                    // Everyone sees a global declaration: everything again.
                    report.full = true;
                    queue.extend(indexable.iter().filter(|p| !done.contains(*p) && !batch.contains(p)).cloned());
                } else {
                    cascade(&f.relative_path, &imports, &indexable, &done, &batch, &stored, &mut queue, &mut cascaded);
                }
            }
            imports.insert(f.relative_path.clone(), (f.imports.clone(), f.reexports.clone()));
            rows.extend(f.occurrences.iter().map(|o| OccurrenceRow {
                relative_path: f.relative_path.clone(),
                line: o.line,
                column: o.column,
                symbol: o.symbol.clone(),
                role: o.role.clone(),
                enclosing: o.enclosing.clone(),
                caller: o.caller.clone(),
                meaning: o.meaning,
            }));
            declaration_rows.extend(f.answers.iter().map(|a| OccDeclarationRow {
                relative_path: f.relative_path.clone(),
                name: a.name.clone(),
                ord: a.ord as i64,
                key: a.key.clone(),
                supertypes: a.supertypes.iter().map(|s| format!("|{s}|")).collect(),
                answer: serde_json::to_string(a).unwrap_or_default(),
            }));
            let facts = Facts { declarations: f.declarations, items: f.items, calls: f.calls, bases: f.bases };
            file_rows.push(OccFileRow {
                content_hash: current[&f.relative_path].1.clone(),
                relative_path: f.relative_path,
                api_hash,
                global: f.global,
                imports: f.imports,
                reexports: f.reexports,
                facts: serde_json::to_string(&facts).unwrap_or_default(),
                error: None,
                indexed_at: now,
            });
        }
        for fail in failed {
            report.failed.push((fail.relative_path.clone(), fail.message.clone()));
            if let Some((_, hash)) = current.get(&fail.relative_path) {
                file_rows.push(OccFileRow {
                    relative_path: fail.relative_path,
                    content_hash: hash.clone(),
                    facts: "{}".into(),
                    error: Some(fail.message),
                    indexed_at: now,
                    ..Default::default()
                });
            }
        }
        report.occurrences += rows.len();
        index.put_occurrences(&file_rows, &rows, &declaration_rows)?;
        done.extend(batch);
    }
    if report.full {
        // Release the last project's program too.
        ws.occurrences(&[], true)?;
    }
    report.indexed = done.len().saturating_sub(report.failed.len());
    report.cascaded = cascaded.len();
    if !report.interrupted {
        crate::index::write_atomic(&marker, layout.as_bytes())?;
    }
    progress.update("occurrences indexed", done.len() as u64, done.len() as u64);
    report.ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// Queues the importers of a file whose API changed; an importer that
/// re-exports from it changed its API too (TypeScript's builder follows
/// `export *` the same way), so its importers follow.
#[allow(clippy::too_many_arguments)]
fn cascade(
    changed: &str,
    imports: &Imports,
    indexable: &BTreeSet<String>,
    done: &HashSet<String>,
    batch: &[String],
    stored: &HashMap<String, OccFileRow>,
    queue: &mut BTreeSet<String>,
    cascaded: &mut HashSet<String>,
) {
    let mut stack = vec![changed.to_string()];
    let mut seen = HashSet::new();
    while let Some(f) = stack.pop() {
        if !seen.insert(f.clone()) {
            continue;
        }
        for (importer, reexports) in importers_of(imports, &f) {
            if !indexable.contains(&importer) || done.contains(&importer) || batch.contains(&importer) {
                continue;
            }
            if queue.insert(importer.clone()) && stored.contains_key(&importer) {
                cascaded.insert(importer.clone());
            }
            if reexports {
                stack.push(importer);
            }
        }
    }
}

// ---- answers by query ---------------------------------------------------------------

/// Declarations, items, call edges and base members of every indexed
/// file, loaded once per answer.
#[derive(Default)]
pub struct Graph {
    pub declarations: Vec<(String, OccurrenceDeclaration)>,
    items: HashMap<String, SymbolRef>,
    calls_from: HashMap<String, Edges>,
    bases: HashMap<String, Vec<String>>,
    derived: HashMap<String, Vec<String>>,
    /// Files whose rows are missing or failed.
    pub unindexed: Vec<String>,
}

impl Graph {
    pub fn load(index: &Index) -> Result<Graph, StructureError> {
        let mut g = Graph::default();
        for row in index.occ_files(true)? {
            if row.error.is_some() {
                g.unindexed.push(row.relative_path.clone());
                continue;
            }
            let facts: Facts = serde_json::from_str(&row.facts).unwrap_or_default();
            for i in facts.items {
                g.items.insert(i.key, i.symbol);
            }
            for c in facts.calls {
                g.calls_from.entry(c.from).or_default().push((c.to, c.sites));
            }
            for b in facts.bases {
                g.derived.entry(b.base.clone()).or_default().push(b.member.clone());
                g.bases.entry(b.member).or_default().push(b.base);
            }
            g.declarations.extend(facts.declarations.into_iter().map(|d| (row.relative_path.clone(), d)));
        }
        Ok(g)
    }

    /// The declarations a `symbol =` query names: `file`, then containers
    /// and name.
    pub fn find(&self, file: &str, names: &[String]) -> Vec<(String, OccurrenceDeclaration)> {
        let (name, containers) = names.split_last().map(|(n, c)| (n.as_str(), c)).unwrap_or(("", &[]));
        let file = file.trim_start_matches("./");
        self.declarations
            .iter()
            .filter(|(f, d)| (f == file || f.ends_with(&format!("/{file}"))) && d.name == name && d.containers.ends_with(containers))
            .cloned()
            .collect()
    }

    /// The symbols find-references relates to `id`: itself, the members it
    /// overrides or implements (transitively), and every member that
    /// overrides or implements one of those (tsserver's search set).
    pub fn related(&self, id: &str) -> Vec<String> {
        let mut search: BTreeSet<String> = BTreeSet::new();
        let mut stack = vec![id.to_string()];
        while let Some(x) = stack.pop() {
            if search.insert(x.clone()) {
                stack.extend(self.bases.get(&x).into_iter().flatten().cloned());
            }
        }
        let mut out = search.clone();
        let mut stack: Vec<String> = search.into_iter().collect();
        while let Some(x) = stack.pop() {
            for m in self.derived.get(&x).into_iter().flatten() {
                if out.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        out.into_iter().collect()
    }

    fn item(&self, key: &str) -> Option<&SymbolRef> {
        self.items.get(key)
    }

    /// An item's symbol id (an overload's `@k` dropped).
    fn item_symbol(&self, key: &str) -> Option<String> {
        let r = self.item(key)?;
        if r.kind == "module" || key.contains(" static {}@") || !key.contains(" > ") {
            return None;
        }
        Some(match key.rsplit_once('@') {
            Some((id, k)) if k.chars().all(|c| c.is_ascii_digit()) => id.to_string(),
            _ => key.to_string(),
        })
    }
}

/// References as `tsq inspect` reports them: every occurrence of the
/// related symbols but the declaration's own definitions, by file.
pub fn references(index: &Index, graph: &Graph, id: &str, meaning: u8) -> Result<References, StructureError> {
    Ok(references_in(&index.occurrences_of(&graph.related(id), false)?, graph, id, meaning))
}

/// `references` of several declarations (id, meaning), read in one query.
pub fn references_of(index: &Index, graph: &Graph, decls: &[(String, u8)]) -> Result<Vec<References>, StructureError> {
    let all: BTreeSet<String> = decls.iter().flat_map(|(id, _)| graph.related(id)).collect();
    let rows = if all.is_empty() { Vec::new() } else { index.occurrences_of(&all.into_iter().collect::<Vec<_>>(), false)? };
    Ok(decls.iter().map(|(id, meaning)| references_in(&rows, graph, id, *meaning)).collect())
}

/// `references` from occurrence rows that hold at least the related
/// symbols' (others are ignored).
fn references_in(rows: &[OccurrenceRow], graph: &Graph, id: &str, meaning: u8) -> References {
    let related: HashSet<String> = graph.related(id).into_iter().collect();
    let mut by_file: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut seen = HashSet::new();
    for o in rows.iter().filter(|o| related.contains(&o.symbol)) {
        if (o.role == "definition" && o.symbol == id) || o.meaning & meaning == 0 {
            continue;
        }
        if seen.insert((o.relative_path.as_str(), o.line, o.column)) {
            by_file.entry(o.relative_path.clone()).or_default().push(o.line);
        }
    }
    let mut files: Vec<FileReferences> = by_file
        .into_iter()
        .map(|(file_path, mut lines)| {
            lines.sort_unstable();
            FileReferences { file_path, lines }
        })
        .collect();
    files.sort_by(|a, b| locale_cmp(&a.file_path, &b.file_path));
    let total_count = files.iter().map(|f| f.lines.len() as u32).sum();
    References { total_count, file_count: files.len() as u32, files }
}

/// One direction of a call tree.
#[derive(Clone, Copy, PartialEq)]
pub enum Direction {
    Out,
    In,
}

/// The call tree from `item`, `max_depth` deep (-1: unlimited), as
/// `js/31_calls.js` builds it from the Language Service.
pub struct Calls<'a> {
    index: &'a Index,
    graph: &'a Graph,
    memo: std::cell::RefCell<HashMap<(bool, String), Edges>>,
}

impl<'a> Calls<'a> {
    pub fn new(index: &'a Index, graph: &'a Graph) -> Calls<'a> {
        Calls { index, graph, memo: Default::default() }
    }

    /// Raw edges of one item: (other item, call-site lines in the caller's file).
    fn raw(&self, key: &str, dir: Direction) -> Result<Edges, StructureError> {
        let memo_key = (dir == Direction::Out, key.to_string());
        if let Some(v) = self.memo.borrow().get(&memo_key) {
            return Ok(v.clone());
        }
        let out = match dir {
            Direction::Out => self.graph.calls_from.get(key).cloned().unwrap_or_default(),
            Direction::In => match self.graph.item_symbol(key) {
                None => Vec::new(),
                Some(symbol) => {
                    let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
                    for o in self.index.occurrences_of(&self.graph.related(&symbol), true)? {
                        if let Some(c) = o.caller {
                            groups.entry(c).or_default().push(o.line);
                        }
                    }
                    groups.into_iter().collect()
                }
            },
        };
        let out: Edges = out.into_iter().filter(|(k, _)| self.graph.item(k).is_some()).collect();
        self.memo.borrow_mut().insert(memo_key, out.clone());
        Ok(out)
    }

    /// Reads the incoming call sites of these items (the first level of
    /// their trees) in one query.
    pub fn prefetch_incoming(&self, keys: &[String]) -> Result<(), StructureError> {
        let mut sets = Vec::new();
        let mut all: BTreeSet<String> = BTreeSet::new();
        for k in keys {
            if self.memo.borrow().contains_key(&(false, k.clone())) {
                continue;
            }
            if let Some(symbol) = self.graph.item_symbol(k) {
                let related: HashSet<String> = self.graph.related(&symbol).into_iter().collect();
                all.extend(related.iter().cloned());
                sets.push((k.clone(), related));
            }
        }
        if all.is_empty() {
            return Ok(());
        }
        let rows = self.index.occurrences_of(&all.into_iter().collect::<Vec<_>>(), true)?;
        for (k, related) in sets {
            let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
            for o in rows.iter().filter(|o| related.contains(&o.symbol)) {
                if let Some(c) = &o.caller {
                    groups.entry(c.clone()).or_default().push(o.line);
                }
            }
            let out: Edges = groups.into_iter().filter(|(c, _)| self.graph.item(c).is_some()).collect();
            self.memo.borrow_mut().insert((false, k), out);
        }
        Ok(())
    }

    pub fn tree(&self, key: &str, dir: Direction, max_depth: i32) -> Result<Vec<CallEntry>, StructureError> {
        self.level(key, dir, 1, max_depth, &[key.to_string()])
    }

    fn level(&self, key: &str, dir: Direction, depth: i32, max_depth: i32, path: &[String]) -> Result<Vec<CallEntry>, StructureError> {
        let mut out = Vec::new();
        for (other, sites) in self.raw(key, dir)? {
            let r = self.graph.item(&other).expect("filtered in raw");
            let mut sites = sites;
            sites.sort_unstable();
            sites.dedup();
            let mut entry = CallEntry {
                name: r.name.clone(),
                kind: r.kind.clone(),
                file_path: r.file_path.clone(),
                line: r.line,
                is_abstract: r.is_abstract,
                call_sites: sites,
                cyclic: None,
                depth_limited: None,
                outgoing_calls: None,
                incoming_callers: None,
            };
            let children = if path.contains(&other) {
                entry.cyclic = Some(true);
                Vec::new()
            } else if max_depth != -1 && depth >= max_depth {
                let mut on_path = path.to_vec();
                on_path.push(other.clone());
                if self.raw(&other, dir)?.iter().any(|(k, _)| !on_path.contains(k)) {
                    entry.depth_limited = Some(true);
                }
                Vec::new()
            } else {
                let mut next = path.to_vec();
                next.push(other.clone());
                self.level(&other, dir, depth + 1, max_depth, &next)?
            };
            match dir {
                Direction::Out => entry.outgoing_calls = Some(children),
                Direction::In => entry.incoming_callers = Some(children),
            }
            out.push(entry);
        }
        match dir {
            Direction::Out => out.sort_by(|a, b| a.call_sites.first().cmp(&b.call_sites.first()).then_with(|| locale_cmp(&a.name, &b.name))),
            Direction::In => out.sort_by(|a, b| {
                locale_cmp(a.file_path.as_deref().unwrap_or(""), b.file_path.as_deref().unwrap_or(""))
                    .then(a.line.cmp(&b.line))
                    .then_with(|| locale_cmp(&a.name, &b.name))
            }),
        }
        Ok(out)
    }
}

/// The order of JS's `localeCompare` in tsq's engine for the names and
/// paths answers hold: case-insensitive first, then lower case before
/// upper case (as ICU orders letters).
pub(crate) fn locale_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.to_lowercase().cmp(&b.to_lowercase()).then_with(|| b.cmp(a))
}

/// A declaration's references and call trees from the occurrence index.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Relations {
    pub id: String,
    pub symbol: SymbolRef,
    pub outgoing_calls: Vec<CallEntry>,
    pub incoming_callers: Vec<CallEntry>,
    pub references: References,
}

/// Every declaration `file`/`names` points at, with its relations.
pub fn relations(index: &Index, graph: &Graph, file: &str, names: &[String], call_depth: i32) -> Result<Vec<Relations>, StructureError> {
    let calls = Calls::new(index, graph);
    let mut out = Vec::new();
    for (f, d) in graph.find(file, names) {
        let (outgoing_calls, incoming_callers) = match &d.item {
            Some(k) => (calls.tree(k, Direction::Out, call_depth)?, calls.tree(k, Direction::In, call_depth)?),
            None => (Vec::new(), Vec::new()),
        };
        out.push(Relations {
            references: references(index, graph, &d.id, d.meaning)?,
            symbol: SymbolRef { name: d.name.clone(), kind: d.kind.clone(), file_path: Some(f), line: Some(d.line), is_abstract: None },
            id: d.id,
            outgoing_calls,
            incoming_callers,
        });
    }
    Ok(out)
}
