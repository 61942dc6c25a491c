//! ARCHITECTURE.md's "Modules import downward", checked on the source.
//!
//! - Each crate's module graph has no cycle outside a folder's hub: the
//!   tsq crate's `src/` and each crate under `crates/`. Every file is a
//!   module (`a/mod.rs` is `a`, `lib.rs`, or a binary crate's `main.rs`,
//!   the root `crate`), and it depends on each module its code names: by
//!   a `crate::`, `super::` or `self::` path, and a parent by a plain
//!   `child::` path, `use` groups included, mapped to the longest module
//!   prefix and followed through `pub use` re-exports to the module the
//!   item comes from. A parent's re-export of its own child's item is no
//!   dependency unless the parent's own code uses that item.
//! - A cycle is allowed only through a parent and its own children: a
//!   `mod.rs` is its folder's hub (its error type and main struct, which
//!   the children name, and the calls into them). A cycle among siblings,
//!   or one that leaves the folder, fails with its modules in order.
//! - The seven layers keep apart: each layer's `crate::` paths name none
//!   of the modules above it.
//! - The crates depend downward (`tsq-bench` → `tsq` → `tsq-engine`, read
//!   from each `Cargo.toml`), and a crate under `crates/` compiles no other
//!   crate's source: a Rust file that `#[path]` or `include!` brings in
//!   from outside the crate lies outside every `src/` and names no
//!   `crate::` or `super::` path.
//! - JS files read no global in a cycle (`layers/js_globals.rs`).

mod js_globals;
mod rust_paths;

use rust_paths::{code_of, has_word, named_paths, without_use_items, Named};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// The layers this test keeps apart, and what each may not name.
const FORBIDDEN: &[(&str, &[&str])] = &[
    ("src/lookup.rs", &["api", "search", "index", "structure", "cli", "mcp", "config"]),
    ("src/workspace.rs", &["api", "search", "lookup", "index", "structure", "cli", "mcp", "config"]),
    ("src/index", &["api", "search", "lookup", "structure", "cli", "mcp", "config", "share"]),
    ("src/structure", &["api", "search", "lookup", "cli", "mcp", "config"]),
    ("src/search", &["api", "cli", "mcp", "config"]),
    ("src/share", &["api", "search", "lookup", "structure", "inspect", "cli", "mcp"]),
    ("src/files.rs", &["api", "search", "lookup", "index", "structure", "cli", "mcp"]),
    ("src/query.rs", &["api", "search", "lookup", "index", "structure", "cli", "mcp"]),
];

/// A module's path under its crate root (`[]` is the root).
type Module = Vec<String>;
/// Each module's dependencies, with the file (from the repository root)
/// and line that names each first.
type Graph = BTreeMap<Module, BTreeMap<Module, (PathBuf, usize)>>;

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// A file's module path under `src/` (`search/rank.rs` → `[search, rank]`,
/// `index/mod.rs` → `[index]`, `lib.rs` → `[]`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.with_extension("").iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib" || l == "main") {
        parts.pop();
    }
    parts
}

/// A module as messages show it (`crate` for the root).
fn show(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

/// The module a path names: its longest module prefix, followed through
/// the re-exports of each module on the way (`pub use a::X` makes `m::X`
/// name `a`).
fn target_of(path: &[String], modules: &BTreeSet<Module>, reexports: &BTreeMap<Module, BTreeMap<String, Vec<String>>>) -> Option<Module> {
    let mut path = path.to_vec();
    let mut found = None;
    for _ in 0..8 {
        let m = (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p))?;
        let Some(to) = path.get(m.len()).and_then(|name| reexports.get(&m)?.get(name)) else {
            return Some(m);
        };
        let mut next = to.clone();
        next.extend_from_slice(&path[m.len() + 1..]);
        found = Some(m);
        path = next;
    }
    found
}

