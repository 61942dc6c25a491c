//! The ranking steps, each on a small workspace of its own through the
//! engine (BM25 only unless said): file roles, definitions, parents kept,
//! the type step, the call graph, the usage prior and barrels, history,
//! and CommonJS declarations with the one-line noise rule.

use super::*;

/// The concise records the engine answers `query` with.
fn concise(engine: &tsq::api::Engine, query: &str) -> Vec<tsq::lookup::ConciseResult> {
    let req = engine.request(tsq::api::QueryInput { query: query.into(), shape: tsq::api::Shape::Concise, ..Default::default() }).unwrap();
    match engine.query(&req, &tsq::progress::silent()).unwrap() {
        tsq::api::Answer::Concise(c) => c.results,
        _ => unreachable!("a concise answer"),
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
    let r = concise(&engine, "where is the request body parsed as JSON?");
    assert_eq!(r[0].file_path, "src/http/body.ts", "{:?}", r.iter().map(|x| &x.file_path).collect::<Vec<_>>());
    assert_eq!(r[0].role, "implementation");
    let test = r.iter().find(|x| x.file_path.ends_with("body.test.ts")).expect("the test is still listed");
    assert_eq!(test.role, "test");
    // The test repeats the query's words more than any implementation, yet
    // both implementation files come before it.
    let at = |f: &str| r.iter().position(|x| x.file_path == f).unwrap();
    assert!(at("src/http/body.test.ts") > at("src/http/headers.ts"), "{:?}", r.iter().map(|x| &x.file_path).collect::<Vec<_>>());
    // Asked for, tests are not demoted.
    let r = concise(&engine, "tests of request body parsing");
    assert_eq!(r[0].file_path, "src/http/body.test.ts");
    // An identifier: its definition first.
    let r = concise(&engine, "limitBody");
    assert_eq!(
        (r[0].file_path.as_str(), r[0].start_line),
        ("src/http/body.ts", 11),
        "{:?}",
        r.iter().map(|x| (&x.file_path, x.start_line)).collect::<Vec<_>>()
    );
    // Decay: body.ts's three request-body chunks do not take the whole top 3.
    let r = concise(&engine, "parse request");
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
    let lines = |query: &str| -> Vec<u32> { concise(&engine, query).iter().map(|r| r.start_line).collect() };
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
        concise(&engine, query).iter().map(|r| ((r.file_path.clone(), r.start_line), r.score)).collect()
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
                concise(&engine, query).iter().map(|r| ((r.file_path.clone(), r.start_line), r.score)).collect()
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
        concise(&engine, q).iter().map(|r| (r.file_path.clone(), r.role.to_string())).collect()
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
        concise(&engine, query).iter().map(|r| (r.file_path.clone(), r.score)).collect()
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
