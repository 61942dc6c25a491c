//! Structure from the index. Every declaration chunk's depth-1 structure
//! (its exact matches, its smart snapshot's parts, and its
//! `SymbolMetadata`: signature, members, type hierarchy, callers, callees,
//! references, type flows) is computed once by the Language Service itself
//! and stored beside the chunk (`index::structure`). A query reads it
//! instead of running the checker; what is missing or was invalidated is
//! computed live, exactly as before, and stored.
//!
//! Stored answers stay exact because `Index::sync` drops every answer an
//! edit may have changed (`index::structure::invalidate`, and
//! ARCHITECTURE.md, "Structure stays exact"), and because an answer is
//! stored only when the files it was computed from are the ones indexed.

pub mod answers;
pub mod coverage;
pub mod occurrence_sync;
pub mod occurrences;
pub mod rows;
pub mod scope;
pub mod usage;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::answer::SnapshotParts;
use crate::answer::{LookupMatch, SymbolMetadata};
use crate::chunk::CodeChunk;
use crate::index::structure::{ImportsRow, NameRow, StructureRow};
use crate::index::{Index, IndexError, Progress};
use crate::inspect::{AnalyzeConfig, InspectConfig, Workspace};
use crate::query::SymbolQuery;
use crate::ts::files::FileView;
use crate::ts::TsError;

/// The depth at which structure is stored; deeper call trees are computed
/// live.
pub const STORED_DEPTH: i32 = 1;

/// One declaration chunk's structure, as the Language Service gave it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    /// The declarations the chunk's symbol query matches.
    pub matches: Vec<LookupMatch>,
    /// Their file's smart snapshot, as parts (`snapshot::assemble`).
    pub snapshots: Vec<SnapshotParts>,
    /// `SymbolMetadata` at depth 1, per match; empty until inspected.
    pub metadata: Vec<SymbolMetadata>,
}

#[derive(Debug, thiserror::Error)]
pub enum StructureError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Ts(#[from] TsError),
}

/// The symbol query that names a chunk: its file, then the breadcrumb's
/// containers and name. `None` for chunks without a declaration.
pub fn chunk_query(c: &CodeChunk) -> Option<SymbolQuery> {
    if matches!(c.node_kind.as_str(), "expression" | "comment" | "import" | "re-export") || c.name.is_empty() {
        return None;
    }
    let names: Vec<String> = c.breadcrumb.split(" > ").skip(1).map(str::to_string).collect();
    (!names.is_empty()).then(|| SymbolQuery { file: Some(c.relative_path.clone()), names })
}

/// The live computation: exact matches and snapshot parts, then (when
/// `inspect`) the depth-1 metadata.
fn compute(ws: &Workspace, q: &SymbolQuery, inspect: bool) -> Result<Stored, TsError> {
    let found = ws.lookup(std::slice::from_ref(q))?;
    let metadata =
        if inspect && !found.matches.is_empty() { ws.inspect(q, &InspectConfig { call_depth: STORED_DEPTH, resolvers: None })?.matches } else { Vec::new() };
    Ok(Stored { matches: found.matches, snapshots: found.snapshots, metadata })
}