/// The module graph of one crate from its files (each a path under `src/`,
/// the path messages show, and the text).
fn graph_of(files: &[(PathBuf, PathBuf, String)]) -> Graph {
    let modules: BTreeSet<Module> = files.iter().map(|(rel, _, _)| module_of(rel)).collect();
    let mut parsed = BTreeMap::new();
    for (rel, shown, text) in files {
        let module = module_of(rel);
        let children = modules.iter().filter(|m| m.len() == module.len() + 1 && m.starts_with(&module)).map(|m| m[module.len()].clone()).collect();
        let code = code_of(text);
        let named = named_paths(&code, &module, &children);
        parsed.insert(module, (shown.clone(), without_use_items(&code), named));
    }
    let mut reexports: BTreeMap<Module, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (m, (_, _, named)) in &parsed {
        for n in named.iter().filter(|n| n.reexport) {
            if let Some(name) = &n.name {
                reexports.entry(m.clone()).or_default().insert(name.clone(), n.path.clone());
            }
        }
    }
    let mut graph = Graph::new();
    for (m, (shown, own_code, named)) in &parsed {
        let mut deps = BTreeMap::new();
        for n in named {
            let Some(t) = target_of(&n.path, &modules, &reexports).filter(|t| t != m) else {
                continue;
            };
            // A parent that only re-exports its child's item is its façade.
            let facade = n.reexport && t.starts_with(m) && !n.name.as_ref().is_some_and(|name| has_word(own_code, name));
            if !facade {
                deps.entry(t).or_insert((shown.clone(), n.line));
            }
        }
        graph.insert(m.clone(), deps);
    }
    graph
}

/// Files a `#[path]` attribute under `src` brings in: they are their
/// declaring module's (`#[cfg(test)] #[path = "x_tests.rs"] mod tests`).
fn path_targets(src: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for file in rust_files(src) {
        for (_, target) in foreign_paths(&std::fs::read_to_string(&file).unwrap(), &file) {
            out.insert(target);
        }
    }
    out
}

/// Every module's dependencies in the crate whose sources are `src` (the
/// root is `lib.rs`, else `main.rs`; beside a `lib.rs`, `main.rs` is a
/// binary crate of its own, which names the library as `tsq::`).
fn module_graph(repo: &Path, src: &Path) -> Graph {
    let brought_in = path_targets(src);
    let has_lib = src.join("lib.rs").exists();
    let files: Vec<(PathBuf, PathBuf, String)> = rust_files(src)
        .into_iter()
        .filter(|f| !(brought_in.contains(f) || has_lib && *f == src.join("main.rs")))
        .map(|f| (f.strip_prefix(src).unwrap().to_path_buf(), f.strip_prefix(repo).unwrap().to_path_buf(), std::fs::read_to_string(&f).unwrap()))
        .collect();
    graph_of(&files)
}

