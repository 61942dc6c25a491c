//! The persistent index: the blueprint's seven index fixtures with exact
//! counts, skip reasons, crash safety (kill -9 at many moments, a zero-byte
//! manifest), two writers at once, and the CLI's index/status/clean.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tsq::embed::{Document, EmbedError, Embedder, EmbedderId};
use tsq::index::{Index, IndexConfig, SyncReport};

/// Deterministic vectors from the text's bytes: one per document.
struct TestEmbedder;

impl Embedder for TestEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: "test-hash".into(), dimension: 8 }
    }
    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        Ok(docs.iter().map(|d| vec![hash_vector(d.text)]).collect())
    }
    fn embed_query(&self, q: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(hash_vector(q))
    }
}

fn hash_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 8];
    for (i, b) in text.bytes().enumerate() {
        v[i % 8] += b as f32;
    }
    tsq::embed::normalize(&mut v);
    v
}

use common::TempDir;

fn open(root: &Path) -> Index {
    Index::open_with(root, &IndexConfig::default(), Some(Box::new(TestEmbedder))).expect("index opens")
}

fn sync(index: &mut Index) -> SyncReport {
    let mut report = index.sync(common::engine(), &tsq::progress::silent()).expect("sync");
    report.embedded = index.embed_missing(None, &tsq::progress::silent()).expect("embed");
    report
}

fn counts(r: &SyncReport) -> Value {
    serde_json::json!({
        "files": r.files, "unchanged": r.unchanged, "touched": r.touched, "parsed": r.parsed, "removed": r.removed,
        "skipped": r.skipped, "chunks": r.chunks, "embedded": r.embedded, "cascade": r.cascade,
    })
}

fn mutate(root: &Path, m: &Value) {
    for (rel, text) in m["write"].as_object().into_iter().flatten() {
        std::fs::write(root.join(rel), text.as_str().unwrap()).unwrap();
    }
    for rel in m["delete"].as_array().into_iter().flatten() {
        std::fs::remove_file(root.join(rel.as_str().unwrap())).unwrap();
    }
    for rel in m["touch"].as_array().into_iter().flatten() {
        let f = std::fs::File::options().write(true).open(root.join(rel.as_str().unwrap())).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(10)).unwrap();
    }
}

