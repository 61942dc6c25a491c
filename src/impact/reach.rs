//! What depends on the changed declarations, from the occurrence rows
//! (the compiler's resolved references, never names): each dependent's
//! enclosing declaration and why (calls, extends or implements, uses the
//! type, references, overrides), level by level; and the test files that
//! reach a changed or affected declaration at any depth, through
//! references and then through the imports of top-level code.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{Affected, TestToRun};
use crate::index::occurrences::{OccFileRow, OccurrenceRow};
use crate::index::Index;
use crate::structure::occurrences::{user_file, Graph};
use crate::structure::rows::Declaration;
use crate::structure::StructureError;

/// Tests are searched this many levels deep at most (a level is one
/// read of the rows).
const TEST_LEVELS: usize = 24;
/// And through at most this many declarations and files.
const TEST_NODES: usize = 20_000;

/// A node of the dependency walk: a declaration (by symbol id) or a
/// file's top-level code (by path).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Decl(String),
    File(String),
}

/// One edge found: `node` depends on `of` (a declaration id), and why.
#[derive(Debug, Clone)]
pub struct Edge {
    pub node: Node,
    pub of: String,
    pub why: &'static str,
    pub line: u32,
}

/// The declarations of the graph by symbol id.
pub struct Declarations<'g> {
    by_id: HashMap<&'g str, (&'g str, &'g Declaration)>,
    /// The meanings searched from an id, where the changed declaration
    /// is one of several merged under it (an interface and a const).
    meanings: HashMap<String, u8>,
    pub graph: &'g Graph,
}

impl<'g> Declarations<'g> {
    pub fn new(graph: &'g Graph) -> Declarations<'g> {
        let mut by_id = HashMap::new();
        for (file, d) in &graph.declarations {
            by_id.entry(d.id.as_str()).or_insert((file.as_str(), d));
        }
        Declarations { by_id, meanings: HashMap::new(), graph }
    }

    /// Searches from `id` with the meanings of `d`, one of its declarations
    /// (merged with those already set).
    pub fn searched_as(&mut self, d: &Declaration) {
        *self.meanings.entry(d.id.clone()).or_default() |= d.meaning;
    }

    /// The meanings find-references looks for from `id`.
    fn meaning(&self, id: &str) -> u8 {
        self.meanings.get(id).copied().or_else(|| self.get(id).map(|(_, d)| d.meaning)).unwrap_or(7)
    }

    pub fn get(&self, id: &str) -> Option<(&'g str, &'g Declaration)> {
        self.by_id.get(id).copied()
    }

    /// The declaration of `file` with these names (containers, name) whose
    /// lines hold `line`, or the nearest.
    pub fn locate(&self, file: &str, names: &[String], lines: (u32, u32)) -> Option<&'g Declaration> {
        let (name, parents) = names.split_last()?;
        self.graph
            .declarations
            .iter()
            .filter(|(f, d)| f == file && &d.name == name && crate::structure::parents_within(parents, &d.containers))
            .map(|(_, d)| d)
            .min_by_key(|d| {
                let overlaps = d.line <= lines.1 && d.end_line >= lines.0;
                (!overlaps, d.line.abs_diff(lines.0))
            })
    }
}

/// Why a row depends on what it names, by its role.
fn why(role: &str) -> &'static str {
    match role {
        "call" | "new" => "calls",
        "heritage" => "extends or implements",
        "type" => "uses the type",
        _ => "references",
    }
}

/// The direct dependents of `ids` (symbol ids with their files): one read
/// of the rows for all of them. `calls_only`: call sites alone (a body
/// change reaches its callers, nothing else).
pub fn dependents(index: &Index, decls: &Declarations<'_>, ids: &[String], calls_only: bool) -> Result<Vec<Edge>, StructureError> {
    dependents_where(index, decls, ids, calls_only, &|_| true)
}

