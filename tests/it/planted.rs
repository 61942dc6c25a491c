//! An index is a cache of positions, never a source of code (issue 74):
//! whatever a `.tsq/` holds, pulled, shipped in an archive, planted in a
//! clone or tampered after it was made, no answer shows code the
//! checkout lacks. The attacks are written as an attacker would: rows
//! made from other text with the checkout's size and mtime (the stamp
//! rule's blind spot), a pre-built `.tsq/` copied with the checkout, and
//! tables rewritten with arbitrary rows and text (seeded, each row's
//! content hash set to the checkout file's own, so that only the
//! positions-and-checkout rule stands between the rows and the answer).

use crate::common::{self, TempDir};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use futures::TryStreamExt;
use lancedb::query::ExecutableQuery;
use serde_json::Value;
use sha2::Digest;

const PLANTED: &str = "PLANTED";

fn data_home() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/planted-data-home"))
}

fn tsq(root: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsq"));
    c.args(args).arg("--root").arg(root).env("TSQ_EMBEDDER", "none").env("XDG_DATA_HOME", data_home());
    for var in ["TSQ_SHARE_FROM", "TSQ_SHARE_SIGNING_KEY", "TSQ_SHARE_PUBLIC_KEY", "TSQ_TEST_PAUSE"] {
        c.env_remove(var);
    }
    c.output().unwrap()
}

fn shown(out: &Output) -> String {
    format!("exit {:?}\nstdout: {}\nstderr: {}", out.status.code(), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn indexed(root: &Path) {
    let out = tsq(root, &["index", "--json"]);
    assert!(out.status.success(), "{}", shown(&out));
}

fn workspace(name: &str) -> TempDir {
    let ws = TempDir::new(name);
    common::copy_tree(&common::repo().join("fixtures/ts-ls/multi-project"), &ws.0);
    ws
}

const MATH: &str = "packages/core/src/math.ts";

/// Rewrites `rel` as `planted` (same size), indexes, and puts the real
/// text back with the same mtime: the rows are of the planted text and
/// the stamp says nothing changed.
fn rows_of_other_text(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let real = std::fs::read_to_string(&path).unwrap();
    let planted = real.replacen(from, to, 1);
    assert_eq!(planted.len(), real.len());
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, &planted).unwrap();
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    indexed(root);
    std::fs::write(&path, &real).unwrap();
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
}

/// Every answer an agent can ask for about `add`, as JSON and as text.
fn answers(root: &Path) -> Vec<(String, Output)> {
    [
        vec!["lookup", "symbol = add", "--json"],
        vec!["lookup", "symbol = packages/core/src/math.ts > add"],
        vec!["search", "add two amounts in cents", "--json"],
        vec!["search", "add two amounts in cents", "--format", "concise"],
        vec!["inspect", "packages/core/src/math.ts > add", "--json"],
        vec!["relations", "symbol = packages/core/src/math.ts > add", "--json"],
    ]
    .into_iter()
    .map(|a| (a.join(" "), tsq(root, &a)))
    .collect()
}

#[test]
fn rows_made_from_other_text_never_show_it() {
    let ws = workspace("planted-stamp");
    rows_of_other_text(&ws.0, MATH, "return a + b;", "return a - b;");
    for (q, out) in answers(&ws.0) {
        let all = shown(&out);
        assert!(!all.contains("a - b"), "{q}: code the checkout lacks:\n{all}");
        if q.starts_with("lookup") {
            assert!(all.contains("return a + b;"), "{q}: the checkout's code:\n{all}");
        }
    }
}

#[test]
fn a_pre_built_index_shipped_with_the_checkout_is_checked_by_hash() {
    // The archive's maker indexed other text under the real stamps, then
    // shipped the checkout with its `.tsq/` (mtimes kept, as tar does).
    let maker = workspace("planted-archive-maker");
    rows_of_other_text(&maker.0, MATH, "return a + b;", "return a - b;");
    let victim = TempDir::new("planted-archive-victim");
    let cp = Command::new("cp").arg("-a").arg(format!("{}/.", maker.0.display())).arg(&victim.0).output().unwrap();
    assert!(cp.status.success());
    assert!(victim.0.join(".tsq/made-here").exists(), "the maker's marker came along");
    let out = tsq(&victim.0, &["index", "--json"]);
    assert!(out.status.success(), "{}", shown(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not made by tsq on this machine"), "the adoption is said: {}", shown(&out));
    for (q, out) in answers(&victim.0) {
        let all = shown(&out);
        assert!(!all.contains("a - b"), "{q}: code the checkout lacks:\n{all}");
    }
    // Adopted once: the marker is this root's now.
    let again = tsq(&victim.0, &["index", "--json"]);
    assert!(!String::from_utf8_lossy(&again.stderr).contains("not made by tsq on this machine"), "{}", shown(&again));
}

/// A small seeded generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn junk(&mut self) -> String {
        let lines = 1 + self.below(4);
        (0..lines).map(|i| format!("{PLANTED} {i} return a - b; // {:x}", self.next())).collect::<Vec<_>>().join("\n")
    }
}

fn sha256_of(root: &Path, rel: &str) -> Option<String> {
    std::fs::read(root.join(rel)).ok().map(|b| sha2::Sha256::digest(&b).iter().map(|x| format!("{x:02x}")).collect())
}

/// Columns an attacker fills with code the checkout lacks (the rest keep
/// their values, so the rows stay usable and reach the answer stage).
const CODE_COLUMNS: &[&str] = &["fullSource", "signature", "jsdoc", "embeddingText", "searchText"];

/// A stored answer with arbitrary snapshot ranges and planted texts.
fn planted_answer(rng: &mut Rng, json: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<Value>(json) else { return json.to_string() };
    let range = |rng: &mut Rng| serde_json::json!(rng.below(400));
    if let Some(s) = v.get_mut("snapshot") {
        for list in ["targets", "context"] {
            for p in s.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
                p["start"] = range(rng);
                p["end"] = range(rng);
                p["text"] = Value::String(rng.junk());
            }
        }
        for f in s.get_mut("frames").and_then(Value::as_array_mut).into_iter().flatten() {
            for k in ["start", "open", "closeStart", "end"] {
                f[k] = range(rng);
            }
            f["header"] = Value::String(rng.junk());
            f["close"] = Value::String(rng.junk());
        }
    }
    v.to_string()
}

