//! Natural-language search (blueprint phases 8-9): candidates from vector
//! similarity and BM25 (`candidates`), stage-2 scores (`fusion`), the
//! relevance gate and concern level (`select`), then the same enrichment
//! and output path as `symbol =` lookups (`enrich` → `lookup::assemble`).

pub mod candidates;
pub mod comments;
pub mod enrich;
pub mod evidence;
pub mod fusion;
pub mod history;
pub mod paths;
mod pipeline;
pub mod rank;
pub mod select;
pub mod shape;
pub mod steps;
pub(crate) mod type_step;

use std::time::Instant;

use serde::Serialize;

use crate::embed::Reranker;
use crate::index::{ChunkRow, Filter, Index, IndexError};
use crate::lookup::{ConciseResult, LookupAnswer};

pub use fusion::Scores;
pub(crate) use shape::{content_words, identifiers};

/// What a search reads of the settings; `config::Settings::search` builds
/// it (the defaults live in `config`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchConfig {
    /// The ranking steps after fusion.
    pub ranking: steps::Steps,
    pub max_vector_candidates: usize,
    pub bm25_weight: f64,
    pub rerank_weight: f64,
    pub vector_weight: f64,
    pub minimum_relevance_threshold: f64,
    pub max_token_budget: usize,
}

pub(crate) use crate::index::UNRANKED_KINDS;

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("the Language Service: {0}")]
    Ts(#[from] crate::ts::TsError),
    #[error("{0}")]
    Query(String),
    #[error(transparent)]
    Structure(#[from] crate::structure::StructureError),
}

/// One scored candidate.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub row: ChunkRow,
    pub scores: Scores,
    /// What its file is for, as ranking saw it (barrels included).
    pub role: rank::Role,
}

impl select::Candidate for Ranked {
    fn id(&self) -> &str {
        &self.row.chunk.id
    }
    fn parent_id(&self) -> Option<&str> {
        self.row.chunk.parent_chunk_id.as_deref()
    }
    fn final_score(&self) -> f64 {
        self.scores.final_score
    }
    fn name(&self) -> &str {
        &self.row.chunk.name
    }
    fn kind(&self) -> &str {
        &self.row.chunk.node_kind
    }
}

/// Which backends answered, as every answer says.
#[derive(Debug, Clone, Serialize)]
pub struct Backends {
    pub embedder: String,
    pub reranker: String,
    /// Embeddable chunks with vectors, and all embeddable chunks.
    pub vectors: [usize; 2],
    /// The occurrence index's coverage: source files whose rows are
    /// current, and all indexed source files.
    pub structure: [usize; 2],
    /// Where the index came from when it was pulled (`tsq index --from`):
    /// `index: from s3://…@<commit>, N files re-indexed locally`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Backends {
    pub fn summary(&self) -> String {
        let line = format!(
            "embedder: {}, reranker: {}, vectors: {}/{} chunks, structure: {}/{} files in the occurrence index",
            self.embedder,
            self.reranker,
            crate::lookup::group(self.vectors[0]),
            crate::lookup::group(self.vectors[1]),
            crate::lookup::group(self.structure[0]),
            crate::lookup::group(self.structure[1])
        );
        match &self.origin {
            Some(origin) => format!("{line}, {origin}"),
            None => line,
        }
    }
}

/// Milliseconds per stage.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    /// The index sync before the query (set by the caller that synced).
    pub sync: u64,
    pub retrieval: u64,
    pub rerank: u64,
    pub enrichment: u64,
}

/// Stages 1 and 2: ranked candidates, best first.
pub struct Retrieval {
    pub ranked: Vec<Ranked>,
    pub backends: Backends,
    pub notes: Vec<String>,
    pub timings: Timings,
}

/// The filter of a search: the scope, with unranked kinds left out.
pub fn filter(paths: &[String], language: Option<&str>) -> Filter {
    Filter { paths: paths.to_vec(), language: language.map(str::to_string), exclude_kinds: UNRANKED_KINDS.iter().map(|s| s.to_string()).collect() }
}

