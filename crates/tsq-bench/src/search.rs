//! `tsq bench search`: retrieval quality on the evaluation set
//! (`benches/search-eval/queries.jsonl`), every backend side by side on the
//! same index: the peers' baseline (BM25 over 2,500-character windows, 300
//! overlap), code-aware BM25 alone, the local vectors alone, and the hybrid
//! (with a sweep of its BM25 share); NDCG@10, Recall@5, MRR@10 per
//! repository and per split (tuned / held out); retrieval latency. Each
//! copy is indexed as a user's `tsq index` indexes it, occurrence index
//! included (`index_as_shipped`).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use crate::eval::{self, EvalQuery, Hit, WindowBm25};
use tsq::config::Settings;
use tsq::embed::EmbedderChoice;
use tsq::index::{ChunkRow, Index, IndexConfig};
use tsq::progress::Progress as _;
use tsq::search::rank::Steps;

use crate::parse::percentile;
use crate::ExitStatus;

const EVAL: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/search-eval/queries.jsonl"));
const SWEEP: &[f64] = &[0.3, 0.5, 0.6, 0.7, 0.8, 0.9];
const RERANK_SWEEP: &[f64] = &[0.5, 0.8, 1.0];

pub(crate) fn hit(r: &ChunkRow) -> Hit {
    Hit { path: r.chunk.relative_path.clone(), start: r.chunk.start_line, end: r.chunk.end_line }
}

#[derive(Default, Clone)]
struct Score {
    ndcg: f64,
    recall: f64,
    mrr: f64,
    /// File-level NDCG@10 (`eval::ndcg_files`).
    file_ndcg: f64,
    /// Queries whose answer is not a test with a test file in the top 3,
    /// by the independent label (`eval::is_test_file`).
    tests_top3: usize,
    /// Of how many such queries.
    not_tests: usize,
    n: usize,
    /// Each query's NDCG@10, in the order added (the same for every row of
    /// a table), for the paired interval against the default.
    per_query: Vec<f64>,
}

impl Score {
    /// `test`: the independent test label of a path.
    fn add(&mut self, hits: &[Hit], q: &EvalQuery, test: &dyn Fn(&str) -> bool) {
        let ndcg = eval::ndcg(hits, &q.relevant, 10);
        self.ndcg += ndcg;
        self.per_query.push(ndcg);
        self.recall += eval::recall(hits, &q.relevant, 5);
        self.mrr += eval::mrr(hits, &q.relevant, 10);
        self.file_ndcg += eval::ndcg_files(hits, &q.relevant, 10);
        // The answer is not a test: no grade-3 target is one.
        if !q.relevant.iter().any(|r| r.grade == 3 && test(&r.path)) {
            self.not_tests += 1;
            if hits.iter().take(3).any(|h| test(&h.path)) {
                self.tests_top3 += 1;
            }
        }
        self.n += 1;
    }
    fn merge(&mut self, o: &Score) {
        self.ndcg += o.ndcg;
        self.recall += o.recall;
        self.mrr += o.mrr;
        self.file_ndcg += o.file_ndcg;
        self.tests_top3 += o.tests_top3;
        self.not_tests += o.not_tests;
        self.n += o.n;
        self.per_query.extend_from_slice(&o.per_query);
    }
    fn fmt(&self) -> String {
        let n = self.n.max(1) as f64;
        let rate = 100.0 * self.tests_top3 as f64 / self.not_tests.max(1) as f64;
        format!(
            "{:.3}  {:.3}  {:.3}   {:.3}      {}/{} = {rate:.0}%",
            self.ndcg / n,
            self.recall / n,
            self.mrr / n,
            self.file_ndcg / n,
            self.tests_top3,
            self.not_tests
        )
    }
}

/// The default without its file-level signals (history and whole-file
/// evidence, the eleventh pass): the rows that vary those signals start
/// from it.
pub(crate) const NO_FILE_LEVEL: Steps = Steps { history: 0.0, history_relative: false, whole_files: 0.0, ..Steps::DEFAULT };

