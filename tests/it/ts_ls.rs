//! The Language Service fixtures (`fixtures/ts-ls/<case>/`): every query in
//! `queries.txt` (`symbol = ... [| callDepth=N]`) is answered by
//! `tsq inspect` and compared with `expected.inspect.json`; every
//! `expected.<analysis>[.depthN].json` with that extended analysis over the
//! whole case. Sidecars are written under `TSQ_BLESS=1`, then reviewed by
//! hand before committing.

use crate::common;

use std::path::Path;

use serde_json::{Map, Value};
use tsq::query::SymbolQuery;
use tsq::workspace::{AnalyzeConfig, InspectConfig, Workspace};

fn check(path: &Path, actual: &Value, failures: &mut Vec<String>) {
    common::golden(path, &(serde_json::to_string_pretty(actual).unwrap() + "\n"), failures);
}

fn run_case(dir: &Path, failures: &mut Vec<String>) -> usize {
    let ws = Workspace::open(dir).expect("workspace loads");
    let mut checked = 0;
    if let Ok(text) = std::fs::read_to_string(dir.join("queries.txt")) {
        let mut answers = Map::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let (query_text, options) = line.split_once('|').unwrap_or((line, ""));
            let call_depth = options.trim().strip_prefix("callDepth=").map(|d| d.parse().expect("callDepth")).unwrap_or(1);
            let query = SymbolQuery::parse(query_text).expect("valid query");
            let result = ws.inspect(&query, &InspectConfig { call_depth, resolvers: None }).expect("inspect");
            if result.matches.is_empty() {
                failures.push(format!("{}: `{line}` matched nothing", dir.display()));
            }
            answers.insert(line.to_string(), serde_json::to_value(&result).unwrap());
            checked += 1;
        }
        check(&dir.join("expected.inspect.json"), &Value::Object(answers), failures);
    }
    let mut sidecars: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("expected.") && n.ends_with(".json") && n != "expected.inspect.json")
        .collect();
    sidecars.sort();
    for name in sidecars {
        let stem = &name["expected.".len()..name.len() - ".json".len()];
        let (analysis, type_depth) = match stem.rsplit_once(".depth") {
            Some((a, d)) => (a, d.parse().expect("depth suffix")),
            None => (stem, 1),
        };
        match ws.analyze(analysis, None, &AnalyzeConfig { type_depth }) {
            Ok(result) => check(&dir.join(&name), &result, failures),
            Err(e) => failures.push(format!("{}: {analysis}: {e}", dir.display())),
        }
        checked += 1;
    }
    checked
}

#[test]
fn ts_ls_fixtures_match_their_sidecars() {
    let base = common::repo().join("fixtures/ts-ls");
    let mut dirs: Vec<_> = std::fs::read_dir(&base).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let mut failures = Vec::new();
    let mut total = 0;
    for dir in &dirs {
        let before = failures.len();
        let n = run_case(dir, &mut failures);
        total += n;
        let name = dir.file_name().unwrap().to_string_lossy();
        println!("ts-ls {name}: {n} answers, {}", if failures.len() == before { "ok" } else { "FAILED" });
    }
    println!("ts-ls fixtures: {} cases, {total} answers checked", dirs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
