//! Natural-language search (blueprint phases 8 and 9): the pure stages with
//! a deterministic embedder, LanceDB-level path filters, the one output
//! path, and end to end with the real local model.

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

/// The ranking steps on a fixture workspace (BM25 only): a test file that
/// repeats the query's words ranks below the implementation; an identifier
/// query puts its definition first; the concise list decays a file's
/// further chunks so that a second file shows; each record names its role.
#[test]
fn ranking_demotes_tests_boosts_definitions_and_diversifies_the_concise_list() {
    let ws = common::TempDir::new("ranking-steps");
    ws.write("tsconfig.json", b"{ \"compilerOptions\": { \"strict\": true }, \"include\": [\"src\"] }\n");
    ws.write(
        "src/http/body.ts",
        b"/** Parses the request body of an incoming request as JSON. */\nexport function parseBody(raw: string): unknown {\n  return JSON.parse(raw);\n}\n\n/** Reads the raw request body text. */\nexport function readBody(chunks: string[]): string {\n  return chunks.join('');\n}\n\n/** Limits the request body size. */\nexport function limitBody(raw: string, max: number): string {\n  return raw.slice(0, max);\n}\n",
    );
    ws.write(
        "src/http/body.test.ts",
        b"import { parseBody } from './body';\n\n/** request body parsing: parses the request body, request body parsed, body parsed as JSON */\nexport function testParseRequestBody() {\n  const body = parseBody('{\"request\": \"body\"}');\n  if (!body) throw new Error('request body was not parsed');\n}\n",
    );
    ws.write("src/http/headers.ts", b"/** Parses request headers into a map. */\nexport function parseHeaders(raw: string): Map<string, string> {\n  return new Map(raw.split('\\n').map((l) => l.split(': ') as [string, string]));\n}\n");
    ws.write("tsq.toml", b"embedder = \"none\"\n");
    let engine = tsq::api::Engine::open(&ws.0, Default::default()).unwrap();
    engine.index(tsq::api::StructureMode::None, &tsq::progress::silent()).unwrap();
    let concise = |query: &str| -> Vec<tsq::lookup::ConciseResult> {
        let req = engine.request(tsq::api::QueryInput { query: query.into(), shape: tsq::api::Shape::Concise, ..Default::default() }).unwrap();
        match engine.query(&req, &tsq::progress::silent()).unwrap() {
            tsq::api::Answer::Concise(c) => c.results,
            _ => unreachable!(),
        }
    };
    let r = concise("where is the request body parsed as JSON?");
    assert_eq!(r[0].file_path, "src/http/body.ts", "{:?}", r.iter().map(|x| &x.file_path).collect::<Vec<_>>());
    assert_eq!(r[0].role, "implementation");
    let test = r.iter().find(|x| x.file_path.ends_with("body.test.ts")).expect("the test is still listed");
    assert_eq!(test.role, "test");
    // The test repeats the query's words more than any implementation, yet
    // both implementation files come before it.
    let at = |f: &str| r.iter().position(|x| x.file_path == f).unwrap();
    assert!(at("src/http/body.test.ts") > at("src/http/headers.ts"), "{:?}", r.iter().map(|x| &x.file_path).collect::<Vec<_>>());
    // Asked for, tests are not demoted.
    let r = concise("tests of request body parsing");
    assert_eq!(r[0].file_path, "src/http/body.test.ts");
    // An identifier: its definition first.
    let r = concise("limitBody");
    assert_eq!(
        (r[0].file_path.as_str(), r[0].start_line),
        ("src/http/body.ts", 11),
        "{:?}",
        r.iter().map(|x| (&x.file_path, x.start_line)).collect::<Vec<_>>()
    );
    // Decay: body.ts's three request-body chunks do not take the whole top 3.
    let r = concise("parse request");
    let top3: Vec<&str> = r.iter().take(3).map(|x| x.file_path.as_str()).collect();
    assert!(top3.contains(&"src/http/headers.ts"), "a second file in the top 3: {top3:?}");
}

