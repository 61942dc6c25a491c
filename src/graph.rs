//! Blueprint phase 5: the connection graph, rendered as plain text from the
//! results' `SymbolMetadata`. Pure data transformation: one-result compact
//! form, or Graph / Patterns / Details for several results. ★ marks a
//! symbol in the result set, ◆ a dependency two or more results share.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::answer::{CallEntry, SymbolMetadata, SymbolRef};

/// `name (file:line)` identity of a symbol.
fn key(name: &str, file: &Option<String>, line: Option<u32>) -> String {
    format!("{}@{}:{}", name, file.as_deref().unwrap_or("?"), line.unwrap_or(0))
}

fn ref_key(r: &SymbolRef) -> String {
    key(&r.name, &r.file_path, r.line)
}

fn entry_key(c: &CallEntry) -> String {
    key(&c.name, &c.file_path, c.line)
}

fn file_name(path: &Option<String>) -> &str {
    path.as_deref().map(|p| p.rsplit('/').next().unwrap_or(p)).unwrap_or("?")
}

/// The display name: `Class.member` for members, else the name.
pub(crate) fn display_name(m: &SymbolMetadata) -> String {
    m.symbol.name.clone()
}

fn kind_line(m: &SymbolMetadata) -> String {
    let mut words: Vec<&str> = m.modifiers.iter().filter(|w| w.as_str() != "exported").map(String::as_str).collect();
    words.push(&m.symbol.kind);
    let mut parts = vec![words.join(" ")];
    if m.modifiers.iter().any(|w| w == "exported") {
        parts.push("exported".into());
    }
    parts.push(format!("refs: {} files", m.references.file_count));
    parts.join(" | ")
}

fn types_line(m: &SymbolMetadata) -> Option<String> {
    let flow = m.type_flows.as_ref()?;
    let describe = |r: &SymbolRef| format!("{} ({})", r.name, r.file_path.as_deref().unwrap_or("?"));
    let ins: Vec<String> = flow.parameters.iter().flat_map(|p| p.resolved_types.iter().map(describe)).collect::<BTreeSet<_>>().into_iter().collect();
    let outs: Vec<String> = flow.return_type.iter().flat_map(|r| r.resolved_types.iter().map(describe)).collect::<BTreeSet<_>>().into_iter().collect();
    let mut parts = Vec::new();
    if !ins.is_empty() {
        parts.push(format!("Types in: {}", ins.join(", ")));
    }
    if !outs.is_empty() {
        parts.push(format!("Types out: {}", outs.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join(" | "))
}

fn details(out: &mut String, m: &SymbolMetadata, indent: &str) {
    details_head(out, m, indent);
    details_types(out, m, indent);
}

fn details_types(out: &mut String, m: &SymbolMetadata, indent: &str) {
    if let Some(t) = types_line(m) {
        let _ = writeln!(out, "{indent}{t}");
    }
}

/// Kind line, signature, heritage and members: what precedes the calls in
/// the single-result form.
fn details_head(out: &mut String, m: &SymbolMetadata, indent: &str) {
    let _ = writeln!(out, "{indent}{}", kind_line(m));
    let _ = writeln!(out, "{indent}Signature: {}", m.signature);
    if let Some(th) = &m.type_hierarchy {
        if let Some(e) = &th.extends {
            let _ = writeln!(out, "{indent}Extends: {} ({})", e.name, e.file_path.as_deref().unwrap_or("?"));
        }
        if !th.implements.is_empty() {
            let list: Vec<String> = th.implements.iter().map(|i| format!("{} ({})", i.name, i.file_path.as_deref().unwrap_or("?"))).collect();
            let _ = writeln!(out, "{indent}Implements: {}", list.join(", "));
        }
    }
    if let Some(members) = &m.members {
        if !members.is_empty() {
            let names: Vec<String> =
                members.iter().filter(|x| !x.name.is_empty()).map(|x| if x.kind == "method" { format!("{}()", x.name) } else { x.name.clone() }).collect();
            let _ = writeln!(out, "{indent}Members: {}", names.join(", "));
        }
    }
}

/// The one-result compact form (without the summary line).
pub fn render_single(m: &SymbolMetadata) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", display_name(m), m.symbol.file_path.as_deref().unwrap_or("?"));
    details_head(&mut out, m, "    ");
    let loc = |c: &CallEntry| format!("{} ({})", c.name, c.file_path.as_deref().unwrap_or("?"));
    if !m.outgoing_calls.is_empty() {
        let _ = writeln!(out, "    Calls: {}", m.outgoing_calls.iter().map(loc).collect::<Vec<_>>().join(", "));
    }
    if !m.incoming_callers.is_empty() {
        let _ = writeln!(out, "    Called by: {}", m.incoming_callers.iter().map(loc).collect::<Vec<_>>().join(", "));
    }
    details_types(&mut out, m, "    ");
    out
}

/// The multi-result form: Graph, Patterns, Details (without the summary).
pub fn render_multi(results: &[SymbolMetadata]) -> String {
    let index: BTreeMap<String, usize> = results.iter().enumerate().map(|(i, m)| (ref_key(&m.symbol), i + 1)).collect();
    // Direct callees of each result, to find shared dependencies and hubs.
    let mut callers_of: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for (i, m) in results.iter().enumerate() {
        for c in &m.outgoing_calls {
            callers_of.entry(entry_key(c)).or_default().insert(i + 1);
            names.insert(entry_key(c), format!("{} ({})", c.name, file_name(&c.file_path)));
        }
    }
    let shared: BTreeSet<String> = callers_of.iter().filter(|(k, by)| by.len() >= 2 && !index.contains_key(*k)).map(|(k, _)| k.clone()).collect();

    let mut out = String::from("Graph:\n");
    for (i, m) in results.iter().enumerate() {
        let _ = writeln!(out, "  [{}] {} ({})", i + 1, display_name(m), file_name(&m.symbol.file_path));
        tree(&mut out, &m.outgoing_calls, 2, &index, &shared);
    }
    let mut patterns = Vec::new();
    for (k, by) in &callers_of {
        if let Some(i) = index.get(k) {
            if by.len() >= 2 {
                patterns.push(format!("Hub: [{i}] {} — called by {}", display_name(&results[i - 1]), list(by)));
            }
        } else if by.len() >= 2 {
            patterns.push(format!("Shared dep: {} — used by {}", names[k], list(by)));
        }
    }
    let mut types: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, m) in results.iter().enumerate() {
        for t in m.type_flows.iter().flat_map(|f| f.referenced_types.iter()) {
            types.entry(format!("{} ({})", t.name, t.file_path.as_deref().unwrap_or("?"))).or_default().insert(i + 1);
        }
    }
    for (t, by) in &types {
        if by.len() >= 2 {
            patterns.push(format!("Shared type: {t} — used by {}/{} results", by.len(), results.len()));
        }
    }
    for (i, m) in results.iter().enumerate() {
        for d in diamonds(m) {
            patterns.push(format!("Diamond: [{}] {} → {} → {}", i + 1, display_name(m), d.via.join(", "), d.target));
        }
    }
    if !patterns.is_empty() {
        out.push_str("\nPatterns:\n");
        for p in patterns {
            let _ = writeln!(out, "  {p}");
        }
    }
    for (i, m) in results.iter().enumerate() {
        let _ = writeln!(out, "\n[{}] {} — {}", i + 1, display_name(m), m.symbol.file_path.as_deref().unwrap_or("?"));
        details(&mut out, m, "    ");
    }
    out
}

