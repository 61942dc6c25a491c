//! The occurrence pass's outgoing calls (`js/occurrences/59_call_sites.js`) are
//! TypeScript's own. The pass walks each call-hierarchy declaration as
//! `ts.CallHierarchy.getOutgoingCalls` does, without building an item per
//! target; `tests/parity/call-sites-check.js` compares the two answers
//! whole (each target's file and spans, every call site, in order) on every
//! call-hierarchy declaration of every fixture workspace, under Node with
//! the vendored compiler. `fixtures/call-sites/kinds` holds every kind of
//! call site TypeScript records (calls, `new`, tagged templates, JSX
//! elements, decorators, accessor reads) and of declaration it walks
//! (overloads, accessors, static blocks, computed names, namespaces,
//! ambient declarations, const-assigned functions and classes, default
//! exports, CommonJS).

use crate::common;

use std::path::PathBuf;
use std::process::Command;

/// The check's summary over `roots`.
fn check(roots: &[PathBuf]) -> serde_json::Value {
    let repo = common::repo();
    let output = Command::new("node")
        .arg(repo.join("tests/parity/call-sites-check.js"))
        .arg(repo.join("vendor-typescript/lib/typescript.js"))
        .arg(repo.join("js"))
        .args(roots)
        .output()
        .expect("node runs (it is on every machine here)");
    assert!(output.status.success(), "call-sites-check.js failed:\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("call-sites-check.js prints JSON")
}

#[test]
fn outgoing_calls_are_typescripts_on_every_kind_of_call_site() {
    let v = check(&common::fixture_dirs("fixtures/call-sites"));
    assert_eq!(v["mismatches"], serde_json::json!([]), "outgoing calls differ from TypeScript's");
    // Every kind of site is there, so a case dropped from the walk fails.
    for kind in
        ["CallExpression", "NewExpression", "PropertyAccessExpression", "TaggedTemplateExpression", "JsxOpeningElement", "JsxSelfClosingElement", "Decorator"]
    {
        assert!(v["kinds"][kind].as_u64().unwrap_or(0) > 0, "no {kind} call site in fixtures/call-sites: {}", v["kinds"]);
    }
    assert!(v["declarations"].as_u64().unwrap() >= 40, "{v}");
}

#[test]
fn outgoing_calls_are_typescripts_on_every_occurrence_and_language_service_fixture() {
    let mut roots = common::fixture_dirs("fixtures/occurrences");
    roots.extend(common::fixture_dirs("fixtures/ts-ls"));
    let v = check(&roots);
    assert_eq!(v["mismatches"], serde_json::json!([]), "outgoing calls differ from TypeScript's");
    assert!(v["calls"].as_u64().unwrap() > 200, "{v}");
}
