//! Structure from the index stays exact:
//! - on every Language Service fixture and on the rxjs parity corpus,
//!   every stored answer equals the live Language Service's, and a full
//!   answer served from the index is the answer computed live;
//! - under random edits of every kind (body-only, signature change,
//!   rename, new and removed exports, `export *` barrels, new, deleted and
//!   moved files, body-only edits that add a call), every answer still
//!   stored after a sync equals the live one, and so after a removed call;
//! - `tsq inspect` from the index equals the live one;
//! - a moved workspace keeps its structure;
//! - a declaration without a chunk of its own is computed and stored by
//!   the first lookup that needs it, then served, and stays exact;
//! - `kill -9` during the precompute leaves a consistent index, and the
//!   next `tsq index` resumes where it stopped;
//! - a workspace without structure answers live and says how much the
//!   index holds.

mod common;

use common::random_edits::{edit, Rng};

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
    match engine.query(&req, &tsq::index::sync_silent()).unwrap() {
        Answer::Full(f) => format!("{}{}", f.lookup().text, f.notes().iter().map(|n| format!("note: {n}\n")).collect::<String>()),
        Answer::Concise(_) => unreachable!("a full answer was asked for"),
    }
}

/// The answer without what says where structure came from (the summary
/// line's tokens count it too, and the notes).
fn without_provenance(text: &str) -> String {
    without_backends(text).lines().filter(|l| !l.starts_with("note: structure: ")).map(|l| format!("{l}\n")).collect()
}

fn structure_counts(text: &str) -> (usize, usize) {
    let at = text.find("structure: ").expect("the answer says how much structure the index holds") + "structure: ".len();
    let rest = &text[at..];
    let slash = rest.find('/').unwrap();
    let end = rest.find(" declarations").unwrap();
    let n = |s: &str| s.replace(',', "").parse::<usize>().unwrap();
    (n(&rest[..slash]), n(&rest[slash + 1..end]))
}

const QUERIES: &[&str] = &["how is the result computed and returned", "class methods that call other functions", "types and interfaces of the data"];

#[test]
fn stored_answers_equal_live_ones_on_every_language_service_fixture() {
    let fixtures = common::repo().join("fixtures/ts-ls");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&fixtures).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        // One workspace (the same chunk ids, so the same ranking ties):
        // the answers computed live first, then from the index.
        let ws = TempDir::copy_of(&dir, &format!("structure-fixture-{name}"));
        let e = engine(&ws.0);
        let (report, _) = e.index(StructureMode::None, &tsq::index::sync_silent()).unwrap();
        assert_eq!(report.sync.structure_computed, 0, "{name}: --no-structure computes none");
        let live: Vec<String> = QUERIES.iter().map(|q| full_text(&e, q)).collect();
        let (_, failed) = e.index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
        assert!(failed.is_none(), "{name}: {failed:?}");
        // Every stored answer is the live Language Service's.
        let v = e.verify_structure().unwrap();
        let [stored, all] = e.status().unwrap().unwrap().structure;
        assert_eq!((v.checked, stored), (all, all), "{name}: every declaration's answer is stored and checked");
        checked += v.checked;
        failures.extend(v.mismatches.iter().map(|m| format!("{name}: {m}")));
        // A full answer from the index is the one computed live.
        for (q, b) in QUERIES.iter().zip(&live) {
            let a = full_text(&e, q);
            assert!(!a.contains("computed live"), "{name}: answered from the index:\n{a}");
            if without_provenance(&a) != without_provenance(b) {
                failures.push(format!("{name}: \"{q}\" differs\n--- from the index\n{a}\n--- live\n{b}"));
            }
        }
    }
    assert!(checked > 100, "only {checked} answers checked");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n\n"));
}