/// A cycle of `graph`, in order, if there is one.
fn find_cycle<N: Ord + Clone, E>(graph: &BTreeMap<N, BTreeMap<N, E>>) -> Option<Vec<N>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit<N: Ord + Clone, E>(n: &N, graph: &BTreeMap<N, BTreeMap<N, E>>, marks: &mut BTreeMap<N, Mark>, stack: &mut Vec<N>) -> Option<Vec<N>> {
        marks.insert(n.clone(), Mark::Open);
        stack.push(n.clone());
        for d in graph.get(n).into_iter().flat_map(|m| m.keys()) {
            match marks.get(d) {
                Some(Mark::Open) => {
                    let from = stack.iter().position(|s| s == d).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(d.clone());
                    return Some(cycle);
                }
                Some(Mark::Done) => {}
                None => {
                    if let Some(c) = visit(d, graph, marks, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        marks.insert(n.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for n in graph.keys() {
        if !marks.contains_key(n) {
            if let Some(c) = visit(n, graph, &mut marks, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn is_child(m: &[String], parent: &[String]) -> bool {
    m.len() == parent.len() + 1 && m.starts_with(parent)
}

/// `graph` restricted to the nodes `keep` holds.
fn induced(graph: &Graph, keep: &BTreeSet<Module>) -> Graph {
    keep.iter().map(|n| (n.clone(), graph[n].iter().filter(|(d, _)| keep.contains(*d)).map(|(d, e)| (d.clone(), e.clone())).collect())).collect()
}

/// The shortest path from `from` to `to` in `graph`, both ends included.
fn shortest_path(graph: &Graph, from: &Module, to: &Module) -> Option<Vec<Module>> {
    let mut came_from: BTreeMap<Module, Module> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from.clone()]);
    while let Some(n) = queue.pop_front() {
        if n == *to {
            let mut path = vec![n];
            while let Some(p) = came_from.get(path.last().unwrap()).filter(|p| *p != from) {
                path.push(p.clone());
            }
            if *to != *from {
                path.push(from.clone());
            }
            path.reverse();
            return Some(path);
        }
        for d in graph[&n].keys() {
            if !came_from.contains_key(d) && d != from {
                came_from.insert(d.clone(), n.clone());
                queue.push_back(d.clone());
            }
        }
    }
    None
}

/// A cycle of `graph` that no folder's hub allows, in order. A cycle
/// through a parent and its own children only is the folder's inside; a
/// cycle among siblings, or one that leaves the folder, is not.
fn forbidden_cycle(graph: &Graph) -> Option<Vec<Module>> {
    let reach: BTreeMap<&Module, BTreeSet<Module>> = graph
        .keys()
        .map(|n| {
            let mut seen = BTreeSet::from([n.clone()]);
            let mut todo = vec![n.clone()];
            while let Some(m) = todo.pop() {
                for d in graph[&m].keys() {
                    if seen.insert(d.clone()) {
                        todo.push(d.clone());
                    }
                }
            }
            (n, seen)
        })
        .collect();
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        if done.contains(n) {
            continue;
        }
        // The strongly connected component of `n`.
        let scc: BTreeSet<Module> = reach[n].iter().filter(|m| reach[*m].contains(n)).cloned().collect();
        done.extend(scc.iter().cloned());
        if scc.len() < 2 {
            continue;
        }
        if let Some(hub) = scc.iter().find(|p| scc.iter().all(|m| m == *p || is_child(m, p))) {
            // Every cycle through the hub is allowed; none may avoid it.
            let rest: BTreeSet<Module> = scc.iter().filter(|m| *m != hub).cloned().collect();
            if let Some(c) = find_cycle(&induced(graph, &rest)) {
                return Some(c);
            }
            continue;
        }
        // Past one folder: the shortest cycle through each edge, the first
        // that no hub allows (else the first found).
        let inside = induced(graph, &scc);
        let allowed = |c: &[Module]| c.iter().any(|p| c.iter().all(|m| m == p || is_child(m, p)));
        let mut first = None;
        for (u, deps) in &inside {
            for v in deps.keys() {
                let mut cycle = vec![u.clone()];
                cycle.extend(shortest_path(&inside, v, u).unwrap());
                if !allowed(&cycle) {
                    return Some(cycle);
                }
                first.get_or_insert(cycle);
            }
        }
        return first;
    }
    None
}

/// A panic message for a module cycle, with the line that names each step.
fn cycle_message(graph: &Graph, cycle: &[Module]) -> String {
    let steps: Vec<String> = cycle
        .windows(2)
        .map(|w| {
            let (file, line) = &graph[&w[0]][&w[1]];
            format!("{} -> {} ({}:{line})", show(&w[0]), show(&w[1]), file.display())
        })
        .collect();
    format!("a module cycle outside a folder's hub:\n{}", steps.join("\n"))
}

/// The Rust files that `#[path = "…"]` and `include!("…")` in `text` (the
/// file `file`) bring in, with the line, resolved lexically.
fn foreign_paths(text: &str, file: &Path) -> Vec<(usize, PathBuf)> {
    let dir = file.parent().unwrap();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("").trim();
        let literal = if let Some(rest) = code.strip_prefix("#[path = \"") {
            rest.split('"').next()
        } else if let Some(at) = code.find("include!(\"") {
            code[at + 10..].split('"').next()
        } else {
            None
        };
        if let Some(rel) = literal {
            let mut p = PathBuf::new();
            for c in dir.join(rel).components() {
                match c {
                    Component::ParentDir => {
                        p.pop();
                    }
                    Component::CurDir => {}
                    c => p.push(c),
                }
            }
            out.push((n + 1, p));
        }
    }
    out
}

/// What is wrong with a crate compiling `target` (from the repository
/// root) from outside itself, if anything: another crate's module, or
/// code that names a crate it is not part of.
fn foreign_source_problem(target: &Path, text: &str) -> Option<String> {
    let comps: Vec<String> = target.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if comps.first().is_some_and(|c| c == "src") || (comps.first().is_some_and(|c| c == "crates") && comps.get(2).is_some_and(|c| c == "src")) {
        return Some("another crate's source".to_string());
    }
    let named = named_paths(&code_of(text), &[], &BTreeSet::new());
    named.first().map(|n| format!("names `crate::`/`super::` paths (line {})", n.line))
}

/// The crates under `crates/`.
fn crate_dirs(repo: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo.join("crates")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("Cargo.toml").is_file()).collect();
    out.sort();
    out
}

/// A `Cargo.toml`'s package name and the path dependencies (not
/// dev-dependencies) it names, each as a directory from the repository
/// root.
fn cargo_deps(repo: &Path, dir: &Path) -> (String, Vec<PathBuf>) {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let (mut name, mut deps, mut section) = (String::new(), Vec::new(), String::new());
    for line in text.lines().map(|l| l.split('#').next().unwrap_or("").trim()) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if section == "[package]" && line.starts_with("name") {
            name = line.split('"').nth(1).unwrap_or("").to_string();
        } else if section.ends_with("dependencies]") && !section.contains("dev-dependencies") {
            if let Some(at) = line.find("path = \"") {
                let rel = line[at + 8..].split('"').next().unwrap();
                let dep = dir.join(rel).canonicalize().unwrap();
                deps.push(dep.strip_prefix(repo.canonicalize().unwrap()).unwrap().to_path_buf());
            }
        }
    }
    (name, deps)
}

#[test]
fn the_paths_parser_sees_what_a_module_names() {
    let module = vec!["search".to_string(), "rank".to_string()];
    let code = "use crate::api::Engine;\nuse super::{steps::Steps, shape::{words, identifiers}};\nlet x = crate::index::now_ms() + super::super::files::f();\nuse crate::{a, b::c as d};";
    let found: Vec<(usize, String)> = named_paths(code, &module, &BTreeSet::new()).into_iter().map(|n| (n.line, n.path.join("::"))).collect();
    assert_eq!(
        found,
        vec![
            (1, "api::Engine".to_string()),
            (2, "search::steps::Steps".to_string()),
            (2, "search::shape::words".to_string()),
            (2, "search::shape::identifiers".to_string()),
            (3, "index::now_ms".to_string()),
            (3, "files::f".to_string()),
            (4, "a".to_string()),
            (4, "b::c".to_string()),
        ]
    );
    assert_eq!(code_of("use crate::a; // crate::b\n#[cfg(test)]\nmod tests { use crate::c; }"), "use crate::a; ");
    assert_eq!(code_of("fn f() {}\n#[cfg(all(test, unix))]\nmod tests { use crate::c; }"), "fn f() {}");
}

#[test]
fn a_parent_names_its_children_and_re_exports_them() {
    let module = vec!["index".to_string()];
    let children = BTreeSet::from(["sync".to_string(), "swap".to_string(), "disk".to_string()]);
    let code = "mod sync;\npub use sync::{SyncReport, Limit as L};\npub(crate) use swap::install as install_pulled;\nuse disk::read_meta;\nfn f() { self::swap::now(); x.sync::<u8>(); }\npub use disk::*;";
    let found: Vec<(String, Option<String>, bool)> =
        named_paths(code, &module, &children).into_iter().map(|n| (n.path.join("::"), n.name, n.reexport)).collect();
    let own = |p: &str, n: &str, r: bool| (p.to_string(), Some(n.to_string()), r);
    assert_eq!(
        found,
        vec![
            own("index::sync::SyncReport", "SyncReport", true),
            own("index::sync::Limit", "L", true),
            own("index::swap::install", "install_pulled", true),
            own("index::disk::read_meta", "read_meta", false),
            own("index::swap::now", "now", false),
            ("index::disk".to_string(), None, true),
        ]
    );
}

/// A crate's graph from `(path under src/, text)` pairs.
fn graph_from(files: &[(&str, &str)]) -> Graph {
    graph_of(&files.iter().map(|(p, t)| (PathBuf::from(p), PathBuf::from(p), t.to_string())).collect::<Vec<_>>())
}

#[test]
fn a_re_export_is_no_dependency_and_names_where_the_item_comes_from() {
    let m = |s: &str| s.split("::").filter(|s| !s.is_empty()).map(String::from).collect::<Module>();
    let edges = |g: &Graph, from: &str| g[&m(from)].keys().map(|k| show(k)).collect::<Vec<_>>();
    let facade = "mod a;\nmod b;\npub use a::Thing;\npub fn f() {}";
    let files = [("lib.rs", "mod p;"), ("p/mod.rs", facade), ("p/a.rs", "pub struct Thing; fn g() { super::f() }"), ("p/b.rs", "use super::Thing;")];
    let g = graph_from(&files);
    assert_eq!(edges(&g, "p"), Vec::<String>::new());
    assert_eq!(edges(&g, "p::a"), vec!["p"]);
    assert_eq!(edges(&g, "p::b"), vec!["p::a"]);
    // A parent whose own code uses what it re-exports depends on the child.
    let user = "mod a;\nmod b;\npub use a::Thing;\npub fn f() -> Thing { Thing }";
    let g = graph_from(&[files[0], ("p/mod.rs", user), files[2], files[3]]);
    assert_eq!(edges(&g, "p"), vec!["p::a"]);
    assert_eq!(forbidden_cycle(&g), None, "a parent and its own child may name each other");
}

#[test]
fn a_cycle_is_found_and_named_in_order() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let edge = |to: &str| (m(to), (PathBuf::new(), 1));
    let mut graph = BTreeMap::new();
    graph.insert(m("a"), BTreeMap::from([edge("b")]));
    graph.insert(m("b"), BTreeMap::from([edge("c")]));
    graph.insert(m("c"), BTreeMap::new());
    assert_eq!(find_cycle(&graph), None);
    graph.insert(m("c"), BTreeMap::from([edge("a")]));
    assert_eq!(find_cycle(&graph), Some(vec![m("a"), m("b"), m("c"), m("a")]));
    assert_eq!(forbidden_cycle(&graph), Some(vec![m("a"), m("b"), m("c"), m("a")]));
}

#[test]
fn only_a_cycle_through_a_folders_hub_is_allowed() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let edge = |to: &str| (m(to), (PathBuf::new(), 1));
    let mut graph: Graph = BTreeMap::new();
    // `p` calls `p::a` and `p::b`; both name `p`'s items; `p::b` names `p::a`.
    graph.insert(m("p"), BTreeMap::from([edge("p::a"), edge("p::b")]));
    graph.insert(m("p::a"), BTreeMap::from([edge("p")]));
    graph.insert(m("p::b"), BTreeMap::from([edge("p"), edge("p::a")]));
    graph.insert(m("q"), BTreeMap::from([edge("p")]));
    assert_eq!(forbidden_cycle(&graph), None);
    // Siblings naming each other: a cycle that avoids the hub.
    graph.get_mut(&m("p::a")).unwrap().insert(m("p::b"), (PathBuf::new(), 1));
    assert_eq!(forbidden_cycle(&graph), Some(vec![m("p::a"), m("p::b"), m("p::a")]));
    // A cycle that leaves the folder.
    graph.get_mut(&m("p::a")).unwrap().remove(&m("p::b"));
    graph.get_mut(&m("p::a")).unwrap().insert(m("q"), (PathBuf::new(), 1));
    assert_eq!(forbidden_cycle(&graph), Some(vec![m("p::a"), m("q"), m("p"), m("p::a")]));
}

#[test]
fn the_module_graph_has_no_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = module_graph(root, &root.join("src"));
    assert!(graph.len() > 50, "{} modules: the walk of src/ found too few", graph.len());
    assert!(graph.values().map(BTreeMap::len).sum::<usize>() > 100, "the parser found too few edges");
    let down = graph.iter().filter(|(m, deps)| deps.keys().any(|d| is_child(d, m))).count();
    let up = graph.iter().filter(|(m, deps)| deps.keys().any(|d| is_child(m, d))).count();
    assert!(down > 5 && up > 20, "parent -> child edges from {down} modules, child -> parent from {up}: the parser misses them");
    if let Some(cycle) = forbidden_cycle(&graph) {
        panic!("{}", cycle_message(&graph, &cycle));
    }
}

