//! `tsq-bench changes`: change localization from real history (issue 45).
//! Each question is a commit subject of the repository; the truth is the
//! source files that commit changed (`benches/search-eval/changes.py`
//! writes the sets). Scored at file level, each system's ranking reduced
//! to its distinct files in order: NDCG@10, Acc@1 (the first file is one
//! the commit changed), Acc@5 (one of the first five is) and found (one
//! is among the files of all the chunks ranked: the ceiling of Acc@5 for
//! any reordering of what retrieval found), beside two
//! BM25 baselines in the same run (whole files, the SWE-bench-style
//! retrieval baseline, and the peers' 2,500-character windows). tanstack's
//! set is never tuned on and is reported apart.

use std::collections::BTreeMap;

use anyhow::Context;

use crate::eval::{self, EvalQuery, Hit, WindowBm25};
use crate::search::NO_FILE_LEVEL;
use crate::ExitStatus;
use tsq::config::Settings;
use tsq::embed::EmbedderChoice;
use tsq::index::history::History;
use tsq::index::{Index, IndexConfig};
use tsq::progress::Progress as _;
use tsq::search::rank::Steps;

/// The repository whose set is never tuned on.
const NEVER_TUNED: &str = "tanstack";
/// How many chunks each system ranks before its files are read off.
const DEPTH: usize = 60;

#[derive(Default)]
struct FileScore {
    ndcg: f64,
    acc1: f64,
    acc5: f64,
    /// A changed file is among the files of all `DEPTH` ranked chunks:
    /// the most Acc@5 any reordering of them could reach.
    found: f64,
    n: usize,
    /// Each question's NDCG@10, in the order added, for the paired interval
    /// against the default.
    per_question: Vec<f64>,
}

impl FileScore {
    fn add(&mut self, hits: &[Hit], q: &EvalQuery) {
        let files = distinct_files(hits);
        let truth = |h: &Hit| q.relevant.iter().any(|r| r.path == h.path);
        let ndcg = eval::ndcg_files(&files, &q.relevant, 10);
        self.ndcg += ndcg;
        self.per_question.push(ndcg);
        self.acc1 += f64::from(files.first().is_some_and(truth));
        self.acc5 += f64::from(files.iter().take(5).any(truth));
        self.found += f64::from(files.iter().any(truth));
        self.n += 1;
    }
    fn merge(&mut self, o: &FileScore) {
        self.ndcg += o.ndcg;
        self.acc1 += o.acc1;
        self.acc5 += o.acc5;
        self.found += o.found;
        self.n += o.n;
        self.per_question.extend_from_slice(&o.per_question);
    }
    /// The row, and its NDCG@10 minus `default`'s with the 95% paired
    /// interval (none for the default itself).
    fn fmt(&self, default: &FileScore) -> String {
        let n = self.n.max(1) as f64;
        let delta = if std::ptr::eq(self, default) {
            String::new()
        } else {
            crate::stats::paired_interval(&self.per_question, &default.per_question).map_or(String::new(), |i| format!("  {}", i.fmt()))
        };
        format!("{:.3}     {:.3}  {:.3}  {:.3}{delta}", self.ndcg / n, self.acc1 / n, self.acc5 / n, self.found / n)
    }
}

/// The first hit of each file, in order.
fn distinct_files(hits: &[Hit]) -> Vec<Hit> {
    let mut seen = std::collections::HashSet::new();
    hits.iter().filter(|h| seen.insert(h.path.clone())).cloned().collect()
}

/// With `TSQ_BENCH_DUMP=<file>`, each question's first ten files of the
/// default's ranking, the changed ones marked, appended to that file.
/// Each file's score (its first chunk's) and the question's history votes
/// follow, for studying how the two combine.
fn dump(q: &EvalQuery, hits: &[Hit], scores: &[f64], votes: &[(String, f64)]) {
    use std::io::Write;
    let Some(path) = std::env::var_os("TSQ_BENCH_DUMP") else { return };
    let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) else { return };
    let mut seen = std::collections::HashSet::new();
    let files: Vec<(&Hit, f64)> = hits.iter().zip(scores.iter().copied().chain(std::iter::repeat(0.0))).filter(|(h, _)| seen.insert(h.path.clone())).collect();
    let truth = |p: &str| q.relevant.iter().any(|r| r.path == p);
    let _ = writeln!(f, "## {} {}", q.id, q.query);
    for (i, (h, s)) in files.iter().take(30).enumerate() {
        let _ = writeln!(f, "{i:>3} {} {s:.4} {}", if truth(&h.path) { "*" } else { " " }, h.path);
    }
    for (file, v) in votes {
        let _ = writeln!(f, "  vote {v:.4} {file}");
    }
    let files: Vec<&Hit> = files.into_iter().map(|(h, _)| h).collect();
    for r in &q.relevant {
        let at = files.iter().position(|h| h.path == r.path);
        let _ = writeln!(f, "  changed {} at {}", r.path, at.map_or("-".to_string(), |i| i.to_string()));
    }
}

