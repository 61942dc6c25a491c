//! The differential check of the occurrence index: every declaration's
//! references, callers, callees, full `symbol =` answer and `tsq inspect`
//! from the rows, against the live Language Service on the same
//! typescript.js. `KNOWN` lists the differences kept, with their reasons
//! (also in ARCHITECTURE.md).

use std::path::Path;

use tsq::api::{Answer, Engine, EngineOptions, QueryInput};
use tsq::embed::EmbedderChoice;
use tsq::index::{Index, IndexConfig};
use tsq::structure::occurrences::Graph;

use crate::common::inspect::same_but_union_order;
use crate::common::{self, TempDir};

pub fn engine(root: &Path) -> Engine {
    Engine::open(root, EngineOptions { embedder: Some(EmbedderChoice::None), ..Default::default() }).unwrap()
}

/// Every declaration's `symbol =` query, once per distinct query.
fn declaration_queries(root: &Path) -> Vec<String> {
    let index = Index::open_with(root, &IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }, None).unwrap();
    Graph::load(&index, true).unwrap().symbol_queries()
}

/// Differences the occurrence index keeps, each with its reason (listed in
/// ARCHITECTURE.md, "The occurrence index answers as the Language Service
/// does"): (query, what).
const KNOWN: &[(&str, &str, &str)] = &[
    // tsserver reports the same-named property of the other members of a
    // union of type literals (`{ ok: true } | { ok: false }`) among a
    // property's references; rows relate union members only where an
    // access goes through the union.
    // The sibling is also a match of tsserver's lookup (found through the
    // references), so the lookup and inspect answers differ in their
    // matches too; every other query's lookup and inspect are compared.
    ("symbol = all-kinds.ts > ok", "references", "union-of-type-literals siblings"),
    ("symbol = all-kinds.ts > ok", "lookup", "union-of-type-literals siblings"),
    ("symbol = all-kinds.ts > ok", "inspect", "union-of-type-literals siblings"),
    ("symbol = types.ts > ok", "references", "union-of-type-literals siblings"),
    ("symbol = types.ts > ok", "lookup", "union-of-type-literals siblings"),
    ("symbol = types.ts > ok", "inspect", "union-of-type-literals siblings"),
    // An augmentation that merges into an interface its target re-exports:
    // find-references misses the importers of the declaring file
    // (fixtures/occurrences/augmented-reexport); rows keep them.
    ("symbol = core/component.ts > GlobalComponents", "references", "augmented re-export: importers of the declaring file"),
    ("symbol = dom/index.ts > core > GlobalComponents", "references", "augmented re-export: importers of the declaring file"),
];

fn known(q: &str, what: &str) -> bool {
    KNOWN.iter().any(|(kq, kw, _)| *kq == q && *kw == what)
}

thread_local! {
    /// The last oracle of this test (each test runs on its own thread).
    static ORACLE: std::cell::RefCell<Option<std::rc::Rc<tsq::workspace::Workspace>>> = const { std::cell::RefCell::new(None) };
}

/// A fresh live Language Service of `root`: new projects, Language
/// Services and file reads. The isolate of this test's last oracle of the
/// same root is reused (`Workspace::reload`: TypeScript's code and the
/// parsed lib files, which no edit changes), since starting one and
/// parsing the libs again was most of a comparison's time.
fn fresh_oracle(root: &Path) -> std::rc::Rc<tsq::workspace::Workspace> {
    ORACLE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let same_root = slot.as_ref().is_some_and(|w| root.canonicalize().ok().as_deref() == Some(w.root()));
        if let Some(mut w) = slot.take().filter(|_| same_root) {
            if let Some(reused) = std::rc::Rc::get_mut(&mut w) {
                reused.reload().unwrap();
                *slot = Some(std::rc::Rc::clone(&w));
                return w;
            }
        }
        let w = std::rc::Rc::new(tsq::workspace::Workspace::open(root).unwrap());
        *slot = Some(std::rc::Rc::clone(&w));
        w
    })
}

/// Differences between the live inspect and the occurrence index for
/// every declaration of the workspace (the `KNOWN` ones left out).
pub fn differences(e: &Engine, root: &Path, call_depth: i32) -> (usize, Vec<String>) {
    differences_among(e, root, call_depth, &mut |all| all)
}

/// `differences` for the declarations `pick` chooses among all of them
/// (after the sync).
pub fn differences_among(e: &Engine, root: &Path, call_depth: i32, pick: &mut dyn FnMut(Vec<String>) -> Vec<String>) -> (usize, Vec<String>) {
    let mut diffs = Vec::new();
    let mut checked = 0;
    let _ = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    // The oracle: a fresh live Language Service with every program built,
    // as the rows' coverage describes it. Each declaration is computed
    // live once for its lookup and once for its inspect; the rows'
    // relations are compared with the live inspect's matches.
    let live = fresh_oracle(root);
    live.analyze_internal("program-build", &Default::default()).unwrap();
    for q in pick(declaration_queries(root)) {
        if let Err(d) = same_lookup(e, &live, &q, call_depth) {
            diffs.push(d);
        }
        let (expected, difference) = same_inspect(e, &live, &q, call_depth);
        diffs.extend(difference);
        let derived = e.relations(&q, Some(call_depth), &tsq::progress::silent()).unwrap();
        for m in &expected.matches {
            checked += 1;
            let Some(r) = derived.matches.iter().find(|r| r.symbol.file_path == m.symbol.file_path && r.symbol.line == m.symbol.line) else {
                diffs.push(format!("{q}: no row for {:?}:{:?}", m.symbol.file_path, m.symbol.line));
                continue;
            };
            let json = |v: &dyn erased::Ser| v.json();
            if m.references != r.references && !known(&q, "references") {
                diffs.push(format!("{q} references\n  live: {}\n  rows: {}", json(&m.references), json(&r.references)));
            }
            if m.incoming_callers != r.incoming_callers {
                diffs.push(format!("{q} incoming\n  live: {}\n  rows: {}", json(&m.incoming_callers), json(&r.incoming_callers)));
            }
            if m.outgoing_calls != r.outgoing_calls {
                diffs.push(format!("{q} outgoing\n  live: {}\n  rows: {}", json(&m.outgoing_calls), json(&r.outgoing_calls)));
            }
        }
    }
    (checked, diffs)
}