/// Parent and child: a question that names a class (or says "class") gets
/// the class, not its best-matching method; one that names neither gets
/// the more specific method.
#[test]
fn a_question_naming_a_class_keeps_the_class() {
    let ws = common::TempDir::new("ranking-parents");
    ws.write("tsconfig.json", b"{ \"compilerOptions\": { \"strict\": true }, \"include\": [\"src\"] }\n");
    ws.write(
        "src/session.ts",
        b"/** Keeps user sessions between requests. */\nexport class SessionStore {\n  private sessions = new Map<string, string>();\n\n  /** Persists a user session to the session map. */\n  persistSession(id: string, data: string): void {\n    this.sessions.set(id, data);\n  }\n\n  /** Drops an expired session. */\n  dropSession(id: string): void {\n    this.sessions.delete(id);\n  }\n}\n",
    );
    ws.write("tsq.toml", b"embedder = \"none\"\n");
    let engine = tsq::api::Engine::open(&ws.0, Default::default()).unwrap();
    engine.index(tsq::api::StructureMode::None, &tsq::progress::silent()).unwrap();
    let lines = |query: &str| -> Vec<u32> {
        let req = engine.request(tsq::api::QueryInput { query: query.into(), shape: tsq::api::Shape::Concise, ..Default::default() }).unwrap();
        match engine.query(&req, &tsq::progress::silent()).unwrap() {
            tsq::api::Answer::Concise(c) => c.results.iter().map(|r| r.start_line).collect(),
            _ => unreachable!(),
        }
    };
    // The class starts at line 1 (its JSDoc), `persistSession` at 5.
    for q in ["how does SessionStore persist a user session", "which class persists user sessions"] {
        let got = lines(q);
        assert_eq!(got.first(), Some(&1), "{q}: {got:?}");
        assert!(!got.contains(&5), "{q}: the class holds the method: {got:?}");
    }
    let got = lines("persist a user session");
    assert_eq!(got.first(), Some(&5), "{got:?}");
}

/// The type step (`demoteTypes`): an options interface in a types module
/// gives way to the function that does what the question asks (×0.7); a
/// config interface beside the function that answers keeps its place; a
/// question that asks for options or names the type demotes nothing.
#[test]
fn type_declarations_give_way_to_the_behaviour_a_question_asks_for() {
    let ws = common::TempDir::new("ranking-types");
    ws.write("tsconfig.json", b"{ \"compilerOptions\": { \"strict\": true }, \"include\": [\"src\"] }\n");
    ws.write(
        "src/types.ts",
        b"export interface RetryOptions {\n  /** How long to wait before the next attempt: the delay grows with exponential backoff per failed attempt. */\n  retryDelay?: number\n}\n",
    );
    ws.write(
        "src/retryer.ts",
        b"/** Waits before the next attempt. */\nexport function nextDelay(failures: number): number {\n  return Math.min(1000 * 2 ** failures, 30000);\n}\n",
    );
    ws.write(
        "src/throttle.ts",
        b"export interface ThrottleConfig {\n  /** Emit on the trailing edge of the silencing window. */\n  trailing?: boolean\n}\n\n/** Emits a value, then ignores values for the silencing window; the trailing edge emits the last one. */\nexport function throttle(windowMs: number, config: ThrottleConfig): void {\n  void windowMs;\n  void config;\n}\n\n/** Counts the values ignored during the silencing window. */\nexport interface ThrottleStats {\n  ignored: number\n}\n",
    );
    let structure = std::cell::Cell::new(tsq::api::StructureMode::None);
    let ranked = |extra: &str, query: &str| -> Vec<((String, u32), f64)> {
        ws.write("tsq.toml", format!("embedder = \"none\"\n{FILE_LEVEL_OFF}{extra}\n").as_bytes());
        let engine = tsq::api::Engine::open(&ws.0, Default::default()).unwrap();
        engine.index(structure.get(), &tsq::progress::silent()).unwrap();
        let req = engine.request(tsq::api::QueryInput { query: query.into(), shape: tsq::api::Shape::Concise, ..Default::default() }).unwrap();
        match engine.query(&req, &tsq::progress::silent()).unwrap() {
            tsq::api::Answer::Concise(c) => c.results.iter().map(|r| ((r.file_path.clone(), r.start_line), r.score)).collect(),
            _ => unreachable!(),
        }
    };
    let score = |r: &[((String, u32), f64)], f: &str, line: u32| r.iter().find(|x| x.0 .0 == f && x.0 .1 == line).map_or(0.0, |x| x.1);
    let member = ("src/types.ts", 2);

    let q = "how long is the delay before the next failed attempt with exponential backoff?";
    let (off, on) = (ranked("demoteTypes = false", q), ranked("", q));
    let before = score(&off, member.0, member.1);
    assert!(before > score(&off, "src/retryer.ts", 2), "off, the documented option outranks the function: {off:?}");
    assert!((score(&on, member.0, member.1) - before * 0.7).abs() < 0.002, "on, it is demoted ×0.7: off {off:?}, on {on:?}");
    assert_eq!(score(&on, "src/retryer.ts", 2), score(&off, "src/retryer.ts", 2), "the function is unchanged");

    let q = "what options does the retry take for the delay before the next attempt?";
    assert_eq!(ranked("", q), ranked("demoteTypes = false", q), "a question for options demotes no type");
    let q = "RetryOptions retryDelay";
    assert_eq!(ranked("", q), ranked("demoteTypes = false", q), "a named type is not demoted");

    // Without occurrence rows, every type beside the answering function
    // keeps its place.
    let q = "ignore values during the silencing window, then emit on the trailing edge";
    let (config, stats) = (("src/throttle.ts", 2), ("src/throttle.ts", 12));
    let (off, on) = (ranked("demoteTypes = false", q), ranked("", q));
    assert!(score(&off, config.0, config.1) > 0.0 && score(&off, stats.0, stats.1) > 0.0, "{off:?}");
    assert_eq!(score(&on, config.0, config.1), score(&off, config.0, config.1), "the config beside the answering function keeps its place");
    assert_eq!(score(&on, stats.0, stats.1), score(&off, stats.0, stats.1), "without occurrence rows, by file: {on:?}");
    // With them, only the types that function uses: its config's member
    // stays, the unused type beside it gives way.
    structure.set(tsq::api::StructureMode::Occurrences);
    let (off, on) = (ranked("demoteTypes = false", q), ranked("", q));
    assert!(score(&off, "src/throttle.ts", 6) > 0.0, "the function answers: {off:?}");
    assert_eq!(score(&on, config.0, config.1), score(&off, config.0, config.1), "the config it uses keeps its place: {on:?}");
    let before = score(&off, stats.0, stats.1);
    assert!(before > 0.0, "{off:?}");
    assert!((score(&on, stats.0, stats.1) - before * 0.7).abs() < 0.002, "the unused type gives way: off {off:?}, on {on:?}");
}