/// Stages 1 and 2 (no Language Service): what benchmarks and the concise
/// format use.
pub fn retrieve(index: &Index, reranker: Option<&dyn Reranker>, query: &str, filter: &Filter, settings: &SearchConfig) -> Result<Retrieval, SearchError> {
    if query.trim().is_empty() {
        return Err(SearchError::Query("empty query".into()));
    }
    let mut notes = Vec::new();
    // Imports never rank, whatever the caller's filter says; re-exports
    // only when the question names their file (`Steps::reexports`).
    let mut filter = filter.clone();
    for k in UNRANKED_KINDS {
        if !filter.exclude_kinds.iter().any(|x| x == k) {
            filter.exclude_kinds.push(k.to_string());
        }
    }
    if settings.ranking.reexports {
        filter.exclude_kinds.retain(|k| k != "re-export");
    }
    let started = Instant::now();
    let mut shape = rank::QueryShape::new(query, !filter.paths.is_empty(), settings.ranking);
    // Candidates, the declarations the query names (which retrieval may
    // have missed), and the counts every answer states, read together.
    let (cands, named, counts, paths, whole) = std::thread::scope(|s| {
        let named = s.spawn(|| index.chunks_named(&shape.idents, &filter));
        let weighs = shape.steps.paths && shape.steps.path_specificity;
        let paths = s.spawn(move || if weighs { index.indexed_paths().map(Some) } else { Ok(None) });
        // Whole-file evidence: BM25 over each file's whole text.
        // The question as BM25 reads it, over chunks and whole texts alike.
        let terms = if shape.steps.stop_words && !shape.symbolic { crate::search::shape::bm25_terms(query) } else { query.to_string() };
        let whole_terms = terms.clone();
        let reads_whole = shape.steps.whole_files > 0.0 && shape.reads_file_level();
        let whole_filter = &filter;
        let whole = s.spawn(move || if reads_whole { index.file_bm25(&whole_terms, whole_filter, steps::WHOLE_FILES_READ) } else { Ok(Vec::new()) });
        let counts = s.spawn(|| Ok::<_, IndexError>((index.vector_coverage()?, index.occurrence_coverage()?)));
        let t = Instant::now();
        let cands = candidates::gather(index, query, &terms, &filter, settings.max_vector_candidates, &mut notes);
        tracing::debug!(ms = t.elapsed().as_millis() as u64, "candidates gathered (BM25, vectors)");
        fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
        }
        (cands, join(named), join(counts), join(paths), join(whole))
    });
    let whole = whole_file_scores(whole?);
    if let Some(paths) = paths? {
        shape.path_weights = Some(paths::specificity(&paths, &shape.words));
    }
    let mut cands = cands?;
    let ((with, all), structure) = counts?;
    let have: std::collections::HashSet<String> = cands.iter().map(|c| c.row.chunk.id.clone()).collect();
    for row in named? {
        if !have.contains(&row.chunk.id) {
            cands.push(candidates::CandidateChunk { row, signals: Default::default() });
        }
    }
    if shape.steps.noise {
        cands.retain(|c| !shape::is_noise(&c.row.chunk));
    }
    // History evidence: the files the past commits most like the question
    // changed, taken in when retrieval missed them.
    let history = (shape.steps.history > 0.0 && shape.reads_file_level()).then(|| index.history()).flatten();
    let history_votes: std::collections::HashMap<String, f64> = match history {
        Some(h) => {
            let t = Instant::now();
            let votes = history::votes(&h, query, shape.steps.history_relative);
            history::take_in(index, &mut cands, &votes, query, &filter)?;
            tracing::debug!(ms = t.elapsed().as_millis() as u64, commits = h.commits.len(), files = votes.len(), "history votes read");
            votes.into_iter().collect()
        }
        None => Default::default(),
    };
    let bm25_share = if shape.symbolic { settings.bm25_weight.max(rank::SYMBOL_BM25) } else { settings.bm25_weight };
    let weights = fusion::Weights { rerank: settings.rerank_weight, vector: settings.vector_weight, bm25_in_hybrid: bm25_share };
    // Lending: what the strongest tests and examples (and, with call
    // lending, implementation) use, by the occurrence rows, taken in when
    // retrieval missed it; read beside the candidates' barrels and priors.
    let evidence_started = Instant::now();
    // The strongest candidates' uses serve lending and the type step.
    let mut uses = evidence::Uses::default();
    let (lending, mut known) = {
        let order = fused_order(&cands, weights);
        let rows: Vec<&ChunkRow> = cands.iter().map(|c| &c.row).collect();
        let lends = shape.steps.test_lending || shape.steps.call_lending;
        let reads = lends || shape.steps.types < 1.0;
        let (read, known) = std::thread::scope(|s| {
            let known = s.spawn(|| evidence::known(index, &shape.steps, &rows));
            let strongest: Vec<&ChunkRow> = order.iter().take(rank::LENDERS).map(|&i| rows[i]).collect();
            let read = if reads { uses.read(index, &strongest) } else { Ok(()) };
            (read, known.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        });
        read?;
        let known: std::collections::HashMap<String, evidence::Known> = rows.iter().map(|r| r.chunk.id.clone()).zip(known?).collect();
        (lends.then(|| evidence::Lending::new(&shape.steps, &rows, &order, &uses)), known)
    };
    if let Some(lending) = &lending {
        let rows: Vec<&ChunkRow> = cands.iter().map(|c| &c.row).collect();
        let more = lending.missing(index, &rows, &filter)?;
        let more_rows: Vec<&ChunkRow> = more.iter().collect();
        known.extend(more_rows.iter().map(|r| r.chunk.id.clone()).zip(evidence::known(index, &shape.steps, &more_rows)?));
        cands.extend(more.into_iter().map(|row| candidates::CandidateChunk { row, signals: Default::default() }));
    }
    tracing::debug!(ms = evidence_started.elapsed().as_millis() as u64, candidates = cands.len(), "ranking evidence read (test lending, barrels, usage)");
    let retrieval_ms = started.elapsed().as_millis() as u64;
    let ranking = pipeline::Ranking {
        index,
        shape: &shape,
        weights,
        known: &known,
        lending: lending.as_ref(),
        uses: std::sync::Mutex::new(uses),
        history: &history_votes,
        whole: &whole,
    };
    // Stage 1 order; a reranker of limited depth sees only its top.
    let mut stage1 = ranking.rank(cands);
    let started = Instant::now();
    let mut reranker_name = "none".to_string();
    if let Some(r) = reranker {
        let depth = r.depth().unwrap_or(usize::MAX).min(stage1.len());
        let docs: Vec<String> = stage1[..depth].iter().map(|(c, _)| format!("{}\n{}", c.row.chunk.breadcrumb, c.row.chunk.embedding_text)).collect();
        match r.rerank(query, &docs) {
            Ok(scores) => {
                reranker_name = r.id();
                stage1.truncate(depth);
                stage1.iter_mut().zip(scores).for_each(|((c, _), s)| c.signals.rerank = Some(s));
                stage1 = ranking.rank(stage1.into_iter().map(|(c, _)| c).collect());
            }
            Err(e) => notes.push(format!("reranker failed ({e}); ranked by stage-1 scores")),
        }
    }
    let rerank_ms = started.elapsed().as_millis() as u64;
    let ranked: Vec<Ranked> = stage1
        .into_iter()
        .map(|(c, scores)| {
            let barrel = shape.steps.barrels && known.get(&c.row.chunk.id).is_some_and(|k| k.barrel);
            Ranked { role: rank::classify(&c.row.chunk.relative_path, barrel), row: c.row, scores }
        })
        .collect();
    if index.embedder().is_some() && with < all {
        notes.push(format!("vectors: {with}/{all} chunks so far; the rest are found by BM25 until they are embedded"));
    }
    Ok(Retrieval {
        ranked,
        backends: Backends {
            embedder: index.embedder_name(),
            reranker: reranker_name,
            vectors: [with, all],
            structure,
            origin: index.origin().map(|o| o.line()),
        },
        notes,
        timings: Timings { sync: 0, retrieval: retrieval_ms, rerank: rerank_ms, enrichment: 0 },
    })
}

