//! tsq's JS answers the same on QuickJS and on V8. The `v8` feature cannot
//! be linked on the machines that build tsq, so V8 is Node here:
//! `benches/node-occurrences.js` loads the same vendored `typescript.js`
//! and the same `js/<role>/NN_*.js` files in Node, with Node's `fs` in place of
//! the Rust ops, and sends the full occurrence pass's requests. Every row
//! it computes must be a row tsq stored on QuickJS, and the other way
//! round, on every occurrence fixture (other holders' environments and
//! resolutions, contextual types, library members, CommonJS, scopes),
//! every Language Service fixture and every call-site fixture (JSX,
//! decorators, tagged templates).

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::TempDir;
use tsq::api::{Engine, EngineOptions};
use tsq::embed::EmbedderChoice;
use tsq::index::{Index, IndexConfig};

/// (file, line, column, symbol, role, enclosing, caller, meaning)
type Row = (String, u32, u32, String, String, String, Option<String>, u8);

/// The rows Node computes for `root`, and the files it failed.
fn rows_on_v8(root: &Path) -> (Vec<Row>, usize) {
    let repo = common::repo();
    let output = Command::new("node")
        .args(["--expose-gc", "--stack-size=7000"])
        .arg(repo.join("benches/node-occurrences.js"))
        .arg(repo.join("vendor-typescript/lib/typescript.js"))
        .arg(repo.join("js"))
        .arg(root)
        .arg("--rows")
        .output()
        .expect("node runs (it is on every machine here)");
    assert!(output.status.success(), "node-occurrences.js failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let v: serde_json::Value = serde_json::from_slice(&output.stdout).expect("node-occurrences.js --rows prints JSON");
    let str_of = |r: &serde_json::Value, k: &str| r[k].as_str().unwrap_or_else(|| panic!("row field {k}: {r}")).to_string();
    let rows = v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                str_of(r, "relativePath"),
                r["line"].as_u64().expect("line") as u32,
                r["column"].as_u64().expect("column") as u32,
                str_of(r, "symbol"),
                str_of(r, "role"),
                str_of(r, "enclosing"),
                r["caller"].as_str().map(str::to_string),
                r["meaning"].as_u64().expect("meaning") as u8,
            )
        })
        .collect();
    (rows, v["failed"].as_array().map_or(0, Vec::len))
}

/// The rows tsq stored for `root` on QuickJS (a full occurrence sync), for
/// every file the sync indexed.
fn rows_on_quickjs(root: &Path) -> Vec<Row> {
    let e = Engine::open(root, EngineOptions { embedder: Some(EmbedderChoice::None), ..Default::default() }).unwrap();
    let report = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert!(report.failed.is_empty(), "{}: files failed on QuickJS: {:?}", root.display(), report.failed);
    let index = Index::open_with(root, &IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }, None).unwrap();
    let mut rows = Vec::new();
    for f in index.occ_files(false).unwrap() {
        for o in index.occurrences_in(&f.relative_path).unwrap() {
            rows.push((o.relative_path, o.line, o.column, o.symbol, o.role, o.enclosing, o.caller, o.meaning));
        }
    }
    rows
}

/// The occurrence, Language Service and call-site fixtures (the
/// differential tests' workspaces).
fn fixtures() -> Vec<PathBuf> {
    let mut out = common::fixture_dirs("fixtures/occurrences");
    out.extend(common::fixture_dirs("fixtures/ts-ls"));
    out.extend(common::fixture_dirs("fixtures/call-sites"));
    out
}

#[test]
fn the_occurrence_pass_writes_the_same_rows_on_v8_as_on_quickjs() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for dir in fixtures() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let ws = TempDir::copy_of(&dir, &format!("engine-parity-{name}"));
        let (mut v8, failed) = rows_on_v8(&ws.0);
        assert_eq!(failed, 0, "{name}: files failed on V8");
        let mut quickjs = rows_on_quickjs(&ws.0);
        v8.sort();
        quickjs.sort();
        assert!(!quickjs.is_empty(), "{name}: tsq stored no rows");
        compared += quickjs.len();
        if v8 != quickjs {
            let a: BTreeSet<&Row> = v8.iter().collect();
            let b: BTreeSet<&Row> = quickjs.iter().collect();
            let only_v8: Vec<_> = a.difference(&b).take(5).collect();
            let only_quickjs: Vec<_> = b.difference(&a).take(5).collect();
            failures.push(format!(
                "{name}: {} rows on V8, {} on QuickJS\n  only on V8: {only_v8:?}\n  only on QuickJS: {only_quickjs:?}",
                v8.len(),
                quickjs.len()
            ));
        }
    }
    eprintln!("engine parity: {compared} rows compared over {} fixtures", fixtures().len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 500, "the fixtures hold more rows than {compared}");
}

