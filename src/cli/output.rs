//! Text and JSON rendering shared by the CLI's commands (`index`, `trust`
//! and `doctor` also print their own short reports).

use std::io::Write;

use serde::Serialize;

use tsq::chunk::estimate_tokens;
use tsq::chunk::CodeChunk;
use tsq::parse::{Diagnostic, ParsedSymbol};
use tsq::source::Skipped;
use tsq::validate::Violation;

/// One file in `--json` output.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileJson<'a, T: Serialize> {
    pub file_path: &'a str,
    pub relative_path: &'a str,
    #[serde(flatten)]
    pub body: T,
    pub diagnostics: &'a [Diagnostic],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violations: Option<&'a [Violation]>,
}

#[derive(Serialize)]
pub struct Report<'a, T: Serialize> {
    pub files: Vec<T>,
    pub skipped: &'a [Skipped],
}

pub fn json(out: &mut dyn Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}

pub fn symbol_tree(out: &mut dyn Write, symbols: &[ParsedSymbol]) -> std::io::Result<()> {
    for s in symbols {
        let indent = "  ".repeat(s.depth as usize + 1);
        let range = format!("{}-{}", s.range.start, s.range.end);
        let mut flags = s.modifiers.join(" ");
        if s.exported && !s.modifiers.iter().any(|m| m == "export") {
            flags = format!("exported {flags}").trim().to_string();
        }
        let flags = if flags.is_empty() { String::new() } else { format!("  [{flags}]") };
        writeln!(out, "{indent}{range:<11} {:<11} {}{flags}", s.kind, s.name)?;
        symbol_tree(out, &s.children)?;
    }
    Ok(())
}

pub fn chunk_list(out: &mut dyn Write, chunks: &[CodeChunk]) -> std::io::Result<()> {
    for c in chunks {
        let indent = "  ".repeat(c.depth as usize + 1);
        let range = format!("{}-{}", c.start_line, c.end_line);
        let collapsed = if c.embedding_text != c.full_source { "  (children collapsed)" } else { "" };
        writeln!(out, "{indent}{range:<11} {:<11} {}  ~{} tokens{collapsed}", c.node_kind, c.name, estimate_tokens(&c.embedding_text))?;
    }
    Ok(())
}

pub fn diagnostics(path: &str, diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        eprintln!("tsq: {path}:{}:{}: {}", d.line, d.column, d.message);
    }
}

pub fn skipped(skipped: &[Skipped]) {
    for s in skipped {
        eprintln!("tsq: {}: skipped: {}", s.path, s.message);
    }
}