/// Every workspace file an answer mentions, `own` first.
fn deps(s: &Stored, own: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut HashSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    if k == "filePath" {
                        if let Some(f) = x.as_str() {
                            out.insert(f.to_string());
                        }
                    } else {
                        walk(x, out);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut set = HashSet::new();
    walk(&serde_json::to_value(s).unwrap_or_default(), &mut set);
    set.remove(own);
    let mut out: Vec<String> = set.into_iter().collect();
    out.sort();
    out.insert(0, own.to_string());
    out
}

/// The declaration's name and its callers' names, then its callees'
/// names: each call entry's depth and cycle markers depend on its own
/// calls, which change only where its name's text is
/// (`index::structure::invalidate`).
fn names(s: &Stored, own: &str) -> (Vec<String>, Vec<String>) {
    fn calls(entries: &[crate::answer::CallEntry], out: &mut Vec<String>) {
        for e in entries {
            if !out.contains(&e.name) {
                out.push(e.name.clone());
            }
            calls(e.outgoing_calls.as_deref().unwrap_or_default(), out);
            calls(e.incoming_callers.as_deref().unwrap_or_default(), out);
        }
    }
    let (mut callers, mut callees) = (vec![own.to_string()], Vec::new());
    for m in &s.metadata {
        calls(&m.incoming_callers, &mut callers);
        calls(&m.outgoing_calls, &mut callees);
    }
    (callers, callees)
}

fn row(c: &CodeChunk, s: &Stored) -> StructureRow {
    row_for(&c.id, &c.relative_path, &c.name, s)
}

fn row_for(id: &str, file: &str, name: &str, s: &Stored) -> StructureRow {
    let names = names(s, name);
    StructureRow {
        chunk_id: id.to_string(),
        relative_path: file.to_string(),
        names: names.0,
        callees: names.1,
        answer: serde_json::to_string(s).unwrap_or_default(),
        deps: deps(s, file),
        computed_at: crate::index::now_ms() as i64,
    }
}

/// The key of a stored answer for a declaration without a chunk of its
/// own (a nested function, a local, a member): this prefix, then its
/// exact query (`symbol = file > containers > name`).
pub const DECLARATION_KEY: &str = "decl:";

/// What the Language Service reports about files, for the programs built
/// since the last call: imports, owners, and the owned files' declarations.
#[derive(Default)]
struct FileFacts {
    imports: Vec<ImportsRow>,
    names: Vec<NameRow>,
    owned: Vec<String>,
}

fn new_facts(ws: &Workspace) -> Result<FileFacts, TsError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Decl {
        name: String,
        containers: Vec<String>,
        line: i64,
        /// Large (project, file, node): a JS number, so a float here.
        ord: f64,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Raw {
        relative_path: String,
        imports: Vec<String>,
        module: bool,
        project: String,
        owned: bool,
        declarations: Vec<Decl>,
    }
    let v = ws.analyze_internal("file-imports", &AnalyzeConfig::default())?;
    let raw: Vec<Raw> = serde_json::from_value(v).map_err(|e| TsError::Protocol(format!("file-imports: {e}")))?;
    let mut out = FileFacts::default();
    for r in raw {
        if r.owned {
            out.owned.push(r.relative_path.clone());
            out.names.extend(r.declarations.into_iter().map(|d| NameRow {
                name: d.name,
                relative_path: r.relative_path.clone(),
                containers: d.containers,
                line: d.line,
                ord: d.ord as i64,
            }));
        }
        // A file several programs hold is reported by each: one row, with
        // every import any of them resolved (the conservative union).
        match out.imports.iter_mut().find(|i| i.relative_path == r.relative_path) {
            Some(row) => {
                for i in r.imports {
                    if !row.imports.contains(&i) {
                        row.imports.push(i);
                    }
                }
                row.module &= r.module;
            }
            None => out.imports.push(ImportsRow { relative_path: r.relative_path, imports: r.imports, module: r.module, project: r.project }),
        }
    }
    Ok(out)
}

/// The content hashes of `files` as the file view holds them now.
fn seen(root: &Path, view: &FileView, files: impl Iterator<Item = String>) -> HashMap<String, String> {
    files.filter_map(|f| view.get(&root.join(&f)).ok().map(|e| (f, e.hash.clone()))).collect()
}

/// What one query reads and computes: stored answers first, the live
/// Language Service (opened only when needed) for the rest, which are
/// stored for next time.
pub struct Structures<'a> {
    index: &'a Index,
    view: &'a FileView,
    live: &'a dyn Fn() -> Result<Arc<Workspace>, TsError>,
    ws: RefCell<Option<Arc<Workspace>>>,
    /// The occurrence index, synced by the caller: read first.
    rows: Option<&'a answers::Rows<'a>>,
    /// Answers served from the index, and computed live.
    pub served: std::cell::Cell<usize>,
    pub computed: std::cell::Cell<usize>,
}

impl<'a> Structures<'a> {
    pub fn new(index: &'a Index, view: &'a FileView, live: &'a dyn Fn() -> Result<Arc<Workspace>, TsError>) -> Structures<'a> {
        Structures { index, view, live, ws: RefCell::new(None), rows: None, served: Default::default(), computed: Default::default() }
    }

    /// Reads answers from the occurrence index first (synced by the caller).
    pub fn with_rows(mut self, rows: &'a answers::Rows<'a>) -> Structures<'a> {
        self.rows = Some(rows);
        self
    }

    /// The live workspace, opened on first use.
    pub fn workspace(&self) -> Result<Arc<Workspace>, TsError> {
        if let Some(ws) = self.ws.borrow().as_ref() {
            return Ok(Arc::clone(ws));
        }
        let ws = (self.live)()?;
        *self.ws.borrow_mut() = Some(Arc::clone(&ws));
        Ok(ws)
    }