fn list(by: &BTreeSet<usize>) -> String {
    by.iter().map(|i| format!("[{i}]")).collect::<Vec<_>>().join(", ")
}

fn tree(out: &mut String, calls: &[CallEntry], depth: usize, index: &BTreeMap<String, usize>, shared: &BTreeSet<String>) {
    for c in calls {
        let k = entry_key(c);
        let mark = if index.contains_key(&k) {
            " ★"
        } else if shared.contains(&k) {
            " ◆"
        } else {
            ""
        };
        let state = if c.cyclic == Some(true) {
            " [cycle]"
        } else if c.depth_limited == Some(true) {
            " [depth limit]"
        } else {
            ""
        };
        let _ = writeln!(out, "{}→ {} ({}){mark}{state}", "  ".repeat(depth), c.name, file_name(&c.file_path));
        if let Some(next) = &c.outgoing_calls {
            tree(out, next, depth + 1, index, shared);
        }
    }
}

/// A symbol a result reaches through two or more of its direct callees.
pub struct Diamond {
    pub via: Vec<String>,
    pub target: String,
}

/// The diamonds under one result's outgoing call tree, at any depth.
pub fn diamonds(m: &SymbolMetadata) -> Vec<Diamond> {
    let mut reached: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
    fn walk(calls: &[CallEntry], via: &str, reached: &mut BTreeMap<String, (String, BTreeSet<String>)>) {
        for c in calls {
            let e = reached.entry(entry_key(c)).or_insert_with(|| (format!("{} ({})", c.name, file_name(&c.file_path)), BTreeSet::new()));
            e.1.insert(via.to_string());
            if let Some(next) = &c.outgoing_calls {
                walk(next, via, reached);
            }
        }
    }
    for direct in &m.outgoing_calls {
        if let Some(next) = &direct.outgoing_calls {
            walk(next, &direct.name, &mut reached);
        }
    }
    reached.into_values().filter(|(_, via)| via.len() >= 2).map(|(target, via)| Diamond { via: via.into_iter().collect(), target }).collect()
}

/// The graph as data: every call edge under the results, by name and file.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphData {
    pub edges: Vec<GraphEdge>,
    /// Non-result symbols that two or more results call (◆).
    pub shared: Vec<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct GraphEdge {
    pub from: String,
    pub to: String,
    pub cyclic: bool,
}

pub fn graph_data(results: &[SymbolMetadata]) -> GraphData {
    let mut edges = Vec::new();
    fn walk(from: &str, calls: &[CallEntry], edges: &mut Vec<GraphEdge>) {
        for c in calls {
            let to = format!("{} ({})", c.name, c.file_path.as_deref().unwrap_or("?"));
            edges.push(GraphEdge { from: from.to_string(), to: to.clone(), cyclic: c.cyclic == Some(true) });
            if let Some(next) = &c.outgoing_calls {
                walk(&to, next, edges);
            }
        }
    }
    let mut callers: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let result_keys: BTreeSet<String> = results.iter().map(|m| ref_key(&m.symbol)).collect();
    for (i, m) in results.iter().enumerate() {
        let from = format!("{} ({})", m.symbol.name, m.symbol.file_path.as_deref().unwrap_or("?"));
        walk(&from, &m.outgoing_calls, &mut edges);
        for c in &m.outgoing_calls {
            callers.entry(entry_key(c)).or_default().insert(i);
        }
    }
    let shared = callers.into_iter().filter(|(k, by)| by.len() >= 2 && !result_keys.contains(k)).map(|(k, _)| k).collect();
    GraphData { edges, shared }
}
