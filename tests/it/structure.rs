//! Structure comes from the occurrence index or from the live Language
//! Service, nothing else, and the two agree:
//! - on every Language Service fixture, a full natural-language answer
//!   whose structure is read from the occurrence rows is the answer
//!   computed live;
//! - every `symbol =` lookup and `tsq inspect` of the fixtures' queries
//!   answered from the rows equals the live one;
//! - a workspace without an occurrence index answers live, stores
//!   nothing, and every answer says how much of the workspace the
//!   occurrence index covers;
//! - a moved workspace keeps its occurrence index;
//! - `kill -9` during the occurrence pass leaves a consistent index, and
//!   the next `tsq index` finishes it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::TempDir;
use tsq::api::{Answer, Engine, EngineOptions, QueryInput, StructureMode};
use tsq::embed::EmbedderChoice;

fn engine(root: &Path) -> Engine {
    Engine::open(root, EngineOptions { embedder: Some(EmbedderChoice::None), ..Default::default() }).unwrap()
}

fn full_text(engine: &Engine, query: &str) -> String {
    let req = engine.request(QueryInput { query: query.into(), ..Default::default() }).unwrap();
    match engine.query(&req, &tsq::progress::silent()).unwrap() {
        Answer::Full(f) => format!("{}{}", f.lookup().text, f.notes().iter().map(|n| format!("note: {n}\n")).collect::<String>()),
        Answer::Concise(_) => unreachable!("a full answer was asked for"),
    }
}

/// The answer without what says where structure came from (the summary
/// line's tokens count it too, and the notes).
fn without_provenance(text: &str) -> String {
    common::without_backends(text).lines().filter(|l| !l.starts_with("note: structure: ")).map(|l| format!("{l}\n")).collect()
}

/// What the answer says of the occurrence index's coverage: current
/// files, and all indexed source files.
fn structure_counts(text: &str) -> (usize, usize) {
    let at = text.find("structure: ").expect("the answer says how much the occurrence index covers") + "structure: ".len();
    let rest = &text[at..];
    let slash = rest.find('/').unwrap();
    let end = rest.find(" files in the occurrence index").unwrap();
    let n = |s: &str| s.replace(',', "").parse::<usize>().unwrap();
    (n(&rest[..slash]), n(&rest[slash + 1..end]))
}

const QUERIES: &[&str] = &["how is the result computed and returned", "class methods that call other functions", "types and interfaces of the data"];

/// The same search, on the same index (so the same ranking: the usage
/// prior comes from the occurrence rows), enriched from the rows and
/// enriched live: the answers are equal (results in declaration files
/// included: they have rows like any source).
#[test]
fn full_answers_from_the_occurrence_rows_equal_live_ones_on_every_language_service_fixture() {
    let fixtures = common::repo().join("fixtures/ts-ls");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&fixtures).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let settings = tsq::config::Settings::default();
    let search_config = settings.search();
    let mut failures = Vec::new();
    let (mut checked, mut from_rows) = (0, 0);
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let ws = TempDir::copy_of(&dir, &format!("structure-fixture-{name}"));
        let (_, failed) = engine(&ws.0).index(StructureMode::Occurrences, &tsq::progress::silent()).unwrap();
        assert!(failed.is_none(), "{name}: {failed:?}");
        let index = tsq::index::Index::open(&ws.0, &tsq::index::IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }).unwrap();
        let [current, all] = index.occurrence_coverage().unwrap();
        assert_eq!(current, all, "{name}: every source file has current rows");
        let tree = tsq::source::Tree::walk(&ws.0);
        let view = tsq::ts::files::FileView::new(Default::default());
        let workspace = std::sync::Arc::new(tsq::workspace::Workspace::open(&ws.0).unwrap());
        let live = || Ok(std::sync::Arc::clone(&workspace));
        let rows = tsq::structure::answers::Rows::new(&index, &view, &tree.sources);
        for q in QUERIES {
            let search = |structures: &tsq::structure::Structures<'_>| {
                tsq::search::search(&index, &view, structures, None, q, &Default::default(), &search_config).unwrap().answer.text
            };
            let enriched = tsq::structure::Structures::new(&live, settings.call_depth).with_rows(&rows);
            let a = search(&enriched);
            let b = search(&tsq::structure::Structures::new(&live, settings.call_depth));
            checked += 1;
            from_rows += enriched.served.get();
            if a != b {
                failures.push(format!("{name}: \"{q}\" differs\n--- from the occurrence rows\n{a}\n--- live\n{b}"));
            }
        }
    }
    assert!(checked >= 3 * 5, "only {checked} answers checked");
    assert!(from_rows >= 20, "only {from_rows} results were enriched from the rows");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n\n"));
}