/// `dependents` through the rows whose role `keep` accepts.
pub fn dependents_where(
    index: &Index,
    decls: &Declarations<'_>,
    ids: &[String],
    calls_only: bool,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<Edge>, StructureError> {
    let graph = decls.graph;
    let mut related: HashMap<String, Vec<String>> = HashMap::new();
    let mut all: Vec<String> = Vec::new();
    for id in ids {
        let r = graph.related(id);
        all.extend(r.iter().cloned());
        related.insert(id.clone(), r);
    }
    all.sort();
    all.dedup();
    if all.is_empty() {
        return Ok(Vec::new());
    }
    let rows = index.occurrences_of(&all, calls_only)?;
    let mut by_symbol: HashMap<&str, Vec<&OccurrenceRow>> = HashMap::new();
    for r in &rows {
        by_symbol.entry(r.symbol.as_str()).or_default().push(r);
    }
    let mut out = Vec::new();
    for id in ids {
        let from = decls.get(id).map_or("", |(f, _)| f);
        // The meanings find-references looks for from this declaration: an
        // interface merged with a const is found apart from it.
        let meaning = decls.meaning(id);
        let mut seen = HashSet::new();
        for symbol in &related[id] {
            for r in by_symbol.get(symbol.as_str()).into_iter().flatten() {
                if r.role == "import"
                    || r.meaning & meaning == 0
                    || !keep(&r.role)
                    || !user_file(&r.relative_path)
                    || (!from.is_empty() && !graph.scope().sees(from, &r.relative_path))
                {
                    continue;
                }
                let edge = if r.role == "definition" {
                    if symbol == id {
                        continue;
                    }
                    // A member that overrides or implements the changed one.
                    Edge { node: Node::Decl(symbol.clone()), of: id.clone(), why: "overrides or implements", line: r.line }
                } else {
                    let node = if decls.get(&r.enclosing).is_some() { Node::Decl(r.enclosing.clone()) } else { Node::File(r.relative_path.clone()) };
                    Edge { node, of: id.clone(), why: why(&r.role), line: r.line }
                };
                if edge.node != Node::Decl(id.clone()) && seen.insert(edge.node.clone()) {
                    out.push(edge);
                }
            }
        }
    }
    Ok(out)
}

/// A member's API change changes its container's type (`containers`: a
/// class, or an interface-like type when `true`): implementers and
/// subclasses depend on it, and for an interface-like one every place
/// that names the type (an object literal must now match it).
fn container_role(interface: bool) -> impl Fn(&str) -> bool {
    move |role: &str| role == "heritage" || (interface && role == "type")
}

/// Affected declarations: `api` ids reach `depth` levels through every
/// reference; `containers` their implementers and subtypes; `body` ids
/// their direct callers. Each dependent is listed once, for the first
/// reason found; `listed` ones (the changed declarations) never.
pub fn affected(
    index: &Index,
    decls: &Declarations<'_>,
    api: &[String],
    containers: &[(String, bool)],
    body: &[String],
    depth: usize,
    listed: &HashSet<String>,
) -> Result<Vec<Affected>, StructureError> {
    let mut out: Vec<Affected> = Vec::new();
    let mut listed: HashSet<Node> = listed.iter().map(|c| Node::Decl(c.clone())).collect();
    let mut push = |e: &Edge, level: usize, out: &mut Vec<Affected>| -> bool {
        if !listed.insert(e.node.clone()) {
            return false;
        }
        out.push(entry(decls, e, level));
        true
    };
    let mut frontier: Vec<String> = api.to_vec();
    for level in 1..=depth.max(1) {
        let mut next = Vec::new();
        for e in dependents(index, decls, &frontier, false)? {
            if push(&e, level, &mut out) {
                if let Node::Decl(id) = &e.node {
                    next.push(id.clone());
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    for (id, interface) in containers {
        for e in dependents_where(index, decls, std::slice::from_ref(id), false, &container_role(*interface))? {
            push(&e, 1, &mut out);
        }
    }
    for e in dependents(index, decls, body, true)? {
        push(&e, 1, &mut out);
    }
    out.sort_by(|a, b| a.depth.cmp(&b.depth).then_with(|| a.file.cmp(&b.file)).then(a.lines.0.cmp(&b.lines.0)));
    Ok(out)
}

/// An edge as an affected entry, `level` steps from the change.
pub fn entry(decls: &Declarations<'_>, e: &Edge, level: usize) -> Affected {
    let of = decls.get(&e.of).map_or_else(|| e.of.clone(), |(_, d)| display_name(d));
    match &e.node {
        Node::Decl(id) => {
            let (file, d) = decls.get(id).expect("only known declarations are Decl nodes");
            Affected {
                file: file.to_string(),
                name: display_name(d),
                kind: d.kind.clone(),
                lines: (d.line, d.end_line),
                depth: level as u32,
                why: e.why.to_string(),
                of,
                line: e.line,
                id: Some(id.clone()),
            }
        }
        Node::File(f) => Affected {
            file: f.clone(),
            name: "(top-level code)".into(),
            kind: "module".into(),
            lines: (e.line, e.line),
            depth: level as u32,
            why: e.why.to_string(),
            of,
            line: e.line,
            id: None,
        },
    }
}

/// `Parent.name` as answers print it.
pub fn display_name(d: &Declaration) -> String {
    let mut parts = d.containers.clone();
    parts.push(d.name.clone());
    parts.join(".")
}

/// The test files that reach any of `start` (declaration ids and files
/// whose top-level code changed) at any depth, nearest first: through
/// references to declarations, and through imports of a file whose
/// top-level code is reached. `files`: every indexed file's row (imports).
pub fn tests(index: &Index, decls: &Declarations<'_>, start: &[Node], files: &[OccFileRow]) -> Result<(Vec<TestToRun>, bool), StructureError> {
    let mut importers: HashMap<&str, Vec<&str>> = HashMap::new();
    for f in files {
        for i in f.imports.iter().chain(&f.reexports) {
            importers.entry(i.as_str()).or_default().push(f.relative_path.as_str());
        }
    }
    let mut distance: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen: HashSet<Node> = start.iter().cloned().collect();
    let mut frontier: Vec<Node> = start.to_vec();
    let mut level = 0;
    let mut cut = false;
    while !frontier.is_empty() {
        for n in &frontier {
            let file = match n {
                Node::Decl(id) => decls.get(id).map(|(f, _)| f.to_string()),
                Node::File(f) => Some(f.clone()),
            };
            if let Some(f) = file.filter(|f| crate::files::classify(f, false) == crate::files::Role::Test) {
                distance.entry(f).or_insert(level);
            }
        }
        if level == TEST_LEVELS || seen.len() > TEST_NODES {
            cut = true;
            break;
        }
        level += 1;
        let ids: Vec<String> = frontier.iter().filter_map(|n| if let Node::Decl(id) = n { Some(id.clone()) } else { None }).collect();
        let mut next = Vec::new();
        for e in dependents(index, decls, &ids, false)? {
            if seen.insert(e.node.clone()) {
                next.push(e.node);
            }
        }
        for n in &frontier {
            if let Node::File(f) = n {
                for i in importers.get(f.as_str()).into_iter().flatten() {
                    let node = Node::File(i.to_string());
                    if seen.insert(node.clone()) {
                        next.push(node);
                    }
                }
            }
        }
        frontier = next;
    }
    let mut out: Vec<TestToRun> = distance.into_iter().map(|(file, d)| TestToRun { file, distance: d as u32 }).collect();
    out.sort_by(|a, b| a.distance.cmp(&b.distance).then_with(|| a.file.cmp(&b.file)));
    Ok((out, cut))
}