    /// Stored answers for these chunks (complete, with metadata), by chunk
    /// id. A row that does not parse is left out (computed again).
    pub fn stored(&self, chunks: &[&CodeChunk]) -> Result<HashMap<String, Stored>, StructureError> {
        let mut out: HashMap<String, Stored> = HashMap::new();
        if let Some(rows) = self.rows {
            for c in chunks {
                let Some(q) = chunk_query(c) else { continue };
                if let Ok(found) = rows.lookup(&q, STORED_DEPTH)? {
                    out.insert(c.id.clone(), Stored { matches: found.matches, snapshots: found.snapshots, metadata: found.metadata });
                }
            }
        }
        let ids: Vec<String> = chunks.iter().map(|c| c.id.clone()).filter(|id| !out.contains_key(id)).collect();
        let stored = if ids.is_empty() { Vec::new() } else { self.index.structure(&ids)? };
        out.extend(stored.into_iter().filter_map(|r| Some((r.chunk_id, serde_json::from_str(&r.answer).ok()?))));
        self.served.set(self.served.get() + out.len());
        Ok(out)
    }

    /// Matches and snapshot parts computed live, without metadata.
    pub fn located(&self, q: &SymbolQuery) -> Result<Stored, StructureError> {
        Ok(compute(&*self.workspace()?, q, false)?)
    }

    /// Completes a live answer with its depth-1 metadata and stores it.
    pub fn complete(&self, c: &CodeChunk, q: &SymbolQuery, located: &mut Stored) -> Result<(), StructureError> {
        let ws = self.workspace()?;
        if !located.matches.is_empty() {
            located.metadata = ws.inspect(q, &InspectConfig { call_depth: STORED_DEPTH, resolvers: None })?.matches;
        }
        self.computed.set(self.computed.get() + 1);
        let row = row(c, located);
        let seen = seen(self.index.root(), self.view, row.deps.iter().cloned());
        let facts = new_facts(&ws)?;
        if let Err(e) = self.index.put_structure(vec![row], &facts.imports, &facts.names, &facts.owned, &seen) {
            tracing::warn!("could not store structure: {e}");
        }
        Ok(())
    }
}

/// What `precompute` did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PrecomputeReport {
    /// Declarations given structure.
    pub computed: usize,
    /// Declarations whose computation failed (left live; the reasons are
    /// logged).
    pub failed: usize,
    pub ms: u64,
}

/// Access to the index for a moment (the caller holds its lock only
/// inside the call).
pub type WithIndex<'a> = dyn Fn(&mut dyn FnMut(&Index) -> Result<(), StructureError>) -> Result<(), StructureError> + 'a;

/// Computes and stores the structure of every declaration chunk that lacks
/// it, in path order (so one package's project at a time), committing
/// every `batch` declarations: an interrupted run keeps what it committed
/// and the next one resumes from there. `stop` is asked between batches;
/// the index is used only to read what is missing and to write.
pub fn precompute(
    index: &WithIndex<'_>,
    ws: &Workspace,
    view: &FileView,
    batch: usize,
    progress: &dyn Progress,
    stop: &dyn Fn() -> bool,
) -> Result<PrecomputeReport, StructureError> {
    let started = std::time::Instant::now();
    let mut missing = Vec::new();
    let mut root = std::path::PathBuf::new();
    index(&mut |ix| {
        missing = ix.structure_missing()?;
        root = ix.root().to_path_buf();
        Ok(())
    })?;
    let total = missing.len() as u64;
    let mut report = PrecomputeReport::default();
    let mut by_query: HashMap<String, Stored> = HashMap::new();
    let mut finished = true;
    for (n, group) in missing.chunks(batch.max(1)).enumerate() {
        if stop() {
            finished = false;
            break;
        }
        let mut rows = Vec::new();
        for r in group {
            let c = &r.chunk;
            let Some(q) = chunk_query(c) else { continue };
            let key = q.to_string();
            if !by_query.contains_key(&key) {
                match compute(ws, &q, true) {
                    Ok(s) => {
                        by_query.insert(key.clone(), s);
                    }
                    Err(e) => {
                        tracing::warn!(declaration = %key, "structure not computed: {e}");
                        report.failed += 1;
                        continue;
                    }
                }
            }
            rows.push(row(c, &by_query[&key]));
        }
        let seen = seen(&root, view, rows.iter().flat_map(|r| r.deps.clone()).collect::<HashSet<_>>().into_iter());
        let facts = new_facts(ws)?;
        let mut rows = Some(rows);
        index(&mut |ix| {
            report.computed += ix.put_structure(rows.take().unwrap_or_default(), &facts.imports, &facts.names, &facts.owned, &seen)?;
            Ok(())
        })?;
        progress.update("structure", ((n * batch) + group.len()) as u64, total);
    }
    // Every declaration has its answer: inspect's coverage too.
    if finished {
        progress.update("structure: the workspace's coverage", total, total);
        if let Err(e) = coverage::record(index, ws) {
            tracing::warn!("inspect coverage not recorded (inspect stays live): {e}");
        }
        // The programs no declaration needed are built now too: record
        // their files' imports and declarations (a bare-name lookup needs
        // every file that may declare the name recorded).
        let facts = new_facts(ws)?;
        if !facts.imports.is_empty() {
            index(&mut |ix| {
                ix.put_structure(Vec::new(), &facts.imports, &facts.names, &facts.owned, &HashMap::new())?;
                Ok(())
            })?;
        }
    }
    report.ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// What `verify` found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Verification {
    /// Stored answers compared with the live Language Service.
    pub checked: usize,
    /// Declarations whose stored answer differs from the live one (both
    /// shown); empty when the index is exact.
    pub mismatches: Vec<String>,
}

