//! Parity with tsc: tsq's symbol ranges, kinds and signatures against what
//! the vendored TypeScript reports when run directly under Node by an
//! independent script (`tests/parity/tsc-oracle.js`, which shares no code
//! with `js/`). Signatures follow one documented convention on both sides:
//! the header text up to the body (or up to a multi-line initializer),
//! whitespace collapsed. Run on every parser fixture, and on the rxjs and zod corpora
//! when `../shared/corpus.sh` can provide them.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use tsq::parse::{walk, ParsedSymbol};
use tsq::parse_pool::FileParse;

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct OracleDecl {
    syntax_kind: String,
    name: String,
    line_range: (u32, u32),
    header: String,
}

/// The tsq kinds a tsc SyntaxKind may map to.
fn kinds_for(syntax_kind: &str) -> &'static [&'static str] {
    match syntax_kind {
        "FunctionDeclaration" => &["function", "component"],
        "ClassDeclaration" => &["class", "component"],
        "InterfaceDeclaration" => &["interface"],
        "EnumDeclaration" => &["enum"],
        "TypeAliasDeclaration" => &["type"],
        "EnumMember" => &["enumMember"],
        "ModuleDeclaration" => &["namespace", "module"],
        "MethodDeclaration" | "MethodSignature" => &["method"],
        "Constructor" => &["constructor"],
        "GetAccessor" => &["getter"],
        "SetAccessor" => &["setter"],
        // A property holding an arrow function is a method to tsq, one
        // holding a class expression a class.
        "PropertyDeclaration" => &["property", "method", "class"],
        "PropertySignature" => &["property"],
        _ => &[],
    }
}

fn oracle(root: &Path, files: &[String]) -> HashMap<String, Vec<OracleDecl>> {
    let script = common::repo().join("tests/parity/tsc-oracle.js");
    let output = Command::new("node").arg(script).arg(root).args(files).output().expect("node runs (it is on every machine here)");
    assert!(output.status.success(), "oracle failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("oracle JSON")
}

/// Compares one directory's files; returns (declarations compared, failures).
fn compare(root: &Path, files: &[PathBuf]) -> (usize, Vec<String>) {
    let parsed: Vec<FileParse> = common::parse(files, root);
    let rel: Vec<String> = parsed.iter().map(|f| f.paths.relative_path.clone()).collect();
    let mut oracle = HashMap::new();
    for batch in rel.chunks(200) {
        oracle.extend(self::oracle(root, batch));
    }
    let mut compared = 0;
    let mut failures = Vec::new();
    for f in &parsed {
        let mut by_key: HashMap<(&str, u32), Vec<&ParsedSymbol>> = HashMap::new();
        walk(&f.parsed.symbols, &mut |s| by_key.entry((s.name.as_str(), s.range.start)).or_default().push(s));
        for d in oracle.get(&f.paths.relative_path).map(Vec::as_slice).unwrap_or_default() {
            compared += 1;
            let kinds = kinds_for(&d.syntax_kind);
            let candidates = by_key.get(&(d.name.as_str(), d.line_range.0)).cloned().unwrap_or_default();
            let Some(s) = candidates.iter().find(|s| kinds.contains(&s.kind.as_str())) else {
                failures.push(format!(
                    "{}:{}: tsc's {} `{}` has no tsq symbol of kind {:?} starting there (tsq has {:?})",
                    f.paths.relative_path,
                    d.line_range.0,
                    d.syntax_kind,
                    d.name,
                    kinds,
                    candidates.iter().map(|s| &s.kind).collect::<Vec<_>>()
                ));
                continue;
            };
            if s.range.end != d.line_range.1 {
                failures.push(format!("{}: `{}` ends at line {}, tsc says {}", f.paths.relative_path, d.name, s.range.end, d.line_range.1));
            }
            let arrow_property = d.syntax_kind == "PropertyDeclaration" && s.kind == "method";
            if !arrow_property && s.signature != d.header {
                failures.push(format!("{}: `{}` signature\n    tsq: {}\n    tsc: {}", f.paths.relative_path, d.name, s.signature, d.header));
            }
        }
    }
    (compared, failures)
}

#[test]
fn fixtures_match_tsc() {
    let dir = common::repo().join("fixtures/parser");
    let (compared, failures) = compare(&dir, &common::fixture_files(&dir));
    println!("tsc parity (fixtures): {compared} declarations compared, {} mismatches", failures.len());
    assert!(compared > 250, "the oracle found declarations");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_matches_tsc() {
    let Some(corpora) = common::corpora(&["rxjs", "zod", "effect", "typescript"]) else {
        println!("tsc parity (corpus): skipped, ../shared/corpus.sh unavailable");
        return;
    };
    for (name, dir) in corpora {
        let walked = tsq::source::walk(&dir);
        let (compared, failures) = compare(&dir, &walked.files);
        println!("tsc parity ({name}): {} files, {compared} declarations compared, {} mismatches", walked.files.len(), failures.len());
        assert!(failures.is_empty(), "{name}:\n{}", failures.iter().take(50).cloned().collect::<Vec<_>>().join("\n"));
    }
}