/// The call-graph step (`callGraph = true`): a test that matches the
/// question lends score to the implementation it calls, which shares no
/// word with the question; off, that implementation ranks on retrieval
/// alone, lower.
#[test]
fn the_call_graph_step_lends_a_matching_tests_score_to_what_it_calls() {
    let ws = common::TempDir::new("ranking-graph");
    ws.write("tsconfig.json", b"{ \"compilerOptions\": { \"strict\": true }, \"include\": [\"src\"] }\n");
    ws.write(
        "src/hooks/verify.test.ts",
        b"import { checkMac } from './mac';\n\n/** The incoming webhook signature is verified: a forged webhook signature is refused. */\nexport function testWebhookSignatureVerified() {\n  if (checkMac('sig', 'body')) throw new Error('forged webhook signature verified');\n}\n",
    );
    ws.write("src/hooks/mac.ts", b"/** Compares an HMAC with the expected one in constant time. */\nexport function checkMac(mac: string, data: string): boolean {\n  return mac.length === data.length;\n}\n");
    ws.write(
        "src/hooks/retry.ts",
        b"/** Retries a delivery with backoff. */\nexport function retryDelivery(attempt: number): number {\n  return 2 ** attempt;\n}\n",
    );
    let ranked = |graph: bool| -> Vec<(String, f64)> {
        ws.write("tsq.toml", format!("embedder = \"none\"\ncallGraph = {graph}\n").as_bytes());
        let engine = tsq::api::Engine::open(&ws.0, Default::default()).unwrap();
        engine.index(tsq::api::StructureMode::None, &tsq::progress::silent()).unwrap();
        let req = engine
            .request(tsq::api::QueryInput {
                query: "where is the incoming webhook signature verified?".into(),
                shape: tsq::api::Shape::Concise,
                ..Default::default()
            })
            .unwrap();
        match engine.query(&req, &tsq::progress::silent()).unwrap() {
            tsq::api::Answer::Concise(c) => c.results.iter().map(|r| (r.file_path.clone(), r.score)).collect(),
            _ => unreachable!(),
        }
    };
    let score = |r: &[(String, f64)], f: &str| r.iter().find(|x| x.0 == f).map_or(0.0, |x| x.1);
    assert!(tsq::index::history::History::of_workspace(&ws.0.join("missing")).is_none(), "no repository, no history");
    let at = |r: &[(String, f64)], f: &str| r.iter().position(|x| x.0 == f).unwrap_or(usize::MAX);
    let (off, on) = (ranked(false), ranked(true));
    assert_eq!(at(&off, "src/hooks/verify.test.ts"), 0, "the test matches the question: {off:?}");
    assert!(score(&on, "src/hooks/mac.ts") > score(&off, "src/hooks/mac.ts"), "the callee gains: off {off:?}, on {on:?}");
    assert_eq!(score(&on, "src/hooks/retry.ts"), score(&off, "src/hooks/retry.ts"), "what the test does not call is unchanged");
    assert!(at(&on, "src/hooks/mac.ts") < at(&on, "src/hooks/retry.ts"), "{on:?}");
}

