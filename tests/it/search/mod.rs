//! Natural-language search (blueprint phases 8 and 9): the pure stages with
//! a deterministic embedder, LanceDB-level path filters, the one output
//! path, and end to end with the real local model; the ranking steps on
//! workspaces of their own are in `ranking.rs`.

use crate::common;

use common::TempDir;
use tsq::answer::{LookupMatch, Snapshot, SymbolRef};
use tsq::config::Settings;
use tsq::embed::{Document, EmbedError, Embedder, EmbedderId};
use tsq::index::{Filter, Index, IndexConfig};
use tsq::lookup::{assemble, Frame, LookupResultItem};
use tsq::search::select::{self, Candidate};

/// Bag-of-words vectors over a fixed vocabulary: a query and a chunk are
/// similar when they share words. Deterministic, no model.
struct WordEmbedder;

/// The file-level signals (whole-file evidence; no history without a
/// repository) lift every candidate of a file by one amount, which the
/// exact arithmetic the step tests pin would not show through: off there.
const FILE_LEVEL_OFF: &str = "wholeFileEvidence = false\n";

const VOCAB: &[&str] = &["token", "refresh", "expired", "retry", "backoff", "cache", "csv", "slug", "password", "event", "rate", "time"];

fn words(text: &str) -> Vec<f32> {
    let lower = text.to_lowercase();
    let mut v: Vec<f32> = VOCAB.iter().map(|w| lower.matches(w).count() as f32).collect();
    v.push(0.01);
    tsq::embed::normalize(&mut v);
    v
}

impl Embedder for WordEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: "test-words".into(), dimension: VOCAB.len() + 1 }
    }
    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        Ok(docs.iter().map(|d| vec![words(d.text)]).collect())
    }
    fn embed_query(&self, q: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(words(q))
    }
}

/// A copy of `fixtures/search`.
fn workspace(name: &str) -> TempDir {
    TempDir::copy_of(&common::repo().join("fixtures/search"), &format!("search-{name}"))
}

fn indexed(ws: &TempDir, embedder: Option<Box<dyn Embedder>>) -> Index {
    let mut index = Index::open_with(&ws.0, &IndexConfig::default(), embedder).unwrap();
    index.sync(common::engine(), &tsq::progress::silent()).unwrap();
    index.embed_missing(None, &tsq::progress::silent()).unwrap();
    index
}

fn settings() -> tsq::search::SearchConfig {
    Settings::default().search()
}

#[test]
fn path_filters_are_prefilters_in_lancedb() {
    let ws = workspace("prefilter");
    let index = indexed(&ws, Some(Box::new(WordEmbedder)));
    // Every strong match for "refresh expired token" is in src/auth; scoped
    // to src/util, only util chunks may come back, however weak.
    let filter = tsq::search::filter(&["src/util/".to_string()], None);
    let r = tsq::search::retrieve(&index, None, "refresh the expired access token", &filter, &settings()).unwrap();
    assert!(!r.ranked.is_empty(), "weak in-scope matches still come back");
    for c in &r.ranked {
        assert!(c.row.chunk.relative_path.starts_with("src/util/"), "out of scope: {}", c.row.chunk.relative_path);
    }
    // The same at the LanceDB level for each signal, with a limit of 1: a
    // post-filter would have dropped the global best (tokens.ts) and
    // returned nothing; "time" matches weakly in src/util/dates.ts.
    let global = index.bm25("refresh expired token time", &Default::default(), 1).unwrap();
    assert_eq!(global[0].row.chunk.relative_path, "src/auth/tokens.ts");
    let scoped = index.bm25("refresh expired token time", &filter, 1).unwrap();
    assert_eq!(scoped.len(), 1);
    assert!(scoped[0].row.chunk.relative_path.starts_with("src/util/"));
    assert_eq!(index.nearest(&words("refresh expired token"), &filter, 1).unwrap().len(), 1);
    let js = tsq::search::filter(&[], Some("javascript"));
    let r = tsq::search::retrieve(&index, None, "publish subscribe event listeners", &js, &settings()).unwrap();
    assert!(r.ranked.iter().all(|c| c.row.chunk.relative_path.ends_with(".js")));
    // Imports never rank.
    let all = tsq::search::retrieve(&index, None, "import retryWithBackoff from net retry", &Default::default(), &settings()).unwrap();
    assert!(
        all.ranked.iter().all(|c| c.row.chunk.node_kind != "import"),
        "{:?}",
        all.ranked.iter().map(|c| (&c.row.chunk.node_kind, &c.row.chunk.name, c.scores.bm25, c.scores.vector)).collect::<Vec<_>>()
    );
}

