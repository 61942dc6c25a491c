//! The blueprint's parser fixtures (phases 1 and 2): each
//! `fixtures/parser/<case>.<ext>` has a `<case>.expected.json` (symbols,
//! chunks, rootItems, stats) and a `<case>.chunker-expected.json`
//! (per-chunk collapse, imports and embedding text). The ten global rules
//! run on every fixture, and the metrics dashboard is printed at the end.
//!
//! To write the sidecars after a deliberate change, run with
//! `TSQ_BLESS=1` and review the diff by hand before committing.

use crate::common;

use std::path::Path;

use serde_json::{json, Value};
use tsq::chunk::{estimate_tokens, CodeChunk};
use tsq::parse::{walk, ParsedSymbol};
use tsq::parse_pool::FileParse;
use tsq::validate::check_file;

fn expected(f: &FileParse, chunks: &[CodeChunk]) -> Value {
    let mut symbols = Vec::new();
    walk(&f.parsed.symbols, &mut |s: &ParsedSymbol| {
        symbols.push(json!({
            "name": s.name,
            "kind": s.kind,
            "depth": s.depth,
            "parentName": s.parent_name,
            "hasChildren": !s.children.is_empty(),
            "exported": s.exported,
            "modifiers": s.modifiers,
            "lineRange": [s.range.start, s.range.end],
            "signature": s.signature,
            "jsdoc": s.jsdoc,
        }));
    });
    let chunk_rows: Vec<Value> = chunks
        .iter()
        .map(|c| {
            json!({
                "breadcrumb": c.breadcrumb,
                "nodeKind": c.node_kind,
                "hasCollapsedChildren": c.embedding_text != c.full_source,
                "isLeaf": c.child_chunk_ids.is_empty(),
                "lineCount": c.end_line - c.start_line + 1,
            })
        })
        .collect();
    let root_items: Vec<Value> = chunks
        .iter()
        .filter(|c| c.depth == 0 && matches!(c.node_kind.as_str(), "import" | "re-export" | "export" | "expression" | "comment"))
        .map(|c| json!({ "kind": c.node_kind, "name": c.name, "lineRange": [c.start_line, c.end_line] }))
        .collect();
    let max_depth = chunks.iter().map(|c| c.depth).max().unwrap_or(0);
    json!({
        "symbols": symbols,
        "chunks": chunk_rows,
        "rootItems": root_items,
        "stats": {
            "totalSymbols": symbols.len(),
            "totalChunks": chunks.len(),
            "totalRootItems": root_items.len(),
            "maxDepth": max_depth,
            "fullCoverage": true,
            "allChunksUnder32K": chunks.iter().all(|c| estimate_tokens(&c.embedding_text) <= 32_000),
        },
        "diagnostics": f.parsed.diagnostics,
    })
}

fn chunker_expected(chunks: &[CodeChunk]) -> Value {
    Value::Array(
        chunks
            .iter()
            .map(|c| {
                let collapsed = c.embedding_text != c.full_source;
                json!({
                    "breadcrumb": c.breadcrumb,
                    "lines": [c.start_line, c.end_line],
                    "hasCollapsedChildren": collapsed,
                    "isLeaf": c.child_chunk_ids.is_empty(),
                    "lineCount": c.end_line - c.start_line + 1,
                    "relevantImports": c.relevant_imports,
                    "signature": c.signature,
                    "embeddingText": if collapsed { Value::String(c.embedding_text.clone()) } else { Value::Null },
                })
            })
            .collect(),
    )
}

/// Compares against a sidecar, or writes it under TSQ_BLESS=1.
fn check(path: &Path, actual: &Value, failures: &mut Vec<String>) {
    common::golden(path, &(serde_json::to_string_pretty(actual).unwrap() + "\n"), failures);
}

#[test]
fn parser_fixtures_match_sidecars_and_rules() {
    let dir = common::repo().join("fixtures/parser");
    let files = common::fixture_files(&dir);
    assert!(files.len() >= 20, "the blueprint's 20 fixtures are present");
    let parsed = common::parse(&files, &dir);
    let mut failures = Vec::new();
    let (mut symbols, mut chunks_total, mut max_tokens, mut max_depth) = (0, 0, (0, String::new()), (0, String::new()));
    for f in &parsed {
        let chunks = f.chunks();
        let stem = f.paths.relative_path.rsplit_once('.').map(|(s, _)| s).unwrap_or(&f.paths.relative_path);
        check(&dir.join(format!("{stem}.expected.json")), &expected(f, &chunks), &mut failures);
        check(&dir.join(format!("{stem}.chunker-expected.json")), &chunker_expected(&chunks), &mut failures);
        for v in check_file(&f.parsed, &chunks, &f.chunks()) {
            failures.push(format!("{}: rule {}: {}", f.paths.relative_path, v.rule, v.message));
        }
        walk(&f.parsed.symbols, &mut |_| symbols += 1);
        chunks_total += chunks.len();
        for c in &chunks {
            let t = estimate_tokens(&c.embedding_text);
            if t > max_tokens.0 {
                max_tokens = (t, c.breadcrumb.clone());
            }
            if c.depth as usize > max_depth.0 {
                max_depth = (c.depth as usize, f.paths.relative_path.clone());
            }
        }
    }
    let failed_files = failures.iter().map(|m| m.split(':').next().unwrap_or("")).collect::<std::collections::BTreeSet<_>>().len();
    println!("Parser Validation Summary");
    println!("═══════════════════════════════════");
    println!("Fixtures: {} passed, {} failed", parsed.len().saturating_sub(failed_files), failed_files);
    println!("Total symbols extracted: {symbols}");
    println!("Total chunks produced: {chunks_total}");
    println!("Coverage: {}", if failures.iter().any(|f| f.contains("rule 1:")) { "INCOMPLETE" } else { "100% (no uncovered lines)" });
    println!("Max chunk token count: {} ({})", max_tokens.0, max_tokens.1);
    println!("Max depth observed: {} ({})", max_depth.0, max_depth.1);
    println!("Determinism: {}", if failures.iter().any(|f| f.contains("rule 8:")) { "✗" } else { "✓ (all IDs stable across 2 runs)" });
    assert!(failures.is_empty(), "{} fixture failures:\n{}", failures.len(), failures.join("\n"));
}