/// The ranking steps: the earlier ones added in turn (issues 15 and 24,
/// benches/README.md), then issue 45's added to the default it started
/// from, and each of them taken out of the new default.
const ABLATION: &[(&str, Steps)] = &[
    ("hybrid, shipped before (no ranking steps)", Steps::NONE),
    ("  + file roles", Steps { roles: true, ..Steps::NONE }),
    ("  + definitions", Steps { roles: true, definitions: true, ..Steps::NONE }),
    ("  + path evidence (issue 15)", ISSUE_15),
    ("default before issue 45", BEFORE_45),
    ("  + path boost scaled to the top score", Steps { path_top: tsq::search::rank::PATH_TOP, ..BEFORE_45 }),
    ("  + definitions need declaration syntax", Steps { definition_syntax: true, ..BEFORE_45 }),
    ("  + symbol queries lean on BM25", Steps { symbols: true, ..BEFORE_45 }),
    ("  + comment chunks: repeated once, one in the top 10", Steps { comments: true, ..BEFORE_45 }),
    ("  + re-exports rank where their file is named", Steps { reexports: true, ..BEFORE_45 }),
    ("default", Steps::DEFAULT),
    ("  default without the path boost (lift 0.3)", Steps { path_top: 0.0, ..Steps::DEFAULT }),
    ("  default, path boost 1.0", Steps { path_top: 1.0, ..Steps::DEFAULT }),
    ("  default, path boost 0.5", Steps { path_top: 0.5, ..Steps::DEFAULT }),
    ("  default, path boost 2.0", Steps { path_top: 2.0, ..Steps::DEFAULT }),
    ("  default without path evidence", Steps { paths: false, ..Steps::DEFAULT }),
    ("  default without declaration syntax", Steps { definition_syntax: false, ..Steps::DEFAULT }),
    ("  default without symbol queries", Steps { symbols: false, ..Steps::DEFAULT }),
    ("  default without the comment rules", Steps { comments: false, ..Steps::DEFAULT }),
    ("  default without re-exports", Steps { reexports: false, ..Steps::DEFAULT }),
    ("  default without the type step", Steps { types: 1.0, ..Steps::DEFAULT }),
    ("  default before the twelfth pass (data ranked as behaviour)", Steps { data_as_types: false, ..Steps::DEFAULT }),
    ("  default without test lending", Steps { test_lending: false, ..Steps::DEFAULT }),
    ("  default without call lending", Steps { call_lending: false, ..Steps::DEFAULT }),
    ("  default, BM25 reads the function words too", Steps { stop_words: false, ..Steps::DEFAULT }),
    ("  default, every path word counts fully", Steps { path_specificity: false, ..Steps::DEFAULT }),
    ("  before file-level, history evidence 0.25", Steps { history: 0.25, ..NO_FILE_LEVEL }),
    ("  before file-level, history evidence 0.5", Steps { history: 0.5, ..NO_FILE_LEVEL }),
    ("  before file-level, history evidence 1.0", Steps { history: 1.0, ..NO_FILE_LEVEL }),
    ("  before file-level, relative history evidence 0.5", Steps { history: 0.5, history_relative: true, ..NO_FILE_LEVEL }),
    ("  before file-level, relative history evidence 1.0", Steps { history: 1.0, history_relative: true, ..NO_FILE_LEVEL }),
    ("  default without the one-line noise rule", Steps { noise: false, ..Steps::DEFAULT }),
    ("  default without history evidence", Steps { history: 0.0, ..Steps::DEFAULT }),
    ("  default without whole-file evidence", Steps { whole_files: 0.0, ..Steps::DEFAULT }),
    ("  default without either file-level signal", Steps { history: 0.0, whole_files: 0.0, ..Steps::DEFAULT }),
    ("  before file-level, whole files 0.3", Steps { whole_files: tsq::search::rank::WHOLE_FILES, ..NO_FILE_LEVEL }),
];

/// The default steps over other retrieval settings: how many candidates
/// each signal brings (`max_vector_candidates`), and the hybrid's BM25
/// share. Both benches run them.
pub(crate) const RETRIEVAL: &[(&str, Option<usize>, Option<f64>)] = &[
    ("  default, 20 candidates by each signal", Some(20), None),
    ("  default, 80 candidates by each signal", Some(80), None),
    ("  default, BM25 share 0.4", None, Some(0.4)),
    ("  default, BM25 share 0.6", None, Some(0.6)),
];

