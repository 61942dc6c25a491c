//! ARCHITECTURE.md's rule on JS globals, checked on `js/`: each file
//! under `js/` defines globals (`globalThis.tsqX = …`) and reads others'
//! (`globalThis.tsqX`, or a bare `tsqX`), and file A depends on file B
//! when it reads a global B defines (adding an entry to B's registry is a
//! read). Each global has one defining file, the file graph has no cycle
//! (a cycle fails with its files in order), and every read goes to a file
//! loaded earlier (a lower number).

use std::collections::BTreeMap;
use std::path::Path;

use super::find_cycle;

/// Each file's dependencies (file names from `js/`), with the line and
/// the global that first names each.
type JsGraph = BTreeMap<String, BTreeMap<String, (usize, String)>>;

/// A file's code with comments, strings, regular expressions and template
/// text blanked (lines kept), and template `${…}` expressions kept.
fn js_code(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(c.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    // Brace depths at which an open `${` returns to its template's text.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    // In a template's text (at the start, or after a `}` that closes `${`).
    let mut in_template = false;
    while i < c.len() {
        if in_template {
            match c[i] {
                '\\' => {
                    out.push(' ');
                    if i + 1 < c.len() {
                        out.push(blank(c[i + 1]));
                    }
                    i += 2;
                }
                '`' => {
                    out.push(' ');
                    in_template = false;
                    i += 1;
                }
                '$' if c.get(i + 1) == Some(&'{') => {
                    out.extend([' ', ' ']);
                    depth += 1;
                    templates.push(depth);
                    in_template = false;
                    i += 2;
                }
                ch => {
                    out.push(blank(ch));
                    i += 1;
                }
            }
            continue;
        }
        let next = c.get(i + 1).copied();
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    out.push(' ');
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let end = (i + 2..c.len().saturating_sub(1)).find(|&k| c[k] == '*' && c[k + 1] == '/').map_or(c.len(), |k| k + 2);
                out.extend(c[i..end].iter().map(|&ch| blank(ch)));
                i = end;
            }
            q @ ('"' | '\'') => {
                out.push(' ');
                i += 1;
                while i < c.len() && c[i] != q && c[i] != '\n' {
                    let n = if c[i] == '\\' { 2 } else { 1 };
                    out.extend(c[i..(i + n).min(c.len())].iter().map(|&ch| blank(ch)));
                    i += n;
                }
                out.push(' ');
                i += 1;
            }
            '`' => {
                out.push(' ');
                in_template = true;
                i += 1;
            }
            '/' if regex_may_start(&out) => {
                // A regular expression literal, to its closing `/` outside
                // a character class.
                out.push(' ');
                i += 1;
                let mut class = false;
                while i < c.len() && c[i] != '\n' && (class || c[i] != '/') {
                    match c[i] {
                        '\\' => {
                            out.push(' ');
                            i += 1;
                        }
                        '[' => class = true,
                        ']' => class = false,
                        _ => {}
                    }
                    if i < c.len() {
                        out.push(blank(c[i]));
                        i += 1;
                    }
                }
                out.push(' ');
                i += 1;
            }
            '{' => {
                depth += 1;
                out.push('{');
                i += 1;
            }
            '}' => {
                if templates.last() == Some(&depth) {
                    templates.pop();
                    in_template = true;
                    out.push(' ');
                } else {
                    out.push('}');
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out.truncate(c.len());
    out.into_iter().collect()
}

/// Whether a `/` after `code` starts a regular expression (not a division).
fn regex_may_start(code: &[char]) -> bool {
    let before: String = code.iter().rev().skip_while(|c| c.is_whitespace()).take(8).collect::<Vec<_>>().into_iter().rev().collect();
    match before.chars().last() {
        None => true,
        Some(c) if "(,=:[!&|?{};+-*%<>~^".contains(c) => true,
        Some(c) if c.is_alphanumeric() || c == '_' || c == '$' => {
            let word: String =
                before.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect::<Vec<_>>().into_iter().rev().collect();
            ["return", "typeof", "case", "in", "of", "delete", "void", "throw", "new"].contains(&word.as_str())
        }
        _ => false,
    }
}

fn is_js_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Globals with the line that names each.
type Named = Vec<(usize, String)>;

/// The globals a file defines and those it reads, each with its line.
fn globals(text: &str) -> (Named, Named) {
    let code: Vec<char> = js_code(text).chars().collect();
    let (mut defines, mut reads) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < code.len() {
        if !is_js_ident(code[i]) || (i > 0 && is_js_ident(code[i - 1])) {
            i += 1;
            continue;
        }
        let end = (i..code.len()).find(|&k| !is_js_ident(code[k])).unwrap_or(code.len());
        let word: String = code[i..end].iter().collect();
        let is_global = word.len() > 3 && word.starts_with("tsq") && word[3..].starts_with(|c: char| c.is_ascii_uppercase());
        if is_global {
            let line = code[..i].iter().filter(|&&c| c == '\n').count() + 1;
            let before: String = code[..i].iter().rev().skip_while(|c| c.is_whitespace()).take(12).collect::<Vec<_>>().into_iter().rev().collect();
            let after: String = code[end..].iter().skip_while(|c| c.is_whitespace()).take(2).collect();
            let on_global_this = before.ends_with("globalThis.") && !before.strip_suffix("globalThis.").is_some_and(|b| b.ends_with(is_js_ident));
            if on_global_this && after.starts_with('=') && !after.starts_with("==") && !after.starts_with("=>") {
                defines.push((line, word));
            } else if on_global_this || !before.ends_with('.') {
                reads.push((line, word));
            }
        }
        i = end;
    }
    (defines, reads)
}

/// The file graph of `files` (name from `js/`, text), after checking that
/// each global has one defining file.
fn js_graph(files: &[(String, String)]) -> JsGraph {
    let mut definer: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut reads = BTreeMap::new();
    for (name, text) in files {
        let (defines, read) = globals(text);
        for (_, g) in defines {
            let files = definer.entry(g).or_default();
            if !files.contains(name) {
                files.push(name.clone());
            }
        }
        reads.insert(name.clone(), read);
    }
    let twice: Vec<String> = definer.iter().filter(|(_, f)| f.len() > 1).map(|(g, f)| format!("{g}: {}", f.join(", "))).collect();
    assert!(twice.is_empty(), "globals defined by more than one file:\n{}", twice.join("\n"));
    let mut graph = JsGraph::new();
    for (name, read) in reads {
        let mut deps = BTreeMap::new();
        for (line, g) in read {
            if let Some(owner) = definer.get(&g).map(|f| &f[0]).filter(|o| **o != name) {
                deps.entry(owner.clone()).or_insert((line, g));
            }
        }
        graph.insert(name, deps);
    }
    graph
}

/// A file's load-order number (`service/20_service.js` → 20).
fn number(file: &str) -> u32 {
    let base = file.rsplit('/').next().unwrap_or(file);
    base.split('_').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("js/{file}: not named NN_name.js"))
}

/// The reads of `graph` that go to a file loaded later, as messages.
fn reads_up(graph: &JsGraph) -> Vec<String> {
    let mut out = Vec::new();
    for (file, deps) in graph {
        for (to, (line, g)) in deps {
            if number(to) >= number(file) {
                out.push(format!("js/{file}:{line} reads {g}, which js/{to} defines"));
            }
        }
    }
    out
}

fn cycle_message(graph: &JsGraph, cycle: &[String]) -> String {
    let steps: Vec<String> = cycle
        .windows(2)
        .map(|w| {
            let (line, g) = &graph[&w[0]][&w[1]];
            format!("{} -> {} (js/{}:{line} reads {g})", w[0], w[1], w[0])
        })
        .collect();
    format!("a cycle of JS files through their globals:\n{}", steps.join("\n"))
}

/// Every `js/<role>/NN_name.js` file, as (name from `js/`, text).
fn js_files(js: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for folder in std::fs::read_dir(js).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&folder).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "js") {
                out.push((p.strip_prefix(js).unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn real_graph() -> JsGraph {
    let files = js_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("js"));
    assert!(files.len() >= 20, "{} files under js/", files.len());
    let graph = js_graph(&files);
    assert!(graph.values().map(BTreeMap::len).sum::<usize>() >= 30, "the scanner found too few reads");
    graph
}

#[test]
fn js_files_read_no_global_in_a_cycle() {
    let graph = real_graph();
    if let Some(cycle) = find_cycle(&graph) {
        panic!("{}", cycle_message(&graph, &cycle));
    }
}

#[test]
fn js_files_read_only_globals_of_files_loaded_before_them() {
    let up = reads_up(&real_graph());
    assert!(up.is_empty(), "reads of a global that a later file defines (ARCHITECTURE.md, js/):\n{}", up.join("\n"));
}

#[test]
fn the_js_scanner_sees_definitions_and_reads() {
    let text = "// globalThis.tsqA = 1\n((globalThis) => {\n  const L = globalThis.tsqLs; /* tsqB */\n  const s = \"tsqC\" + `x ${tsqD.f(`y`)} tsqE`;\n  const r = /\\/\"tsqF/g, q = a / b / tsqG;\n  this.tsqH = x.tsqI + myglobalThis.tsqJ;\n  globalThis.tsqReg[\"k\"] = 1;\n  globalThis.tsqOwn = { f: () => tsqOwn };\n})(globalThis);";
    let (defines, reads) = globals(text);
    let pairs = |v: Vec<(usize, String)>| v.into_iter().map(|(l, g)| format!("{l}:{g}")).collect::<Vec<_>>();
    assert_eq!(pairs(defines), ["8:tsqOwn"]);
    assert_eq!(pairs(reads), ["3:tsqLs", "4:tsqD", "5:tsqG", "7:tsqReg", "8:tsqOwn"]);
}

#[test]
fn a_js_global_cycle_is_found_and_named_in_order() {
    let file = |name: &str, text: &str| (name.to_string(), text.to_string());
    let a = file("x/10_a.js", "globalThis.tsqA = () => globalThis.tsqC.f();");
    let b = file("x/20_b.js", "globalThis.tsqB = () => tsqA();");
    let c = file("y/30_c.js", "globalThis.tsqC = { f: () => globalThis.tsqB() };");
    let graph = js_graph(&[a.clone(), b.clone(), c.clone()]);
    let cycle = find_cycle(&graph).expect("10 -> 30 -> 20 -> 10");
    assert_eq!(cycle, ["x/10_a.js", "y/30_c.js", "x/20_b.js", "x/10_a.js"]);
    assert_eq!(cycle_message(&graph, &cycle).lines().nth(1), Some("x/10_a.js -> y/30_c.js (js/x/10_a.js:1 reads tsqC)"));
    assert_eq!(reads_up(&graph), ["js/x/10_a.js:1 reads tsqC, which js/y/30_c.js defines"]);
    // The lower file no longer reads the higher one's global: no cycle.
    let graph = js_graph(&[file("x/10_a.js", "globalThis.tsqA = (f) => f();"), b, c]);
    assert_eq!(find_cycle(&graph), None);
    assert!(reads_up(&graph).is_empty());
}

#[test]
#[should_panic(expected = "tsqA: x/10_a.js, x/20_b.js")]
fn a_global_defined_twice_is_refused() {
    let file = |name: &str, text: &str| (name.to_string(), text.to_string());
    js_graph(&[file("x/10_a.js", "globalThis.tsqA = 1;"), file("x/20_b.js", "globalThis.tsqA = 2;")]);
}
