//! Blueprint phase 6: `symbol =` lookup end to end. Resolves the query
//! exactly (hints when nothing matches), enriches every match with its
//! `SymbolMetadata`, renders the connection graph and the smart snapshots,
//! and keeps the answer within a token budget.

use serde::Serialize;

use crate::answer::{LookupMatch, Snapshot, SymbolMetadata};
use crate::chunk::estimate_tokens;
use crate::graph;
pub(crate) use crate::query::in_scope;
use crate::query::SymbolQuery;
use crate::ts::TsError;
use crate::workspace::{InspectConfig, Workspace};

/// The default token budget of an answer (`maxTokenBudget`; `config`
/// builds the settings from it).
pub(crate) const MAX_TOKEN_BUDGET: usize = 8000;

/// Lookup settings, built once at the edge.
#[derive(Debug, Clone)]
pub struct LookupConfig {
    pub call_depth: i32,
    /// `maxTokenBudget`: the answer never exceeds it.
    pub max_token_budget: usize,
    /// Only results in these files, directories or globs (relative to the
    /// root); all when empty.
    pub paths: Vec<String>,
}

impl Default for LookupConfig {
    fn default() -> Self {
        LookupConfig { call_depth: crate::workspace::CALL_DEPTH, max_token_budget: MAX_TOKEN_BUDGET, paths: Vec::new() }
    }
}

/// One result: where it is and what tsc says about it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupResultItem {
    #[serde(flatten)]
    pub location: LookupMatch,
    /// 1.0: a lookup is an exact match (search results will rank).
    pub score: f64,
    pub metadata: Option<SymbolMetadata>,
}

/// A lookup's answer: the rendered text and the data behind it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupAnswer {
    pub query: String,
    pub results: Vec<LookupResultItem>,
    /// Results that matched but did not fit the budget.
    pub omitted: usize,
    pub snapshots: Vec<Snapshot>,
    /// The connection graph as data.
    pub graph: graph::GraphData,
    pub hints: Vec<String>,
    /// The whole text answer: summary, graph, snapshots.
    pub text: String,
    /// `estimate_tokens(text)`, as the summary line says.
    pub tokens: usize,
    pub budget: usize,
    /// What did not fit (results and their snapshots), so that an answer
    /// framed again (`with_backends`) still says what it left out.
    #[serde(skip)]
    left_out: (Vec<LookupResultItem>, Vec<Snapshot>),
}

/// A parsed `symbol =` query end to end: exact matches (hints when none),
/// their metadata, the graph, the snapshots, the budget.
pub fn live_answer(ws: &Workspace, query: &SymbolQuery, config: &LookupConfig) -> Result<LookupAnswer, TsError> {
    let found = ws.locate(std::slice::from_ref(query))?;
    let (matches, hints) = in_scope_only(found.matches, found.hints, config);
    let metadata = if matches.is_empty() { Vec::new() } else { ws.inspect(query, &InspectConfig { call_depth: config.call_depth, resolvers: None })?.matches };
    Ok(answer_from(query, config, None, matches, &found.snapshots, hints, metadata))
}

/// The same answer, its summary line saying where structure came from.
pub(crate) fn with_backends(answer: LookupAnswer, backends: &str) -> LookupAnswer {
    let frame = Frame { query: answer.query.clone(), backends: Some(backends.to_string()), search: false, budget: answer.budget, note: None };
    let (mut results, mut snapshots) = (answer.results, answer.snapshots);
    results.extend(answer.left_out.0);
    snapshots.extend(answer.left_out.1);
    assemble(&frame, results, snapshots, answer.hints)
}

/// Keeps the matches inside `--path`, with a hint when that leaves none.
pub(crate) fn in_scope_only(mut matches: Vec<LookupMatch>, mut hints: Vec<String>, config: &LookupConfig) -> (Vec<LookupMatch>, Vec<String>) {
    if !config.paths.is_empty() {
        let before = matches.len();
        matches.retain(|m| m.symbol.file_path.as_deref().is_some_and(|f| in_scope(f, &config.paths)));
        if matches.is_empty() && before > 0 {
            hints.push(format!("{before} matches lie outside --path {}", config.paths.join(", ")));
        }
    }
    (matches, hints)
}

/// A lookup's answer from its parts, wherever they were computed (live or
/// stored): each match with its metadata, the snapshots of the matches'
/// files, the budget. `backends` is the line that says where structure
/// came from.
pub(crate) fn answer_from(
    query: &SymbolQuery,
    config: &LookupConfig,
    backends: Option<String>,
    matches: Vec<LookupMatch>,
    parts: &[crate::answer::SnapshotParts],
    hints: Vec<String>,
    metadata: Vec<SymbolMetadata>,
) -> LookupAnswer {
    let parts: Vec<_> = parts.iter().filter(|p| in_scope(&p.file_path, &config.paths)).cloned().collect();
    let snapshots = crate::snapshot::assemble(&parts);
    let results: Vec<LookupResultItem> = matches
        .iter()
        .map(|m| LookupResultItem {
            location: m.clone(),
            score: 1.0,
            metadata: metadata.iter().find(|x| x.symbol.file_path == m.symbol.file_path && x.symbol.line == m.symbol.line).map(|x| {
                // The graph names results `Class.member`.
                let mut x = x.clone();
                x.symbol.name = m.qualified_name.clone();
                x
            }),
        })
        .collect();
    assemble(&Frame { query: query.to_string(), backends, search: false, budget: config.max_token_budget, note: None }, results, snapshots, hints)
}