/// `settings` with one row of `RETRIEVAL`.
pub(crate) fn retrieval(settings: tsq::search::SearchConfig, depth: Option<usize>, share: Option<f64>) -> tsq::search::SearchConfig {
    tsq::search::SearchConfig {
        max_vector_candidates: depth.unwrap_or(settings.max_vector_candidates),
        bm25_weight: share.unwrap_or(settings.bm25_weight),
        ..settings
    }
}

/// One query's ranking, for `TSQ_BENCH_DUMP`: its NDCG@10, each of the
/// first 20 candidates with its signals and grade, then each answer's rank.
fn dump_query(f: &mut std::fs::File, q: &EvalQuery, ranked: &[tsq::search::Ranked]) -> std::io::Result<()> {
    let hits: Vec<Hit> = ranked.iter().map(|c| hit(&c.row)).collect();
    writeln!(f, "## {} ndcg {:.4}: {}", q.id, eval::ndcg(&hits[..hits.len().min(10)], &q.relevant, 10), q.query)?;
    let overlaps = |h: &Hit, t: &eval::Relevant| t.path == h.path && t.start <= h.end && h.start <= t.end;
    let grade = |h: &Hit| q.relevant.iter().filter(|t| overlaps(h, t)).map(|t| t.grade).max().unwrap_or(0);
    for (i, c) in ranked.iter().take(20).enumerate() {
        let s = &c.scores;
        let h = &hits[i];
        writeln!(
            f,
            "{i:>3} g{} final {:.3} bm25 {:.3} vec {:.3} {}:{}-{} {}",
            grade(h),
            s.final_score,
            s.bm25,
            s.vector,
            h.path,
            h.start,
            h.end,
            c.row.chunk.breadcrumb
        )?;
    }
    for t in &q.relevant {
        let at = hits.iter().position(|h| overlaps(h, t));
        writeln!(f, "  answer g{} {}:{}-{} at {}", t.grade, t.path, t.start, t.end, at.map_or("-".to_string(), |i| i.to_string()))?;
    }
    Ok(())
}

/// Issue 15's shipped steps: roles, definitions, path evidence.
const ISSUE_15: Steps = Steps { roles: true, definitions: true, paths: true, ..Steps::NONE };

/// The default before issue 45's steps: path evidence as a lift, the
/// definition lift by name alone, no symbol-query weighting, comment
/// chunks and re-exports as they were; the rows after it add each back.
pub(crate) const BEFORE_45: Steps = Steps {
    data_as_types: false,
    history: 0.0,
    history_relative: false,
    whole_files: 0.0,
    path_top: 0.0,
    definition_syntax: false,
    symbols: false,
    comments: false,
    reexports: false,
    stop_words: false,
    path_specificity: false,
    noise: false,
    ..Steps::DEFAULT
};

/// A copy of the repository to index: vue and trpc keep `packages/` only
/// (the ground truth's scope; examples and docs sites are left out).
pub(crate) fn workspace(repo: &str) -> anyhow::Result<PathBuf> {
    let src = crate::index::corpus_dir(repo).with_context(|| format!("{repo}: not in ../shared/corpus.sh here"))?;
    let dir = std::env::temp_dir().join(format!("tsq-bench-search-{repo}"));
    if !dir.join(".tsq-bench-copied").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let from = if src.join("packages").is_dir() { src.join("packages") } else { src.clone() };
        let to = if src.join("packages").is_dir() { dir.join("packages") } else { dir.clone() };
        crate::index::copy_sources(&from, &to)?;
        std::fs::write(dir.join(".tsq-bench-copied"), "")?;
    }
    Ok(dir)
}