/// With `TSQ_BENCH_FEATURES=<file>`, one JSON line per question for
/// studying file-level orderings offline: the default's ranked chunks (or
/// those of the row named exactly by `TSQ_BENCH_FEATURES_ROW`)
/// (path, final score, normalized BM25 and vector, role), BM25 over whole
/// files (path, score) and the history votes.
fn features(q: &EvalQuery, ranked: &[tsq::search::Ranked], whole: &[(Hit, f64)], votes: &[(String, f64)]) {
    use std::io::Write;
    let Some(path) = std::env::var_os("TSQ_BENCH_FEATURES") else { return };
    let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) else { return };
    let chunks: Vec<serde_json::Value> = ranked
        .iter()
        .map(|c| {
            serde_json::json!([
                crate::search::hit(&c.row).path,
                c.scores.final_score,
                c.scores.bm25,
                c.scores.vector,
                format!("{:?}", c.role),
                c.row.chunk.node_kind
            ])
        })
        .collect();
    let line = serde_json::json!({
        "id": q.id,
        "query": q.query,
        "relevant": q.relevant.iter().map(|r| r.path.clone()).collect::<Vec<_>>(),
        "chunks": chunks,
        "whole": whole.iter().map(|(h, s)| serde_json::json!([h.path, s])).collect::<Vec<_>>(),
        "votes": votes,
    });
    let _ = writeln!(f, "{line}");
}

fn queries(repo: &str, set: Option<&str>) -> anyhow::Result<Vec<EvalQuery>> {
    let name = set.map_or_else(|| format!("changes-{repo}"), |s| format!("changes-{s}-{repo}"));
    let path = format!("{}/../../benches/search-eval/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).with_context(|| format!("{path}: run benches/search-eval/changes.py first"))?;
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).map_err(Into::into)).collect()
}

/// One system of the table: its label, its ranking steps (`None`: a BM25
/// baseline), and the candidate depth and BM25 share it changes
/// (`search::RETRIEVAL`; `None`: the default's).
type System = (String, Option<Steps>, Option<usize>, Option<f64>);

