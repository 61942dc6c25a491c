//! A fresh process's narrow program (`indexNarrow` in
//! `js/occurrences/61_occurrence_requests.js`): augmenters that join only
//! because the closure holds the module they augment are left out while
//! the checker reads nothing they augment
//! (`js/occurrences/58_augmentation_watch.js`), and the files are checked
//! again with them when it does. Each edit is synced by a real `tsq index`
//! process, whose debug log says which way the narrow program went; the
//! rows are then compared with a fresh live Language Service.

use std::path::Path;
use std::process::Command;

use super::differential::{assert_exact, differences, engine};
use super::edit;
use crate::common::{self, TempDir};
use tsq::api::{Answer, Engine, QueryInput};

/// `tsq index` on `root` as a fresh process (no program built), with the
/// debug log: its stderr.
fn fresh_sync(root: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tsq"))
        .args(["index", "--root"])
        .arg(root)
        .env("TSQ_EMBEDDER", "none")
        .env("TSQ_LOG", "debug")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "tsq index failed:\n{log}");
    log
}

/// The text of a `symbol =` answer.
fn lookup_text(e: &Engine, q: &str) -> String {
    let req = e.request(QueryInput { query: q.into(), ..Default::default() }).unwrap();
    let Answer::Full(full) = e.query(&req, &tsq::progress::silent()).unwrap() else { panic!("{q}: not a full answer") };
    full.lookup().text.clone()
}

/// The "program built" lines of a debug log.
fn builds(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("program built")).collect()
}

#[test]
fn a_fresh_process_leaves_out_augmenters_until_its_checker_reads_what_they_augment() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/occurrences/augmenters-unread"), "occ-augmenters-unread");
    assert_exact(&engine(&ws.0), &ws.0, 1, 8);

    // ast.ts reaches @demo/reactivity through @demo/shared and reads
    // nothing of it: one narrow program, without core's augmenter.
    edit(&ws.0, "packages/compiler/src/ast.ts", "return plain(n);", "void 0;\n  return plain(n);");
    let log = fresh_sync(&ws.0);
    let built = builds(&log);
    assert!(
        built.len() == 1 && built[0].contains("the augmenters left out: the checker read nothing they augment"),
        "one narrow program without the augmenter:\n{}",
        built.join("\n")
    );
    let (_, diffs) = differences(&engine(&ws.0), &ws.0, 1);
    assert!(diffs.is_empty(), "after ast.ts's edit:\n{}", diffs.join("\n"));

    // wrapped.ts's type reads BailTypes, which core augments: the watch
    // sees the checker resolve shared's import of `ref` (it lists the
    // target's exports), and the program with the augmenter decides
    // (without it, the rows would say `{ value: { kind: "node"; }; }`).
    edit(&ws.0, "packages/compiler/src/wrapped.ts", "return wrap(", "void 0;\n  return wrap(");
    let log = fresh_sync(&ws.0);
    let built = builds(&log);
    assert!(
        built.len() == 2 && built[0].contains("the checker read what they augment") && !built[1].contains("left out"),
        "the watched program, then the one with the augmenter:\n{}",
        built.join("\n")
    );
    let (_, diffs) = differences(&engine(&ws.0), &ws.0, 1);
    assert!(diffs.is_empty(), "after wrapped.ts's edit:\n{}", diffs.join("\n"));
    let wrapped = lookup_text(&engine(&ws.0), "symbol = packages/compiler/src/wrapped.ts > wrapped");
    assert!(wrapped.contains("kind: \"node\"") && !wrapped.contains("value:"), "{wrapped}");
}