#[test]
fn retrieval_ranks_the_expected_chunk_first_with_the_test_embedder() {
    let ws = workspace("ranking");
    let index = indexed(&ws, Some(Box::new(WordEmbedder)));
    let r = tsq::search::retrieve(&index, None, "refresh an expired token", &Default::default(), &settings()).unwrap();
    assert_eq!(r.ranked[0].row.chunk.name, "refreshAccessToken");
    assert_eq!(r.backends.embedder, "test-words");
    assert_eq!(r.backends.reranker, "none");
    // Scores are in [0, 1] and sorted.
    assert!(r.ranked.windows(2).all(|w| w[0].scores.final_score >= w[1].scores.final_score));
    assert!(r.ranked.iter().all(|c| (0.0..=1.0).contains(&c.scores.final_score)));
}

#[derive(Clone)]
struct Fake(String, Option<String>, f64);
impl Candidate for Fake {
    fn id(&self) -> &str {
        &self.0
    }
    fn parent_id(&self) -> Option<&str> {
        self.1.as_deref()
    }
    fn final_score(&self) -> f64 {
        self.2
    }
    fn name(&self) -> &str {
        &self.0
    }
    fn kind(&self) -> &str {
        "function"
    }
}

fn item(file: &str, name: &str, score: f64) -> LookupResultItem {
    LookupResultItem {
        location: LookupMatch {
            symbol: SymbolRef { name: name.into(), kind: "function".into(), file_path: Some(file.into()), line: Some(1), is_abstract: None },
            qualified_name: name.into(),
            start_line: 1,
            end_line: 10,
            project: String::new(),
        },
        score,
        metadata: None,
    }
}

fn snap(file: &str, chars: usize) -> Snapshot {
    Snapshot { file_path: file.into(), text: format!("// {file}\n{}\n", "x".repeat(chars)) }
}

fn frame(budget: usize) -> Frame {
    Frame { query: "q".into(), backends: Some("embedder: test".into()), search: true, budget, note: None }
}

#[test]
fn token_budget_keeps_whole_results_that_fit() {
    // Ten results in ten files of ~250 tokens each; 1,500 tokens fit five.
    let results: Vec<LookupResultItem> = (0..10).map(|i| item(&format!("f{i}.ts"), &format!("r{i}"), 0.9 - i as f64 * 0.01)).collect();
    let snaps: Vec<Snapshot> = (0..10).map(|i| snap(&format!("f{i}.ts"), 1000)).collect();
    let a = assemble(&frame(1500), results, snaps, Vec::new());
    assert_eq!(a.results.len(), 5);
    assert_eq!(a.omitted, 5);
    assert!(a.tokens <= 1500);
    assert_eq!(a.tokens, tsq::chunk::estimate_tokens(&a.text), "the summary's count is the response's");
    assert!(a.text.starts_with("Search: \"q\" | 5 results across 5 files | "));
    assert!(a.text.lines().next().unwrap().ends_with("| embedder: test"), "backends in the summary");
}