/// What frames an answer: the query as the summary shows it, the backends
/// that answered (natural-language search), and the token budget.
#[derive(Debug, Clone)]
pub struct Frame {
    pub query: String,
    pub backends: Option<String>,
    /// A natural-language search (its empty answer says "No results.";
    /// a lookup's says "No symbol found.").
    pub search: bool,
    pub budget: usize,
    /// A line above the results (e.g. that none passed the relevance gate).
    pub note: Option<String>,
}

/// The one output path of both query modes. Adds results (a file's results
/// go together, as one snapshot, in the order of `snapshots`) while the
/// whole answer fits the budget; never cuts one in half.
pub fn assemble(frame: &Frame, results: Vec<LookupResultItem>, snapshots: Vec<Snapshot>, hints: Vec<String>) -> LookupAnswer {
    let (query, budget) = (frame.query.clone(), frame.budget);
    let mut kept: Vec<LookupResultItem> = Vec::new();
    let mut kept_snaps: Vec<Snapshot> = Vec::new();
    let mut omitted = 0;
    let mut left_out: (Vec<LookupResultItem>, Vec<Snapshot>) = (Vec::new(), Vec::new());
    let mut text = render(frame, &kept, &kept_snaps, &hints, 0);
    for snap in &snapshots {
        let group: Vec<LookupResultItem> =
            results.iter().filter(|r| r.location.symbol.file_path.as_deref() == Some(snap.file_path.as_str())).cloned().collect();
        let mut try_results = kept.clone();
        try_results.extend(group.iter().cloned());
        let mut try_snaps = kept_snaps.clone();
        try_snaps.push(snap.clone());
        let candidate = render(frame, &try_results, &try_snaps, &hints, omitted);
        if estimate_tokens(&candidate) <= budget {
            kept = try_results;
            kept_snaps = try_snaps;
            text = candidate;
        } else {
            omitted += group.len();
            left_out.0.extend(group);
            left_out.1.push(snap.clone());
        }
    }
    if omitted > 0 {
        text = render(frame, &kept, &kept_snaps, &hints, omitted);
        if kept.is_empty() {
            text = too_big(frame, &left_out.0);
        }
    }
    let tokens = estimate_tokens(&text);
    let graph = graph::graph_data(&kept.iter().filter_map(|r| r.metadata.clone()).collect::<Vec<_>>());
    LookupAnswer { query, results: kept, omitted, snapshots: kept_snaps, graph, hints, text, tokens, budget, left_out }
}

/// When not even the first result fits: where it is and its signature.
fn too_big(frame: &Frame, results: &[LookupResultItem]) -> String {
    let budget = frame.budget;
    let mut body = format!("The first result does not fit the {budget}-token budget; its location and signature:\n\n");
    for r in results.iter().take(5) {
        let sig = r.metadata.as_ref().map(|m| m.signature.clone()).unwrap_or_default();
        body.push_str(&format!(
            "{} — {}:{}-{}\n    Signature: {sig}\n",
            r.location.symbol.name,
            r.location.symbol.file_path.as_deref().unwrap_or("?"),
            r.location.start_line,
            r.location.end_line
        ));
    }
    with_summary(frame, results.len(), count_files(results), &body)
}

fn count_files(results: &[LookupResultItem]) -> usize {
    results.iter().filter_map(|r| r.location.symbol.file_path.clone()).collect::<std::collections::BTreeSet<_>>().len()
}

fn render(frame: &Frame, results: &[LookupResultItem], snaps: &[Snapshot], hints: &[String], omitted: usize) -> String {
    let budget = frame.budget;
    let mut body = String::new();
    if results.is_empty() && omitted == 0 {
        for h in hints {
            body.push_str(h);
            body.push('\n');
        }
        if hints.is_empty() {
            body.push_str(if frame.search { "No results.\n" } else { "No symbol found.\n" });
        }
    } else {
        if let Some(note) = &frame.note {
            body.push_str(note);
            body.push_str("\n\n");
        }
        let meta: Vec<SymbolMetadata> = results.iter().filter_map(|r| r.metadata.clone()).collect();
        body.push_str(&match meta.len() {
            // Root expressions have no Language Service metadata.
            0 => results
                .iter()
                .map(|r| {
                    format!(
                        "{} — {}:{}-{}\n",
                        r.location.qualified_name,
                        r.location.symbol.file_path.as_deref().unwrap_or("?"),
                        r.location.start_line,
                        r.location.end_line
                    )
                })
                .collect(),
            1 => graph::render_single(&meta[0]),
            _ => graph::render_multi(&meta),
        });
        if omitted > 0 {
            body.push_str(&format!("\n({omitted} more results did not fit the {budget}-token budget)\n"));
        }
        for s in snaps {
            body.push('\n');
            body.push_str(&s.text);
        }
    }
    with_summary(frame, results.len(), count_files(results), &body)
}

