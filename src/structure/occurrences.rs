//! The occurrence index's answers, derived by query from the rows
//! `structure::occurrence_sync` writes, as tsserver would answer them:
//! `references` (the symbol and what find-references relates to it),
//! `Calls` (incoming and outgoing trees with tsq's depth and cycle
//! markers) and `relations`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

pub use super::inputs::InputChange;
pub(crate) use super::occurrence_sync::needs_sync;
pub use super::occurrence_sync::{pending, sync, Defer, OccurrenceReport};

use super::rows::Declaration;
pub(crate) use super::rows::Facts;
use super::scope::Scope;
use super::StructureError;
use crate::answer::{CallEntry, FileReferences, References, SymbolRef};
use crate::index::occurrences::OccurrenceRow;
use crate::index::Index;
/// Edges of one call-hierarchy item: (other item, call-site lines).
type Edges = Vec<(String, Vec<u32>)>;
/// Raw call edges already read, by (outgoing, item key): `Calls`' memo,
/// which `answers::Rows` keeps across the lookups of one request.
pub(crate) type CallMemo = HashMap<(bool, String), Edges>;
/// A reader of the occurrence rows of some symbols (a superset will do).
pub(crate) type ReadRows<'a> = dyn Fn(&[String]) -> Result<Vec<OccurrenceRow>, StructureError> + 'a;

// ---- answers by query ---------------------------------------------------------------

/// Declarations, items, call edges and base members of every indexed
/// file, loaded once per answer.
#[derive(Default)]
pub struct Graph {
    pub declarations: Vec<(String, Declaration)>,
    items: HashMap<String, SymbolRef>,
    calls_from: HashMap<String, Edges>,
    bases: HashMap<String, Vec<String>>,
    derived: HashMap<String, Vec<String>>,
    /// An object literal's member -> its contextual type's properties.
    contextual: HashMap<String, Vec<String>>,
    /// Files whose rows are missing or failed.
    pub unindexed: Vec<String>,
    /// Which programs hold which files: what a live answer searches.
    scope: Scope,
}

impl Graph {
    /// Which programs hold which files, as the graph was loaded with.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Every file's call-hierarchy items, call edges and base members;
    /// `with_declarations`: their declarations too (`find`, for
    /// `relations`), which a lookup does not need.
    pub fn load(index: &Index, with_declarations: bool) -> Result<Graph, StructureError> {
        /// The facts without the declarations (skipped unparsed).
        #[derive(serde::Deserialize, Default)]
        struct EdgeFacts {
            items: Vec<super::rows::CallItem>,
            calls: Vec<super::rows::CallEdge>,
            bases: Vec<super::rows::BaseEdge>,
        }
        let started = std::time::Instant::now();
        let mut g = Graph::default();
        let rows = index.occ_files(true)?;
        g.scope = Scope::load(index);
        let read_ms = started.elapsed().as_millis() as u64;
        for row in rows {
            if row.error.is_some() {
                g.unindexed.push(row.relative_path.clone());
                continue;
            }
            let (facts, declarations) = if with_declarations {
                let f: Facts = serde_json::from_str(&row.facts).unwrap_or_default();
                (EdgeFacts { items: f.items, calls: f.calls, bases: f.bases }, f.declarations)
            } else {
                (serde_json::from_str::<EdgeFacts>(&row.facts).unwrap_or_default(), Vec::new())
            };
            for i in facts.items {
                g.items.insert(i.key, i.symbol);
            }
            for c in facts.calls {
                g.calls_from.entry(c.from).or_default().push((c.to, c.sites));
            }
            for b in facts.bases {
                if b.contextual {
                    g.contextual.entry(b.member).or_default().push(b.base);
                    continue;
                }
                g.derived.entry(b.base.clone()).or_default().push(b.member.clone());
                g.bases.entry(b.member).or_default().push(b.base);
            }
            g.declarations.extend(declarations.into_iter().map(|d| (row.relative_path.clone(), d)));
        }
        tracing::debug!(read_ms, ms = started.elapsed().as_millis() as u64, items = g.items.len(), "occurrence graph (every file's facts)");
        Ok(g)
    }