#[test]
fn each_crate_under_crates_has_no_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let crates = crate_dirs(root);
    assert!(crates.len() >= 2, "crates/: {crates:?}");
    for dir in crates {
        let graph = module_graph(root, &dir.join("src"));
        assert!(graph.len() > 5 && graph.values().map(BTreeMap::len).sum::<usize>() > 5, "{}: too few modules or edges", dir.display());
        if let Some(cycle) = forbidden_cycle(&graph) {
            panic!("{}: {}", dir.display(), cycle_message(&graph, &cycle));
        }
    }
}

#[test]
fn crates_depend_downward() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut graph: BTreeMap<String, BTreeMap<String, ()>> = BTreeMap::new();
    let mut names = BTreeMap::new();
    for dir in std::iter::once(root.to_path_buf()).chain(crate_dirs(root)) {
        let (name, deps) = cargo_deps(root, &dir);
        names.insert(dir.strip_prefix(root).unwrap().to_path_buf(), name.clone());
        graph.insert(name, deps.into_iter().map(|d| (d.to_string_lossy().into_owned(), ())).collect());
    }
    // Each path dependency is a workspace crate, by name.
    for deps in graph.values_mut() {
        *deps = std::mem::take(deps)
            .into_keys()
            .map(|d| (names.get(Path::new(&d)).cloned().unwrap_or_else(|| panic!("a path dependency outside the workspace: {d}")), ()))
            .collect();
    }
    let edges: Vec<String> = graph.iter().flat_map(|(c, deps)| deps.keys().map(move |d| format!("{c} -> {d}"))).collect();
    assert_eq!(edges, ["tsq -> tsq-engine", "tsq-bench -> tsq"], "ARCHITECTURE.md: the benchmarks call the product, the product its engine");
    assert_eq!(find_cycle(&graph), None);
}