/// Indexes a copy as a user's `tsq index` does, occurrence index included,
/// so the ranking measured is the shipped one (test and call lending, the
/// usage prior and the type step's owners read the occurrence rows). Up
/// to date after the first run; the bench's own sync then finds nothing.
pub(crate) fn index_as_shipped(dir: &Path, embedder: EmbedderChoice) -> anyhow::Result<()> {
    // The same spelling `--embedder` parses.
    let name = clap::ValueEnum::to_possible_value(&embedder).context("an embedder without a name")?.get_name().to_string();
    let t = Instant::now();
    let out = std::process::Command::new(crate::tsq_bin()?)
        .args(["index", "--json", "--embedder", &name, "--root"])
        .arg(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .status()?;
    anyhow::ensure!(out.success(), "tsq index --root {} failed ({out})", dir.display());
    eprintln!("bench: {}: tsq index (with the occurrence index) took {:.0} s", dir.display(), t.elapsed().as_secs_f64());
    Ok(())
}

pub(crate) fn files_of(root: &Path) -> Vec<(String, String)> {
    tsq::source::walk(root).files.iter().filter_map(|f| Some((tsq::parse_pool::file_paths(f, root).relative_path, std::fs::read_to_string(f).ok()?))).collect()
}

/// A query's split as reported: each untuned set apart (`untuned
/// tanstack`, `untuned effect`, `untuned-agent tanstack`), never merged
/// with another.
fn split_of(q: &EvalQuery) -> String {
    if q.split.starts_with("untuned") {
        format!("{} {}", q.split, q.repo)
    } else {
        q.split.clone()
    }
}

/// The evaluation's queries, tuned and untuned. The untuned sets
/// (`untuned-<repo>.jsonl`: tanstack, effect, express; the agent-style
/// `untuned-agent-tanstack.jsonl`) are read at run time (written before
/// any tuning, never tuned on; reported as their own splits).
pub(super) fn eval_queries() -> anyhow::Result<Vec<EvalQuery>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/search-eval");
    let mut untuned = String::new();
    for set in ["tanstack", "effect", "express", "agent-tanstack"] {
        untuned.push_str(&std::fs::read_to_string(format!("{dir}/untuned-{set}.jsonl")).unwrap_or_default());
        untuned.push('\n');
    }
    Ok(EVAL.lines().chain(untuned.lines()).filter(|l| !l.trim().is_empty()).map(serde_json::from_str).collect::<Result<_, _>>()?)
}

