//! `symbol =` answers from the occurrence index alone. The checker pass
//! stores, per declaration, what its own file decides (the lookup match,
//! the snapshot parts, signature, modifiers, members, type flows, its
//! supertypes: `occ_declarations`); everything that depends on other files
//! is derived from the rows at query time: references, incoming and
//! outgoing call trees at any depth (`occurrences::{references, Calls}`)
//! and subtypes (the declarations whose supertypes name this one).
//!
//! The matching is `js/answers/30_resolvers.js` `findDeclarations`: the name, the
//! exact file when given, the parents as a subsequence of the containers,
//! in the Language Service's order (project, file, node). An answer is
//! given only when every file that may declare the name is indexed from
//! its current text; otherwise the caller asks the Language Service.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::occurrences::{locale_cmp, references_in, CallMemo, Calls, Declared, Direction, Graph};
use super::rows::{DeclarationLink, DeclarationRow};
use super::{parents_within, StoredLookup, StructureError};
use crate::answer::{SymbolMetadata, SymbolRef};
use crate::index::occurrences::{OccDeclarationRow, OccurrenceRow};
use crate::index::{relative, Index};
use crate::query::SymbolQuery;
use crate::ts::files::FileView;

/// Why the rows cannot answer a query (the caller goes live).
#[derive(Debug, Clone, PartialEq)]
pub enum Unanswered {
    /// A file that may declare the name has no fresh rows (failed, or
    /// edited since the last sync).
    Stale(String),
    /// No declaration matches (hints and root statements are the
    /// Language Service's).
    NoMatch,
    /// A match has no symbol of its own (a binding pattern).
    NoSymbol,
    /// No occurrence index yet.
    NotIndexed,
}

/// The declarations `q` names and their answers at `call_depth`, from
/// the rows alone (one query: `Rows` answers several with one graph).
pub fn answer(
    index: &Index,
    view: &FileView,
    sources: &[PathBuf],
    q: &SymbolQuery,
    call_depth: i32,
) -> Result<Result<StoredLookup, Unanswered>, StructureError> {
    Rows::new(index, view, sources).answer(q, call_depth)
}

/// Answers from the rows for one request: the file rows and the call
/// graph are read once, on first use; the declarations by name, the
/// linked declarations by key and the occurrences by symbol are kept as
/// read, so that `prefetch` reads a search's results together (a query
/// each, not a few per result).
pub struct Rows<'a> {
    index: &'a Index,
    view: &'a FileView,
    sources: &'a [PathBuf],
    files: OnceCell<HashMap<String, (String, bool)>>,
    graph: OnceCell<Graph>,
    named: RefCell<HashMap<String, Vec<OccDeclarationRow>>>,
    keyed: RefCell<HashMap<String, Option<SymbolRef>>>,
    occurrences: RefCell<HashMap<String, Vec<OccurrenceRow>>>,
    calls: RefCell<CallMemo>,
}

