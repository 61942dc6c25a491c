//! Rendering answers for users, for both front ends: the text answer, the
//! JSON data, the concise records, the MCP content blocks (graph first,
//! then one snapshot per file, with priorities), and the plain-text views
//! of `inspect`, `status` and `index`. The CLI writes these strings; the
//! MCP server wraps them in protocol types. Neither formats on its own.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Answer, ConciseAnswer, FullAnswer, InspectAnswer};
use crate::answer::{CallEntry, Coverage, SymbolMetadata};
use crate::index::{Status, SyncReport};

/// The whole answer as text: the graph and snapshots, or the concise
/// records as JSON.
pub fn text(answer: &Answer) -> String {
    match answer {
        Answer::Full(full) => full.lookup().text.clone(),
        Answer::Concise(c) => pretty(&concise(c)),
    }
}

/// The answer as data (`--json`).
pub fn json(answer: &Answer) -> Value {
    match answer {
        Answer::Full(full) => serde_json::to_value(full).unwrap_or(Value::Null),
        Answer::Concise(c) => concise(c),
    }
}

/// The concise records (MCP's structured content, the CLI's `--format concise`).
pub fn concise(c: &ConciseAnswer) -> Value {
    serde_json::to_value(c).unwrap_or(Value::Null)
}

/// Pretty JSON with a final newline.
pub fn pretty(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// What to say when an answer holds nothing: a lookup's hints (an MCP tool
/// error, exit 1 in the CLI). `None` when the answer has results, or is a
/// search (whose text says "No results.").
pub fn nothing_found(answer: &Answer) -> Option<String> {
    if !answer.is_empty() {
        return None;
    }
    let hints = match answer {
        Answer::Full(FullAnswer::Lookup(a)) => &a.hints,
        Answer::Concise(c) if c.backend.is_none() => &c.hints,
        _ => return None,
    };
    Some(if hints.is_empty() { "No symbol found.".to_string() } else { hints.join("\n") })
}

/// One content block for an assistant.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub text: String,
    /// 1.0 for the graph; snapshots follow their best result's score,
    /// strictly decreasing.
    pub priority: f32,
}

/// The graph (with the summary, and the notes, if any) first, then one
/// block per snapshot.
pub fn blocks(full: &FullAnswer) -> Vec<Block> {
    let answer = full.lookup();
    let graph_end = answer.snapshots.first().and_then(|s| answer.text.find(&s.text)).unwrap_or(answer.text.len());
    let mut graph = answer.text[..graph_end].trim_end().to_string();
    if !full.notes().is_empty() {
        graph.push_str(&format!("\n\n{NOTES}\n{}", full.notes().join("\n")));
    }
    let mut out = vec![Block { text: graph, priority: 1.0 }];
    let mut prev = 1.0f32;
    for (i, s) in answer.snapshots.iter().enumerate() {
        let priority = match full {
            FullAnswer::Lookup(_) => (0.95 - 0.05 * i as f32).max(0.1),
            FullAnswer::Search(_) => {
                let best = answer
                    .results
                    .iter()
                    .filter(|r| r.location.symbol.file_path.as_deref() == Some(s.file_path.as_str()))
                    .map(|r| r.score as f32)
                    .fold(0.0, f32::max);
                best.min(prev - 0.01).max(0.01)
            }
        };
        prev = priority;
        out.push(Block { text: s.text.clone(), priority });
    }
    out
}

/// The heading of the notes in the graph block (the CLI prints notes on
/// stderr instead).
pub const NOTES: &str = "Notes:";

/// `tsq inspect`'s text view.
pub fn inspect_text(answer: &InspectAnswer) -> String {
    let mut out = String::new();
    for m in &answer.result.matches {
        write_match(&mut out, m);
    }
    write_coverage(&mut out, &answer.result.coverage);
    if let Some(s) = &answer.structure {
        let _ = writeln!(out, "{s}");
    }
    out
}

fn location(file: &Option<String>, line: Option<u32>) -> String {
    format!("{}:{}", file.as_deref().unwrap_or("?"), line.map(|l| l.to_string()).unwrap_or_else(|| "?".into()))
}

fn write_match(out: &mut String, m: &SymbolMetadata) {
    let _ = writeln!(out, "{} {}  {}  [{}]", m.symbol.kind, m.symbol.name, location(&m.symbol.file_path, m.symbol.line), m.modifiers.join(" "));
    let _ = writeln!(out, "  signature: {}", m.signature);
    if let Some(th) = &m.type_hierarchy {
        if let Some(e) = &th.extends {
            let _ = writeln!(out, "  extends: {} ({})", e.name, location(&e.file_path, e.line));
        }
        for i in &th.implements {
            let _ = writeln!(out, "  implements: {} ({})", i.name, location(&i.file_path, i.line));
        }
        for s in &th.subtypes {
            let _ = writeln!(out, "  subtype: {} ({})", s.name, location(&s.file_path, s.line));
        }
    }
    if let Some(members) = &m.members {
        let _ = writeln!(out, "  members: {}", members.len());
        for mem in members {
            let _ = writeln!(out, "    {} {}{}  line {}", mem.kind, mem.name, mem.type_text.as_deref().map(|t| format!(": {t}")).unwrap_or_default(), mem.line);
        }
    }
    let _ = writeln!(out, "  outgoing calls:");
    write_calls(out, &m.outgoing_calls, 2, true);
    let _ = writeln!(out, "  incoming callers:");
    write_calls(out, &m.incoming_callers, 2, false);
    let _ = writeln!(out, "  references: {} in {} files", m.references.total_count, m.references.file_count);
    for f in &m.references.files {
        let lines: Vec<String> = f.lines.iter().map(u32::to_string).collect();
        let _ = writeln!(out, "    {}: {}", f.file_path, lines.join(", "));
    }
}

