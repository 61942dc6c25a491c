//! One file cannot take down the rest (issue 74, item 6), through the
//! binary as an attacker's checkout meets it: a file past the occurrence
//! pass's per-file budget (3,000 nested functions) is recorded as failed
//! with a reason that names the budget, and its symbols are answered live;
//! a file too deep to parse (a 100,000-deep array) leaves every other
//! file's `symbol =` answers whole. No test reads a clock: the budget is
//! set small in work units, which count the same on every machine.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::TempDir;

/// `n` functions, each declared in the one before it and called by it.
fn nested_functions(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("function f{i}() {{\nf{}();\n", i + 1));
    }
    s.push_str(&format!("function f{n}() {{}}\n"));
    s.push_str(&"}\n".repeat(n));
    s.push_str("export { f0 };\n");
    s
}

/// An array literal `depth` brackets deep, in lines of 100 (a minified
/// file would be skipped by the walk, and the attack needs it walked).
fn deep_array(depth: usize) -> String {
    let lines = |c: &str| format!("{}\n", c.repeat(100)).repeat(depth / 100);
    format!("export const deep =\n{}1\n{};\n", lines("["), lines("]"))
}

/// A workspace of two ordinary files (`add.ts`, and `use.ts`, which calls
/// it) beside `heavy`.
fn workspace(name: &str, heavy: (&str, String)) -> TempDir {
    let ws = TempDir::new(name);
    ws.write("add.ts", b"export function add(a: number, b: number): number {\n  return a + b;\n}\n");
    ws.write("use.ts", b"import { add } from './add';\n\nexport function twice(x: number): number {\n  return add(x, x);\n}\n");
    ws.write(heavy.0, heavy.1.as_bytes());
    ws
}

fn tsq(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsq"));
    c.args(args).arg("--root").arg(root).env("TSQ_EMBEDDER", "none").envs(env.iter().copied());
    for var in ["TSQ_OCCURRENCE_FILE_WORK", "TSQ_OCCURRENCE_FILE_SECONDS"] {
        if !env.iter().any(|(k, _)| *k == var) {
            c.env_remove(var);
        }
    }
    c.output().unwrap()
}

fn text(out: &Output) -> String {
    format!("exit {:?}\nstdout: {}\nstderr: {}", out.status.code(), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `tsq index --json`, which must succeed: its report.
fn index(root: &Path, env: &[(&str, &str)]) -> Value {
    let out = tsq(root, &["index", "--json"], env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

/// The reason `tsq status --json` records for `file`'s occurrences.
fn failure(root: &Path, file: &str) -> String {
    let out = tsq(root, &["status", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failures = status["occurrenceFailures"].as_array().cloned().unwrap_or_default();
    let found = failures.iter().find(|f| f["path"] == file).unwrap_or_else(|| panic!("{file} is not recorded: {status}"));
    found["reason"].as_str().unwrap().to_string()
}

/// `tsq lookup <query>` (text), which must succeed: its answer.
fn lookup(root: &Path, query: &str, env: &[(&str, &str)]) -> String {
    let out = tsq(root, &["lookup", query], env);
    assert_eq!(out.status.code(), Some(0), "{query}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The ordinary files' answers, from the occurrence rows: `twice` with
/// its code, and `add` with `twice` among its callers.
fn ordinary_answers_hold(root: &Path, env: &[(&str, &str)]) {
    let twice = lookup(root, "symbol = use.ts > twice", env);
    assert!(twice.contains("return add(x, x);"), "{twice}");
    assert!(twice.lines().next().unwrap_or("").contains("structure: from the occurrence index"), "{twice}");
    let add = lookup(root, "symbol = add.ts > add", env);
    assert!(add.contains("return a + b;") && add.contains("twice"), "{add}");
}

#[test]
fn a_file_past_its_budget_is_recorded_with_the_reason_and_answered_live() {
    let ws = workspace("budget-nested", ("nested.ts", nested_functions(3_000)));
    // 3,000 nested functions are about 9 million work units; real files
    // stay under 250,000 (benches/README.md, "One file cannot take down the rest"). A small budget stops this
    // one early, so the test is quick.
    let env = [("TSQ_OCCURRENCE_FILE_WORK", "100000")];
    let report = index(&ws.0, &env);
    let failed = report["occurrences"]["failed"].as_array().unwrap_or_else(|| panic!("{report}"));
    assert_eq!(failed.len(), 1, "only the heavy file: {report}");
    assert_eq!(failed[0][0], "nested.ts", "{report}");
    let reason = failure(&ws.0, "nested.ts");
    assert!(reason.contains("per-file budget") && reason.contains("100000 work units") && reason.contains("TSQ_OCCURRENCE_FILE_WORK"), "{reason}");

    // The others are indexed and answer from their rows.
    ordinary_answers_hold(&ws.0, &env);
    // The heavy file's symbols come live, whole: the innermost one fits
    // the default token budget; the outermost one (the whole file) does
    // not, and the answer says so, with where it is (never cut, never
    // "No symbol found").
    let deep = lookup(&ws.0, "symbol = nested.ts > f2999", &env);
    assert!(!deep.lines().next().unwrap_or("").contains("structure: from the occurrence index"), "{deep}");
    assert!(deep.contains("function f2999() {\nf3000();"), "{}", &deep[..deep.len().min(2000)]);
    let f0 = lookup(&ws.0, "symbol = nested.ts > f0", &env);
    assert!(f0.contains("does not fit the 8000-token budget") && f0.contains("f0 — nested.ts:1-"), "{}", &f0[..f0.len().min(2000)]);

    // Not retried until it changes: the next index stores nothing new.
    let again = index(&ws.0, &env);
    assert_eq!(again["occurrences"]["indexed"], 0, "{again}");
    assert_eq!(failure(&ws.0, "nested.ts"), reason);
}

#[test]
fn a_file_too_deep_to_parse_never_fails_the_other_files_answers() {
    let ws = workspace("budget-deep-array", ("deep.ts", deep_array(100_000)));
    let report = index(&ws.0, &[]);
    let failed = report["occurrences"]["failed"].as_array().unwrap_or_else(|| panic!("{report}"));
    assert_eq!(failed.len(), 1, "only the deep file: {report}");
    let reason = failure(&ws.0, "deep.ts");
    assert!(reason.contains("nested too deeply to parse") && reason.contains("stack overflow"), "{reason}");

    ordinary_answers_hold(&ws.0, &[]);
    // The Language Service holds the file empty, and says so.
    let out = tsq(&ws.0, &["lookup", "symbol = deep.ts > deep"], &[]);
    assert_eq!(out.status.code(), Some(1), "nothing found, not an error: {}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nested too deeply to parse"), "{}", text(&out));
    // Live answers, whose programs hold the deep file, are whole too.
    let engine = tsq::api::Engine::open(&ws.0, tsq::api::EngineOptions { embedder: Some(tsq::embed::EmbedderChoice::None), ..Default::default() }).unwrap();
    let live = engine.inspect_live("symbol = add.ts > add", Some(1)).unwrap();
    let callers = serde_json::to_string(&live.result).unwrap();
    assert!(callers.contains("twice"), "{callers}");
}