/// The summary line without what it says about where structure came from.
fn without_backends(text: &str) -> String {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    // The token count covers the whole text, that part included.
    let first: Vec<&str> = first.split(" | ").filter(|p| !p.contains("structure: ") && !p.ends_with(" tokens")).collect();
    format!("{}\n{rest}", first.join(" | "))
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
        e.index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
        let live = tsq::inspect::Workspace::open(&ws.0).unwrap();
        let everything = tsq::inspect::Workspace::open(&ws.0).unwrap();
        everything.analyze_internal("program-build", &Default::default()).unwrap();
        for q in queries.lines().map(str::trim).filter(|l| l.starts_with("symbol =")) {
            if let Err(f) = same_inspect(&e, &everything, q, &mut inspected) {
                failures.push(format!("{name}: {f}"));
            }
            let stored = full_text(&e, q);
            let parsed = tsq::query::SymbolQuery::parse(q).unwrap();
            let expected = tsq::lookup::lookup_query(&live, &parsed, &tsq::lookup::LookupConfig::default()).unwrap().text;
            total += 1;
            if stored.lines().next().unwrap_or("").contains("(from the index") {
                from_index += 1;
            }
            if without_backends(&stored) != without_backends(&expected) {
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
fn same_inspect(e: &Engine, live: &tsq::inspect::Workspace, q: &str, from_index: &mut usize) -> Result<(), String> {
    let answer = e.inspect(q, Some(1)).map_err(|err| format!("{q}: {err}"))?;
    let structure = answer.structure.clone().unwrap_or_default();
    if structure.contains("(from the index") {
        *from_index += 1;
    } else if !structure.contains("(computed live)") {
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
    e.index(StructureMode::None, &tsq::index::sync_silent()).unwrap();
    let q = "where do we get a new access token once the old one expired?";
    let first = full_text(&e, q);
    let (n, m) = structure_counts(&first);
    assert_eq!(n, 0, "{first}");
    assert!(m > 10, "{first}");
    assert!(first.contains("computed live by the Language Service (now stored)"), "{first}");
    // What was computed live was stored: the same question is answered
    // from the index, identically.
    let second = full_text(&e, q);
    assert!(structure_counts(&second).0 > 0, "{second}");
    assert!(!second.contains("computed live"), "{second}");
    assert_eq!(without_provenance(&first), without_provenance(&second));
    assert!(e.verify_structure().unwrap().mismatches.is_empty());
}

/// Random edits of every kind; after each sync, every answer the index
/// still holds (affected by the edit or not) equals the live one.
///
/// The workspaces: two Language Service fixtures (a monorepo with project
/// references and `paths`; barrels and re-exports), and a slice of a real
/// corpus, rxjs's `internal/util` (36 files of real code), when
/// `../shared/corpus.sh` is there.
#[test]
fn stored_answers_stay_exact_under_random_edits() {
    let repo = common::repo();
    let workspaces = common::random_edit_workspaces(&repo);
    for (fixture, dir, seed) in workspaces {
        let ws = TempDir::copy_of(&dir, &format!("structure-edits-{}", seed % 1000));
        let e = engine(&ws.0);
        e.index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
        let mut rng = Rng(seed);
        let (mut kept, mut dropped) = (0, 0);
        for step in 0..20 {
            let what = edit(&ws.0, &mut rng, step % 10, step);
            let before = e.status().unwrap().unwrap().structure[0];
            let v = e.verify_structure().unwrap();
            assert!(v.mismatches.is_empty(), "{fixture}, step {step} ({what}): stale answers:\n{}", v.mismatches.join("\n"));
            kept += v.checked;
            dropped += before.saturating_sub(v.checked);
            eprintln!("{fixture}, step {step}: {what}: {} kept, {} dropped", v.checked, before.saturating_sub(v.checked));
            // Refill, so that the next edit has answers to invalidate.
            while e.structure_some(usize::MAX).unwrap() > 0 {}
        }
        // The rule is conservative, not all-or-nothing: edits keep answers.
        assert!(kept > 0, "{fixture}: no answer survived any edit");
        eprintln!("{fixture}: {kept} answers kept and checked, {dropped} dropped across the edits");
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
    let live = tsq::inspect::Workspace::open(&ws.0).unwrap();
    for q in ["symbol = packages/core/src/money.ts > Money", "symbol = packages/core/src/math.ts > add"] {
        let expected = tsq::lookup::lookup_query(&live, &tsq::query::SymbolQuery::parse(q).unwrap(), &tsq::lookup::LookupConfig::default()).unwrap().text;
        let got = full_text(&e, q);
        assert!(got.lines().next().unwrap().contains("from the occurrence index"), "{q}: {got}");
        assert_eq!(without_backends(&got), without_backends(&expected), "{q}");
    }
}

fn stored_in(root: &Path, file: &str) -> usize {
    let index = tsq::index::Index::open(root, &tsq::index::IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }).unwrap();
    index.structure_all().unwrap().iter().filter(|r| r.relative_path == file).count()
}

/// The two facts the invalidation rule uses (ARCHITECTURE.md, "Structure
/// stays exact"): an edit inside a body with a return type leaves the
/// file's API as it was, so the answers of its importers stay; an edit to
/// its API reaches them. Every answer kept equals the live one.
#[test]
fn a_body_only_edit_keeps_importers_answers_and_an_api_edit_drops_them() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/multi-project"), "structure-body-edit");
    let (math, money) = ("packages/core/src/math.ts", "packages/core/src/money.ts");
    // `Money`'s name occurs in math.ts, outside the bodies edited below.
    let path = ws.0.join(math);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("/** Adds two amounts in cents. */", "/** Adds two amounts in cents (not Money). */")).unwrap();
    engine(&ws.0).index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
    let before = stored_in(&ws.0, money);
    assert!(before > 0 && stored_in(&ws.0, math) > 0, "the precompute stored both files' answers");

    // `add(a, b): number`'s body changes; money.ts is imported beside it
    // by the barrel and by the app, which never name math.ts's contents
    // in `Money`'s answers; only the changed body's text counts, so
    // `Money` in math.ts's comment does not drop them.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("  return a + b;", "  const sum = a + b;\n  return sum;")).unwrap();
    let v = engine(&ws.0).verify_structure().unwrap();
    assert!(v.mismatches.is_empty(), "after a body-only edit:\n{}", v.mismatches.join("\n"));
    assert_eq!(stored_in(&ws.0, math), 0, "the edited file's own answers are dropped");
    assert_eq!(stored_in(&ws.0, money), before, "a body-only edit keeps the answers of the barrel's other files");

    // A body that now names `Money` may refer to it: its answers go.
    engine(&ws.0).index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("  return sum;", "  // Money?\n  return sum;")).unwrap();
    let v = engine(&ws.0).verify_structure().unwrap();
    assert!(v.mismatches.is_empty(), "after a second body-only edit:\n{}", v.mismatches.join("\n"));
    assert!(stored_in(&ws.0, money) < before, "a name in the changed body drops its answers");

    // A new export changes math.ts's API: the barrel and the app are
    // affected, and `Money`'s answers (its name occurs there) go.
    std::fs::write(&path, format!("{}\nexport const rate = 2;\n", std::fs::read_to_string(&path).unwrap())).unwrap();
    let v = engine(&ws.0).verify_structure().unwrap();
    assert!(v.mismatches.is_empty(), "after an API edit:\n{}", v.mismatches.join("\n"));
    assert_eq!(stored_in(&ws.0, money), 0, "an API edit reaches the importers");
}

/// A removed call is an edit too: `z`'s only caller `w` stops calling it,
/// so in `x`'s answer the caller entry `z` loses its depth marker, though
/// that answer never mentions the edited file and `z` is no longer in its
/// text. Once as a body-only edit (`z` reached through a namespace, so its
/// name was only in the body), once as an API edit that also drops the
/// import. Every stored answer must still equal the live one.
#[test]
fn a_removed_call_drops_the_answers_it_changed() {
    let variants = [
        (
            "body-only",
            "import * as g from './g';\n\nexport function w(): number {\n  return g.z();\n}\n",
            "import * as g from './g';\n\nexport function w(): number {\n  return 0;\n}\n",
        ),
        ("API", "import { z } from './g';\n\nexport function w(): number {\n  return z();\n}\n", "export function w(): number {\n  return 0;\n}\n"),
    ];
    for (what, before, after) in variants {
        let ws = TempDir::new(&format!("structure-removed-call-{what}"));
        std::fs::write(
            ws.0.join("tsconfig.json"),
            r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler" } }"#,
        )
        .unwrap();
        std::fs::write(ws.0.join("g.ts"), "export function x(): number {\n  return 1;\n}\n\nexport function z(): number {\n  return x();\n}\n\nexport function other(): number {\n  return 2;\n}\n").unwrap();
        std::fs::write(ws.0.join("f.ts"), before).unwrap();
        let e = engine(&ws.0);
        e.index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
        let x = e.inspect("symbol = g.ts > x", Some(1)).unwrap();
        let callers = &x.result.matches[0].incoming_callers;
        assert!(callers.iter().any(|c| c.name == "z" && c.depth_limited == Some(true)), "{what}: z has a caller before the edit: {callers:?}");
        std::fs::write(ws.0.join("f.ts"), after).unwrap();
        let v = engine(&ws.0).verify_structure().unwrap();
        assert!(v.mismatches.is_empty(), "{what} edit: stale answers:\n{}", v.mismatches.join("\n"));
        assert!(v.checked > 0, "{what}: `other`'s answer was kept and checked");
    }
}

/// A declaration without a chunk of its own (an interface member) has no
/// precomputed answer: the first lookup that needs it computes it live,
/// stores it and says so; the next is served from the index; both equal
/// the live answer, and an edit invalidates it like any other.
#[test]
fn answers_without_a_chunk_are_stored_by_the_first_lookup_and_stay_exact() {
    let ws = TempDir::new("structure-nested");
    std::fs::write(
        ws.0.join("tsconfig.json"),
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler" } }"#,
    )
    .unwrap();
    std::fs::write(ws.0.join("a.ts"), "export function helper(): number {\n  return 1;\n}\n").unwrap();
    std::fs::write(ws.0.join("b.ts"), "import { helper } from './a';\n\nexport function useIt(): number {\n  return helper();\n}\n").unwrap();
    // `helper` is only a member in c.ts: no chunk's query there names it.
    std::fs::write(
        ws.0.join("c.ts"),
        "export interface Counter {\n  helper(): number;\n}\n\nexport function outer(c: Counter): number {\n  return c.helper();\n}\n",
    )
    .unwrap();
    let e = engine(&ws.0);
    e.index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
    let live = |q: &str| {
        let w = tsq::inspect::Workspace::open(&ws.0).unwrap();
        tsq::lookup::lookup_query(&w, &tsq::query::SymbolQuery::parse(q).unwrap(), &tsq::lookup::LookupConfig::default()).unwrap().text
    };
    let q = "symbol = helper";
    let first = full_text(&e, q);
    assert!(first.contains("(from the index, 1 computed now and stored)"), "{first}");
    assert_eq!(without_backends(&first), without_backends(&live(q)));
    let (n, m) = structure_counts(&first);
    assert_eq!(n, m, "the count is of declaration chunks only: {first}");
    let second = full_text(&engine(&ws.0), q);
    assert!(second.contains("(from the index)"), "{second}");
    assert_eq!(without_backends(&second), without_backends(&live(q)));
    let inspect = e.inspect(q, Some(1)).unwrap();
    assert!(inspect.structure.as_deref().is_some_and(|s| s.contains("(from the index)")), "{:?}", inspect.structure);
    // The member's stored answer is checked against the live one.
    let v = e.verify_structure().unwrap();
    assert!(v.mismatches.is_empty(), "{}", v.mismatches.join("\n"));
    assert!(v.checked > m, "the member's answer was checked too ({} of {m})", v.checked);
    // A body-only edit that calls the member twice changes its references:
    // the stored answer goes, and the next lookup equals the live one.
    std::fs::write(
        ws.0.join("c.ts"),
        "export interface Counter {\n  helper(): number;\n}\n\nexport function outer(c: Counter): number {\n  return c.helper() + c.helper();\n}\n",
    )
    .unwrap();
    let v = engine(&ws.0).verify_structure().unwrap();
    assert!(v.mismatches.is_empty(), "{}", v.mismatches.join("\n"));
    let after = full_text(&engine(&ws.0), q);
    assert_eq!(without_backends(&after), without_backends(&live(q)));
}

/// A moved workspace keeps its structure (answers hold workspace-relative
/// paths only, and the configs are recorded by relative path), and what
/// it keeps is still exact.
#[test]
fn a_moved_workspace_keeps_its_structure() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/multi-project"), "structure-move-from");
    let e = engine(&ws.0);
    e.index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
    let [stored, all] = e.status().unwrap().unwrap().structure;
    assert!(stored > 0 && stored == all, "{stored}/{all}");
    drop(e);
    let moved = TempDir::new("structure-move-to");
    std::fs::remove_dir_all(&moved.0).unwrap();
    std::fs::rename(&ws.0, &moved.0).unwrap();
    let e = engine(&moved.0);
    let v = e.verify_structure().unwrap();
    assert!(v.mismatches.is_empty(), "{}", v.mismatches.join("\n"));
    assert_eq!(v.checked, stored, "every answer survived the move");
    let queries = std::fs::read_to_string(moved.0.join("queries.txt")).unwrap();
    let q = queries.lines().map(str::trim).find(|l| l.starts_with("symbol = ")).unwrap();
    assert!(full_text(&e, q).contains("(from the index"), "{q} is answered from the index after the move");
}

/// The parity corpus (`ls_parity.rs` samples rxjs against tsserver): a copy
/// of rxjs indexed with structure, then every one of its ~1,500 stored
/// answers compared with the live Language Service's.
#[test]
fn stored_answers_equal_live_ones_on_the_rxjs_parity_corpus() {
    let Some((_, dir)) = common::corpora(&["rxjs"]).and_then(|c| c.into_iter().next()) else {
        eprintln!("skipped: ../shared/corpus.sh is not there");
        return;
    };
    let ws = TempDir::copy_of(&dir, "structure-rxjs");
    let e = engine(&ws.0);
    let (_, failed) = e.index(StructureMode::PerDeclaration, &tsq::index::sync_silent()).unwrap();
    assert!(failed.is_none(), "{failed:?}");
    let [stored, all] = e.status().unwrap().unwrap().structure;
    assert!(stored > 1000 && stored == all, "every declaration's answer is stored: {stored}/{all}");
    let v = e.verify_structure().unwrap();
    assert_eq!(v.checked, stored);
    assert!(v.mismatches.is_empty(), "{} of {} stored answers differ from the live ones:\n{}", v.mismatches.len(), v.checked, v.mismatches.join("\n"));
}
