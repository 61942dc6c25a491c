//! An impact answer as text: what changed, what depends on it, the tests
//! to run and their command, the notes, then the changed code.

use std::fmt::Write as _;

use super::{Change, ImpactAnswer};

fn change_word(c: Change) -> &'static str {
    match c {
        Change::Api => "api",
        Change::Body => "body",
        Change::Inferred => "inferred",
        Change::Added => "added",
        Change::Removed => "removed",
        Change::Renamed => "renamed",
    }
}

/// The text form (`tsq impact`, and the MCP tool's text block).
pub fn text(a: &ImpactAnswer) -> String {
    let mut out = String::new();
    let sources = a.files.iter().filter(|f| f.note.is_none()).count();
    let _ = writeln!(out, "impact: {} file(s) changed against {} ({} compared), {} declaration(s) changed", a.files.len(), a.base, sources, a.changed.len());
    let _ = writeln!(out, "{}", a.structure);
    if a.is_empty() {
        let _ = writeln!(out, "\nnothing changed");
        return out;
    }
    let _ = writeln!(out, "\nfiles:{}", if a.files.is_empty() { " none in git (what they read changed: see the notes)" } else { "" });
    for f in &a.files {
        let moved = f.before_path.as_ref().map(|p| format!(" (from {p})")).unwrap_or_default();
        let note = f.note.as_ref().map(|n| format!(": {n}")).unwrap_or_default();
        let _ = writeln!(out, "  {:<9} {}{moved}{note}", format!("{:?}", f.status).to_lowercase(), f.path);
    }
    if !a.changed.is_empty() {
        let _ = writeln!(out, "\nchanged:");
        for c in &a.changed {
            let at = c.lines.map(|(s, e)| format!(":{s}-{e}")).unwrap_or_default();
            let was = c.renamed_from.as_ref().map(|r| format!(", was {r}")).unwrap_or_default();
            let _ = writeln!(out, "  {:<8} {}{at}  {} ({}){was}", change_word(c.change), c.file, c.name, c.kind);
            if c.change == Change::Api {
                if let Some(b) = &c.before_signature {
                    let _ = writeln!(out, "           before: {b}");
                }
                if let Some(s) = &c.after_signature {
                    let _ = writeln!(out, "           after:  {s}");
                }
            }
            if let Some(d) = &c.decided_by {
                let _ = writeln!(out, "           ({d})");
            }
        }
    }
    let _ = writeln!(out, "\naffected (API changes to depth {}, body changes: direct callers): {}", a.depth, if a.affected.is_empty() { "none" } else { "" });
    for x in &a.affected {
        let _ = writeln!(out, "  {}  {}:{}-{}  {} ({}): {} {} at line {}", x.depth, x.file, x.lines.0, x.lines.1, x.name, x.kind, x.why, x.of, x.line);
    }
    let _ = writeln!(out, "\ntests to run: {}", if a.tests.is_empty() { "none reach the change" } else { "" });
    for t in &a.tests {
        let _ = writeln!(out, "  {}  {}", t.distance, t.file);
    }
    for c in &a.commands {
        let _ = writeln!(out, "  $ {c}");
    }
    if !a.notes.is_empty() {
        let _ = writeln!(out, "\nnotes:");
        for n in &a.notes {
            let _ = writeln!(out, "  - {n}");
        }
    }
    if !a.snapshots.is_empty() {
        let _ = writeln!(out, "\nchanged code ({} shown, {} over the budget):", a.snapshots.len(), a.snapshots_left);
        for s in &a.snapshots {
            let _ = writeln!(out, "── {}:{}-{}  {}", s.file, s.lines.0, s.lines.1, s.name);
            let _ = writeln!(out, "{}", s.code.trim_end());
        }
    }
    out
}