fn write_calls(out: &mut String, calls: &[CallEntry], depth: usize, outgoing: bool) {
    for c in calls {
        let mark = if c.cyclic == Some(true) {
            "  [cycle]"
        } else if c.depth_limited == Some(true) {
            "  [more]"
        } else {
            ""
        };
        let _ = writeln!(out, "{}{}  {}{mark}", "  ".repeat(depth), c.name, location(&c.file_path, c.line));
        let next = if outgoing { &c.outgoing_calls } else { &c.incoming_callers };
        if let Some(next) = next {
            write_calls(out, next, depth + 1, outgoing);
        }
    }
}

fn write_coverage(out: &mut String, c: &Coverage) {
    let loaded = if c.projects_loaded.is_empty() { "none".to_string() } else { c.projects_loaded.join(", ") };
    let _ = writeln!(out, "coverage: projects loaded: {loaded}; used: {}", c.projects_used.join(", "));
    if c.files_outside_projects > 0 {
        let _ = writeln!(out, "  {} workspace files are outside every tsconfig (served by the inferred project)", c.files_outside_projects);
    }
    for p in &c.partial {
        let _ = writeln!(out, "  partial: {p}");
    }
    for e in &c.config_errors {
        let _ = writeln!(out, "  config error: {e}");
    }
}

/// `tsq index`'s one-line summary.
pub fn sync_report(report: &SyncReport) -> String {
    format!(
        "{} files: {} unchanged, {} touched, {} parsed, {} removed, {} skipped; {} chunks, {} embedded, {} re-embedded by signature cascade ({}); {} ms\n",
        report.files,
        report.unchanged,
        report.touched,
        report.parsed,
        report.removed,
        report.skipped,
        report.chunks,
        report.embedded,
        report.cascade,
        report.embedder,
        report.ms
    )
}

/// `tsq status`'s text view.
pub fn status(status: &Status) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "index: {}", status.location);
    if let Some(origin) = &status.origin {
        let _ = writeln!(out, "{}", origin.line().replacen("index: ", "pulled ", 1));
    }
    let _ = writeln!(
        out,
        "files: {}  chunks: {}  vectors: {}/{} chunks ({}, {} dimensions)",
        status.files, status.chunks, status.vectors, status.embeddable, status.embedder, status.dimensions
    );
    let _ = writeln!(out, "structure: occurrence index: {}/{} files current", status.structure[0], status.structure[1]);
    let _ = writeln!(out, "occurrences: {} files, {} rows", status.occurrences[0], status.occurrences[1]);
    if status.unindexed > 0 {
        let _ = writeln!(out, "full-text index: {} chunks not in it yet (found by a flat scan until `tsq serve` is idle or the next sync)", status.unindexed);
    }
    for f in &status.occurrence_failures {
        let _ = writeln!(out, "occurrences failed: {}: {} (retried after its next change)", f.path, f.reason);
    }
    let _ = writeln!(
        out,
        "size: {} bytes in {} versions; last sync: {}",
        status.bytes,
        status.versions,
        status.last_sync.map(|t| format!("{t} (unix ms)")).unwrap_or_else(|| "never".into())
    );
    for s in &status.skipped {
        let _ = writeln!(out, "skipped: {}: {}", s.path, s.reason);
    }
    out
}

/// A `relations` answer as text: each match, its references by file, and
/// its call trees (indented by depth).
pub fn relations_text(a: &super::RelationsAnswer) -> String {
    use std::fmt::Write;
    fn tree(out: &mut String, entries: &[CallEntry], depth: usize, incoming: bool) {
        for e in entries {
            let marker = if e.cyclic == Some(true) {
                " (cycle)"
            } else if e.depth_limited == Some(true) {
                " (more)"
            } else {
                ""
            };
            let sites: Vec<String> = e.call_sites.iter().map(u32::to_string).collect();
            let _ = writeln!(
                out,
                "{}{} ({}) {}:{} [lines {}]{marker}",
                "  ".repeat(depth + 2),
                e.name,
                e.kind,
                e.file_path.as_deref().unwrap_or("?"),
                e.line.unwrap_or(0),
                sites.join(", ")
            );
            let children = if incoming { e.incoming_callers.as_deref() } else { e.outgoing_calls.as_deref() };
            tree(out, children.unwrap_or_default(), depth + 1, incoming);
        }
    }
    let mut out = String::new();
    for m in &a.matches {
        let _ =
            writeln!(out, "{} ({}) {}:{}  [{}]", m.symbol.name, m.symbol.kind, m.symbol.file_path.as_deref().unwrap_or("?"), m.symbol.line.unwrap_or(0), m.id);
        let _ = writeln!(out, "  references: {} in {} files", m.references.total_count, m.references.file_count);
        for f in &m.references.files {
            let lines: Vec<String> = f.lines.iter().map(u32::to_string).collect();
            let _ = writeln!(out, "    {}: {}", f.file_path, lines.join(", "));
        }
        let _ = writeln!(out, "  callers ({}):", m.incoming_callers.len());
        tree(&mut out, &m.incoming_callers, 0, true);
        let _ = writeln!(out, "  callees ({}):", m.outgoing_calls.len());
        tree(&mut out, &m.outgoing_calls, 0, false);
    }
    let s = &a.sync;
    let _ = writeln!(
        out,
        "occurrence index: {} files re-indexed ({} because an import's API changed), {} failed, {} ms{}",
        s.indexed,
        s.cascaded,
        s.failed.len(),
        s.ms,
        if a.unindexed.is_empty() { String::new() } else { format!("; {} files without rows (see `tsq status`)", a.unindexed.len()) }
    );
    out
}
