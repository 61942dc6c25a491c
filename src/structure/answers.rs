//! `symbol =` answers from the occurrence index alone. The checker pass
//! stores, per declaration, what its own file decides (the lookup match,
//! the snapshot parts, signature, modifiers, members, type flows, its
//! supertypes: `occ_declarations`); everything that depends on other files
//! is derived from the rows at query time: references, incoming and
//! outgoing call trees at any depth (`occurrences::{references, Calls}`)
//! and subtypes (the declarations whose supertypes name this one).
//!
//! The matching is `js/30_resolvers.js` `findDeclarations`: the name, the
//! exact file when given, the parents as a subsequence of the containers,
//! in the Language Service's order (project, file, node). An answer is
//! given only when every file that may declare the name is indexed from
//! its current text; otherwise the caller asks the Language Service.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::occurrences::{locale_cmp, references, Calls, Direction, Graph};
use super::{StoredLookup, StructureError};
use crate::index::{relative, Index};
use crate::query::SymbolQuery;
use crate::ts::files::FileView;
use crate::ts::protocol::{DeclarationAnswer, SymbolMetadata, SymbolRef};

/// Why the rows cannot answer a query (the caller goes live).
#[derive(Debug, Clone, PartialEq)]
pub enum Unanswered {
    /// A file that may declare the name has no fresh rows (failed, or
    /// edited since the last sync).
    Stale(String),
    /// No declaration matches (hints and root statements are the
    /// Language Service's).
    NoMatch,
    /// A match has no symbol of its own (a binding pattern).
    NoSymbol,
    /// No occurrence index yet.
    NotIndexed,
}

/// The declarations `q` names and their answers at `call_depth`, from
/// the rows alone.
pub fn lookup(
    index: &Index,
    view: &FileView,
    sources: &[PathBuf],
    q: &SymbolQuery,
    call_depth: i32,
) -> Result<Result<StoredLookup, Unanswered>, StructureError> {
    let Some(target) = q.names.last() else { return Ok(Err(Unanswered::NoMatch)) };
    let parents = &q.names[..q.names.len() - 1];
    let root: &Path = index.root();
    let files: HashMap<String, (String, bool)> =
        index.occ_files(false)?.into_iter().map(|r| (r.relative_path, (r.content_hash, r.error.is_none()))).collect();
    if files.is_empty() {
        return Ok(Err(Unanswered::NotIndexed));
    }
    for p in sources {
        let Ok(entry) = view.get(p) else { continue };
        if entry.text.is_err() || !crate::inspect::may_declare(entry.text_or_empty(), target) {
            continue;
        }
        let rel = relative(p, root);
        if rel.ends_with(".d.ts") || rel.ends_with(".d.mts") || rel.ends_with(".d.cts") {
            continue;
        }
        match files.get(&rel) {
            Some((hash, true)) if *hash == entry.hash => {}
            _ => return Ok(Err(Unanswered::Stale(rel))),
        }
    }
    let want = q.file.as_deref().map(|f| f.trim_start_matches("./").to_string());
    let subsequence = |containers: &[String]| {
        let mut at = 0;
        for c in containers {
            if at < parents.len() && *c == parents[at] {
                at += 1;
            }
        }
        at == parents.len()
    };
    let found: Vec<(String, DeclarationAnswer)> = index
        .occ_declarations_named(target)?
        .into_iter()
        .filter(|r| want.as_deref().is_none_or(|w| r.relative_path == w))
        .filter_map(|r| Some((r.relative_path, serde_json::from_str::<DeclarationAnswer>(&r.answer).ok()?)))
        .filter(|(_, a)| subsequence(&a.containers))
        .collect();
    if found.is_empty() {
        return Ok(Err(Unanswered::NoMatch));
    }
    if found.iter().any(|(_, a)| a.id.is_none()) {
        return Ok(Err(Unanswered::NoSymbol));
    }
    let graph = Graph::load(index)?;
    let calls = Calls::new(index, &graph);
    let mut out = StoredLookup { matches: Vec::new(), snapshots: Vec::new(), metadata: Vec::new() };
    for (file, a) in found {
        if out.matches.contains(&a.matched) {
            continue;
        }
        let id = a.id.as_deref().expect("checked above");
        let (outgoing_calls, incoming_callers) = match &a.item {
            Some(k) => (calls.tree(k, Direction::Out, call_depth)?, calls.tree(k, Direction::In, call_depth)?),
            None => (Vec::new(), Vec::new()),
        };
        let mut type_hierarchy = a.type_hierarchy.clone();
        if let (Some(th), Some(line)) = (type_hierarchy.as_mut(), a.matched.symbol.line) {
            th.subtypes = subtypes(index, &file, line)?;
        }
        out.metadata.push(SymbolMetadata {
            symbol: a.matched.symbol.clone(),
            project: a.matched.project.clone(),
            signature: a.signature,
            modifiers: a.modifiers,
            outgoing_calls,
            incoming_callers,
            references: references(index, &graph, id, a.meaning)?,
            type_hierarchy,
            members: a.members,
            type_flows: a.type_flows,
        });
        if !out.snapshots.contains(&a.snapshot) {
            out.snapshots.push(a.snapshot);
        }
        out.matches.push(a.matched);
    }
    Ok(Ok(out))
}

/// The classes and interfaces that extend or implement the declaration
/// at `file:line`, by file then line (`js/30_resolvers.js` `typeHierarchy`).
fn subtypes(index: &Index, file: &str, line: u32) -> Result<Vec<SymbolRef>, StructureError> {
    let key = format!("{file}:{line}");
    let mut out: Vec<SymbolRef> = Vec::new();
    for r in index.occ_subtypes(file, line)? {
        let Ok(a) = serde_json::from_str::<DeclarationAnswer>(&r.answer) else { continue };
        // LIKE's `_` matches any character: keep exact hits only.
        if a.supertypes.contains(&key) && !out.contains(&a.matched.symbol) {
            out.push(a.matched.symbol);
        }
    }
    out.sort_by(|a, b| locale_cmp(a.file_path.as_deref().unwrap_or(""), b.file_path.as_deref().unwrap_or("")).then(a.line.cmp(&b.line)));
    Ok(out)
}