/// Files by BM25 over whole texts, each score over the best one's.
fn whole_file_scores(files: Vec<(String, f32)>) -> std::collections::HashMap<String, f64> {
    let best = files.iter().map(|(_, s)| *s as f64).fold(0.0, f64::max);
    if best <= 0.0 {
        return Default::default();
    }
    files.into_iter().map(|(p, s)| (p, s as f64 / best)).collect()
}

/// Candidate indexes by fused score, strongest first (before any ranking step).
fn fused_order(cands: &[candidates::CandidateChunk], weights: fusion::Weights) -> Vec<usize> {
    let fused = fusion::score(&cands.iter().map(|c| c.signals.clone()).collect::<Vec<_>>(), weights);
    let mut top: Vec<usize> = (0..cands.len()).collect();
    top.sort_by(|&a, &b| fused[b].final_score.total_cmp(&fused[a].final_score).then(a.cmp(&b)));
    top
}

/// A natural-language answer: the shared lookup answer plus what ranked it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchAnswer {
    #[serde(flatten)]
    pub answer: LookupAnswer,
    pub backends: Backends,
    /// False when nothing passed the relevance gate (the results shown are
    /// the best below it).
    pub passed_gate: bool,
    pub notes: Vec<String>,
    pub timings: Timings,
}

