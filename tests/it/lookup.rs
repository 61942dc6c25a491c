//! Blueprint phases 4-6: smart snapshots (`fixtures/snapshot/`, golden
//! `expected.snapshots.json`, and every snapshot re-parsed by tsc), the
//! connection graph (`fixtures/graph/<case>.json` metadata in, golden
//! `<case>.txt` out), and the lookup cases (`fixtures/lookup/`). Goldens are
//! written under `TSQ_BLESS=1` and reviewed by hand.

use crate::common;

use serde_json::{Map, Value};
use tsq::answer::SymbolMetadata;
use tsq::chunk::estimate_tokens;
use tsq::graph;
use tsq::lookup::{live_answer, LookupConfig};
use tsq::query::SymbolQuery;
use tsq::workspace::Workspace;

use common::golden;

#[test]
fn snapshots_match_goldens_and_reparse() {
    let dir = common::repo().join("fixtures/snapshot");
    let ws = Workspace::open(&dir).unwrap();
    let mut answers = Map::new();
    let mut failures = Vec::new();
    for line in std::fs::read_to_string(dir.join("queries.txt")).unwrap().lines().filter(|l| !l.trim().is_empty()) {
        let queries: Vec<SymbolQuery> = line.split(" && ").map(|q| SymbolQuery::parse(q).unwrap()).collect();
        let result = ws.locate(&queries).unwrap();
        let snapshots = tsq::snapshot::assemble(&result.snapshots);
        assert_eq!(snapshots.len(), 1, "{line}: one file, one snapshot");
        let text = &snapshots[0].text;
        assert!(text.starts_with(&format!("// {}\n", snapshots[0].file_path)), "{line}: header");
        // Parts computed one query at a time (as stored structure is) merge
        // into exactly the snapshot of one computation over all of them.
        let apart: Vec<_> = queries.iter().flat_map(|q| ws.locate(std::slice::from_ref(q)).unwrap().snapshots).collect();
        let merged = tsq::snapshot::assemble(&apart);
        if merged.len() != 1 || &merged[0].text != text {
            failures.push(format!(
                "{line}: parts computed apart merge differently:\n{}\n--- joint\n{text}",
                merged.iter().map(|s| s.text.clone()).collect::<String>()
            ));
        }
        let parsed = common::engine().parse_text("snapshot.ts", text.clone());
        if !parsed.diagnostics.is_empty() {
            failures.push(format!("{line}: snapshot does not parse: {:?}\n{text}", parsed.diagnostics));
        }
        for m in &result.matches {
            if !text.contains(&m.symbol.name) {
                failures.push(format!("{line}: target {} missing", m.symbol.name));
            }
        }
        answers.insert(line.to_string(), Value::String(text.clone()));
    }
    let pretty = serde_json::to_string_pretty(&Value::Object(answers)).unwrap() + "\n";
    golden(&dir.join("expected.snapshots.json"), &pretty, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn graphs_match_goldens() {
    let dir = common::repo().join("fixtures/graph");
    let mut failures = Vec::new();
    for case in ["single-result", "multi-result", "no-connections", "shared-type", "diamond"] {
        let input: Vec<SymbolMetadata> = serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{case}.json"))).unwrap()).unwrap();
        let text = if input.len() == 1 { graph::render_single(&input[0]) } else { graph::render_multi(&input) };
        golden(&dir.join(format!("{case}.txt")), &text, &mut failures);
        let stars = text.matches('★').count();
        let diamonds = text.matches('◆').count();
        match case {
            "no-connections" => assert_eq!((stars, diamonds), (0, 0), "{text}"),
            "multi-result" => assert!(stars > 0, "results calling results are starred:\n{text}"),
            "shared-type" => assert!(text.contains("Shared type: User"), "{text}"),
            "diamond" => assert!(text.contains("Diamond: [1] handleRequest → authenticate, logRequest → processOrder"), "{text}"),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn lookup(ws: &Workspace, q: &str, config: &LookupConfig) -> tsq::lookup::LookupAnswer {
    live_answer(ws, &SymbolQuery::parse(q).unwrap(), config).unwrap()
}

fn answer(ws: &Workspace, q: &str) -> tsq::lookup::LookupAnswer {
    lookup(ws, q, &LookupConfig::default())
}

#[test]
fn the_blueprints_lookup_cases() {
    let ws = Workspace::open(&common::repo().join("fixtures/lookup")).unwrap();
    let files = |a: &tsq::lookup::LookupAnswer| -> Vec<String> { a.results.iter().map(|r| r.location.symbol.file_path.clone().unwrap()).collect() };
    let a = answer(&ws, "symbol = validateToken");
    assert_eq!(files(&a), ["src/auth/tokenService.ts", "src/legacy/tokenService.ts"]);
    assert_eq!(files(&answer(&ws, "symbol = TokenService > validateToken")).len(), 2);
    let scoped = answer(&ws, "symbol = src/auth/tokenService.ts > TokenService > validateToken");
    assert_eq!(files(&scoped), ["src/auth/tokenService.ts"]);
    assert_eq!(files(&answer(&ws, "symbol = ambiguousName")).len(), 2);

    let none = answer(&ws, "symbol = nonExistentSymbol");
    assert!(none.results.is_empty());
    assert_eq!(none.hints, ["No symbol \"nonExistentSymbol\" found."]);
    assert!(!tsq::query::is_symbol_query("validateToken"), "no prefix, no lookup");

    let case = answer(&ws, "symbol = validatetoken");
    assert_eq!(case.hints.len(), 1);
    assert!(case.hints[0].starts_with("No symbol \"validatetoken\" found. Did you mean \"validateToken\" (src/"), "{:?}", case.hints);
    let path = answer(&ws, "symbol = tokenService.ts > validateToken");
    assert_eq!(path.hints, ["No file \"tokenService.ts\" found. Similar paths: src/auth/tokenService.ts, src/legacy/tokenService.ts"]);
    let child = answer(&ws, "symbol = TokenService > nonExistent");
    assert!(child.hints[0].contains("has no member \"nonExistent\""), "{:?}", child.hints);
    let parent = answer(&ws, "symbol = NonExistentClass > validateToken");
    assert_eq!(parent.hints[0], "No symbol \"NonExistentClass\" found (the parent of \"validateToken\").");
}

#[test]
fn the_summary_line_is_exact_and_the_budget_holds() {
    let ws = Workspace::open(&common::repo().join("fixtures/lookup")).unwrap();
    for q in ["symbol = validateToken", "symbol = src/auth/tokenService.ts > TokenService", "symbol = nope"] {
        let a = answer(&ws, q);
        let first = a.text.lines().next().unwrap();
        let claimed: usize = first.rsplit(" | ").next().unwrap().split('/').next().unwrap().replace(',', "").parse().unwrap();
        assert_eq!(claimed, estimate_tokens(&a.text), "{q}: {first}");
        assert_eq!(a.tokens, claimed);
        assert!(a.tokens <= a.budget);
    }
    let tight = lookup(&ws, "symbol = validateToken", &LookupConfig { max_token_budget: 150, ..LookupConfig::default() });
    assert!(tight.tokens <= 150 || tight.results.is_empty(), "{}", tight.text);
    assert!(tight.text.contains("does not fit") || tight.omitted > 0, "{}", tight.text);
}
