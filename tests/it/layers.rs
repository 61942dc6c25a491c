//! ARCHITECTURE.md's "Modules import downward", checked on the source.
//!
//! - The module graph has no cycle: every file under `src/` is a module
//!   (`a/mod.rs` is `a`), and it depends on each module its code names by
//!   a `crate::` or `super::` path, `use` groups (`crate::{a, b::c}`)
//!   included, mapped to the longest module prefix. A cycle fails with its
//!   modules in order.
//! - The seven layers keep apart: each layer's `crate::` paths name none
//!   of the modules above it.
//!
//! Plain relative paths (`child::x` in a `mod.rs`) are a parent's own
//! children, not edges: a parent re-exporting its children while they
//! name their parent's items is one module's inside.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// A module's path under the crate root.
type Module = Vec<String>;
/// Each module's dependencies, with the file and line that names each first.
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

/// The code of a file without comments and without its unit tests (a
/// `#[cfg(test)] mod tests` may name anything).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a file's code names from `crate::` or `super::`, each as
/// absolute segments (relative to the crate root), with its line.
fn named_paths(code: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    // The module `super` names (a `mod.rs` is its directory's module).
    let parent_of = |ups: usize| -> Vec<String> { module[..module.len().saturating_sub(ups)].to_vec() };
    let bytes: Vec<char> = code.chars().collect();
    let line_at = |i: usize| bytes[..i].iter().filter(|&&c| c == '\n').count() + 1;
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == ':');
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let (base, mut j) = if starts_word && rest.starts_with("crate::") {
            (Vec::new(), i + 7)
        } else if starts_word && rest.starts_with("super::") {
            let mut ups = 0;
            let mut j = i;
            while bytes[j..].iter().take(7).collect::<String>() == "super::" {
                ups += 1;
                j += 7;
            }
            (parent_of(ups), j)
        } else {
            i += 1;
            continue;
        };
        let line = line_at(i);
        // Segments, then an optional `{…}` group.
        let mut prefix = base;
        loop {
            let start = j;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            if j > start {
                prefix.push(bytes[start..j].iter().collect());
            }
            if bytes[j..].iter().take(2).collect::<String>() == "::" {
                j += 2;
                continue;
            }
            break;
        }
        if j < bytes.len() && bytes[j] == '{' {
            let mut depth = 0;
            let start = j;
            while j < bytes.len() {
                match bytes[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let group: String = bytes[start + 1..j].iter().collect();
            for p in group_paths(&group) {
                let mut full = prefix.clone();
                full.extend(p);
                out.push((line, full));
            }
        } else {
            out.push((line, prefix));
        }
        i = j.max(i + 1);
    }
    out
}

/// The paths inside a `use` group: `a, b::c, d::{e, f}` (`self` and
/// aliases dropped).
fn group_paths(group: &str) -> Vec<Vec<String>> {
    let mut parts = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    let mut out = Vec::new();
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        if let (Some(open), Some(close)) = (p.find('{'), p.rfind('}')) {
            let head: Vec<String> = p[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
            for rest in group_paths(&p[open + 1..close]) {
                let mut full = head.clone();
                full.extend(rest);
                out.push(full);
            }
        } else {
            let p = p.split(" as ").next().unwrap_or(p);
            out.push(p.split("::").map(str::trim).filter(|s| !s.is_empty() && *s != "self" && *s != "*").map(String::from).collect());
        }
    }
    out
}

/// Every module's file and the modules its code names (itself and the
/// crate root left out), with the line that names each first.
fn module_graph(root: &Path) -> Graph {
    let src = root.join("src");
    let files = rust_files(&src);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(f.strip_prefix(&src).unwrap())).collect();
    let mut graph = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        let module = module_of(&rel);
        if module.is_empty() || module == ["main"] {
            continue; // the crate root and the binary declare; they are no layer
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        let mut deps = BTreeMap::new();
        for (line, path) in named_paths(&code, &module) {
            let target = (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p));
            if let Some(t) = target.filter(|t| !t.is_empty() && *t != module) {
                deps.entry(t).or_insert((rel.clone(), line));
            }
        }
        graph.insert(module, deps);
    }
    graph
}

/// A cycle of `graph`, in order, if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<Vec<String>>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(n: &Vec<String>, graph: &Graph, marks: &mut BTreeMap<Vec<String>, Mark>, stack: &mut Vec<Vec<String>>) -> Option<Vec<Vec<String>>> {
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

#[test]
fn the_paths_parser_sees_what_a_module_names() {
    let module = vec!["search".to_string(), "rank".to_string()];
    let code = "use crate::api::Engine;\nuse super::{steps::Steps, shape::{words, identifiers}};\nlet x = crate::index::now_ms() + super::super::files::f();\nuse crate::{a, b::c as d};";
    let found: Vec<(usize, String)> = named_paths(code, &module).into_iter().map(|(l, p)| (l, p.join("::"))).collect();
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
}

#[test]
fn the_module_graph_has_no_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = module_graph(root);
    assert!(graph.len() > 50, "{} modules: the walk of src/ found too few", graph.len());
    assert!(graph.values().map(BTreeMap::len).sum::<usize>() > 100, "the parser found too few edges");
    if let Some(cycle) = find_cycle(&graph) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| {
                let (file, line) = &graph[&w[0]][&w[1]];
                format!("{} -> {} (src/{}:{line})", w[0].join("::"), w[1].join("::"), file.display())
            })
            .collect();
        panic!("a module cycle:\n{}", steps.join("\n"));
    }
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
            for (line, path) in named_paths(&code, &module) {
                if path.first().is_some_and(|top| forbidden.contains(&top.as_str())) {
                    crossings.push(format!("src/{}:{line}: crate::{}", rel.display(), path.join("::")));
                }
            }
        }
    }
    assert!(crossings.is_empty(), "imports that cross ARCHITECTURE.md's layers upward:\n{}", crossings.join("\n"));
}