/// Every `symbol =` query of the Language Service fixtures, answered from
/// the index (no Language Service), is the live answer; so is every
/// `tsq inspect` of it (its coverage that of the live Language Service with
/// every program built, as the index records it).
#[test]
fn lookups_and_inspects_from_the_index_equal_live_ones() {
    let fixtures = common::repo().join("fixtures/ts-ls");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&fixtures).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let (mut failures, mut from_index, mut total, mut inspected) = (Vec::new(), 0, 0, 0);
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Ok(queries) = std::fs::read_to_string(dir.join("queries.txt")) else { continue };
        let ws = TempDir::copy_of(&dir, &format!("structure-lookup-{name}"));
        let e = engine(&ws.0);
        e.index(StructureMode::Occurrences, &tsq::progress::silent()).unwrap();
        // One live Language Service with every program built answers both
        // the lookups and the inspects.
        let everything = tsq::workspace::Workspace::open(&ws.0).unwrap();
        everything.analyze_internal("program-build", &Default::default()).unwrap();
        for q in queries.lines().map(str::trim).filter(|l| l.starts_with("symbol =")) {
            if let Err(f) = same_inspect(&e, &everything, q, &mut inspected) {
                failures.push(format!("{name}: {f}"));
            }
            let stored = full_text(&e, q);
            let parsed = tsq::query::SymbolQuery::parse(q).unwrap();
            let expected = tsq::lookup::live_answer(&everything, &parsed, &tsq::lookup::LookupConfig::default()).unwrap().text;
            total += 1;
            if stored.lines().next().unwrap_or("").contains("structure: from the occurrence index") {
                from_index += 1;
            }
            if common::without_backends(&stored) != common::without_backends(&expected) {
                failures.push(format!("{name}: {q}\n--- from the engine\n{stored}\n--- live\n{expected}"));
            }
        }
    }
    eprintln!("{from_index} of {total} lookups and {inspected} inspects answered from the index");
    assert!(from_index * 2 > total, "only {from_index} of {total} lookups were answered from the index");
    assert!(inspected * 2 > total, "only {inspected} of {total} inspects were answered from the index");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n\n"));
}

/// `tsq inspect q` through the engine against the live Language Service
/// with every program built: the same metadata, workspace and coverage
/// (only which programs this process built differs). Counts the answers
/// served from the index.
fn same_inspect(e: &Engine, live: &tsq::workspace::Workspace, q: &str, from_index: &mut usize) -> Result<(), String> {
    let answer = e.inspect(q, Some(1)).map_err(|err| format!("{q}: {err}"))?;
    let structure = answer.structure.clone().unwrap_or_default();
    if structure.contains("structure: from the occurrence index") {
        *from_index += 1;
    } else if !structure.contains("structure: computed live") {
        return Err(format!("{q}: the answer does not say where its structure came from"));
    }
    match common::inspect::differs(&answer, live, q, 1) {
        None => Ok(()),
        Some(d) => Err(format!("{q} ({structure})\n{d}")),
    }
}

#[test]
fn a_workspace_without_structure_answers_live_and_says_how_much_it_holds() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/search"), "structure-none");
    let e = engine(&ws.0);
    e.index(StructureMode::None, &tsq::progress::silent()).unwrap();
    let q = "where do we get a new access token once the old one expired?";
    let first = full_text(&e, q);
    let (n, m) = structure_counts(&first);
    assert_eq!(n, 0, "{first}");
    assert!(m >= 5, "{first}");
    assert!(first.contains("computed live by the Language Service"), "{first}");
    // Nothing computed live is stored: the same question is computed
    // live again, identically.
    let second = full_text(&e, q);
    assert_eq!(structure_counts(&second), (0, m), "{second}");
    assert!(second.contains("computed live by the Language Service"), "{second}");
    assert_eq!(without_provenance(&first), without_provenance(&second));
    assert_eq!(e.status().unwrap().unwrap().structure, [0, m]);
    // With the occurrence index, the rows answer, identically.
    e.index(StructureMode::Occurrences, &tsq::progress::silent()).unwrap();
    let third = full_text(&e, q);
    assert_eq!(structure_counts(&third), (m, m), "{third}");
    assert!(!third.contains("computed live"), "{third}");
    assert_eq!(without_provenance(&first), without_provenance(&third));
    let index = ws.0.join(".tsq");
    for legacy in ["structure.lance", "imports.lance", "names.lance"] {
        assert!(!index.join(legacy).exists(), "{legacy}: the per-declaration store is gone");
    }
}