/// Issue 24's steps on one workspace with its occurrence index, each
/// compared with the same query with the step off (tsq.toml):
/// - the usage prior: two helpers with the same words, one imported by
///   three files, the other by none; the used one ranks first, and off
///   they score the same;
/// - barrels: a chunk of a file of re-exports is demoted like a
///   declaration file (×0.7);
/// - test lending: a test that matches lends to the function it calls,
///   which shares no word with the question; what it does not call is
///   unchanged;
/// - call lending: the strongest implementation lends to its file's
///   helpers that it calls.
#[test]
fn usage_barrels_and_test_lending_read_the_occurrence_index() {
    let ws = common::TempDir::new("ranking-usage");
    ws.write("tsconfig.json", b"{ \"compilerOptions\": { \"strict\": true }, \"include\": [\"src\"] }\n");
    ws.write(
        "src/format/units.ts",
        b"/** Formats a byte count as a readable size label. */\nexport function mySizeLabel(n: number): string {\n  return `${n} B`;\n}\n\n/** Formats a byte count as a readable size label. */\nexport function ourSizeLabel(n: number): string {\n  return `${n} B`;\n}\n",
    );
    // Scores are max-normalized: a stronger match keeps the two below 1.0.
    ws.write(
        "src/docs/help.ts",
        b"/** Help text: format a byte count as a readable size label; each readable size label formats a byte count. */\nexport const sizeLabelHelp = 'format a byte count as a readable size label';\n",
    );
    for (i, user) in ["src/ui/table.ts", "src/ui/list.ts", "src/cli/print.ts"].iter().enumerate() {
        ws.write(
            user,
            format!("import {{ mySizeLabel }} from '../format/units';\n\nexport function show{i}(n: number): string {{\n  return mySizeLabel(n);\n}}\n")
                .as_bytes(),
        );
    }
    ws.write(
        "src/format/index.ts",
        b"export * from './units';\nexport { show0 } from '../ui/table';\nexport { show1 } from '../ui/list';\nexport { show2 } from '../cli/print';\n/** The readable size label formats, by name. */\nexport const sizeLabelFormats = ['bytes', 'octets'];\n",
    );
    ws.write(
        "src/hooks/verify.test.ts",
        b"import { checkMac } from './mac';\n\n/** The incoming webhook signature is verified: a forged webhook signature is refused. */\nexport function testWebhookSignatureVerified() {\n  if (checkMac('sig', 'body')) throw new Error('forged webhook signature verified');\n}\n",
    );
    ws.write("src/hooks/mac.ts", b"/** Compares an HMAC with the expected one in constant time. */\nexport function checkMac(mac: string, data: string): boolean {\n  return mac.length === data.length;\n}\n");
    ws.write(
        "src/hooks/retry.ts",
        b"/** Retries a delivery with backoff. */\nexport function retryDelivery(attempt: number): number {\n  return 2 ** attempt;\n}\n",
    );
    ws.write(
        "src/gc/collect.ts",
        b"import { clock } from './clock';\n\n/** The garbage collection time of unobserved cache entries, in ms. */\nexport interface GcOptions { delay: number }\n\n/** Collects unobserved cache entries once the garbage collection time has passed. */\nexport function collectGarbage(entries: string[], options: GcOptions): number {\n  return sweep(entries, options.delay) + clock();\n}\n\nfunction sweep(list: string[], after: number): number {\n  return list.length * after;\n}\n",
    );
    ws.write("src/gc/clock.ts", b"/** Reads the clock that times garbage collection. */\nexport function clock(): number {\n  return Date.now();\n}\n");
    // (file, start line) -> score, best first; a warm engine (the evidence
    // held in memory) answers the same.
    let ranked = |extra: &str, query: &str| -> Vec<((String, u32), f64)> {
        ws.write("tsq.toml", format!("embedder = \"none\"\n{FILE_LEVEL_OFF}{extra}\n").as_bytes());
        let answers: Vec<Vec<((String, u32), f64)>> = [false, true]
            .into_iter()
            .map(|warm| {
                let engine = tsq::api::Engine::open(&ws.0, tsq::api::EngineOptions { warm, ..Default::default() }).unwrap();
                engine.index(tsq::api::StructureMode::Occurrences, &tsq::progress::silent()).unwrap();
                let req = engine.request(tsq::api::QueryInput { query: query.into(), shape: tsq::api::Shape::Concise, ..Default::default() }).unwrap();
                match engine.query(&req, &tsq::progress::silent()).unwrap() {
                    tsq::api::Answer::Concise(c) => c.results.iter().map(|r| ((r.file_path.clone(), r.start_line), r.score)).collect(),
                    _ => unreachable!(),
                }
            })
            .collect();
        assert_eq!(answers[0], answers[1], "cold and warm engines rank alike ({extra:?}, {query:?})");
        answers[0].clone()
    };
    let score = |r: &[((String, u32), f64)], f: &str, line: u32| r.iter().find(|x| x.0 .0 == f && x.0 .1 == line).map_or(0.0, |x| x.1);

    // The usage prior.
    let q = "format a byte count as a readable size label";
    let (off, on) = (ranked("usagePrior = \"off\"", q), ranked("", q));
    let (used, unused) = (("src/format/units.ts", 1), ("src/format/units.ts", 6));
    assert_eq!(score(&off, used.0, used.1), score(&off, unused.0, unused.1), "the same words score the same without the prior: {off:?}");
    assert!(score(&on, used.0, used.1) > score(&on, unused.0, unused.1), "the used helper gains: {on:?}");
    let pagerank = ranked("usagePrior = \"pagerank\"", q);
    assert!(score(&pagerank, used.0, used.1) > score(&pagerank, unused.0, unused.1), "{pagerank:?}");

    // Barrels. (The question names no part of the paths: path evidence,
    // which scales every score, stays out of the ×0.7.)
    let q = "readable size label, by name";
    let (off, on) = (ranked("barrels = false\nusagePrior = \"off\"", q), ranked("usagePrior = \"off\"", q));
    let barrel = score(&off, "src/format/index.ts", 5);
    assert!(barrel > 0.0, "the barrel's own chunk is found: {off:?}");
    assert!((score(&on, "src/format/index.ts", 5) - barrel * 0.7).abs() < 0.002, "demoted ×0.7 (scores are rounded to 0.001): off {off:?}, on {on:?}");

    let roles = |extra: &str| -> Vec<(String, String)> {
        ws.write("tsq.toml", format!("embedder = \"none\"\n{FILE_LEVEL_OFF}{extra}\n").as_bytes());
        let engine = tsq::api::Engine::open(&ws.0, Default::default()).unwrap();
        let req = engine.request(tsq::api::QueryInput { query: q.into(), shape: tsq::api::Shape::Concise, ..Default::default() }).unwrap();
        match engine.query(&req, &tsq::progress::silent()).unwrap() {
            tsq::api::Answer::Concise(c) => c.results.iter().map(|r| (r.file_path.clone(), r.role.to_string())).collect(),
            _ => unreachable!(),
        }
    };
    let role_of = |r: &[(String, String)]| r.iter().find(|x| x.0 == "src/format/index.ts").map(|x| x.1.clone());
    assert_eq!(role_of(&roles("")).as_deref(), Some("barrel"), "the answer says what demoted it");
    assert_eq!(role_of(&roles("barrels = false")).as_deref(), Some("implementation"));

    // Test lending.
    let q = "where is the incoming webhook signature verified?";
    let (off, on) = (ranked("testLending = false", q), ranked("", q));
    assert!(score(&on, "src/hooks/mac.ts", 1) > score(&off, "src/hooks/mac.ts", 1), "the callee gains: off {off:?}, on {on:?}");
    assert_eq!(score(&on, "src/hooks/retry.ts", 1), score(&off, "src/hooks/retry.ts", 1), "what the test does not use is unchanged");

    // Call lending: the strongest implementation lends to the private
    // helper it calls, which shares no word with the question, and never
    // past itself; not to the type it names, nor to what it calls in
    // another file.
    let q = "how are unobserved cache entries collected once the garbage collection time has passed?";
    let (off, on) = (ranked("callLending = false", q), ranked("", q));
    let at = |r: &[((String, u32), f64)], (f, line): (&str, u32)| score(r, f, line);
    let (lender, helper, option, other) = (("src/gc/collect.ts", 6), ("src/gc/collect.ts", 11), ("src/gc/collect.ts", 3), ("src/gc/clock.ts", 1));
    assert!(at(&off, lender) > 0.0 && at(&off, option) > 0.0 && at(&off, other) > 0.0, "{off:?}");
    assert!(at(&on, helper) > at(&off, helper), "the helper gains: off {off:?}, on {on:?}");
    assert!(at(&on, helper) < at(&on, lender), "and stays below its lender: {on:?}");
    assert_eq!(at(&on, lender), at(&off, lender));
    assert_eq!(at(&on, option), at(&off, option), "a type it names is not lent to");
    assert_eq!(at(&on, other), at(&off, other), "nor what it calls in another file");
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

/// History evidence (`historyEvidence`, on by default): `tsq index` keeps
/// the workspace's commit history beside the tables (the commits touching
/// its tree, paths relative to it, here a folder of the repository), read
/// again when `HEAD` moves; a query that states a change like a past
/// commit's subject lifts the file that commit changed, though the file's
/// code shares one of its words at most. A question is not read against
/// the subjects. Off, no history is read or kept.
#[test]
fn history_evidence_lifts_the_file_a_similar_past_commit_changed() {
    let ws = common::TempDir::new("ranking-history");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(&ws.0)
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    let app = ws.0.join("app");
    ws.write("app/tsconfig.json", b"{ \"compilerOptions\": { \"strict\": true }, \"include\": [\"src\"] }\n");
    ws.write("outside.ts", b"export const renew = 'renew the credentials before they lapse';\n");
    ws.write("app/src/session.ts", b"/** Moves the expiry of the credentials forward. */\nexport function rotate(state: { exp: number }): void {\n  state.exp = Date.now() + 3600_000;\n}\n");
    ws.write(
        "app/src/notice.ts",
        b"/** The notice users see to renew their plan before it will lapse: renew now. */\nexport function renewNotice(): string {\n  return 'renew before your plan will lapse';\n}\n",
    );
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "feat: first version"]);
    ws.write("outside.ts", b"export const renew = 'renew the credentials before they lapse, outside';\n");
    git(&["commit", "-q", "-am", "renew the credentials before they lapse, outside the workspace"]);
    ws.write("app/src/session.ts", b"/** Moves the expiry of the credentials forward. */\nexport function rotate(state: { exp: number }): void {\n  state.exp = Date.now() + 1800_000;\n}\n");
    git(&["commit", "-q", "-am", "fix(session): renew the credentials before they lapse"]);
    let ranked = |extra: &str, query: &str| -> Vec<(String, f64)> {
        ws.write("app/tsq.toml", format!("embedder = \"none\"\nminimumRelevanceThreshold = 0.0\n{extra}\n").as_bytes());
        let engine = tsq::api::Engine::open(&app, Default::default()).unwrap();
        engine.index(tsq::api::StructureMode::None, &tsq::progress::silent()).unwrap();
        let req = engine.request(tsq::api::QueryInput { query: query.into(), shape: tsq::api::Shape::Concise, ..Default::default() }).unwrap();
        match engine.query(&req, &tsq::progress::silent()).unwrap() {
            tsq::api::Answer::Concise(c) => c.results.iter().map(|r| (r.file_path.clone(), r.score)).collect(),
            _ => unreachable!(),
        }
    };
    let score = |r: &[(String, f64)], f: &str| r.iter().find(|x| x.0 == f).map_or(0.0, |x| x.1);
    let record = app.join(".tsq/history.json");
    let q = "renew credentials before they lapse";

    let off = ranked("historyEvidence = false\nwholeFileEvidence = false", q);
    assert!(!record.exists(), "off, no history is read");
    assert!(score(&off, "src/notice.ts") > score(&off, "src/session.ts"), "off, the notice's words win: {off:?}");

    let on = ranked("wholeFileEvidence = false", q);
    let kept: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let commits: Vec<(&str, Vec<&str>)> = kept["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["subject"].as_str().unwrap(), c["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect()))
        .collect();
    assert_eq!(
        commits,
        [("fix(session): renew the credentials before they lapse", vec!["src/session.ts"]), ("feat: first version", vec!["src/notice.ts", "src/session.ts"]),],
        "the commits touching the workspace, its own paths (the commit outside it left out)"
    );
    assert!(score(&on, "src/session.ts") > score(&off, "src/session.ts"), "on, the file the similar commit changed gains: off {off:?}, on {on:?}");
    assert_eq!(score(&on, "src/notice.ts"), score(&off, "src/notice.ts"), "no past subject like the question changed the notice alone");
    // The same words asked as a question read no history.
    let asked = ranked("wholeFileEvidence = false", "how do we renew credentials before they lapse?");
    let asked_off = ranked("historyEvidence = false\nwholeFileEvidence = false", "how do we renew credentials before they lapse?");
    assert_eq!(asked, asked_off, "a question is not read against the past subjects");

    // A new commit moves HEAD: the next index reads the history again.
    ws.write("app/src/notice.ts", b"export function renewNotice(): string {\n  return 'renew';\n}\n");
    git(&["commit", "-q", "-am", "shorten the notice"]);
    ranked("", q);
    let kept: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(kept["commits"][0]["subject"], "shorten the notice");
    // `tsq clean` removes it with the rest of the index.
    assert!(tsq::api::Engine::open(&app, Default::default()).unwrap().clean().unwrap());
    assert!(!app.join(".tsq").exists(), "nothing left behind");
}