#[test]
fn the_seven_index_fixtures_give_exact_counts() {
    let base = common::repo().join("fixtures/index");
    let mut failures = Vec::new();
    for case in ["initial-build", "no-change", "mtime-only", "content-change", "file-added", "file-removed", "signature-cascade"] {
        let spec: Value = serde_json::from_str(&std::fs::read_to_string(base.join(case).join("case.json")).unwrap()).unwrap();
        let ws = TempDir::copy_of(&base.join("workspace"), &format!("index-{case}"));
        let mut index = open(&ws.0);
        let first = sync(&mut index);
        let report = if spec["run"] == "first" {
            first
        } else {
            if let Some(m) = spec.get("mutate") {
                mutate(&ws.0, m);
            }
            sync(&mut index)
        };
        if counts(&report) != spec["expect"] {
            failures.push(format!("{case}: expected {}, got {}", spec["expect"], counts(&report)));
        }
        let problems = index.check_invariants().unwrap();
        if !problems.is_empty() {
            failures.push(format!("{case}: invariants: {problems:?}"));
        }
        // A third sync after any case changes nothing.
        let again = sync(&mut index);
        if again.parsed + again.embedded + again.removed + again.touched != 0 {
            failures.push(format!("{case}: a further sync did work: {}", counts(&again)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn vectors_follow_the_embedder_and_are_never_mixed() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/index/workspace"), "index-switch");
    let mut index = open(&ws.0);
    sync(&mut index);
    assert_eq!(index.status().unwrap().vectors, 9);
    drop(index);
    // BM25 only: the vectors stay, none are added, none are searched.
    let mut none = Index::open_with(&ws.0, &IndexConfig::default(), None).unwrap();
    let r = sync(&mut none);
    assert_eq!((r.parsed, r.embedded), (0, 0));
    drop(none);
    // Another model of the same size (a new local model's arithmetic):
    // only the vectors are redone; the chunks are not parsed again.
    struct Renamed;
    impl Embedder for Renamed {
        fn id(&self) -> EmbedderId {
            EmbedderId { model: "test-hash-2".into(), dimension: 8 }
        }
        fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
            Ok(docs.iter().map(|_| vec![vec![0.5; 8]]).collect())
        }
        fn embed_query(&self, _: &str) -> Result<Vec<f32>, EmbedError> {
            Ok(vec![0.5; 8])
        }
    }
    let mut renamed = Index::open_with(&ws.0, &IndexConfig::default(), Some(Box::new(Renamed))).unwrap();
    assert!(renamed.notes.iter().any(|n| n.contains("embedder changed from test-hash (8d) to test-hash-2 (8d)") && n.contains("kept")), "{:?}", renamed.notes);
    let status = renamed.status().unwrap();
    assert_eq!((status.embedder.as_str(), status.vectors), ("test-hash-2", 0), "the old model's vectors are gone before any new one");
    let r = sync(&mut renamed);
    assert_eq!((r.parsed, r.embedded), (0, 9), "chunks kept, every one embedded again");
    assert_eq!(renamed.status().unwrap().vectors, 9);
    let hits = renamed.nearest(&[0.5; 8], &Default::default(), 20).unwrap();
    // Every stored vector is the new model's [0.5; 8]: one score for all.
    assert!(hits.len() == 9 && hits.iter().all(|h| (h.1 - hits[0].1).abs() < 1e-6), "{hits:?}");
    drop(renamed);
    // Reopened with the same model: nothing to clear, nothing to embed.
    let mut again = Index::open_with(&ws.0, &IndexConfig::default(), Some(Box::new(Renamed))).unwrap();
    assert!(!again.notes.iter().any(|n| n.contains("embedder changed")), "{:?}", again.notes);
    assert_eq!(sync(&mut again).embedded, 0);
    drop(again);
    // Another model of another size: everything is rebuilt and re-embedded.
    struct Wide;
    impl Embedder for Wide {
        fn id(&self) -> EmbedderId {
            EmbedderId { model: "test-wide".into(), dimension: 16 }
        }
        fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
            Ok(docs.iter().map(|_| vec![vec![0.25; 16]]).collect())
        }
        fn embed_query(&self, _: &str) -> Result<Vec<f32>, EmbedError> {
            Ok(vec![0.25; 16])
        }
    }
    let mut wide = Index::open_with(&ws.0, &IndexConfig::default(), Some(Box::new(Wide))).unwrap();
    assert!(wide.notes.iter().any(|n| n.contains("embedder changed from test-hash-2 (8d) to test-wide (16d)")), "{:?}", wide.notes);
    let r = sync(&mut wide);
    assert_eq!((r.parsed, r.embedded), (5, 9));
    let status = wide.status().unwrap();
    assert_eq!((status.embedder.as_str(), status.dimensions), ("test-wide", 16));
    // A query of the old size is never compared against these vectors.
    assert!(wide.nearest(&[1.0; 8], &Default::default(), 5).unwrap().is_empty());
    assert!(!wide.nearest(&[0.25; 16], &Default::default(), 5).unwrap().is_empty());
}

#[test]
fn failed_embedding_stores_nothing_and_is_retried() {
    struct Failing;
    impl Embedder for Failing {
        fn id(&self) -> EmbedderId {
            EmbedderId { model: "test-hash".into(), dimension: 8 }
        }
        fn embed_documents(&self, _: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
            Err(EmbedError::Http { service: "test", status: 500, message: "down".into() })
        }
        fn embed_query(&self, _: &str) -> Result<Vec<f32>, EmbedError> {
            Err(EmbedError::Http { service: "test", status: 500, message: "down".into() })
        }
    }
    let ws = TempDir::copy_of(&common::repo().join("fixtures/index/workspace"), "index-failing");
    let mut index = Index::open_with(&ws.0, &IndexConfig::default(), Some(Box::new(Failing))).unwrap();
    index.sync(common::engine(), &tsq::progress::silent()).unwrap();
    assert!(index.embed_missing(None, &tsq::progress::silent()).is_err());
    let status = index.status().unwrap();
    assert_eq!((status.chunks, status.vectors), (11, 0), "no placeholder vectors");
    drop(index);
    let mut index = open(&ws.0);
    let r = sync(&mut index);
    assert_eq!((r.parsed, r.embedded), (0, 9), "the next run embeds what failed");
}

#[test]
fn bad_files_are_recorded_with_their_reason_and_the_rest_is_indexed() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/index/workspace"), "index-skips");
    let w = |rel: &str, bytes: Vec<u8>| std::fs::write(ws.0.join(rel), bytes).unwrap();
    w("big.ts", format!("export const big = `{}`;\n", "x\n".repeat(8_500_000)).into_bytes());
    w("bundle.min.js", format!("var a={};\n", "[1,2,3],".repeat(2000)).repeat(3).into_bytes());
    w("binary.ts", b"export const a = 1;\0\0\x01".to_vec());
    w("latin1.ts", b"export const caf\xe9 = 1;\n".to_vec());
    // 1.5M nested brackets overflow the JS stack; lines of 100 keep it
    // from looking minified, and it stays under the size limit.
    let lines = |c: &str| format!("{}\n", c.repeat(100)).repeat(15_000);
    w("deep.ts", format!("const x =\n{}1\n{};\n", lines("["), lines("]")).into_bytes());
    let mut index = open(&ws.0);
    let r = sync(&mut index);
    assert_eq!(r.chunks, 11, "the good files are all indexed");
    let status = index.status().unwrap();
    let reason =
        |p: &str| status.skipped.iter().find(|s| s.path == p).map(|s| s.reason.clone()).unwrap_or_else(|| panic!("{p} not recorded: {:?}", status.skipped));
    assert!(reason("big.ts").contains("over the 16777216-byte limit"), "{}", reason("big.ts"));
    assert!(reason("bundle.min.js").starts_with("minified"), "{}", reason("bundle.min.js"));
    assert!(reason("binary.ts").starts_with("binary file"), "{}", reason("binary.ts"));
    assert!(reason("latin1.ts").starts_with("invalid UTF-8"), "{}", reason("latin1.ts"));
    let deep = reason("deep.ts");
    assert!(deep.starts_with("parse failed") && (deep.contains("stack") || deep.contains("RangeError")), "{deep}");
    assert_eq!(r.skipped, 5);
    assert!(index.check_invariants().unwrap().is_empty());
    // Skips are stable: nothing is retried until the file changes.
    let again = sync(&mut index);
    assert_eq!((again.parsed, again.skipped), (0, 5));
}

#[test]
fn bm25_over_whole_files_follows_every_edit() {
    let ws = TempDir::new("index-whole-texts");
    let w = |rel: &str, text: &str| std::fs::write(ws.0.join(rel), text).unwrap();
    // The words are spread over three functions in one file, and meet in
    // one function of the other.
    w(
        "session.ts",
        "export function renew() { return 'refresh'; }\nexport function expiry() { return 'token'; }\nexport function rotate() { return 'refresh token'; }\n",
    );
    w("other.ts", "export function once() { return 'token'; }\nexport const unrelated = 1;\n");
    w("notes.ts", "export const nothing = 2;\n");
    let mut index = open(&ws.0);
    sync(&mut index);
    let all = tsq::index::Filter::default();
    let files = |index: &Index, filter: &tsq::index::Filter| -> Vec<String> {
        index.file_bm25("refresh token", filter, 10).unwrap().into_iter().map(|(p, _)| p).collect()
    };
    assert_eq!(files(&index, &all), ["session.ts", "other.ts"], "the file holding both words most often first; one holding neither is absent");
    let scoped = tsq::index::Filter { paths: vec!["other.ts".into()], ..Default::default() };
    assert_eq!(files(&index, &scoped), ["other.ts"], "the scope applies");
    // An edit that moves the words, a deletion and a file that no longer
    // parses: the whole texts follow each.
    w("notes.ts", "export function refreshToken() { return 'refresh the token, refresh it'; }\n");
    std::fs::remove_file(ws.0.join("session.ts")).unwrap();
    w("other.ts", &format!("const x =\n{}1\n{};\n", format!("{}\n", "[".repeat(100)).repeat(15_000), format!("{}\n", "]".repeat(100)).repeat(15_000)));
    sync(&mut index);
    assert_eq!(files(&index, &all), ["notes.ts"]);
    assert!(index.check_invariants().unwrap().is_empty(), "{:?}", index.check_invariants());
}

fn tsq(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tsq")).args(args).output().unwrap()
}

fn index_json(root: &Path) -> Value {
    let out = tsq(&["index", "--root", root.to_str().unwrap(), "--embedder", "none", "--json"]);
    assert!(out.status.success(), "tsq index failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What two indexes of the same files must agree on (ids hash the absolute
/// path, so two copies are compared by relative path, kind, name, lines and
/// content hash).
fn state(root: &Path) -> Vec<String> {
    let index = Index::open_with(root, &IndexConfig::default(), None).unwrap();
    let mut rows: Vec<String> = index
        .all_chunks(&Default::default())
        .unwrap()
        .into_iter()
        .map(|r| format!("{} {} {} {}-{} {}", r.chunk.relative_path, r.chunk.node_kind, r.chunk.name, r.chunk.start_line, r.chunk.end_line, r.content_hash))
        .collect();
    rows.sort();
    let status = index.status().unwrap();
    rows.push(format!("{} files, {} skipped", status.files, status.skipped.len()));
    rows
}

fn rxjs() -> Option<PathBuf> {
    common::corpora(&["rxjs"]).and_then(|c| c.into_iter().next()).map(|(_, d)| d)
}

#[test]
fn kill_9_at_ten_moments_never_breaks_the_index() {
    let Some(src) = rxjs() else {
        eprintln!("skipped: ../shared/corpus.sh is not here");
        return;
    };
    let clean = TempDir::copy_of(&src, "index-kill-clean");
    index_json(&clean.0);
    let expected = state(&clean.0);
    let ws = TempDir::copy_of(&src, "index-kill");
    for i in 0..10u64 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tsq"))
            .args(["index", "--root", ws.0.to_str().unwrap(), "--embedder", "none"])
            .stderr(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150 + i * 350));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // Reopening finishes any half-written batch; the invariants hold.
        let index = Index::open_with(&ws.0, &IndexConfig::default(), None).unwrap();
        let problems = index.check_invariants().unwrap();
        assert!(problems.is_empty(), "after kill {i}: {problems:?}");
        // Touch a few files so later runs have work to be killed in.
        for (n, e) in std::fs::read_dir(ws.0.join("internal")).unwrap().enumerate().take(20) {
            if n % 3 == i as usize % 3 {
                let p = e.unwrap().path();
                if p.is_file() {
                    let text = std::fs::read_to_string(&p).unwrap();
                    std::fs::write(&p, text).unwrap();
                }
            }
        }
    }
    index_json(&ws.0);
    let got = state(&ws.0);
    let first_difference = got.iter().zip(&expected).find(|(a, b)| a != b);
    assert!(
        got.len() == expected.len() && first_difference.is_none(),
        "the next sync converges to a clean build: {} rows against {}, first difference {first_difference:?}",
        got.len(),
        expected.len()
    );
}

#[test]
fn two_writers_at_once_both_finish_consistently() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/ts-ls"), "index-two-writers");
    let root = ws.0.to_str().unwrap().to_string();
    let spawn = || Command::new(env!("CARGO_BIN_EXE_tsq")).args(["index", "--root", &root, "--embedder", "none", "--json"]).output().unwrap();
    // Round 1: a first index. Round 2: an index an upgrade outdated (another
    // schema in meta.json), which both processes find needs a rebuild; the
    // second to take the lock must find it rebuilt, not clear the first's
    // new tables under its sync.
    for round in ["first index", "rebuild after an upgrade"] {
        if round != "first index" {
            let meta = ws.0.join(".tsq/meta.json");
            let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
            m["schemaVersion"] = 0.into();
            std::fs::write(&meta, m.to_string()).unwrap();
        }
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(spawn);
            let b = s.spawn(spawn);
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(a.status.success() && b.status.success(), "{round}: {}\n{}", String::from_utf8_lossy(&a.stderr), String::from_utf8_lossy(&b.stderr));
        let (ra, rb): (Value, Value) = (serde_json::from_slice(&a.stdout).unwrap(), serde_json::from_slice(&b.stdout).unwrap());
        // One parsed everything; the other, waiting for the lock, found it done.
        let parsed = [ra["parsed"].as_u64().unwrap(), rb["parsed"].as_u64().unwrap()];
        assert!(parsed.contains(&0) && parsed.iter().any(|&n| n > 0), "{round}: one writer parsed, the other waited: {ra} {rb}");
        assert_eq!(ra["chunks"], rb["chunks"], "{round}");
        // The occurrence pass too: one process checked every file, the other
        // waited for its pass lock and found the rows fresh (two passes at
        // once also raced on the records' temporary files).
        let indexed = [ra["occurrences"]["indexed"].as_u64().unwrap(), rb["occurrences"]["indexed"].as_u64().unwrap()];
        assert!(indexed.contains(&0) && indexed.iter().any(|&n| n > 0), "{round}: one occurrence pass: {indexed:?}");
        let leftovers: Vec<String> = std::fs::read_dir(ws.0.join(".tsq"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{round}: no temporary file is left: {leftovers:?}");
        let index = Index::open_with(&ws.0, &IndexConfig::default(), None).unwrap();
        assert!(index.check_invariants().unwrap().is_empty(), "{round}");
        // Nothing is left to do.
        let again = index_json(&ws.0);
        assert_eq!((again["parsed"].as_u64(), again["occurrences"]["indexed"].as_u64()), (Some(0), Some(0)), "{round}: {again}");
    }
}

#[test]
fn a_zero_byte_latest_manifest_is_recovered() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/index/workspace"), "index-manifest");
    let first = index_json(&ws.0);
    std::fs::write(ws.0.join("src/more.ts"), "export const more = 1;\n").unwrap();
    index_json(&ws.0);
    for table in ["chunks", "files"] {
        let versions = ws.0.join(format!(".tsq/{table}.lance/_versions"));
        let mut manifests: Vec<PathBuf> =
            std::fs::read_dir(&versions).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "manifest")).collect();
        manifests.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
        std::fs::write(manifests.last().unwrap(), b"").unwrap(); // power loss
    }
    let again = index_json(&ws.0);
    assert_eq!(again["files"], 6);
    assert_eq!(again["chunks"].as_u64().unwrap(), first["chunks"].as_u64().unwrap() + 1);
    let index = Index::open_with(&ws.0, &IndexConfig::default(), None).unwrap();
    assert!(index.check_invariants().unwrap().is_empty());
}