/// The whole pipeline: retrieval, selection, enrichment, the budget.
pub fn search(
    index: &Index,
    view: &crate::ts::files::FileView,
    structures: &crate::structure::Structures<'_>,
    reranker: Option<&dyn Reranker>,
    query: &str,
    filter: &Filter,
    settings: &SearchConfig,
) -> Result<SearchAnswer, SearchError> {
    let mut retrieval = retrieve(index, reranker, query, filter, settings)?;
    // Only rows whose code the checkout holds now are shown
    // (`index::checkout`): the rest wait for the next sync.
    retrieval.ranked.retain(|r| crate::index::checkout::chunk(view, index.root(), &r.row.content_hash, &r.row.chunk));
    let (kept, passed) = select::select(retrieval.ranked, query, settings.minimum_relevance_threshold);
    let started = Instant::now();
    let note = (!passed && !kept.is_empty()).then(|| {
        format!("Nothing passed the relevance gate ({}); the best {} below it, marked [below gate]:", settings.minimum_relevance_threshold, kept.len())
    });
    let answer = enrich::answer(structures, query, &kept, &retrieval.backends, note, settings)?;
    let mut timings = retrieval.timings;
    timings.enrichment = started.elapsed().as_millis() as u64;
    Ok(SearchAnswer { answer, backends: retrieval.backends, passed_gate: passed, notes: retrieval.notes, timings })
}

/// concise-output.md's records for the top `top_k` candidates (no budget,
/// no Language Service).
pub fn concise(ranked: &[Ranked], query: &str, top_k: usize, shown: &dyn Fn(&Ranked) -> bool) -> Vec<ConciseResult> {
    let deduped = select::dedupe_concerns(ranked.iter().filter(|r| shown(r)).cloned().collect(), query);
    // Same-file decay: a file-level question gets several files.
    let files: Vec<&str> = deduped.iter().map(|r| r.row.chunk.relative_path.as_str()).collect();
    let scores: Vec<f64> = deduped.iter().map(|r| r.scores.final_score).collect();
    let order = rank::decay(&files, &scores, rank::DECAY);
    // The comment rules run last, on the decayed order (positions as
    // scores): the decay must not let a capped comment back in.
    let mut listed: Vec<(&Ranked, f64)> = order.iter().enumerate().map(|(pos, &i)| (&deduped[i], (order.len() - pos) as f64)).collect();
    comments::limit(&mut listed, |(r, _)| &r.row.chunk, |(_, s)| s);
    listed
        .into_iter()
        .map(|(r, _)| r)
        .take(top_k)
        .map(|r| {
            let c = &r.row.chunk;
            let mut preview = c.full_source.lines().filter(|l| !l.trim().is_empty()).take(2).collect::<Vec<_>>().join("\n");
            if preview.chars().count() > 200 {
                preview = preview.chars().take(197).collect::<String>() + "...";
            }
            ConciseResult {
                role: r.role.as_str(),
                file_path: c.relative_path.clone(),
                language: r.row.language.clone(),
                start_line: c.start_line,
                end_line: c.end_line,
                definitions: r.row.definitions.clone(),
                preview,
                score: (r.scores.final_score * 1000.0).round() / 1000.0,
            }
        })
        .collect()
}
