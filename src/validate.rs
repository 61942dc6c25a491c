//! The blueprint's ten global validation rules, checked on one file's
//! chunks. The fixture tests and the corpus test both run them; so can a
//! user (`tsq chunks --check`).

use std::collections::HashMap;

use serde::Serialize;

use crate::chunk::{contains_word, estimate_tokens, import_text, CodeChunk, MAX_CHUNK_TOKENS, TRUNCATION_NOTE};
use crate::parse::ParsedFile;

/// One broken rule.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Violation {
    pub rule: u8,
    pub message: String,
}

/// Checks rules 1-10. `second_run` is the same file chunked again (rule 8).
pub fn check_file(file: &ParsedFile, chunks: &[CodeChunk], second_run: &[CodeChunk]) -> Vec<Violation> {
    let mut v = Vec::new();
    let mut fail = |rule: u8, message: String| v.push(Violation { rule, message });
    let text = file.source.as_str();
    let by_id: HashMap<&str, &CodeChunk> = chunks.iter().map(|c| (c.id.as_str(), c)).collect();

    // 1. Full coverage: every non-blank line lies in some root chunk.
    let mut covered = vec![false; file.source.line_count() as usize + 1];
    for c in chunks.iter().filter(|c| c.depth == 0) {
        for line in c.start_line..=c.end_line {
            covered[line as usize] = true;
        }
    }
    let uncovered: Vec<u32> = (1..=file.source.line_count()).filter(|&l| !covered[l as usize] && !file.source.lines(l, l).trim().is_empty()).collect();
    if !uncovered.is_empty() {
        fail(1, format!("{} non-blank lines in no root chunk, first: line {}", uncovered.len(), uncovered[0]));
    }

    // 2. No overlap between siblings (same parent), by byte span.
    let mut siblings: HashMap<Option<&str>, Vec<&CodeChunk>> = HashMap::new();
    for c in chunks {
        siblings.entry(c.parent_chunk_id.as_deref()).or_default().push(c);
    }
    for group in siblings.values_mut() {
        group.sort_by_key(|c| (c.span.start, c.span.end));
        for pair in group.windows(2) {
            if pair[1].span.start < pair[0].span.end {
                fail(2, format!("{} overlaps sibling {}", pair[1].breadcrumb, pair[0].breadcrumb));
            }
        }
    }

    for c in chunks {
        check_chunk(file, c, &by_id, &mut fail);
    }

    // 8. Deterministic, unique ids.
    let first: Vec<&str> = chunks.iter().map(|c| c.id.as_str()).collect();
    let second: Vec<&str> = second_run.iter().map(|c| c.id.as_str()).collect();
    if first != second {
        fail(8, "chunk ids differ between two runs".to_string());
    }
    if by_id.len() != chunks.len() {
        fail(8, format!("{} duplicate chunk ids", chunks.len() - by_id.len()));
    }

    // 9. Root isolation: one depth-0 chunk per root statement.
    let root_chunks = chunks.iter().filter(|c| c.depth == 0 && c.node_kind != "comment").count();
    if root_chunks != file.symbols.len() {
        fail(9, format!("{} root statements but {root_chunks} root chunks", file.symbols.len()));
    }

    // 10. relevantImports: exactly the imports whose bindings the chunk uses.
    let imports: Vec<(&str, &[String])> =
        file.symbols.iter().filter(|s| s.kind == "import" && !s.bindings.is_empty()).map(|s| (import_text(text, s), s.bindings.as_slice())).collect();
    for c in chunks.iter().filter(|c| c.node_kind != "import" && c.node_kind != "comment") {
        let expected: Vec<&str> = imports.iter().filter(|(_, b)| b.iter().any(|b| contains_word(&c.full_source, b))).map(|(t, _)| *t).collect();
        let actual: Vec<&str> = c.relevant_imports.iter().map(String::as_str).collect();
        if expected != actual {
            fail(10, format!("{}: relevantImports {:?}, expected {:?}", c.breadcrumb, actual, expected));
        }
    }
    v
}

/// Rules 3-7 for one chunk: source fidelity, hierarchy consistency, the
/// token limit, collapsed children and the breadcrumb.
fn check_chunk(file: &ParsedFile, c: &CodeChunk, by_id: &HashMap<&str, &CodeChunk>, fail: &mut impl FnMut(u8, String)) {
    let text = file.source.as_str();
    // 3. Source fidelity.
    let (start, end) = file.source.line_range(c.span.start, c.span.end);
    if text.get(c.span.start..c.span.end) != Some(c.full_source.as_str()) || (start, end) != (c.start_line, c.end_line) {
        fail(3, format!("{}: fullSource does not match lines {}-{}", c.breadcrumb, c.start_line, c.end_line));
    } else if !file.source.lines(c.start_line, c.end_line).contains(&c.full_source) {
        fail(3, format!("{}: fullSource is not within its line range", c.breadcrumb));
    }

    // 4. Hierarchy consistency.
    match c.parent_chunk_id.as_deref() {
        None if c.depth != 0 => fail(4, format!("{}: no parent at depth {}", c.breadcrumb, c.depth)),
        Some(pid) => match by_id.get(pid) {
            Some(p) if p.child_chunk_ids.iter().any(|id| id == &c.id) && p.depth + 1 == c.depth => {}
            Some(_) => fail(4, format!("{}: parent does not list it, or depth is off", c.breadcrumb)),
            None => fail(4, format!("{}: parent chunk missing", c.breadcrumb)),
        },
        None => {}
    }
    for child in &c.child_chunk_ids {
        if by_id.get(child.as_str()).and_then(|k| k.parent_chunk_id.as_deref()) != Some(c.id.as_str()) {
            fail(4, format!("{}: child {child} does not point back", c.breadcrumb));
        }
    }

    // 5. Token limit.
    let tokens = estimate_tokens(&c.embedding_text);
    if tokens > MAX_CHUNK_TOKENS {
        fail(5, format!("{}: embeddingText is ~{tokens} tokens", c.breadcrumb));
    }

    // 6. Collapsed children.
    let collapsed: Vec<&CodeChunk> =
        c.child_chunk_ids.iter().filter_map(|id| by_id.get(id.as_str()).copied()).filter(|k| k.body_bearing && k.end_line > k.start_line).collect();
    if c.embedding_truncated {
        if !c.embedding_text.ends_with(TRUNCATION_NOTE) {
            fail(6, format!("{}: truncated embeddingText lacks its note", c.breadcrumb));
        }
    } else if collapsed.is_empty() {
        if c.embedding_text != c.full_source {
            fail(6, format!("{}: leaf whose embeddingText differs from fullSource", c.breadcrumb));
        }
    } else {
        for k in collapsed {
            if k.end_line > k.start_line && c.embedding_text.contains(&k.full_source) {
                fail(6, format!("{}: child {} is not collapsed", c.breadcrumb, k.name));
            }
        }
    }

    // 7. Breadcrumb accuracy.
    let mut names = vec![c.name.as_str()];
    let mut at = c;
    while let Some(p) = at.parent_chunk_id.as_deref().and_then(|id| by_id.get(id)) {
        names.push(p.name.as_str());
        at = p;
    }
    names.push(c.relative_path.as_str());
    names.reverse();
    if c.breadcrumb != names.join(" > ") {
        fail(7, format!("{}: breadcrumb should be {}", c.breadcrumb, names.join(" > ")));
    }
}