/// `kill -9` while `tsq index` builds the occurrence index (one file per
/// commit): the index stays consistent, and the next run indexes only the
/// files not committed, after which every lookup equals the live one.
#[test]
fn kill_9_during_the_occurrence_index_loses_nothing_committed() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/multi-project"), "structure-kill");
    let tsq = env!("CARGO_BIN_EXE_tsq");
    let mut child = Command::new(tsq)
        .args(["index", "--root"])
        .arg(&ws.0)
        .env("TSQ_EMBEDDER", "none")
        .env("TSQ_OCCURRENCE_BATCH", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut seen = String::new();
    for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.starts_with("tsq: indexing occurrences ") {
            break;
        }
    }
    // SIGKILL: no destructor, no cleanup.
    child.kill().unwrap();
    let _ = child.wait();
    assert!(seen.contains("tsq: indexing occurrences "), "the occurrence index never started:\n{seen}");
    let e = engine(&ws.0);
    let [committed, _] = e.status().unwrap().unwrap().occurrences;
    let index = tsq::index::Index::open(&ws.0, &tsq::index::IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }).unwrap();
    assert_eq!(index.check_invariants().unwrap(), Vec::<String>::new());
    drop(index);
    let out = Command::new(tsq).args(["index", "--json", "--root"]).arg(&ws.0).env("TSQ_EMBEDDER", "none").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let indexed = report["occurrences"]["indexed"].as_u64().unwrap() as usize;
    let [files, _] = e.status().unwrap().unwrap().occurrences;
    eprintln!("killed after {committed} of {files} files were committed; the rerun indexed {indexed}");
    // A first index that was cut short is finished, never half-used: the
    // rerun indexes at least what was missing.
    assert!(indexed >= files - committed && indexed > 0, "resumed: {report}");
    let live = tsq::workspace::Workspace::open(&ws.0).unwrap();
    for q in ["symbol = packages/core/src/money.ts > Money", "symbol = packages/core/src/math.ts > add"] {
        let expected = tsq::lookup::live_answer(&live, &tsq::query::SymbolQuery::parse(q).unwrap(), &tsq::lookup::LookupConfig::default()).unwrap().text;
        let got = full_text(&e, q);
        assert!(got.lines().next().unwrap().contains("from the occurrence index"), "{q}: {got}");
        assert_eq!(common::without_backends(&got), common::without_backends(&expected), "{q}");
    }
}

/// A moved workspace keeps its occurrence index (rows hold
/// workspace-relative paths only, and the configs are keyed by relative
/// path): nothing is re-indexed, and lookups are answered from the rows.
#[test]
fn a_moved_workspace_keeps_its_structure() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/multi-project"), "structure-move-from");
    let e = engine(&ws.0);
    e.index(StructureMode::Occurrences, &tsq::progress::silent()).unwrap();
    let [current, all] = e.status().unwrap().unwrap().structure;
    assert!(current > 0 && current == all, "{current}/{all}");
    drop(e);
    let moved = TempDir::new("structure-move-to");
    std::fs::remove_dir_all(&moved.0).unwrap();
    std::fs::rename(&ws.0, &moved.0).unwrap();
    let e = engine(&moved.0);
    assert_eq!(e.status().unwrap().unwrap().structure, [all, all]);
    let queries = std::fs::read_to_string(moved.0.join("queries.txt")).unwrap();
    let q = queries.lines().map(str::trim).find(|l| l.starts_with("symbol = ")).unwrap();
    let got = full_text(&e, q);
    let header = got.lines().next().unwrap();
    assert!(header.contains("structure: from the occurrence index;"), "{q} is answered from the rows, none re-indexed, after the move: {header}");
    let live = tsq::workspace::Workspace::open(&moved.0).unwrap();
    let expected = tsq::lookup::live_answer(&live, &tsq::query::SymbolQuery::parse(q).unwrap(), &tsq::lookup::LookupConfig::default()).unwrap().text;
    assert_eq!(common::without_backends(&got), common::without_backends(&expected), "{q}");
}