/// Compares every stored answer with the Language Service's live answer
/// for the same declaration, now.
pub fn verify(index: &Index, ws: &Workspace) -> Result<Verification, StructureError> {
    let chunks: HashMap<String, CodeChunk> = index.declarations()?.into_iter().map(|r| (r.chunk.id.clone(), r.chunk)).collect();
    let mut out = Verification::default();
    for row in index.structure_all()? {
        let q = match (chunks.get(&row.chunk_id), row.chunk_id.strip_prefix(DECLARATION_KEY)) {
            (Some(c), _) => chunk_query(c),
            (None, Some(q)) => SymbolQuery::parse(q).ok(),
            (None, None) => {
                out.mismatches.push(format!("{}: stored for chunk {} that the index no longer has", row.relative_path, row.chunk_id));
                continue;
            }
        };
        let Some(q) = q else { continue };
        let stored: Stored = serde_json::from_str(&row.answer).unwrap_or_default();
        let live = compute(ws, &q, true)?;
        out.checked += 1;
        if stored != live {
            out.mismatches.push(format!(
                "{q}:\n  stored: {}\n  live:   {}",
                serde_json::to_string(&stored).unwrap_or_default(),
                serde_json::to_string(&live).unwrap_or_default()
            ));
        }
    }
    Ok(out)
}

/// What the index can say to a `symbol =` query (`lookup`).
pub enum FromIndex {
    /// The answer's parts, from the index alone.
    Answered(StoredLookup),
    /// The index knows every declaration the query matches, but these
    /// have no stored answer yet (declarations without a chunk of their
    /// own, or not precomputed yet): `complete` computes and stores them,
    /// and then the index answers.
    Missing(Vec<SymbolQuery>),
    /// The index cannot be sure (see `lookup`).
    Unknown,
}

/// A `symbol =` lookup's parts, answered from the index alone.
pub struct StoredLookup {
    pub matches: Vec<LookupMatch>,
    pub snapshots: Vec<SnapshotParts>,
    pub metadata: Vec<SymbolMetadata>,
}