#[test]
fn cli_index_status_and_clean() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/index/workspace"), "index-cli");
    std::fs::write(ws.0.join(".tsqignore"), "src/slug.js\n").unwrap();
    let r = index_json(&ws.0);
    for key in ["files", "unchanged", "touched", "parsed", "removed", "skipped", "chunks", "embedded", "cascade", "embedder", "ms"] {
        assert!(r.get(key).is_some(), "tsq index --json lacks {key}: {r}");
    }
    assert_eq!((r["files"].as_u64(), r["chunks"].as_u64(), r["embedder"].as_str()), (Some(4), Some(9), Some("none")));
    assert_eq!(std::fs::read_to_string(ws.0.join(".tsq/.gitignore")).unwrap(), "*\n");
    let again = index_json(&ws.0);
    assert_eq!((again["parsed"].as_u64(), again["unchanged"].as_u64()), (Some(0), Some(4)));
    let out = tsq(&["status", "--root", ws.0.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["files", "chunks", "skipped", "embedder", "dimensions", "lastSync", "bytes", "versions"] {
        assert!(s.get(key).is_some(), "tsq status --json lacks {key}: {s}");
    }
    assert_eq!(s["files"], 4);
    assert!(s["bytes"].as_u64().unwrap() > 0 && s["lastSync"].as_u64().is_some());
    let out = tsq(&["clean", "--root", ws.0.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(!ws.0.join(".tsq").exists());
    let out = tsq(&["status", "--root", ws.0.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `tsq index"));
}

#[test]
fn versions_stay_bounded() {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/index/workspace"), "index-versions");
    let mut index = open(&ws.0);
    sync(&mut index);
    for i in 0..40 {
        std::fs::write(ws.0.join("src/auth.ts"), format!("export function validateToken(t: string): boolean {{ return t.length > {i}; }}\n")).unwrap();
        sync(&mut index);
    }
    let status = index.status().unwrap();
    assert!(status.versions <= 2 * tsq::index::MAX_VERSIONS, "{} versions", status.versions);
    assert!(index.check_invariants().unwrap().is_empty());
}

#[test]
fn an_unwritable_index_directory_still_answers_with_a_note() {
    // A file where `.tsq` should be: no directory can be made, even as root.
    let ws = TempDir::copy_of(&common::repo().join("fixtures/index/workspace"), "index-readonly");
    std::fs::write(ws.0.join(".tsq"), "not a directory").unwrap();
    let mut index = open(&ws.0);
    assert!(index.notes.iter().any(|n| n.contains("cannot write")), "{:?}", index.notes);
    assert_eq!(sync(&mut index).chunks, 11);
    assert_eq!(std::fs::read_to_string(ws.0.join(".tsq")).unwrap(), "not a directory");
}

/// `tsq serve` leaves the full-text index refresh after a write to its
/// idle step (`IndexConfig::refresh_when_idle`): until then the new rows
/// are found by a flat scan, with the same code tokenizer (a part of an
/// identifier finds it), and whole-file BM25 follows too; the idle step
/// folds them in, and the answers stay the same. A process without an
/// idle step (the CLI) refreshes after each write.
#[test]
fn rows_a_serve_write_leaves_out_of_the_search_index_are_still_found() {
    let ws = TempDir::new("index-refresh-idle");
    let w = |rel: &str, text: &str| std::fs::write(ws.0.join(rel), text).unwrap();
    w("session.ts", "export function renew() { return 'refresh'; }\n");
    w("other.ts", "export function once() { return 'token'; }\n");
    let mut cli = Index::open_with(&ws.0, &IndexConfig::default(), None).unwrap();
    sync(&mut cli);
    assert_eq!(cli.status().unwrap().unindexed, 0, "the CLI refreshes after its write");
    drop(cli);

    let mut serve = Index::open_with(&ws.0, &IndexConfig { refresh_when_idle: true, ..Default::default() }, None).unwrap();
    w("other.ts", "export function once() { return 'token'; }\nexport function quokkaWrangler() { return 'marsupial'; }\n");
    sync(&mut serve);
    assert!(serve.status().unwrap().unindexed > 0, "the write left its rows to the idle step");
    let all = tsq::index::Filter::default();
    let found = |index: &Index| -> Vec<(String, Vec<String>)> {
        ["quokkaWrangler", "wrangler", "marsupial"]
            .iter()
            .map(|q| {
                let chunks = index.bm25(q, &all, 5).unwrap().into_iter().map(|h| format!("{}:{}", h.row.chunk.relative_path, h.row.chunk.name)).collect();
                let files = index.file_bm25(q, &all, 5).unwrap().into_iter().map(|(p, _)| p).collect::<Vec<_>>();
                (format!("{q} in {files:?}"), chunks)
            })
            .collect()
    };
    let before = found(&serve);
    for (q, chunks) in &before {
        assert!(chunks.iter().any(|c| c == "other.ts:quokkaWrangler"), "{q}: {chunks:?}");
    }
    // Whole files are read as plain words (identifiers kept whole).
    let files: Vec<&str> = before.iter().map(|(q, _)| q.as_str()).collect();
    assert_eq!(files, ["quokkaWrangler in [\"other.ts\"]", "wrangler in []", "marsupial in [\"other.ts\"]"]);
    assert!(serve.refresh_deferred().unwrap(), "the idle step refreshes");
    assert!(!serve.refresh_deferred().unwrap(), "once");
    assert_eq!(serve.status().unwrap().unindexed, 0);
    assert_eq!(found(&serve), before, "the same answers from the index");
    assert!(serve.check_invariants().unwrap().is_empty(), "{:?}", serve.check_invariants());
}