#[test]
fn combined_gate_and_budget() {
    // Ten candidates, four pass the gate, the budget fits three.
    let cands: Vec<Fake> = (0..10).map(|i| Fake(format!("c{i}"), None, if i < 4 { 0.9 - i as f64 * 0.05 } else { 0.3 })).collect();
    let (kept, passed) = select::select(cands, "q", 0.5);
    assert!(passed);
    assert_eq!(kept.len(), 4);
    let results: Vec<LookupResultItem> = kept.iter().map(|c| item(&format!("{}.ts", c.0), &c.0, c.2)).collect();
    let snaps: Vec<Snapshot> = kept.iter().map(|c| snap(&format!("{}.ts", c.0), 1000)).collect();
    let a = assemble(&frame(900), results, snaps, Vec::new());
    assert_eq!(a.results.len(), 3);
    assert_eq!(a.results.iter().map(|r| r.location.qualified_name.as_str()).collect::<Vec<_>>(), vec!["c0", "c1", "c2"]);
}

#[test]
fn single_result_and_same_file_merge() {
    let a = assemble(&frame(8000), vec![item("a.ts", "one", 0.9)], vec![snap("a.ts", 40)], Vec::new());
    assert!(a.text.starts_with("Search: \"q\" | 1 result | "));
    assert_eq!(a.snapshots.len(), 1);
    // Two results in one file share one snapshot.
    let a = assemble(&frame(8000), vec![item("a.ts", "one", 0.9), item("a.ts", "two", 0.8)], vec![snap("a.ts", 40)], Vec::new());
    assert_eq!((a.results.len(), a.snapshots.len()), (2, 1));
    assert!(a.text.contains("2 results across 1 files"));
}

#[test]
fn empty_results_are_a_clean_answer() {
    let a = assemble(&frame(8000), Vec::new(), Vec::new(), Vec::new());
    assert!(a.text.contains("No results."), "{}", a.text);
    assert!(a.results.is_empty());
    let ws = workspace("empty");
    let index = indexed(&ws, None);
    let r = tsq::search::retrieve(&index, None, "zzzqqq xylophone", &Default::default(), &settings()).unwrap();
    assert!(r.ranked.is_empty());
    assert!(tsq::search::retrieve(&index, None, "   ", &Default::default(), &settings()).is_err(), "an empty query is an error");
}

/// The built-in model: in the binary on every machine, so never skipped.
fn local_model() -> Box<dyn Embedder> {
    Box::new(tsq::embed::local::LocalEmbedder::load().expect("the built-in model loads"))
}

#[test]
fn end_to_end_with_the_local_model() {
    let model = local_model();
    let ws = workspace("local");
    let index = indexed(&ws, Some(model));
    assert_eq!(index.embedder_name(), "all-MiniLM-L6-v2-int8-w4-a8-words");
    let (with, all) = index.vector_coverage().unwrap();
    assert_eq!(with, all, "tsq index embeds everything");
    let workspace = std::sync::Arc::new(tsq::workspace::Workspace::open(&ws.0).unwrap());
    let live = || Ok(std::sync::Arc::clone(&workspace));
    let structures = tsq::structure::Structures::new(&live, Settings::default().call_depth);
    for (query, expected) in [
        ("where do we get a new access token once the old one has expired?", "refreshAccessToken"),
        ("wait longer between attempts after each failure", "retryWithBackoff"),
        ("evict the least recently used entry", "LruCache"),
        ("split comma separated lines into fields", "parseCsv"),
        ("show how long ago something happened", "formatRelativeTime"),
        ("limit how many requests a client can make per second", "RateLimiter"),
    ] {
        let r = tsq::search::retrieve(&index, None, query, &Default::default(), &settings()).unwrap();
        let top = &r.ranked[0].row.chunk;
        let name = top.parent_name.clone().filter(|_| top.depth > 0).unwrap_or_else(|| top.name.clone());
        assert!(name == expected || top.name == expected, "{query}: got {} ({})", top.name, top.breadcrumb);
        // The full pipeline: graph first, snapshots, the summary's backends.
        let answer =
            tsq::search::search(&index, &tsq::ts::files::FileView::new(Default::default()), &structures, None, query, &Default::default(), &settings())
                .unwrap();
        assert!(answer.answer.text.starts_with(&format!("Search: \"{query}\" | ")), "{}", answer.answer.text);
        assert!(answer.answer.text.lines().next().unwrap().contains("embedder: all-MiniLM-L6-v2-int8-w4-a8-words, reranker: none"));
        assert_eq!(answer.answer.tokens, tsq::chunk::estimate_tokens(&answer.answer.text));
        assert!(answer.answer.results.iter().any(|r| r.location.qualified_name.contains(expected)), "{query}: {}", answer.answer.text);
    }
}

