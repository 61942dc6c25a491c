//! Stage 3 for the selected results only: each declaration's exact match,
//! snapshot and metadata come from the occurrence rows
//! (`structure::Structures`), or, where the rows cannot answer, from the
//! Language Service exactly as for `symbol =` lookups; then
//! `lookup::assemble` applies the budget, and only the results that fit
//! are inspected live. Root expressions and comments, which have no
//! declaration, are shown from the index as they are.

use std::collections::HashMap;

use crate::answer::SnapshotParts;
use crate::answer::{LookupMatch, Snapshot, SymbolRef};
use crate::lookup::{assemble, Frame, LookupAnswer, LookupResultItem};
use crate::query::SymbolQuery;
use crate::structure::{chunk_query, StoredLookup, Structures};

use super::{Backends, Ranked, SearchError};

/// The symbol query that names a chunk (`structure::chunk_query`).
pub(crate) fn symbol_query(r: &Ranked) -> Option<SymbolQuery> {
    chunk_query(&r.row.chunk)
}

pub fn answer(
    structures: &Structures<'_>,
    query: &str,
    kept: &[Ranked],
    backends: &Backends,
    note: Option<String>,
    settings: &super::SearchConfig,
) -> Result<LookupAnswer, SearchError> {
    // Shown as indexed: no declaration is resolved, so every result takes
    // `as_indexed` below.
    let query_of = |r: &Ranked| if structures.is_as_indexed() { None } else { symbol_query(r) };
    let chunks: Vec<&crate::chunk::CodeChunk> = kept.iter().filter(|r| query_of(r).is_some()).map(|r| &r.row.chunk).collect();
    let mut answers: HashMap<String, StoredLookup> = structures.from_rows(&chunks)?;
    // Located live, for what the rows cannot answer (inspected below only
    // if they fit).
    let mut live: Vec<String> = Vec::new();
    for r in kept {
        if let Some(q) = query_of(r) {
            if !answers.contains_key(&r.row.chunk.id) {
                answers.insert(r.row.chunk.id.clone(), structures.located(&q)?);
                live.push(r.row.chunk.id.clone());
            }
        }
    }
    let parts: Vec<SnapshotParts> = kept.iter().filter_map(|r| answers.get(&r.row.chunk.id)).flat_map(|s| s.snapshots.clone()).collect();
    let queries: Vec<(usize, SymbolQuery)> = kept.iter().enumerate().filter_map(|(i, r)| query_of(r).map(|q| (i, q))).collect();
    let mut results: Vec<LookupResultItem> = Vec::new();
    // Results that resolved to a declaration, with their query: inspected
    // below only if they can fit the budget.
    let mut to_inspect: Vec<(usize, usize, SymbolQuery)> = Vec::new();
    let mut snapshots: Vec<Snapshot> = crate::snapshot::assemble(&parts);
    for (i, r) in kept.iter().enumerate() {
        let c = &r.row.chunk;
        let score = (r.scores.final_score * 1000.0).round() / 1000.0;
        let matched = queries.iter().find(|(j, _)| *j == i).and_then(|(_, q)| {
            answers[&c.id]
                .matches
                .iter()
                .filter(|m| {
                    m.symbol.file_path.as_deref() == Some(c.relative_path.as_str()) && m.qualified_name.rsplit('.').next() == q.names.last().map(String::as_str)
                })
                .min_by_key(|m| (m.start_line as i64 - c.start_line as i64).abs().min((m.end_line as i64 - c.end_line as i64).abs()))
                .cloned()
                .map(|m| (m, q.clone()))
        });
        match matched {
            Some((m, q)) => {
                to_inspect.push((results.len(), i, q));
                results.push(LookupResultItem { location: m, score, metadata: None });
            }
            None => results.push(as_indexed(c, score, &mut snapshots)),
        }
    }
    // Snapshots in the order of their best result.
    let best = |file: &str| results.iter().filter(|r| r.location.symbol.file_path.as_deref() == Some(file)).map(|r| r.score).fold(f64::MIN, f64::max);
    snapshots.retain(|s| results.iter().any(|r| r.location.symbol.file_path.as_deref() == Some(s.file_path.as_str())));
    snapshots.sort_by(|a, b| best(&b.file_path).total_cmp(&best(&a.file_path)));
    let frame = Frame { query: query.to_string(), backends: Some(backends.summary()), search: true, budget: settings.max_token_budget, note };
    // The budget decides before the checker works: metadata only adds
    // text, so what fits without it is all that can fit with it. Only
    // those results are inspected (callers, callees, types).
    let fits = assemble(&frame, results.clone(), snapshots.clone(), Vec::new());
    let fitting = |r: &LookupResultItem| fits.results.iter().any(|k| k.location == r.location);
    for (i, k, q) in to_inspect {
        let chunk = &kept[k].row.chunk;
        if !fitting(&results[i]) {
            continue;
        }
        let metadata = if live.contains(&chunk.id) { structures.inspect(&q)? } else { answers[&chunk.id].metadata.clone() };
        let m = results[i].location.clone();
        results[i].metadata = metadata
            .into_iter()
            .find(|x| x.symbol.file_path == m.symbol.file_path && x.symbol.line.is_some_and(|l| l >= m.start_line && l <= m.end_line))
            .map(|mut x| {
                x.symbol.name = m.qualified_name.clone();
                x
            });
    }
    Ok(assemble(&frame, results, snapshots, Vec::new()))
}

/// A result with no declaration to resolve: the chunk as indexed, its
/// source added to its file's snapshot.
fn as_indexed(c: &crate::chunk::CodeChunk, score: f64, snapshots: &mut Vec<Snapshot>) -> LookupResultItem {
    let item = LookupResultItem {
        location: LookupMatch {
            symbol: SymbolRef {
                name: c.name.clone(),
                kind: c.node_kind.clone(),
                file_path: Some(c.relative_path.clone()),
                line: Some(c.start_line),
                is_abstract: None,
            },
            qualified_name: c.breadcrumb.split(" > ").skip(1).collect::<Vec<_>>().join("."),
            start_line: c.start_line,
            end_line: c.end_line,
            project: String::new(),
        },
        score,
        metadata: None,
    };
    match snapshots.iter_mut().find(|s| s.file_path == c.relative_path) {
        Some(s) if !s.text.contains(c.full_source.as_str()) => {
            s.text.push('\n');
            s.text.push_str(&c.full_source);
            s.text.push('\n');
        }
        Some(_) => {}
        None => snapshots.push(Snapshot { file_path: c.relative_path.clone(), text: format!("// {}\n{}\n", c.relative_path, c.full_source) }),
    }
    item
}