/// The engine's full `symbol =` answer, from the occurrence index, is the
/// live Language Service's: the same results (match, every metadata
/// field), snapshots, graph and text (bar the line saying where structure
/// came from).
fn same_lookup(e: &Engine, live: &tsq::workspace::Workspace, q: &str, call_depth: i32) -> Result<(), String> {
    let overrides = tsq::config::Overrides { call_depth: Some(call_depth), ..Default::default() };
    let req = e.request(QueryInput { query: q.into(), overrides, ..Default::default() }).unwrap();
    let Answer::Full(full) = e.query(&req, &tsq::progress::silent()).map_err(|err| format!("{q}: {err}"))? else { unreachable!("a full answer") };
    let rows = full.lookup();
    let header = rows.text.lines().next().unwrap_or("");
    if !header.contains("structure: from the occurrence index") {
        // Known differences stay live by design only if the rows cannot answer.
        return Err(format!("{q}: not answered from the occurrence index: {header}"));
    }
    if known(q, "lookup") {
        return Ok(());
    }
    // A known difference in references alone: every other field of the
    // answer is still compared (its text, which lists references, is not).
    let skip_references = known(q, "references");
    let parsed = tsq::query::SymbolQuery::parse(q).unwrap();
    let config = tsq::lookup::LookupConfig { call_depth, ..Default::default() };
    let expected = tsq::lookup::live_answer(live, &parsed, &config).unwrap();
    let json = |a: &tsq::lookup::LookupAnswer| {
        let mut v = serde_json::to_value((&a.results, &a.snapshots, &a.graph, &a.hints, a.omitted)).unwrap();
        if skip_references {
            strip_references(&mut v);
        }
        serde_json::to_string_pretty(&v).unwrap()
    };
    if !same_but_union_order(&json(rows), &json(&expected)) {
        return Err(format!("{q} lookup\n  live: {}\n  rows: {}", json(&expected), json(rows)));
    }
    if skip_references {
        return Ok(());
    }
    if !same_but_union_order(&without_backends(&rows.text), &without_backends(&expected.text)) {
        return Err(format!("{q} lookup text\n--- rows\n{}\n--- live\n{}", rows.text, expected.text));
    }
    Ok(())
}

/// `tsq inspect` through the engine is answered from the occurrence index
/// and equals the live Language Service's with every program built: the
/// same metadata, workspace and coverage (only which programs this
/// process built differs). Returns the live answer, and the difference.
fn same_inspect(e: &Engine, live: &tsq::workspace::Workspace, q: &str, call_depth: i32) -> (tsq::answer::Inspection, Option<String>) {
    let parsed = tsq::query::SymbolQuery::parse(q).unwrap();
    let expected = live.inspect(&parsed, &tsq::workspace::InspectConfig { call_depth, resolvers: None }).unwrap();
    let answer = match e.inspect(q, Some(call_depth)) {
        Ok(answer) => answer,
        Err(err) => return (expected, Some(format!("{q}: {err}"))),
    };
    let structure = answer.structure.clone().unwrap_or_default();
    if !structure.contains("structure: from the occurrence index") {
        return (expected, Some(format!("{q}: inspect not answered from the occurrence index: {structure}")));
    }
    if known(q, "inspect") {
        return (expected, None);
    }
    let difference = common::inspect::differs_from(&answer, &expected, live, known(q, "references")).map(|d| format!("{q} inspect\n{d}"));
    (expected, difference)
}

/// Removes every `references` field (a known difference's, compared apart).
fn strip_references(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.remove("references");
            map.values_mut().for_each(strip_references);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_references),
        _ => {}
    }
}

pub use crate::common::without_backends;

mod erased {
    pub trait Ser {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default()
        }
    }
}

/// Asserts that the rows answer as the live Language Service for every
/// declaration of the workspace at `root` (at least `at_least` of them).
pub fn assert_exact(e: &Engine, root: &Path, call_depth: i32, at_least: usize) {
    let (checked, diffs) = differences(e, root, call_depth);
    assert!(checked >= at_least, "{checked} declarations checked, fewer than {at_least}");
    assert!(
        diffs.is_empty(),
        "{} differences:
{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// Every workspace of a fixture set, each compared at the depths `depths`
/// gives for its name: the declarations checked and the differences.
pub fn set_differences(set: &str, depths: impl Fn(&str) -> Vec<i32>) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in common::fixture_dirs(set) {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let ws = TempDir::copy_of(&dir, &format!("occ-{}-{name}", set.rsplit('/').next().unwrap_or(set)));
        let e = engine(&ws.0);
        for depth in depths(&name) {
            let (n, diffs) = differences(&e, &ws.0, depth);
            checked += n;
            failures.extend(diffs.into_iter().map(|d| format!("{name} (depth {depth}): {d}")));
        }
    }
    eprintln!("occurrence index vs live Language Service on {set}: {checked} declarations, {} differences", failures.len());
    (checked, failures)
}