pub fn run(repos: &[String], embedder: EmbedderChoice, set: Option<&str>, rows: &[String]) -> anyhow::Result<ExitStatus> {
    let engine = tsq::parse_pool::ParsePool::new(&Default::default())?;
    let settings = Settings::default();
    let systems: Vec<System> = [
        ("BM25 over whole files", None),
        ("BM25 over 2,500-char windows", None),
        ("tsq, default before issue 45", Some(crate::search::BEFORE_45)),
        ("tsq, default, BM25 reads every word", Some(Steps { stop_words: false, ..Steps::DEFAULT })),
        ("tsq, default, path lift 0.3 for the boost", Some(Steps { path_top: 0.0, ..Steps::DEFAULT })),
        ("tsq, default, path boost 1.0", Some(Steps { path_top: 1.0, ..Steps::DEFAULT })),
        ("tsq, default, path boost 0.5", Some(Steps { path_top: 0.5, ..Steps::DEFAULT })),
        ("tsq, default, every path word counts fully", Some(Steps { path_specificity: false, ..Steps::DEFAULT })),
        ("tsq, default without declaration syntax", Some(Steps { definition_syntax: false, ..Steps::DEFAULT })),
        ("tsq, default without symbol queries", Some(Steps { symbols: false, ..Steps::DEFAULT })),
        ("tsq, default without the comment rules", Some(Steps { comments: false, ..Steps::DEFAULT })),
        ("tsq, default without the one-line noise rule", Some(Steps { noise: false, ..Steps::DEFAULT })),
        ("tsq, default without re-exports", Some(Steps { reexports: false, ..Steps::DEFAULT })),
        ("tsq, before file-level, history evidence 0.25", Some(Steps { history: 0.25, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, history evidence 0.5", Some(Steps { history: 0.5, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, history evidence 1.0", Some(Steps { history: 1.0, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, relative history evidence 0.25", Some(Steps { history: 0.25, history_relative: true, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, relative history evidence 0.5", Some(Steps { history: 0.5, history_relative: true, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, relative history evidence 1.0", Some(Steps { history: 1.0, history_relative: true, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, whole files 0.15", Some(Steps { whole_files: 0.15, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, whole files 0.3", Some(Steps { whole_files: tsq::search::rank::WHOLE_FILES, ..NO_FILE_LEVEL })),
        ("tsq, before file-level, whole files 0.5", Some(Steps { whole_files: 0.5, ..NO_FILE_LEVEL })),
        ("tsq, default without history evidence", Some(Steps { history: 0.0, ..Steps::DEFAULT })),
        ("tsq, default without whole-file evidence", Some(Steps { whole_files: 0.0, ..Steps::DEFAULT })),
        ("tsq, default without either file-level signal", Some(Steps { history: 0.0, whole_files: 0.0, ..Steps::DEFAULT })),
        ("tsq, default before the twelfth pass", Some(Steps { data_as_types: false, ..Steps::DEFAULT })),
        ("tsq, default without the type step", Some(Steps { types: 1.0, ..Steps::DEFAULT })),
        ("tsq, default without test lending", Some(Steps { test_lending: false, ..Steps::DEFAULT })),
        ("tsq, default without call lending", Some(Steps { call_lending: false, ..Steps::DEFAULT })),
        ("tsq, default without the usage prior", Some(Steps { usage: tsq::search::rank::Prior::Off, ..Steps::DEFAULT })),
    ]
    .into_iter()
    .map(|(name, steps)| (name.to_string(), steps, None, None))
    .chain(crate::search::RETRIEVAL.iter().map(|(name, depth, share)| (format!("tsq, {}", name.trim_start()), Some(Steps::DEFAULT), *depth, *share)))
    .chain([("tsq, default".to_string(), Some(Steps::DEFAULT), None, None)])
    .enumerate()
    // The BM25 baselines (rows 0 and 1) and the default (last) always run.
    .filter(|(i, (name, steps, ..))| {
        *i < 2 || *name == "tsq, default" || rows.is_empty() || (rows.iter().any(|r| name.contains(r.as_str())) && steps.is_some())
    })
    .map(|(_, s)| s)
    .collect();
    // Each question's history is read (a `git log` of its parent) only
    // when a row uses it.
    let wants_history = systems.iter().any(|(_, s, ..)| s.is_some_and(|s| s.history > 0.0));
    let mut table: BTreeMap<String, Vec<FileScore>> = BTreeMap::new();
    let mut embedder_name = String::new();
    let mut vote_ms: Vec<(f64, f64)> = Vec::new();
    for repo in repos {
        let qs = queries(repo, set)?;
        let dir = crate::search::workspace(repo)?;
        crate::search::index_as_shipped(&dir, embedder)?;
        let mut index = Index::open(&dir, &IndexConfig { embedder, warm_vectors: true, ..Default::default() })?;
        let progress = crate::PhaseLines::new();
        eprintln!("bench changes: {repo}: indexing {}", dir.display());
        index.sync(&engine, &progress)?;
        index.embed_missing(None, &progress)?;
        progress.finish();
        embedder_name = index.embedder_name();
        let files = crate::search::files_of(&dir);
        let whole = WindowBm25::new(&files, usize::MAX / 2, 0);
        let windows = WindowBm25::new(&files, 2500, 300);
        let filter = tsq::search::filter(&[], None);
        let scores = table.entry(repo.clone()).or_insert_with(|| systems.iter().map(|_| FileScore::default()).collect());
        let held: std::collections::HashSet<String> = index.indexed_paths()?.iter().cloned().collect();
        let mirror = crate::search::mirror(repo).map(|(m, _)| m);
        if mirror.is_none() {
            eprintln!("bench changes: {repo}: no git mirror (fetch it); the history rows rank without history");
        }
        for q in &qs {
            // Only the commits before the question's own.
            let history =
                q.commit.as_ref().zip(mirror.as_ref().filter(|_| wants_history)).and_then(|(c, m)| History::of_git_dir(m, &format!("{c}^"))).map(|mut h| {
                    h.retain_files(|f| held.contains(f));
                    h
                });
            index.set_history(history);
            let mut scores_of_default = Vec::new();
            // The ranked chunks of the default (the last system), or of the
            // row `TSQ_BENCH_FEATURES_ROW` names, for the features dump.
            let mut ranked_by_default = Vec::new();
            let features_row = std::env::var("TSQ_BENCH_FEATURES_ROW").ok();
            for (i, (name, steps, depth, share)) in systems.iter().enumerate() {
                let hits = match (i, steps) {
                    (0, _) => whole.search(&q.query, DEPTH),
                    (1, _) => windows.search(&q.query, DEPTH),
                    (_, Some(steps)) => {
                        let s = crate::search::retrieval(tsq::search::SearchConfig { ranking: *steps, ..settings.search() }, *depth, *share);
                        let r = tsq::search::retrieve(&index, None, &q.query, &filter, &s)?;
                        let ranked = tsq::search::select::dedupe_concerns(r.ranked, &q.query);
                        scores_of_default = ranked.iter().take(DEPTH).map(|c| c.scores.final_score).collect();
                        let hits = ranked.iter().take(DEPTH).map(|c| crate::search::hit(&c.row)).collect();
                        if features_row.as_deref().is_none_or(|r| name == r) {
                            ranked_by_default = ranked;
                        }
                        hits
                    }
                    _ => unreachable!(),
                };
                if i == systems.len() - 1 {
                    let votes = index.history().map(|h| {
                        // The first question of a handle reads every subject's terms
                        // (here a fresh copy's); later ones reuse them.
                        let fresh = History { head: h.head.clone(), commits: h.commits.clone(), terms: Default::default() };
                        let t = std::time::Instant::now();
                        let votes = tsq::search::history::votes(&fresh, &q.query, false);
                        let first = t.elapsed().as_secs_f64() * 1000.0;
                        let t = std::time::Instant::now();
                        tsq::search::history::votes(&fresh, &q.query, false);
                        vote_ms.push((first, t.elapsed().as_secs_f64() * 1000.0));
                        votes
                    });
                    let votes = votes.unwrap_or_default();
                    dump(q, &hits, &scores_of_default, &votes);
                    if std::env::var_os("TSQ_BENCH_FEATURES").is_some() {
                        let ranked = &ranked_by_default[..ranked_by_default.len().min(DEPTH)];
                        features(q, ranked, &whole.search_scored(&q.query, DEPTH), &votes);
                    }
                }
                scores[i].add(&hits, q);
            }
        }
    }
    if !vote_ms.is_empty() {
        let first: Vec<f64> = vote_ms.iter().map(|v| v.0).collect();
        let later: Vec<f64> = vote_ms.iter().map(|v| v.1).collect();
        eprintln!(
            "bench changes: history votes over {} questions: first of a handle p50 {:.1} ms, later p50 {:.1} ms",
            vote_ms.len(),
            crate::parse::percentile(&first, 0.5),
            crate::parse::percentile(&later, 0.5)
        );
    }
    println!("tsq-bench changes — commit subjects to the files they changed; embedder {embedder_name}; file level");
    println!("{:<54}NDCG@10   Acc@1  Acc@5  found (a changed file among the {DEPTH} chunks' files)  NDCG@10 minus the default's [95% paired bootstrap]", "");
    let mut tuned: Vec<FileScore> = systems.iter().map(|_| FileScore::default()).collect();
    for (repo, scores) in &table {
        let label =
            if repo == NEVER_TUNED { format!("{repo} (never tuned, {} questions)", scores[0].n) } else { format!("{repo} ({} questions)", scores[0].n) };
        println!("{label}");
        let default = scores.last().expect("the default is the last system");
        for ((name, ..), s) in systems.iter().zip(scores) {
            println!("  {name:<52}{}", s.fmt(default));
        }
        if repo != NEVER_TUNED {
            tuned.iter_mut().zip(scores).for_each(|(t, s)| t.merge(s));
        }
    }
    if tuned[0].n > 0 {
        println!("all but the never-tuned set ({} questions)", tuned[0].n);
        let default = tuned.last().expect("the default is the last system");
        for ((name, ..), s) in systems.iter().zip(&tuned) {
            println!("  {name:<52}{}", s.fmt(default));
        }
    }
    Ok(ExitStatus::Success)
}