impl<'a> Rows<'a> {
    pub fn new(index: &'a Index, view: &'a FileView, sources: &'a [PathBuf]) -> Rows<'a> {
        Rows {
            index,
            view,
            sources,
            files: OnceCell::new(),
            graph: OnceCell::new(),
            named: Default::default(),
            keyed: Default::default(),
            occurrences: Default::default(),
            calls: Default::default(),
        }
    }

    /// Reads, in one query each, what `lookup` of each of `queries` reads:
    /// the declarations they name, the declarations those link to, and the
    /// occurrences of every related symbol (references and incoming calls).
    pub(crate) fn prefetch(&self, queries: &[SymbolQuery]) -> Result<(), StructureError> {
        let names: Vec<String> = queries
            .iter()
            .filter_map(|q| q.names.last().cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|n| !self.named.borrow().contains_key(n))
            .collect();
        if names.is_empty() || self.files()?.is_empty() {
            return Ok(());
        }
        let mut named: HashMap<String, Vec<OccDeclarationRow>> = names.iter().map(|n| (n.clone(), Vec::new())).collect();
        for r in self.index.occ_declarations_named_any(&names)? {
            named.entry(r.name.clone()).or_default().push(r);
        }
        let mut keys = Vec::new();
        let mut symbols = Vec::new();
        let graph = self.graph()?;
        for q in queries {
            let want = q.file.as_deref().map(|f| f.trim_start_matches("./"));
            let Some(rows) = q.names.last().and_then(|n| named.get(n)) else { continue };
            for r in rows.iter().filter(|r| want.is_none_or(|w| r.relative_path == w)) {
                let Ok(a) = serde_json::from_str::<DeclarationRow>(&r.answer) else { continue };
                keys.extend(a.links.iter().filter_map(|l| l.key.clone()));
                if let Some(id) = &a.id {
                    symbols.extend(graph.related(id));
                }
            }
        }
        self.named.borrow_mut().extend(named);
        self.keyed_refs(&keys)?;
        self.occurrences_of(&symbols)?;
        Ok(())
    }

    /// The declarations named `name` (read once).
    fn named(&self, name: &str) -> Result<Vec<OccDeclarationRow>, StructureError> {
        if let Some(rows) = self.named.borrow().get(name) {
            return Ok(rows.clone());
        }
        let rows = self.index.occ_declarations_named(name)?;
        self.named.borrow_mut().insert(name.to_string(), rows.clone());
        Ok(rows)
    }

    /// The current place of each declaration `keys` name (`None`: gone).
    fn keyed_refs(&self, keys: &[String]) -> Result<HashMap<String, Option<SymbolRef>>, StructureError> {
        let missing: Vec<String> = keys.iter().filter(|k| !self.keyed.borrow().contains_key(*k)).cloned().collect::<BTreeSet<_>>().into_iter().collect();
        if !missing.is_empty() {
            let mut found: HashMap<String, Option<SymbolRef>> = missing.iter().map(|k| (k.clone(), None)).collect();
            for r in self.index.occ_declarations_keyed(&missing)? {
                if let Ok(a) = serde_json::from_str::<DeclarationRow>(&r.answer) {
                    let slot = found.entry(r.key).or_insert(None);
                    if slot.is_none() {
                        *slot = Some(a.matched.symbol);
                    }
                }
            }
            self.keyed.borrow_mut().extend(found);
        }
        let keyed = self.keyed.borrow();
        Ok(keys.iter().map(|k| (k.clone(), keyed.get(k).cloned().flatten())).collect())
    }

    /// Every occurrence row of `symbols` (each symbol read once).
    fn occurrences_of(&self, symbols: &[String]) -> Result<Vec<OccurrenceRow>, StructureError> {
        let missing: Vec<String> =
            symbols.iter().filter(|s| !self.occurrences.borrow().contains_key(*s)).cloned().collect::<BTreeSet<_>>().into_iter().collect();
        if !missing.is_empty() {
            let mut found: HashMap<String, Vec<OccurrenceRow>> = missing.iter().map(|s| (s.clone(), Vec::new())).collect();
            for r in self.index.occurrences_of(&missing, false)? {
                found.entry(r.symbol.clone()).or_default().push(r);
            }
            self.occurrences.borrow_mut().extend(found);
        }
        let all = self.occurrences.borrow();
        let wanted: BTreeSet<&String> = symbols.iter().collect();
        Ok(wanted.into_iter().filter_map(|s| all.get(s)).flatten().cloned().collect())
    }

    /// Whether the workspace has an occurrence index at all.
    pub fn exists(&self) -> Result<bool, StructureError> {
        Ok(!self.files()?.is_empty())
    }

    fn files(&self) -> Result<&HashMap<String, (String, bool)>, StructureError> {
        if self.files.get().is_none() {
            let files = self.index.occ_file_hashes()?.into_iter().map(|r| (r.relative_path, (r.content_hash, r.error.is_none()))).collect();
            let _ = self.files.set(files);
        }
        Ok(self.files.get().expect("set above"))
    }

    /// The scope record, as the graph read it (read once per request).
    pub fn scope(&self) -> Result<&super::scope::Scope, StructureError> {
        Ok(self.graph()?.scope())
    }

    fn graph(&self) -> Result<&Graph, StructureError> {
        if self.graph.get().is_none() {
            let _ = self.graph.set(Graph::load(self.index, false)?);
        }
        Ok(self.graph.get().expect("set above"))
    }

    /// Why the rows cannot answer for `target` now, if they cannot: a
    /// file that may declare it (with `want`, only that file) changed
    /// since its rows (declaration files have rows like any source).
    fn unfresh(&self, files: &HashMap<String, (String, bool)>, target: &str, want: Option<&str>) -> Result<Option<Unanswered>, StructureError> {
        let (index, view, sources) = (self.index, self.view, self.sources);
        let root: &Path = index.root();
        // With a file given, only its declarations can match: only its rows
        // must be fresh. Otherwise every file that may declare the name; a
        // file whose mtime and size are the chunk sync's, with rows of that
        // content, is fresh without being read.
        let stamped = if want.is_some() { HashMap::new() } else { index.stamped_hashes(sources)? };
        for p in sources {
            let rel = relative(p, root);
            if want.is_some_and(|w| w != rel) {
                continue;
            }
            if let (Some(h), Some((row, true))) = (stamped.get(&rel), files.get(&rel)) {
                if h == row {
                    continue;
                }
            }
            let Ok(entry) = view.get(p) else { continue };
            if entry.text.is_err() || !crate::workspace::may_declare(entry.text_or_empty(), target) {
                continue;
            }
            match files.get(&rel) {
                Some((hash, true)) if *hash == entry.hash => {}
                _ => return Ok(Some(Unanswered::Stale(rel))),
            }
        }
        Ok(None)
    }

    /// The declarations `q` names and their answers at `call_depth`.
    pub fn answer(&self, q: &SymbolQuery, call_depth: i32) -> Result<Result<StoredLookup, Unanswered>, StructureError> {
        let index = self.index;
        let Some(target) = q.names.last() else { return Ok(Err(Unanswered::NoMatch)) };
        let parents = &q.names[..q.names.len() - 1];
        let files = self.files()?;
        if files.is_empty() {
            return Ok(Err(Unanswered::NotIndexed));
        }
        let want = q.file.as_deref().map(|f| f.trim_start_matches("./").to_string());
        if let Some(unanswered) = self.unfresh(files, target, want.as_deref())? {
            return Ok(Err(unanswered));
        }
        let mut found: Vec<(String, DeclarationRow)> = self
            .named(target)?
            .into_iter()
            .filter(|r| want.as_deref().is_none_or(|w| r.relative_path == w))
            .filter_map(|r| Some((r.relative_path, serde_json::from_str::<DeclarationRow>(&r.answer).ok()?)))
            .filter(|(_, a)| parents_within(parents, &a.containers))
            .collect();
        if found.is_empty() {
            return Ok(Err(Unanswered::NoMatch));
        }
        if found.iter().any(|(_, a)| a.id.is_none()) {
            return Ok(Err(Unanswered::NoSymbol));
        }
        // The code shown comes from the checkout: each match's file must be
        // the content its rows were made from (sha256), and the snapshot's
        // texts are sliced from it by the ranges the rows keep.
        for (rel, a) in found.iter_mut() {
            let hash = files.get(rel.as_str()).map(|(h, _)| h.as_str()).unwrap_or_default();
            let entry = crate::index::checkout::current(self.view, index.root(), rel, hash);
            match entry {
                Some(e) if a.snapshot.file_path == *rel && crate::index::checkout::fill_snapshot(&mut a.snapshot, e.text_or_empty()) => {}
                _ => return Ok(Err(Unanswered::Stale(rel.clone()))),
            }
        }
        // The current place of every declaration of another file the answers
        // name (its lines move with that file's edits, which do not re-index
        // this one).
        let mut keys: Vec<String> = Vec::new();
        for (_, a) in &found {
            for l in &a.links {
                match &l.key {
                    Some(k) if !keys.contains(k) => keys.push(k.clone()),
                    Some(_) => {}
                    None => return Ok(Err(Unanswered::Stale(l.file_path.clone()))),
                }
            }
        }
        let now: HashMap<String, SymbolRef> = self.keyed_refs(&keys)?.into_iter().filter_map(|(k, r)| Some((k, r?))).collect();
        if let Some(k) = keys.iter().find(|k| !now.contains_key(*k)) {
            return Ok(Err(Unanswered::Stale(k.clone())));
        }
        let graph = self.graph()?;
        // Call trees of several answers share their callers' edges.
        let calls = Calls::with_memo(index, graph, self.calls.take());
        // One read for every match's references and first callers (a bare
        // name can match dozens of declarations).
        let decls: Vec<Declared<'_>> = found.iter().map(|(f, a)| Declared { file: f, id: a.id.as_deref().unwrap_or_default(), meaning: a.meaning }).collect();
        let related: Vec<String> = decls.iter().flat_map(|d| graph.related(d.id)).collect();
        let rows = self.occurrences_of(&related)?;
        let mut refs = decls.iter().map(|d| references_in(&rows, graph, d)).collect::<Vec<_>>().into_iter();
        calls.prefetch_incoming_with(&found.iter().filter_map(|(_, a)| a.item.clone()).collect::<Vec<_>>(), &|symbols| self.occurrences_of(symbols))?;
        let mut out = StoredLookup { matches: Vec::new(), snapshots: Vec::new(), metadata: Vec::new() };
        // A declaration found twice is shown once; two declarations that
        // look alike (two `const x` on one line) are two matches, as live.
        let mut shown: Vec<(crate::answer::LookupMatch, Option<String>)> = Vec::new();
        for (_, a) in found {
            let references = refs.next().unwrap_or_default();
            let matched = a.matched;
            let identity = (matched.clone(), a.id.clone());
            if shown.contains(&identity) {
                continue;
            }
            shown.push(identity);
            let (outgoing_calls, incoming_callers) = match &a.item {
                Some(k) => (calls.tree(k, Direction::Out, call_depth)?, calls.tree(k, Direction::In, call_depth)?),
                None => (Vec::new(), Vec::new()),
            };
            let moved = |v: &mut serde_json::Value| relink(v, &a.links, &now);
            let mut type_hierarchy = a.type_hierarchy.map(|t| relinked(t, &moved));
            if let Some(th) = type_hierarchy.as_mut() {
                th.subtypes = subtypes(index, &a.key)?;
            }
            let type_flows = a.type_flows.map(|t| relinked(t, &moved));
            out.metadata.push(SymbolMetadata {
                symbol: matched.symbol.clone(),
                project: matched.project.clone(),
                signature: a.signature,
                modifiers: a.modifiers,
                outgoing_calls,
                incoming_callers,
                references,
                type_hierarchy,
                members: a.members,
                type_flows,
            });
            if !out.snapshots.contains(&a.snapshot) {
                out.snapshots.push(a.snapshot);
            }
            out.matches.push(matched);
        }
        self.calls.replace(calls.into_memo());
        Ok(Ok(out))
    }
}

/// `value` with each linked declaration's line replaced by its current one.
fn relinked<T: serde::Serialize + serde::de::DeserializeOwned + Clone>(value: T, moved: &dyn Fn(&mut serde_json::Value)) -> T {
    let Ok(mut v) = serde_json::to_value(&value) else { return value };
    moved(&mut v);
    serde_json::from_value(v).unwrap_or(value)
}

/// Replaces, in every `SymbolRef`-shaped object of `v`, the stored place
/// of a linked declaration with its current one.
fn relink(v: &mut serde_json::Value, links: &[DeclarationLink], now: &HashMap<String, SymbolRef>) {
    match v {
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| relink(x, links, now)),
        serde_json::Value::Object(o) => {
            let at = (o.get("filePath").and_then(|x| x.as_str()), o.get("line").and_then(|x| x.as_u64()), o.get("name").and_then(|x| x.as_str()));
            if let (Some(f), Some(line), Some(name)) = at {
                let hit = links.iter().find(|l| l.file_path == f && u64::from(l.line) == line && l.name == name);
                if let Some(r) = hit.and_then(|l| now.get(l.key.as_deref().unwrap_or_default())) {
                    o.insert("filePath".into(), serde_json::json!(r.file_path));
                    o.insert("line".into(), serde_json::json!(r.line));
                }
            }
            o.values_mut().for_each(|x| relink(x, links, now));
        }
        _ => {}
    }
}

/// The classes and interfaces that extend or implement the declaration
/// `key`, by file then line (`js/answers/30_resolvers.js` `typeHierarchy`).
fn subtypes(index: &Index, key: &str) -> Result<Vec<SymbolRef>, StructureError> {
    let key = key.to_string();
    let mut out: Vec<SymbolRef> = Vec::new();
    for r in index.occ_subtypes(&key)? {
        let Ok(a) = serde_json::from_str::<DeclarationRow>(&r.answer) else { continue };
        // LIKE's `_` matches any character: keep exact hits only.
        let symbol = a.matched.symbol;
        if !symbol.file_path.as_deref().is_none_or(super::occurrences::user_file) {
            continue;
        }
        if a.supertypes.contains(&key) && !out.contains(&symbol) {
            out.push(symbol);
        }
    }
    out.sort_by(|a, b| locale_cmp(a.file_path.as_deref().unwrap_or(""), b.file_path.as_deref().unwrap_or("")).then(a.line.cmp(&b.line)));
    Ok(out)
}