    /// Every declaration's `symbol =` query (loaded `with_declarations`),
    /// once per distinct query; names `symbol =` cannot spell (computed,
    /// quoted) are left out. The differential tests' sample space.
    pub fn symbol_queries(&self) -> Vec<String> {
        let unspellable = |s: &str| s.contains(['[', '"', '\'', '>', ' ']);
        let mut out = BTreeSet::new();
        for (file, d) in &self.declarations {
            if d.name.is_empty() || unspellable(&d.name) || d.containers.iter().any(|c| unspellable(c)) {
                continue;
            }
            let mut parts = vec![file.clone()];
            parts.extend(d.containers.iter().cloned());
            parts.push(d.name.clone());
            out.insert(format!("symbol = {}", parts.join(" > ")));
        }
        out.into_iter().collect()
    }

    /// The declarations a `symbol =` query names: `file`, then the parents
    /// as a subsequence of the containers (as `findDeclarations` matches
    /// them: `f > key` names a `key` inside `f`'s nested object too) and
    /// the name.
    pub fn find(&self, file: &str, names: &[String]) -> Vec<(String, Declaration)> {
        let (name, parents) = names.split_last().map(|(n, c)| (n.as_str(), c)).unwrap_or(("", &[]));
        let file = file.trim_start_matches("./");
        self.declarations
            .iter()
            .filter(|(f, d)| (f == file || f.ends_with(&format!("/{file}"))) && d.name == name && super::parents_within(parents, &d.containers))
            .cloned()
            .collect()
    }