#[test]
fn crates_compile_no_other_crates_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut scanned = 0;
    for dir in crate_dirs(root) {
        for file in rust_files(&dir.join("src")) {
            scanned += 1;
            for (line, target) in foreign_paths(&std::fs::read_to_string(&file).unwrap(), &file) {
                if target.starts_with(&dir) {
                    continue;
                }
                let text = std::fs::read_to_string(&target).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
                if let Some(p) = foreign_source_problem(target.strip_prefix(root).unwrap(), &text) {
                    problems.push(format!("{}:{line}: {}: {p}", file.strip_prefix(root).unwrap().display(), target.strip_prefix(root).unwrap().display()));
                }
            }
        }
    }
    assert!(scanned > 10, "{scanned} files under crates/");
    assert!(problems.is_empty(), "a crate compiles another crate's source instead of using its API:\n{}", problems.join("\n"));
}

#[test]
fn a_foreign_source_is_caught() {
    let file = Path::new("/r/crates/b/src/x.rs");
    let text =
        "#[path = \"../../../tests/it/common/h.rs\"]\nmod h;\ninclude!(\"../../../src/index/mod.rs\");\ninclude!(concat!(env!(\"OUT_DIR\"), \"/g.rs\"));";
    assert_eq!(foreign_paths(text, file), vec![(1, PathBuf::from("/r/tests/it/common/h.rs")), (3, PathBuf::from("/r/src/index/mod.rs"))]);
    assert_eq!(foreign_source_problem(Path::new("tests/it/common/h.rs"), "use std::path::Path;"), None);
    assert!(foreign_source_problem(Path::new("tests/it/common/h.rs"), "use crate::x;").is_some());
    assert!(foreign_source_problem(Path::new("src/index/mod.rs"), "").is_some());
    assert!(foreign_source_problem(Path::new("crates/tsq-engine/src/pool.rs"), "").is_some());
}

#[test]
fn layers_import_downward() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crossings = Vec::new();
    for (layer, forbidden) in FORBIDDEN {
        let files = rust_files(&root.join(layer));
        assert!(!files.is_empty(), "{layer}: no Rust files (was it moved? update this test and ARCHITECTURE.md)");
        for file in files {
            let rel = file.strip_prefix(root.join("src")).unwrap();
            let module = module_of(rel);
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            for Named { line, path, .. } in named_paths(&code, &module, &BTreeSet::new()) {
                if path.first().is_some_and(|top| forbidden.contains(&top.as_str())) {
                    crossings.push(format!("src/{}:{line}: crate::{}", rel.display(), path.join("::")));
                }
            }
        }
    }
    assert!(crossings.is_empty(), "imports that cross ARCHITECTURE.md's layers upward:\n{}", crossings.join("\n"));
}