/// Sorted by similarity, then id; similarities to 5 decimals (the two
/// searches sum in different orders).
fn by_similarity(mut v: Vec<(String, f32)>) -> Vec<(String, i64)> {
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.into_iter().map(|(id, s)| (id, (s * 1e5).round() as i64)).collect()
}

#[test]
fn warm_vectors_answer_as_lancedbs_flat_search_and_see_every_write() {
    let ws = workspace("warm-vectors");
    let writer = indexed(&ws, Some(Box::new(WordEmbedder)));
    let warm = Index::open_with(&ws.0, &IndexConfig { warm_vectors: true, ..Default::default() }, Some(Box::new(WordEmbedder))).unwrap();
    let filters = [
        Filter::default(),
        tsq::search::filter(&["src/util/".to_string()], None),
        tsq::search::filter(&[], Some("javascript")),
        tsq::search::filter(&["src/auth/*.ts".to_string()], Some("typescript")),
    ];
    for q in ["refresh expired token", "retry with backoff", "csv slug", "rate time event"] {
        for f in &filters {
            let lance = writer.nearest_with(&words(q), f, 1000, true).unwrap();
            let memory = warm.nearest(&words(q), f, 1000).unwrap();
            assert!(!lance.is_empty(), "{q:?} {f:?}");
            assert_eq!(by_similarity(memory), by_similarity(lance), "{q:?} {f:?}");
        }
    }
    // The ranking evidence held in memory is what the tables say.
    let files: Vec<String> = ["src/auth/tokens.ts", "src/util/events.js", "src/nowhere.ts"].iter().map(|s| s.to_string()).collect();
    let symbols = vec!["src/auth/tokens.ts > refreshAccessToken".to_string()];
    assert_eq!(warm.candidate_evidence(&files, &symbols).unwrap(), writer.candidate_evidence(&files, &symbols).unwrap());
    assert_eq!(warm.candidate_evidence(&files, &symbols).unwrap().0.len(), 2, "two files have chunks");
    // The clear best, with a limit of 1.
    assert_eq!(
        warm.nearest(&words("refresh expired token"), &Filter::default(), 1).unwrap(),
        writer.nearest_with(&words("refresh expired token"), &Filter::default(), 1, true).unwrap()
    );
    // A write by another handle (another process in `tsq serve`'s case) is
    // seen by the next query: the copy is of one table version.
    std::fs::write(ws.0.join("src/util/password.ts"), "export function hashPassword(password: string) { return password + password; }\n").unwrap();
    let mut writer = writer;
    writer.sync(common::engine(), &tsq::progress::silent()).unwrap();
    writer.embed_missing(None, &tsq::progress::silent()).unwrap();
    let added: Vec<String> =
        writer.all_chunks(&Filter::default()).unwrap().into_iter().filter(|r| r.chunk.name == "hashPassword").map(|r| r.chunk.id).collect();
    assert_eq!(added.len(), 1);
    assert!(warm.nearest(&words("password"), &Filter::default(), 1000).unwrap().iter().any(|(id, _)| id == &added[0]), "the new chunk is searched");
    assert_eq!(
        by_similarity(warm.nearest(&words("password"), &Filter::default(), 1000).unwrap()),
        by_similarity(writer.nearest_with(&words("password"), &Filter::default(), 1000, true).unwrap())
    );
}

mod ranking;