/// The fixtures a full pass's variants (the memory bound) are compared
/// on: projects that share files, other holders, call sites.
const PASS_VARIANT_FIXTURES: [&str; 5] = [
    "fixtures/ts-ls/multi-project",
    "fixtures/ts-ls/cross-module",
    "fixtures/call-sites/kinds",
    "fixtures/occurrences/holder-lib",
    "fixtures/occurrences/program-scope",
];

/// `PASS_VARIANT_FIXTURES` as paths.
fn pass_variant_dirs() -> Vec<PathBuf> {
    let repo = common::repo();
    PASS_VARIANT_FIXTURES.iter().map(|rel| repo.join(rel)).collect()
}

/// Runs `tsq index` with `env` on a copy of each workspace of `dirs`,
/// asserts `check` on its debug log, and compares the stored rows with a
/// default pass's. Returns the rows compared.
fn compare_pass_variant_in(dirs: &[PathBuf], label: &str, env: &[(&str, &str)], check: impl Fn(&str, &str)) -> usize {
    let mut compared = 0;
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let one = TempDir::copy_of(dir, &format!("{label}-default-{name}"));
        let mut expected = rows_on_quickjs(&one.0);
        let variant = TempDir::copy_of(dir, &format!("{label}-{name}"));
        let out = Command::new(env!("CARGO_BIN_EXE_tsq"))
            .args(["index", "--embedder", "none", "--json", "--root"])
            .arg(&variant.0)
            .envs(env.iter().copied())
            .env("TSQ_LOG", "debug")
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        check(&name, &String::from_utf8_lossy(&out.stderr));
        let index = Index::open_with(&variant.0, &IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }, None).unwrap();
        let mut got = Vec::new();
        for f in index.occ_files(false).unwrap() {
            assert!(f.error.is_none(), "{name}: {} failed: {:?}", f.relative_path, f.error);
            for o in index.occurrences_in(&f.relative_path).unwrap() {
                got.push((o.relative_path, o.line, o.column, o.symbol, o.role, o.enclosing, o.caller, o.meaning));
            }
        }
        expected.sort();
        got.sort();
        assert!(got.len() > 20, "{name}: {} rows", got.len());
        assert_eq!(got, expected, "{name}: the {label} pass stored other rows than the default pass");
        compared += got.len();
    }
    compared
}

/// The memory bound at 1 MiB (`TSQ_OCCURRENCE_MEMORY_MB`): the pass goes
/// on with a fresh checker at almost every file and collects inside files,
/// and stores exactly the rows of the default pass.
#[test]
fn a_pass_with_fresh_checkers_at_every_file_writes_the_rows_of_one() {
    let mut dirs = pass_variant_dirs();
    // One type-heavy file, which grows well past 1 MiB while it is
    // indexed: the bound collects inside it (`pacedBy` in
    // js/occurrences/60_occurrences.js).
    let heavy = TempDir::new("fresh-checkers-heavy-file");
    heavy.write("tsconfig.json", br#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext" } }"#);
    let mut text = String::from("export interface Shape0 { a: number }\nexport function make0(x: Shape0): Shape0 { return x; }\n");
    for i in 1..400 {
        let p = i - 1;
        text += &format!(
            "export interface Shape{i} extends Shape{p} {{ b{i}: string; next?: Shape{p}; pick: Pick<Shape{p}, 'a'> }}\n\
             export function make{i}(x: Shape{i}): Shape{i} {{ const y = make{p}(x); return {{ ...x, ...y, a: y.a + {i}, next: {{ ...y }} }}; }}\n"
        );
    }
    heavy.write("src/heavy.ts", text.as_bytes());
    dirs.push(heavy.0.clone());
    let inside = std::cell::Cell::new(0);
    let compared = compare_pass_variant_in(&dirs, "fresh-checkers", &[("TSQ_OCCURRENCE_MEMORY_MB", "1")], |name, log| {
        let fresh = common::fresh_checkers(log);
        // The first file always finds the process past 1 MiB.
        assert!(fresh >= 1, "{name}: the bound started no fresh checker:\n{log}");
        let n = common::collected_inside(log);
        if name.starts_with("tsq-fresh-checkers-heavy-file") {
            assert!(n >= 1, "{name}: the bound never collected inside the heavy file:\n{log}");
        }
        inside.set(inside.get() + n);
    });
    eprintln!("fresh checkers: {compared} rows compared, {} collections inside files", inside.get());
}
