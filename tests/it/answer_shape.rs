//! The JSON a user scripts against is pinned: the shape (keys and value
//! types, recursively) of `tsq lookup --format json`, `tsq search --format
//! json`, the concise records, `tsq inspect --json`, `tsq relations
//! --json` and `tsq analyze` (an analysis and the project structure),
//! against reviewed sidecars in
//! `tests/answer_shape/`. The answers come from `tsq::answer`'s types, not
//! the Rust-JS wire types, so a protocol change cannot alter them
//! unnoticed: it fails here. A change meant to alter the answer updates a
//! sidecar by hand (or `TSQ_BLESS=1`, then a review of the diff).

use crate::common;

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::{json, Value};

use common::TempDir;

/// The shape of a value: objects keep their keys, arrays the union of
/// their elements' shapes, scalars their type (`"string|null"` where
/// elements differ).
fn shape(v: &Value) -> Value {
    match v {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("bool"),
        Value::Number(_) => json!("number"),
        Value::String(_) => json!("string"),
        Value::Array(a) => {
            let merged = a.iter().map(shape).reduce(|x, y| merge(&x, &y));
            json!([merged.unwrap_or(json!("empty"))])
        }
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), shape(x))).collect()),
    }
}

fn merge(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut out: BTreeMap<String, Value> = x.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            for (k, v) in y {
                let m = match out.get(k) {
                    Some(w) => merge(w, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), m);
            }
            json!(out)
        }
        (Value::Array(x), Value::Array(y)) => match (x.first(), y.first()) {
            (Some(p), Some(q)) if p == "empty" => json!([q]),
            (Some(p), Some(q)) if q == "empty" => json!([p]),
            (Some(p), Some(q)) => json!([merge(p, q)]),
            _ => a.clone(),
        },
        _ if a == b => a.clone(),
        _ => {
            let mut kinds: Vec<String> = [a, b].iter().flat_map(|v| v.as_str().unwrap_or("mixed").split('|').map(str::to_string).collect::<Vec<_>>()).collect();
            kinds.sort();
            kinds.dedup();
            json!(kinds.join("|"))
        }
    }
}

#[test]
fn the_shape_helper_sees_keys_types_and_unions() {
    let v = json!({"a": [{"x": 1}, {"x": null, "y": "s"}], "b": [], "c": true});
    assert_eq!(shape(&v), json!({"a": [{"x": "null|number", "y": "string"}], "b": ["empty"], "c": "bool"}));
}

#[test]
fn json_answers_keep_their_reviewed_shape() {
    // Each case's fixture has what its answer shows filled in: call trees
    // both ways and graph edges (multi-hop), a type hierarchy with members
    // (type-hierarchy), ranked search results (search).
    let cases: [(&str, &str, &[&str]); 8] = [
        ("lookup", "ts-ls/multi-hop", &["lookup", "symbol = handleRequest", "--call-depth", "2", "--format", "json"]),
        ("lookup-class", "ts-ls/type-hierarchy", &["lookup", "symbol = BaseModel", "--format", "json"]),
        ("search", "search", &["search", "evict the least recently used entry", "--format", "json"]),
        ("search-concise", "search", &["search", "evict the least recently used entry", "--format", "concise", "--json"]),
        ("inspect", "ts-ls/multi-hop", &["inspect", "symbol = handleRequest", "--call-depth", "2", "--json"]),
        ("relations", "ts-ls/multi-hop", &["relations", "symbol = entry.ts > handleRequest", "--call-depth", "2", "--json"]),
        ("analyze-advanced-types", "ts-ls/advanced-types", &["analyze", "advanced-types"]),
        ("analyze-project-structure", "ts-ls/type-hierarchy", &["analyze", "project-structure"]),
    ];
    let mut failures = Vec::new();
    for (name, fixture, args) in cases {
        let ws = TempDir::copy_of(&common::repo().join("fixtures").join(fixture), &format!("answer-shape-{name}"));
        ws.write("tsq.toml", b"embedder = \"none\"\n");
        let root = ws.0.canonicalize().unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_tsq")).args(args).arg("--root").arg(&root).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"));
        let text = serde_json::to_string_pretty(&shape(&v)).unwrap() + "\n";
        common::golden(&common::repo().join(format!("tests/answer_shape/{name}.json")), &text, &mut failures);
    }
    assert!(failures.is_empty(), "the JSON answers changed shape (review, then update the sidecar):\n{}", failures.join("\n"));
}