    /// The symbols find-references relates to `id`: itself, the members it
    /// overrides or implements (transitively), and every member that
    /// overrides or implements one of those (tsserver's search set). An
    /// object literal's member adds its contextual type's properties (and
    /// theirs), but only upward: another literal implementing the same
    /// property is found through the property's row at its definition,
    /// not through its own occurrences.
    pub(crate) fn related(&self, id: &str) -> Vec<String> {
        let mut search: BTreeSet<String> = BTreeSet::new();
        let mut stack = vec![id.to_string()];
        while let Some(x) = stack.pop() {
            if search.insert(x.clone()) {
                stack.extend(self.bases.get(&x).into_iter().flatten().cloned());
                stack.extend(self.contextual.get(&x).into_iter().flatten().cloned());
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

    /// The file of an item (incoming calls are searched from its holders).
    fn item_file(&self, key: &str) -> &str {
        self.item(key).and_then(|r| r.file_path.as_deref()).unwrap_or("")
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

/// A declaration the answers are about: its file, symbol id and meaning.
pub struct Declared<'a> {
    pub file: &'a str,
    pub id: &'a str,
    pub meaning: u8,
}

/// References as `tsq inspect` reports them: every occurrence of the
/// related symbols but the declaration's own definitions, by file, in the
/// files a program holding the declaration's file holds.
pub fn references(index: &Index, graph: &Graph, d: &Declared<'_>) -> Result<References, StructureError> {
    Ok(references_in(&index.occurrences_of(&graph.related(d.id), false)?, graph, d))
}

/// `references` from occurrence rows that hold at least the related
/// symbols' (others are ignored).
pub(crate) fn references_in(rows: &[OccurrenceRow], graph: &Graph, d: &Declared<'_>) -> References {
    let (id, meaning) = (d.id, d.meaning);
    let related: HashSet<String> = graph.related(id).into_iter().collect();
    // The declaration's own sites: an object literal's member also holds
    // a row of its contextual type's property there, not a reference.
    let own: HashSet<(&str, u32, u32)> =
        rows.iter().filter(|o| o.role == "definition" && o.symbol == id).map(|o| (o.relative_path.as_str(), o.line, o.column)).collect();
    let mut by_file: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut seen = HashSet::new();
    for o in rows.iter().filter(|o| related.contains(&o.symbol) && graph.scope.sees(d.file, &o.relative_path) && user_file(&o.relative_path)) {
        if own.contains(&(o.relative_path.as_str(), o.line, o.column)) || o.meaning & meaning == 0 {
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

/// Whether the live answers count what `path` holds: they keep user
/// files only (`isUserFile` in `js/service/20_service.js`), so the rows
/// of a declaration file name no reference, caller or subtype.
pub(crate) fn user_file(path: &str) -> bool {
    !crate::files::is_declaration_file(path)
}

/// One direction of a call tree.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Direction {
    Out,
    In,
}

/// The call tree from `item`, `max_depth` deep (-1: unlimited), as
/// `js/answers/31_calls.js` builds it from the Language Service.
pub(crate) struct Calls<'a> {
    index: &'a Index,
    graph: &'a Graph,
    memo: std::cell::RefCell<CallMemo>,
}

impl<'a> Calls<'a> {
    pub fn new(index: &'a Index, graph: &'a Graph) -> Calls<'a> {
        Calls::with_memo(index, graph, CallMemo::new())
    }

    /// Calls that start from the edges another `Calls` read (`into_memo`).
    pub(crate) fn with_memo(index: &'a Index, graph: &'a Graph, memo: CallMemo) -> Calls<'a> {
        Calls { index, graph, memo: std::cell::RefCell::new(memo) }
    }

    /// The edges read, for the next `Calls` of the same request.
    pub(crate) fn into_memo(self) -> CallMemo {
        self.memo.into_inner()
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
                    let from = self.graph.item_file(key);
                    let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
                    for o in self.index.occurrences_of(&self.graph.related(&symbol), true)? {
                        if !self.graph.scope.sees(from, &o.relative_path) || !user_file(&o.relative_path) {
                            continue;
                        }
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
    pub(crate) fn prefetch_incoming(&self, keys: &[String]) -> Result<(), StructureError> {
        self.prefetch_incoming_with(keys, &|symbols| Ok(self.index.occurrences_of(symbols, true)?))
    }

    /// `prefetch_incoming` with the rows read by `read` (any superset of
    /// the related symbols' call rows: an answer's cache of them).
    pub(crate) fn prefetch_incoming_with(&self, keys: &[String], read: &ReadRows<'_>) -> Result<(), StructureError> {
        let mut sets = Vec::new();
        let mut all: BTreeSet<String> = BTreeSet::new();
        for k in keys {
            if self.memo.borrow().contains_key(&(false, k.clone())) {
                continue;
            }
            if let Some(symbol) = self.graph.item_symbol(k) {
                let related: HashSet<String> = self.graph.related(&symbol).into_iter().collect();
                all.extend(related.iter().cloned());
                sets.push((k.clone(), self.graph.item_file(k), related));
            }
        }
        if all.is_empty() {
            return Ok(());
        }
        let rows = read(&all.into_iter().collect::<Vec<_>>())?;
        for (k, from, related) in sets {
            let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
            for o in rows.iter().filter(|o| related.contains(&o.symbol) && self.graph.scope.sees(from, &o.relative_path) && user_file(&o.relative_path)) {
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
        let edges = self.raw(key, dir)?;
        if dir == Direction::In {
            // Each caller's own callers (its subtree, or its depth marker) in one read.
            self.prefetch_incoming(&edges.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>())?;
        }
        for (other, sites) in edges {
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
            references: references(index, graph, &Declared { file: &f, id: &d.id, meaning: d.meaning })?,
            symbol: SymbolRef { name: d.name.clone(), kind: d.kind.clone(), file_path: Some(f), line: Some(d.line), is_abstract: None },
            id: d.id,
            outgoing_calls,
            incoming_callers,
        });
    }
    Ok(out)
}