/// Prepends `Search: "q" | N results across M files | T/B tokens`, where T
/// is the estimate of the whole returned text, this line included. Search
/// answers end the line with the backends that answered.
fn with_summary(frame: &Frame, n: usize, files: usize, body: &str) -> String {
    let (query, budget) = (&frame.query, frame.budget);
    let backends = frame.backends.as_ref().map(|b| format!(" | {b}")).unwrap_or_default();
    let results = match n {
        1 => "1 result".to_string(),
        n => format!("{n} results across {files} files"),
    };
    let mut tokens = estimate_tokens(body);
    loop {
        let text = format!("Search: \"{query}\" | {results} | {}/{} tokens{backends}\n\n{body}", group(tokens), group(budget));
        let actual = estimate_tokens(&text);
        if actual == tokens {
            return text;
        }
        tokens = actual;
    }
}

/// 8000 -> "8,000".
pub fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seed 002's concise, navigational form of one result.
#[derive(Debug, Clone, Serialize)]
pub struct ConciseResult {
    pub file_path: String,
    pub language: String,
    pub start_line: u32,
    pub end_line: u32,
    /// `class TokenService, method validateToken`.
    pub definitions: String,
    /// The first 2 non-empty lines, at most 200 characters.
    pub preview: String,
    /// 1.0 for a lookup (an exact match); `finalScore` for a search.
    pub score: f64,
    /// What the file is for (`search::rank::Role`): implementation, test,
    /// example, mock, fixture, generated, declaration.
    pub role: &'static str,
}

fn file_role_path(m: &LookupMatch) -> String {
    m.symbol.file_path.clone().unwrap_or_default()
}

/// The concise form of an answer's results; `root` is where files live.
pub fn concise(answer: &LookupAnswer, root: &std::path::Path) -> Vec<ConciseResult> {
    answer
        .results
        .iter()
        .map(|r| {
            let file = r.location.symbol.file_path.clone().unwrap_or_default();
            let text = std::fs::read_to_string(root.join(&file)).unwrap_or_default();
            let lines: Vec<&str> =
                text.lines().skip(r.location.start_line.saturating_sub(1) as usize).take((r.location.end_line + 1 - r.location.start_line) as usize).collect();
            let mut preview = lines.iter().filter(|l| !l.trim().is_empty()).take(2).cloned().collect::<Vec<_>>().join("\n");
            if preview.chars().count() > 200 {
                preview = preview.chars().take(197).collect::<String>() + "...";
            }
            let mut definitions = vec![format!("{} {}", r.location.symbol.kind, r.location.qualified_name)];
            if let Some(members) = r.metadata.as_ref().and_then(|m| m.members.as_ref()) {
                definitions.extend(members.iter().filter(|m| !m.name.is_empty()).map(|m| format!("{} {}", m.kind, m.name)));
            }
            let language = crate::files::language_of(&file);
            ConciseResult {
                file_path: file,
                language: language.into(),
                start_line: r.location.start_line,
                end_line: r.location.end_line,
                role: crate::files::classify(&file_role_path(&r.location), false).as_str(),
                definitions: definitions.join(", "),
                preview,
                score: r.score,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_scopes_take_files_dirs_and_globs() {
        let scope = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(in_scope("src/auth/a.ts", &[]));
        assert!(in_scope("src/auth/a.ts", &scope(&["src/auth/"])));
        assert!(in_scope("src/auth/a.ts", &scope(&["src/auth/a.ts"])));
        assert!(!in_scope("src/authx/a.ts", &scope(&["src/auth"])));
        assert!(in_scope("src/auth/a.ts", &scope(&["*.ts"])));
        assert!(!in_scope("src/auth/a.js", &scope(&["src/**/*.ts"])));
    }

    #[test]
    fn the_summary_counts_its_own_tokens() {
        let body = "x".repeat(4000);
        let text =
            with_summary(&Frame { query: "symbol = a".into(), backends: Some("embedder: x".into()), search: true, budget: 8000, note: None }, 1, 1, &body);
        let claimed: usize = text.split(" | ").nth(2).unwrap().split('/').next().unwrap().replace(',', "").parse().unwrap();
        assert_eq!(claimed, estimate_tokens(&text));
        assert_eq!(group(8000), "8,000");
        assert_eq!(group(999), "999");
    }
}