/// A CommonJS library (`fixtures/search-cjs`, express's router shapes):
/// property-assignment declarations rank as declarations, named by their
/// access path and holding their JSDoc across a blank line; prototype
/// members and `Object.defineProperty` accessors too. And the golden rule
/// of one-line noise: no ranked chunk of one or two lines declares
/// nothing (`'use strict'`, `module.exports = Layer;`, `require` lines).
#[test]
fn commonjs_declarations_rank_whole_and_one_line_noise_never_ranks() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/search-cjs"), "search-cjs");
    let index = indexed(&ws, None);
    let ranked = |q: &str| tsq::search::retrieve(&index, None, q, &Default::default(), &settings()).unwrap().ranked;
    let first = |q: &str| {
        let r = ranked(q);
        let c = &r.first().unwrap_or_else(|| panic!("{q}: no result")).row.chunk;
        (c.relative_path.clone(), c.name.clone(), c.start_line, c.node_kind.clone())
    };
    // Named by its access path, its JSDoc (a blank line above the code)
    // inside it: the chunk starts at the JSDoc, line 14.
    assert_eq!(first("proto.handle"), ("lib/router.js".into(), "proto.handle".into(), 14, "function".into()));
    assert_eq!(first("how does the router dispatch a request to each matching layer").1, "proto.handle");
    let r = ranked("dispatch a request into the router stack of layers");
    assert!(
        !r.iter().any(|x| x.row.chunk.node_kind == "comment"),
        "the JSDoc is part of its declaration, no comment chunk of its own: {:?}",
        r.iter().map(|x| (&x.row.chunk.node_kind, &x.row.chunk.name)).collect::<Vec<_>>()
    );
    assert_eq!(first("Layer.prototype.match"), ("lib/layer.js".into(), "Layer.prototype.match".into(), 13, "method".into()));
    assert_eq!(first("whether the request came over TLS").1, "Layer.prototype.secure");
    for q in ["use strict mode", "require debug app router", "module exports Layer", "layer handler path", "proto.use", "router"] {
        for x in ranked(q) {
            let c = &x.row.chunk;
            let short = c.end_line - c.start_line < 2;
            assert!(
                !(short && matches!(c.node_kind.as_str(), "expression" | "export" | "comment" | "import")),
                "{q}: a one-line chunk that declares nothing ranked: {} {}:{} {:?}",
                c.node_kind,
                c.relative_path,
                c.start_line,
                c.full_source
            );
        }
    }
}