pub fn run(repos: &[String], embedder: EmbedderChoice, enrich: usize, rows: &[String]) -> anyhow::Result<ExitStatus> {
    // `--rows`: only the rows whose label holds one of these words (the
    // baselines, the hybrid and the default always run).
    let wanted = |label: &str| rows.is_empty() || label.trim() == "default" || rows.iter().any(|r| label.contains(r.as_str()));
    let queries = eval_queries()?;
    let engine = tsq::parse_pool::ParsePool::new(&Default::default())?;
    let mut settings = Settings::default();
    if let Some(n) = std::env::var("XP_CANDIDATES").ok().and_then(|v| v.parse().ok()) {
        settings.max_vector_candidates = n;
    }
    let systems = ["baseline 2500-char BM25", "code-aware BM25", "vectors (local)", "hybrid"];
    // repo -> system -> score
    let mut table: BTreeMap<String, BTreeMap<String, Score>> = BTreeMap::new();
    let mut splits: BTreeMap<String, BTreeMap<String, Score>> = BTreeMap::new();
    let mut latency = Vec::new();
    let mut rerank_latency = Vec::new();
    // The whole pipeline, warm: [sync, retrieval, rerank, enrichment] per query.
    let mut pipeline: Vec<[f64; 4]> = Vec::new();
    // How much of each repository's structure the index held for them.
    let mut held: Vec<String> = Vec::new();
    let reranker = match crate::local_rerank::LocalReranker::load().map(|r| Some(r).filter(|_| wanted("hybrid + local rerank"))) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench search: no local reranker ({e})");
            None
        }
    };
    let mut embedder_name = String::new();
    // `TSQ_BENCH_DUMP=<file>`: each query's default ranking, for reading
    // where a question's answers went (not a figure).
    // `TSQ_BENCH_DUMP_STEPS=<label part>` dumps that ablation row instead.
    let mut dump = std::env::var_os("TSQ_BENCH_DUMP").map(std::fs::File::create).transpose()?;
    let dump_steps = std::env::var("TSQ_BENCH_DUMP_STEPS").ok().and_then(|l| ABLATION.iter().find(|(label, _)| label.contains(&l)).map(|(_, s)| *s));
    for repo in repos {
        let qs: Vec<&EvalQuery> = queries.iter().filter(|q| &q.repo == repo).collect();
        if qs.is_empty() {
            continue;
        }
        let dir = workspace(repo)?;
        index_as_shipped(&dir, embedder)?;
        let mut index = Index::open(&dir, &IndexConfig { embedder, warm_vectors: true, ..Default::default() })?;
        for n in &index.notes {
            eprintln!("tsq: {n}");
        }
        let progress = crate::PhaseLines::new();
        eprintln!("bench search: {repo}: indexing {}", dir.display());
        index.sync(&engine, &progress)?;
        let t = Instant::now();
        let embedded = index.embed_missing(None, &progress)?;
        progress.finish();
        if embedded > 0 {
            eprintln!("bench search: {repo}: embedded {embedded} chunks in {:.0} s", t.elapsed().as_secs_f64());
        }
        embedder_name = index.embedder_name();
        // The copy has no `.git`: its history is the mirror's up to the
        // pinned commit, as a user's checkout of it would hold.
        if let Some((mirror, pinned)) = mirror(repo) {
            let held: std::collections::HashSet<String> = index.indexed_paths()?.iter().cloned().collect();
            index.set_history(tsq::index::history::History::of_git_dir(&mirror, pinned).map(|mut h| {
                h.retain_files(|f| held.contains(f));
                h
            }));
        }
        let files = files_of(&dir);
        let baseline = WindowBm25::new(&files, 2500, 300);
        let labels: std::collections::HashMap<String, bool> = files.iter().map(|(p, text)| (p.clone(), eval::is_test_file(p, text))).collect();
        let test = |p: &str| labels.get(p).copied().unwrap_or(false);
        let filter = tsq::search::filter(&[], None);
        if enrich > 0 {
            // One warm Language Service per repository, as `tsq serve` holds;
            // its first query (loading programs) is left out.
            let ws = std::sync::Arc::new(tsq::workspace::Workspace::open(&dir)?);
            let live = || Ok(std::sync::Arc::clone(&ws));
            let view = tsq::ts::files::FileView::new(Default::default());
            let [n, m] = index.occurrence_coverage()?;
            held.push(format!("{repo} {n}/{m}"));
            for (i, q) in qs.iter().take(enrich + 1).enumerate() {
                let t = Instant::now();
                index.sync(&engine, &tsq::progress::silent())?;
                let sync = t.elapsed().as_secs_f64() * 1000.0;
                let structures = tsq::structure::Structures::new(&live, settings.call_depth);
                let a = tsq::search::search(&index, &view, &structures, None, &q.query, &filter, &settings.search())?;
                if i > 0 {
                    pipeline.push([sync, a.timings.retrieval as f64, a.timings.rerank as f64, a.timings.enrichment as f64]);
                }
            }
        }
        for q in qs {
            let mut add = |system: &str, hits: &[Hit]| {
                table.entry(repo.clone()).or_default().entry(system.to_string()).or_default().add(hits, q, &test);
                splits.entry(split_of(q)).or_default().entry(system.to_string()).or_default().add(hits, q, &test);
                if let Some(kind) = &q.kind {
                    splits.entry(format!("{}: {kind}", split_of(q))).or_default().entry(system.to_string()).or_default().add(hits, q, &test);
                }
            };
            add(systems[0], &baseline.search(&q.query, 10));
            let bm25: Vec<Hit> = index.bm25(&q.query, &filter, 10)?.iter().map(|h| hit(&h.row)).collect();
            add(systems[1], &bm25);
            if let Some(e) = index.embedder() {
                let v = e.embed_query(&q.query)?;
                let near = index.nearest(&v, &filter, 10)?;
                let rows = index.chunks_by_id(&near.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>())?;
                let hits: Vec<Hit> = near.iter().filter_map(|(id, _)| rows.iter().find(|r| &r.chunk.id == id)).map(hit).collect();
                add(systems[2], &hits);
            }
            let t = Instant::now();
            let r = tsq::search::retrieve(&index, None, &q.query, &filter, &settings.search())?;
            latency.push(t.elapsed().as_secs_f64() * 1000.0);
            let ranked = tsq::search::select::dedupe_concerns(r.ranked.clone(), &q.query);
            add(systems[3], &ranked.iter().take(10).map(|c| hit(&c.row)).collect::<Vec<_>>());
            if let Some(f) = &mut dump {
                match dump_steps {
                    Some(steps) => {
                        let r = tsq::search::retrieve(&index, None, &q.query, &filter, &tsq::search::SearchConfig { ranking: steps, ..settings.search() })?;
                        dump_query(f, q, &tsq::search::select::dedupe_concerns(r.ranked, &q.query))?
                    }
                    None => dump_query(f, q, &ranked)?,
                }
            }
            for (label, steps) in ABLATION.iter().filter(|(label, _)| wanted(label)) {
                let r = tsq::search::retrieve(&index, None, &q.query, &filter, &tsq::search::SearchConfig { ranking: *steps, ..settings.search() })?;
                let ranked = tsq::search::select::dedupe_concerns(r.ranked, &q.query);
                add(label, &ranked.iter().take(10).map(|c| hit(&c.row)).collect::<Vec<_>>());
            }
            for (label, depth, share) in RETRIEVAL.iter().filter(|(label, ..)| wanted(label)) {
                let r = tsq::search::retrieve(&index, None, &q.query, &filter, &retrieval(settings.search(), *depth, *share))?;
                let ranked = tsq::search::select::dedupe_concerns(r.ranked, &q.query);
                add(label, &ranked.iter().take(10).map(|c| hit(&c.row)).collect::<Vec<_>>());
            }
            // The concise list: the default ranking, then same-file decay.
            let concise = tsq::search::concise(&r.ranked, &q.query, 10, &|_| true);
            add(
                "  + same-file decay (concise list)",
                &concise.iter().map(|c| Hit { path: c.file_path.clone(), start: c.start_line, end: c.end_line }).collect::<Vec<_>>(),
            );
            if let Some(rr) = &reranker {
                let t = Instant::now();
                let r = tsq::search::retrieve(&index, Some(rr as &dyn tsq::embed::Reranker), &q.query, &filter, &settings.search())?;
                rerank_latency.push(t.elapsed().as_secs_f64() * 1000.0);
                let ranked = tsq::search::select::dedupe_concerns(r.ranked.clone(), &q.query);
                add("hybrid + local rerank", &ranked.iter().take(10).map(|c| hit(&c.row)).collect::<Vec<_>>());
                // The rerank weight, swept on the same reranked candidates.
                for &w in RERANK_SWEEP {
                    let mut re = r.ranked.clone();
                    for c in &mut re {
                        c.scores.final_score = w * c.scores.rerank.unwrap_or(0.0) + (1.0 - w) * c.scores.vector;
                    }
                    re.sort_by(|a, b| b.scores.final_score.total_cmp(&a.scores.final_score));
                    let re = tsq::search::select::dedupe_concerns(re, &q.query);
                    add(&format!("  + local rerank, rerank weight {w}"), &re.iter().take(10).map(|c| hit(&c.row)).collect::<Vec<_>>());
                }
            }
            // The hybrid's BM25 share, swept on the same candidates.
            for share in SWEEP {
                let mut re = r.ranked.clone();
                for c in &mut re {
                    let s = &c.scores;
                    c.scores.final_score = if index.embedder().is_some() { tsq::search::fusion::hybrid(s.bm25, s.vector, *share) } else { s.bm25 };
                }
                re.sort_by(|a, b| b.scores.final_score.total_cmp(&a.scores.final_score));
                let re = tsq::search::select::dedupe_concerns(re, &q.query);
                add(&format!("  hybrid, BM25 share {share}"), &re.iter().take(10).map(|c| hit(&c.row)).collect::<Vec<_>>());
            }
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "tsq bench search — {} queries; embedder {embedder_name}; local reranker {} (measured, not adopted)",
        queries.iter().filter(|q| repos.contains(&q.repo)).count(),
        if reranker.is_some() { crate::local_rerank::MODEL } else { "unavailable" }
    )?;
    writeln!(
        out,
        "                                      NDCG@10  R@5    MRR@10  file-NDCG@10  tests in top 3 (independent label, of queries whose answer is not a test)  NDCG@10 minus the default's [95% paired bootstrap]"
    )?;
    let print = |out: &mut dyn Write, title: &str, rows: &BTreeMap<String, Score>| -> std::io::Result<()> {
        writeln!(out, "{title}")?;
        let default = rows.get("default");
        for (system, score) in rows {
            let delta = default
                .filter(|_| system != "default")
                .and_then(|d| crate::stats::paired_interval(&score.per_query, &d.per_query))
                .map_or(String::new(), |i| format!("  {}", i.fmt()));
            writeln!(out, "  {system:<44} {}{delta}", score.fmt())?;
        }
        Ok(())
    };
    for (repo, rows) in &table {
        print(&mut out, &format!("{repo} ({} queries)", rows.values().next().map_or(0, |s| s.n)), rows)?;
    }
    for (split, rows) in &splits {
        print(&mut out, &format!("split: {split}"), rows)?;
    }
    let mut all: BTreeMap<String, Score> = BTreeMap::new();
    for rows in table.values() {
        for (system, s) in rows {
            all.entry(system.clone()).or_default().merge(s);
        }
    }
    print(&mut out, "all", &all)?;
    latency.sort_by(|a, b| a.total_cmp(b));
    if !latency.is_empty() {
        let p = |q: f64| latency[((latency.len() - 1) as f64 * q).round() as usize];
        writeln!(out, "hybrid retrieval (query embedding, BM25, vector search, fusion): p50 {:.0} ms, p95 {:.0} ms", p(0.5), p(0.95))?;
    }
    if !pipeline.is_empty() {
        let split = |i: usize| {
            let v: Vec<f64> = pipeline.iter().map(|p| p[i]).collect();
            (percentile(&v, 0.5), percentile(&v, 0.95))
        };
        let total: Vec<f64> = pipeline.iter().map(|p| p.iter().sum()).collect();
        let parts = ["sync (no change)", "retrieval", "rerank", "enrichment (index, else Language Service)"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let (p50, p95) = split(i);
                format!("{name} p50 {p50:.0} / p95 {p95:.0} ms")
            })
            .collect::<Vec<_>>()
            .join("; ");
        writeln!(
            out,
            "whole pipeline, warm ({} queries): {parts}; total p50 {:.0} / p95 {:.0} ms; structure in the index (declarations): {}",
            pipeline.len(),
            percentile(&total, 0.5),
            percentile(&total, 0.95),
            held.join(", ")
        )?;
    }
    rerank_latency.sort_by(|a, b| a.total_cmp(b));
    if !rerank_latency.is_empty() {
        let p = |q: f64| rerank_latency[((rerank_latency.len() - 1) as f64 * q).round() as usize];
        writeln!(out, "hybrid retrieval + local rerank of the top {}: p50 {:.0} ms, p95 {:.0} ms", crate::local_rerank::DEPTH, p(0.5), p(0.95))?;
    }
    Ok(ExitStatus::Success)
}

/// A corpus monorepo's git mirror (the search tool's `fetch`, under
/// `TSQ_MIRROR_DIR`, default `/work/.mirror`), as `changes.py` reads it.
/// With the commit `../shared/corpus.sh` pins.
pub(crate) fn mirror(repo: &str) -> Option<(std::path::PathBuf, &'static str)> {
    let (name, pinned) = match repo {
        "vue" => ("vuejs+core", "e2bede96134f757aad5c5b33ac9be055022dbfc8"),
        "trpc" => ("trpc+trpc", "340811ba5320637fbaf48fccf3dbfdd258bd34db"),
        "tanstack" => ("TanStack+query", "40321a0b1b3bdd0afa11f0e439642ab84cdf6afe"),
        _ => return None,
    };
    let base = std::env::var_os("TSQ_MIRROR_DIR").map_or_else(|| std::path::PathBuf::from("/work/.mirror"), std::path::PathBuf::from);
    Some((base.join(name).join("repo"), pinned)).filter(|(p, _)| p.exists())
}