/// Rewrites every table of `root`'s index: code columns planted or left
/// (per row, at random), stored answers' snapshots given arbitrary ranges
/// and planted texts, every content hash the checkout file's own.
fn plant_rows(root: &Path, seed: u64) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let db = lancedb::connect(&root.join(".tsq").display().to_string()).execute().await.unwrap();
        let mut rng = Rng(seed | 1);
        for name in db.table_names().execute().await.unwrap() {
            let table = db.open_table(&name).execute().await.unwrap();
            let batches: Vec<RecordBatch> = table.query().execute().await.unwrap().try_collect().await.unwrap();
            if batches.iter().all(|b| b.num_rows() == 0) {
                continue;
            }
            let mut out = Vec::new();
            for b in &batches {
                let schema = b.schema();
                let paths = b.column_by_name("relativePath").and_then(|c| c.as_any().downcast_ref::<StringArray>().cloned());
                let mut columns: Vec<ArrayRef> = Vec::new();
                for (i, field) in schema.fields().iter().enumerate() {
                    let col = b.column(i);
                    let Some(strings) = col.as_any().downcast_ref::<StringArray>() else {
                        columns.push(col.clone());
                        continue;
                    };
                    let name = field.name().as_str();
                    let values: Vec<Option<String>> = (0..strings.len())
                        .map(|r| {
                            let old = (!strings.is_null(r)).then(|| strings.value(r).to_string());
                            let rel = paths.as_ref().map(|p| p.value(r).to_string());
                            match name {
                                "contentHash" => rel.and_then(|rel: String| sha256_of(root, &rel)).or(old),
                                "answer" => old.map(|a: String| planted_answer(&mut rng, &a)),
                                _ if CODE_COLUMNS.contains(&name) && rng.below(3) > 0 => Some(rng.junk()),
                                _ => old,
                            }
                        })
                        .collect();
                    columns.push(std::sync::Arc::new(StringArray::from(values)) as ArrayRef);
                }
                out.push(RecordBatch::try_new(schema.clone(), columns).unwrap());
            }
            let schema = out[0].schema();
            db.create_table(
                &name,
                Box::new(arrow_array::RecordBatchIterator::new(out.into_iter().map(Ok), schema)) as Box<dyn arrow_array::RecordBatchReader + Send>,
            )
            .mode(lancedb::database::CreateTableMode::Overwrite)
            .execute()
            .await
            .unwrap();
        }
    });
}

/// Every line of every snapshot (and the concise previews) in `json`,
/// with its file.
fn code_lines(json: &Value, out: &mut Vec<(String, String)>) {
    match json {
        Value::Object(m) => {
            if let (Some(Value::String(file)), Some(Value::String(text))) = (m.get("filePath"), m.get("text").or(m.get("preview"))) {
                out.extend(text.lines().map(|l| (file.clone(), l.to_string())));
            }
            m.values().for_each(|v| code_lines(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| code_lines(v, out)),
        _ => {}
    }
}

/// No answer shows planted text, and every code line it shows is (part
/// of) a line of its file in the checkout.
fn only_checkout_code(root: &Path, why: &str) {
    for (q, out) in answers(root) {
        let all = shown(&out);
        assert!(!all.contains(PLANTED) && !all.contains("a - b"), "{why}, {q}: code the checkout lacks:\n{all}");
        assert!(out.status.code().is_some_and(|c| c <= 2), "{why}, {q}: {all}");
        let Ok(json) = serde_json::from_slice::<Value>(&out.stdout) else { continue };
        let mut lines = Vec::new();
        code_lines(&json, &mut lines);
        for (file, line) in lines {
            let Ok(text) = std::fs::read_to_string(root.join(&file)) else { continue };
            let l = line.trim();
            // tsq's own lines: each snapshot's `// <file>` header.
            let marker = l.is_empty() || l == format!("// {file}");
            assert!(marker || text.lines().any(|t| t.contains(l)), "{why}, {q}: `{line}` is not in {file}:\n{all}");
        }
    }
}

#[test]
fn arbitrary_rows_never_yield_a_line_the_checkout_lacks() {
    let ws = workspace("planted-arbitrary");
    indexed(&ws.0);
    let pristine = TempDir::new("planted-arbitrary-pristine");
    common::copy_tree(&ws.0.join(".tsq"), &pristine.0);
    for seed in [1u64, 7, 42, 1234, 99991] {
        for planted in [true, false] {
            std::fs::remove_dir_all(ws.0.join(".tsq")).unwrap();
            common::copy_tree(&pristine.0, &ws.0.join(".tsq"));
            plant_rows(&ws.0, seed);
            if planted {
                // Brought by the checkout: not made here.
                std::fs::remove_file(ws.0.join(".tsq/made-here")).unwrap();
            }
            only_checkout_code(&ws.0, &format!("seed {seed}, {}", if planted { "planted" } else { "tampered after it was made" }));
        }
    }
}