/// Answers `q` from the index as the Language Service would
/// (`js/30_resolvers.js` `findDeclarations`, `js/50_lookup.js`), or says
/// which matches lack a stored answer, or `Unknown` when the index cannot
/// be sure: a file that may declare the name has no recorded declarations
/// (never computed, or edited since), or nothing matches (hints need the
/// Language Service).
///
/// The Language Service looks in the projects that own the files which
/// may declare the name (`inspect::may_declare`, the same superset), or in
/// the owner of the query's file; it matches the name, the exact file and
/// the parents as a subsequence of the containers.
pub fn lookup(index: &Index, view: &FileView, root: &Path, sources: &[std::path::PathBuf], q: &SymbolQuery) -> Result<FromIndex, StructureError> {
    let Some(target) = q.names.last() else { return Ok(FromIndex::Unknown) };
    let parents = &q.names[..q.names.len() - 1];
    let (rows, recorded) = index.names(target)?;
    let owners = index.owners()?;
    let rel = |p: &std::path::Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let file = q.file.as_deref().map(|f| f.trim_start_matches("./").to_string());
    let file_matches = |f: &str, want: &str| f == want || f.ends_with(&format!("/{want}"));
    let mut projects: HashSet<&str> = HashSet::new();
    for p in sources {
        let r = rel(p);
        let Ok(entry) = view.get(p) else { continue };
        if !crate::inspect::may_declare(entry.text_or_empty(), target) {
            continue;
        }
        // A file that may declare the name must have its declarations
        // recorded, or the index cannot know what it declares.
        if !recorded.contains(&r) {
            return Ok(FromIndex::Unknown);
        }
        if file.as_deref().is_none_or(|want| file_matches(&r, want)) {
            match owners.get(&r) {
                Some(o) => projects.insert(o.as_str()),
                None => return Ok(FromIndex::Unknown),
            };
        }
    }
    if let Some(want) = &file {
        if root.join(want).is_file() {
            match owners.get(want.as_str()) {
                Some(o) => projects = HashSet::from([o.as_str()]),
                None => return Ok(FromIndex::Unknown),
            }
        }
    }
    let found: Vec<_> = rows
        .iter()
        .filter(|r| owners.get(&r.relative_path).is_some_and(|o| projects.contains(o.as_str())))
        .filter(|r| file.as_deref().is_none_or(|want| r.relative_path == want))
        .filter(|r| parents_within(parents, &r.containers))
        .collect();
    if found.is_empty() {
        return Ok(FromIndex::Unknown);
    }
    let mut out = StoredLookup { matches: Vec::new(), snapshots: Vec::new(), metadata: Vec::new() };
    let mut by_file: HashMap<String, Vec<Stored>> = HashMap::new();
    let mut missing: Vec<SymbolQuery> = Vec::new();
    for r in found {
        if !by_file.contains_key(&r.relative_path) {
            let stored = index.structure_of_file(&r.relative_path)?.into_iter().filter_map(|s| serde_json::from_str::<Stored>(&s.answer).ok()).collect();
            by_file.insert(r.relative_path.clone(), stored);
        }
        let is_it = |m: &LookupMatch| m.symbol.file_path.as_deref() == Some(r.relative_path.as_str()) && m.symbol.line == Some(r.line as u32);
        // The answer of the declaration's own chunk: the one with the
        // fewest matches that has it (a parent's query may match it too).
        let Some(s) = by_file[&r.relative_path].iter().filter(|s| s.matches.iter().any(is_it)).min_by_key(|s| s.matches.len()) else {
            // Its own exact query; a name that cannot be written as one
            // (a binding pattern, a `>`) leaves the answer to the
            // Language Service.
            let names: Vec<String> = r.containers.iter().chain([&r.name]).cloned().collect();
            if names.iter().any(|n| n.is_empty() || n.contains('>') || n.trim() != n) {
                return Ok(FromIndex::Unknown);
            }
            missing.push(SymbolQuery { file: Some(r.relative_path.clone()), names });
            continue;
        };
        let m = s.matches.iter().find(|m| is_it(m)).expect("filtered above").clone();
        if out.matches.contains(&m) {
            continue;
        }
        out.metadata.extend(s.metadata.iter().filter(|x| x.symbol.file_path == m.symbol.file_path && x.symbol.line == m.symbol.line).cloned());
        for p in &s.snapshots {
            if !out.snapshots.contains(p) {
                out.snapshots.push(p.clone());
            }
        }
        out.matches.push(m);
    }
    if !missing.is_empty() {
        let mut seen = HashSet::new();
        missing.retain(|q| seen.insert(q.to_string()));
        return Ok(FromIndex::Missing(missing));
    }
    Ok(FromIndex::Answered(out))
}

/// Computes and stores the answers a query lacked (`FromIndex::Missing`),
/// each from its own exact query, as the precompute computes a chunk's;
/// returns how many were stored (an edit since leaves them out).
pub fn complete(index: &Index, view: &FileView, ws: &Workspace, missing: &[SymbolQuery]) -> Result<usize, StructureError> {
    let mut rows = Vec::new();
    for q in missing {
        let (Some(file), Some(name)) = (q.file.as_deref(), q.names.last()) else { continue };
        rows.push(row_for(&format!("{DECLARATION_KEY}{q}"), file, name, &compute(ws, q, true)?));
    }
    let seen = seen(index.root(), view, rows.iter().flat_map(|r| r.deps.clone()).collect::<HashSet<_>>().into_iter());
    let facts = new_facts(ws)?;
    Ok(index.put_structure(rows, &facts.imports, &facts.names, &facts.owned, &seen)?)
}

/// Whether a query's parents appear, in order, among a declaration's
/// containers (`findDeclarations`' rule: `A > m` matches `A > B > m`).
pub(crate) fn parents_within(parents: &[String], containers: &[String]) -> bool {
    let mut at = 0;
    for c in containers {
        if at < parents.len() && *c == parents[at] {
            at += 1;
        }
    }
    at == parents.len()
}
