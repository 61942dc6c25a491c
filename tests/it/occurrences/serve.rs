//! `tsq serve`'s occurrence rows: the idle step warms the projects an
//! answer showed and tidies after an answer's unbounded pass; an answer
//! never waits for a large re-index. After each edit the rows answer as
//! a fresh live Language Service.

use super::differential::{differences, engine, without_backends};
use super::edit;
use crate::common;
use common::TempDir;
use tsq::api::{Answer, Engine, EngineOptions, QueryInput};
use tsq::embed::EmbedderChoice;
use tsq::progress::Progress;

/// `tsq serve`'s idle step: with nothing stale, it builds the programs of
/// the projects the latest answer showed, or before any answer those of
/// the files edited last (a fresh engine answering from rows has none),
/// once; an edit there is then answered from fresh rows.
#[test]
fn the_idle_step_warms_the_projects_an_answer_showed() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/cross-module"), "occ-warm");
    engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap();
    // A new server on the indexed workspace: before any question, the
    // project of the files edited last is built, once.
    let e = engine(&ws.0);
    assert!(e.structure_step().unwrap() >= 1, "nothing is stale: the last edited files' project is built");
    assert_eq!(e.structure_step().unwrap(), 0, "and only once");
    let e = engine(&ws.0);
    let q = "symbol = user.ts > createUser";
    let ask = || {
        let req = e.request(QueryInput { query: q.into(), ..Default::default() }).unwrap();
        let Answer::Full(full) = e.query(&req, &tsq::progress::silent()).unwrap() else { unreachable!("a full answer") };
        full.lookup().text.lines().next().unwrap_or("").to_string()
    };
    let header = ask();
    assert!(header.contains("structure: from the occurrence index") && !header.contains("re-indexed"), "{header}");
    assert!(e.structure_step().unwrap() >= 1, "the answered file's project is built");
    assert_eq!(e.structure_step().unwrap(), 0, "and only once");

    edit(
        &ws.0,
        "user.ts",
        "export default function createUser(name: string): User {\n",
        "export default function createUser(name: string): User {\n  void 0;\n",
    );
    let header = ask();
    assert!(header.contains("structure: from the occurrence index (1 files re-indexed first)"), "{header}");
    // The answer's own pass ran without a memory bound: the idle step
    // collects what it left, once (`Workspace::tidy`).
    assert_eq!(e.structure_step().unwrap(), 1, "the idle step collects after the answer's pass");
    assert_eq!(e.structure_step().unwrap(), 0, "the program stayed warm through the re-index");
    let (_, diffs) = differences(&e, &ws.0, 1);
    assert!(diffs.is_empty(), "after the edit:\n{}", diffs.join("\n"));
}

/// Holds a pass before its first batch until the test lets it go: the
/// pass then holds the occurrence lock, and not the index.
struct PausedPass {
    paused: std::sync::mpsc::Sender<()>,
    go: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
    done: std::cell::Cell<bool>,
}

impl Progress for PausedPass {
    fn update(&self, phase: &str, _: u64, _: u64) {
        if phase == "indexing occurrences" && !self.done.replace(true) {
            self.paused.send(()).unwrap();
            self.go.lock().unwrap().recv().unwrap();
        }
    }
}

/// `tsq serve` never makes an answer wait for a large re-index (after an
/// upgrade, rows from another engine re-index every file): the answer is
/// computed without the rows and says so, also while the background
/// worker's pass runs (it holds the index only to write). A small re-index
/// (a body-only edit) is still done before the answer, and once the pass
/// is done, answers come from the rows again, equal to the live ones.
#[test]
fn a_serve_answer_never_waits_for_a_large_reindex() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/cross-module"), "occ-refresh");
    engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap();
    // Rows from another engine: every file (7) is pending.
    std::fs::write(ws.0.join(".tsq/occurrences-layout"), "another engine").unwrap();
    let e = Engine::open(&ws.0, EngineOptions { embedder: Some(EmbedderChoice::None), background: Some(2), ..Default::default() }).unwrap();
    let ask = |q: &str| {
        let req = e.request(QueryInput { query: q.into(), ..Default::default() }).unwrap();
        let Answer::Full(full) = e.query(&req, &tsq::progress::silent()).unwrap() else { unreachable!("a full answer") };
        (full.lookup().text.clone(), full.notes().to_vec())
    };
    let refreshing = "structure: the occurrence index is being refreshed in the background (7 files to re-index)";
    let q = "symbol = user.ts > createUser";
    let (live, _) = ask(q);
    assert!(live.lines().next().unwrap().contains(refreshing), "{live}");
    let (_, notes) = ask("where is a user created");
    assert!(notes.iter().any(|n| n.starts_with(refreshing)), "a search says so too: {notes:?}");

    // The worker's pass, held before its first batch: an answer meanwhile
    // neither waits for it nor reads its rows.
    let (paused_tx, paused_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let pass = s.spawn(|| {
            let progress = PausedPass { paused: paused_tx, go: std::sync::Mutex::new(go_rx), done: Default::default() };
            e.sync_occurrences(&progress).unwrap()
        });
        paused_rx.recv().unwrap();
        let (during, _) = ask(q);
        assert!(during.lines().next().unwrap().contains(refreshing), "{during}");
        assert_eq!(without_backends(&during), without_backends(&live));
        go_tx.send(()).unwrap();
        let report = pass.join().unwrap();
        assert_eq!(report.indexed, 7, "{report:?}");
    });

    let (fresh, _) = ask(q);
    let header = fresh.lines().next().unwrap();
    assert!(header.contains("structure: from the occurrence index") && !header.contains("refreshed"), "{header}");
    assert_eq!(without_backends(&fresh), without_backends(&live), "the rows answer as the live path did");

    // A body-only edit is within what an answer re-indexes itself.
    edit(
        &ws.0,
        "user.ts",
        "export default function createUser(name: string): User {\n",
        "export default function createUser(name: string): User {\n  void 0;\n",
    );
    let (after, _) = ask(q);
    assert!(after.lines().next().unwrap().contains("structure: from the occurrence index (1 files re-indexed first)"), "{after}");
    let (_, diffs) = differences(&e, &ws.0, 1);
    assert!(diffs.is_empty(), "after the edit:\n{}", diffs.join("\n"));
}
