//! Hostile checkouts and stores (issue 43), each through the real binary:
//! a `.tsq` that is a link, links inside it, forged and wrongly signed
//! manifests, names that land on local files on case-insensitive file
//! systems, oversized objects, chunks that the checkout does not hold, a
//! pull while `tsq serve` answers, `kill -9` at every pull step, a
//! directory link out of the root, and (issue 74) a committed swap journal
//! with staging areas that link into a sibling's index, journals this
//! install did not seal, and a killed swap only its own install finishes;
//! `trust.rs` (keys and stores), `journals.rs` (planted swap journals and
//! staging links), `reads.rs` (what a checkout can make tsq
//! read or run) and `budget.rs` (one file past its budget or too deep to
//! parse). Every test checks that nothing outside the workspace changed and that
//! the local index is whole.

mod budget;
mod journals;
mod reads;
mod trust;

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{git, TempDir};
use serde_json::Value;
use sha2::Digest;

/// The tests' data directory (`XDG_DATA_HOME`): tsq's install key, which
/// seals swap journals, lives there and not in the tester's home.
fn data_home() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/hostile-data-home"))
}

fn tsq(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsq"));
    c.args(args).env("TSQ_EMBEDDER", "none").env("XDG_DATA_HOME", data_home());
    for var in ["TSQ_SHARE_KEY", "TSQ_SHARE_FROM", "TSQ_SHARE_SIGNING_KEY", "TSQ_SHARE_PUBLIC_KEY", "TSQ_TEST_PAUSE"] {
        c.env_remove(var);
    }
    c
}

fn run(mut c: Command) -> Output {
    c.output().unwrap()
}

fn text(out: &Output) -> String {
    format!("exit {:?}\nstdout: {}\nstderr: {}", out.status.code(), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn ok_json(out: Output) -> Value {
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

fn refused(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", text(out));
    assert!(String::from_utf8_lossy(&out.stderr).contains(needle), "wanted {needle:?}: {}", text(out));
}

/// Every path under `dir` (links not followed) with what it holds: a
/// file's sha256, `dir`, or `link -> target`.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.file_type().is_symlink() {
                out.insert(rel, format!("link -> {}", std::fs::read_link(&p).unwrap().display()));
            } else if meta.is_dir() {
                out.insert(rel, "dir".into());
                walk(base, &p, out);
            } else {
                out.insert(rel, format!("{:x}", sha2::Sha256::digest(std::fs::read(&p).unwrap())));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The index's own content (its tables and the files beside them that a
/// publish uploads), as a snapshot.
fn index_content(root: &Path) -> BTreeMap<String, String> {
    content_of(&root.join(".tsq"))
}

/// `index_content` of an index directory, or of what a swap moved out.
fn content_of(dir: &Path) -> BTreeMap<String, String> {
    let beside = ["meta.json", "occurrences-layout", "occurrence-scope.json", "occurrence-inputs.json"];
    snapshot(dir)
        .into_iter()
        .filter(|(k, v)| (k.contains(".lance/") || beside.contains(&k.as_str())) && v != "dir" && !k.starts_with("incoming") && !k.starts_with("outgoing"))
        .collect()
}

/// A git repository of the multi-project fixture, one commit, at `dir`.
fn repo_at(dir: &Path) {
    common::copy_tree(&common::repo().join("fixtures/ts-ls/multi-project"), dir);
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
}

fn clone(from: &Path, to: &Path) {
    let out = Command::new("git").args(["clone", "-q"]).arg(from).arg(to).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn root_arg(p: &Path) -> String {
    p.display().to_string()
}

/// A store directory and its `file://` URL.
fn store(base: &Path) -> (PathBuf, String) {
    let dir = base.join("store");
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("file://{}", dir.display());
    (dir, url)
}

fn manifest_path(store: &Path) -> PathBuf {
    let indexes = store.join("indexes");
    let scope = std::fs::read_dir(&indexes).unwrap().next().unwrap().unwrap().path();
    std::fs::read_dir(scope).unwrap().next().unwrap().unwrap().path()
}

fn edit_manifest(store: &Path, f: impl FnOnce(&mut Value)) {
    let p = manifest_path(store);
    let mut m: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    f(&mut m);
    std::fs::write(&p, serde_json::to_vec(&m).unwrap()).unwrap();
}

#[cfg(unix)]
#[test]
fn a_tsq_link_is_refused_and_nothing_outside_the_workspace_changes() {
    let base = TempDir::new("hostile-link");
    let (_, url) = store(&base.0);
    // Siblings a deleting pull would have taken: a `pulling` directory (the
    // old marker's name), another project with its .git, an `incoming`.
    std::fs::create_dir_all(base.0.join("pulling")).unwrap();
    std::fs::write(base.0.join("pulling/keep.txt"), "mine").unwrap();
    std::fs::create_dir_all(base.0.join("incoming")).unwrap();
    repo_at(&base.0.join("other"));
    let elsewhere = TempDir::new("hostile-link-target");
    std::fs::write(elsewhere.0.join("precious.txt"), "keep").unwrap();
    for (i, target) in ["..".to_string(), ".".to_string(), elsewhere.0.display().to_string()].iter().enumerate() {
        let ws = base.0.join(format!("ws{i}"));
        repo_at(&ws);
        std::os::unix::fs::symlink(target, ws.join(".tsq")).unwrap();
        let before = (snapshot(&base.0), snapshot(&elsewhere.0));
        let root = root_arg(&ws);
        for args in [
            vec!["index", "--root", &root, "--no-structure"],
            vec!["search", "where do we add amounts", "--root", &root],
            vec!["lookup", "symbol = add", "--root", &root],
            vec!["status", "--root", &root],
            vec!["clean", "--root", &root],
            vec!["publish", "--to", &url, "--root", &root],
            vec!["index", "--from", &url, "--root", &root],
        ] {
            let out = run(tsq(&args));
            refused(&out, "symbolic link");
            assert!(String::from_utf8_lossy(&out.stderr).contains("rm "), "says how to fix it: {}", text(&out));
        }
        assert_eq!((snapshot(&base.0), snapshot(&elsewhere.0)), before, "`.tsq -> {target}`: something outside the workspace changed");
    }
}

#[cfg(unix)]
#[test]
fn a_link_inside_the_index_is_refused_and_never_followed() {
    let base = TempDir::new("hostile-inner-link");
    let ws = base.0.join("ws");
    repo_at(&ws);
    let root = root_arg(&ws);
    ok_json(run(tsq(&["index", "--root", &root, "--no-structure", "--json"])));
    let outside = base.0.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("x"), "keep").unwrap();
    std::os::unix::fs::symlink(&outside, ws.join(".tsq/chunks.lance/data/evil")).unwrap();
    let before = snapshot(&outside);
    refused(&run(tsq(&["index", "--root", &root, "--no-structure"])), "symbolic link inside the index directory");
    refused(&run(tsq(&["clean", "--root", &root])), "symbolic link inside");
    assert_eq!(snapshot(&outside), before);
}

#[test]
fn clean_removes_only_what_tsq_made() {
    let ws = TempDir::new("hostile-clean");
    repo_at(&ws.0);
    let root = root_arg(&ws.0);
    ok_json(run(tsq(&["index", "--root", &root, "--no-structure", "--json"])));
    std::fs::write(ws.0.join(".tsq/config.toml"), "topK = 5\n").unwrap();
    std::fs::write(ws.0.join(".tsq/notes.txt"), "mine").unwrap();
    assert!(run(tsq(&["clean", "--root", &root])).status.success());
    let left: Vec<String> = snapshot(&ws.0.join(".tsq")).into_keys().collect();
    assert_eq!(left, ["config.toml", "notes.txt"]);
}

/// CI's checkout `ci` published to `url` (signed with `key` when given),
/// and a reader's clone with its own local index.
fn published(base: &Path, key: Option<&str>) -> (PathBuf, PathBuf, String) {
    let ci = base.join("ci");
    repo_at(&ci);
    let (store, url) = store(base);
    let mut c = tsq(&["publish", "--to", &url, "--root", &root_arg(&ci), "--json"]);
    if let Some(k) = key {
        c.env("TSQ_SHARE_SIGNING_KEY", common::test_key_pair(k).0);
    }
    ok_json(run(c));
    let reader = base.join("reader");
    clone(&ci, &reader);
    ok_json(run(tsq(&["index", "--root", &root_arg(&reader), "--json"])));
    (store, reader, url)
}

fn pull(reader: &Path, url: &str, public: Option<&str>) -> Output {
    let mut c = tsq(&["index", "--from", url, "--root", &root_arg(reader), "--json"]);
    if let Some(k) = public {
        c.env("TSQ_SHARE_PUBLIC_KEY", common::test_key_pair(k).1);
    }
    run(c)
}

#[test]
fn forged_and_wrongly_signed_manifests_are_never_called_verified() {
    let base = TempDir::new("hostile-sign");
    let (store, reader, url) = published(&base.0, Some("ci"));
    // The right public key: verified, and said so in status.
    let got = ok_json(pull(&reader, &url, Some("ci")));
    assert_eq!(got["pulled"]["trust"], "verified", "{got}");
    let status = run(tsq(&["status", "--root", &root_arg(&reader)]));
    assert!(String::from_utf8_lossy(&status.stdout).contains("(signature verified)"), "{}", text(&status));
    // Another key: refused, the local index whole.
    let before = index_content(&reader);
    refused(&pull(&reader, &url, Some("someone-else")), "signature does not match");
    assert_eq!(index_content(&reader), before);
    // A forged signature: refused with a key; without one, taken but
    // reported unsigned everywhere, never "verified".
    edit_manifest(&store, |m| m["signature"] = Value::String("00".into()));
    refused(&pull(&reader, &url, Some("ci")), "signature does not match");
    assert_eq!(index_content(&reader), before);
    let got = ok_json(pull(&reader, &url, None));
    assert_eq!(got["pulled"]["trust"], "unsigned", "{got}");
    let status = run(tsq(&["status", "--root", &root_arg(&reader)]));
    assert!(String::from_utf8_lossy(&status.stdout).contains("(unsigned)"), "{}", text(&status));
    let answer = run(tsq(&["lookup", "symbol = add", "--root", &root_arg(&reader)]));
    assert!(String::from_utf8_lossy(&answer.stdout).contains("(unsigned)"), "the answer header says unsigned: {}", text(&answer));
    // The retired HMAC key is an error that says what replaced it.
    let mut c = tsq(&["index", "--from", &url, "--root", &root_arg(&reader)]);
    c.env("TSQ_SHARE_KEY", "secret");
    refused(&run(c), "tsq publish --keygen");
}

#[test]
fn keygen_prints_a_pair_that_signs_and_verifies() {
    let out = ok_json(run(tsq(&["publish", "--keygen", "--json"])));
    let (private, public) = (out["signingKey"].as_str().unwrap(), out["publicKey"].as_str().unwrap());
    assert_eq!((private.len(), public.len()), (64, 64));
    let base = TempDir::new("hostile-keygen");
    let ci = base.0.join("ci");
    repo_at(&ci);
    let (_, url) = store(&base.0);
    let mut c = tsq(&["publish", "--to", &url, "--root", &root_arg(&ci), "--json"]);
    c.env("TSQ_SHARE_SIGNING_KEY", private);
    assert_eq!(ok_json(run(c))["signed"], true);
    let reader = base.0.join("reader");
    clone(&ci, &reader);
    let mut c = tsq(&["index", "--from", &url, "--root", &root_arg(&reader), "--json"]);
    c.env("TSQ_SHARE_PUBLIC_KEY", public);
    assert_eq!(ok_json(run(c))["pulled"]["trust"], "verified");
}

#[test]
fn manifest_names_that_land_on_local_files_or_leave_the_index_are_refused() {
    let base = TempDir::new("hostile-names");
    let (store, reader, url) = published(&base.0, None);
    let before = index_content(&reader);
    let outside = snapshot(&base.0.join("ci"));
    let sample = std::fs::read(manifest_path(&store)).unwrap();
    for (bad, needle) in [
        ("Config.toml", "local-only"),
        ("LOCK", "local-only"),
        ("C:/x", "name no drive"),
        ("..\\x", "name no drive"),
        ("../x", "stay inside"),
        ("META.JSON", "repeats another entry"),
        ("chunks.lance/NUL", "device"),
    ] {
        std::fs::write(manifest_path(&store), &sample).unwrap();
        edit_manifest(&store, |m| {
            let first = m["files"][0].clone();
            let mut e = first;
            e["path"] = Value::String(bad.into());
            m["files"].as_array_mut().unwrap().push(e);
        });
        let out = pull(&reader, &url, None);
        refused(&out, "bad entry");
        assert!(String::from_utf8_lossy(&out.stderr).contains(needle), "{bad}: {}", text(&out));
        assert_eq!(index_content(&reader), before, "{bad}: the local index changed");
        assert!(!reader.join(".tsq/incoming").exists() || snapshot(&reader.join(".tsq/incoming")).is_empty());
    }
    assert_eq!(snapshot(&base.0.join("ci")), outside);
}

#[test]
fn oversized_and_overlong_objects_are_refused_while_streaming() {
    let base = TempDir::new("hostile-size");
    let (store, reader, url) = published(&base.0, None);
    let before = index_content(&reader);
    let sample = std::fs::read(manifest_path(&store)).unwrap();
    // An entry claiming more than the per-file cap: refused before any download.
    edit_manifest(&store, |m| m["files"][0]["size"] = Value::from(5u64 << 30));
    refused(&pull(&reader, &url, None), "cap per file");
    assert_eq!(index_content(&reader), before);
    // An object longer than its entry says: the stream stops past it.
    std::fs::write(manifest_path(&store), &sample).unwrap();
    let m: Value = serde_json::from_slice(&sample).unwrap();
    let sha = m["files"][0]["sha256"].as_str().unwrap();
    let object = store.join("objects").join(sha);
    let mut longer = std::fs::read(&object).unwrap();
    longer.extend(std::iter::repeat_n(b'x', 1 << 20));
    std::fs::write(&object, longer).unwrap();
    refused(&pull(&reader, &url, None), "longer than");
    assert_eq!(index_content(&reader), before);
}

#[test]
fn a_chunk_the_checkout_does_not_hold_is_dropped_and_reindexed() {
    let base = TempDir::new("hostile-chunk");
    let ci = base.0.join("ci");
    repo_at(&ci);
    // The publisher's rows for math.ts hold code the commit does not: it
    // was indexed with other text of the same size and mtime, then put
    // back, so its own sync kept the planted rows.
    let math = ci.join("packages/core/src/math.ts");
    let real = std::fs::read_to_string(&math).unwrap();
    let planted = real.replacen("return a + b;", "return a - b;", 1);
    assert_eq!(planted.len(), real.len());
    let mtime = std::fs::metadata(&math).unwrap().modified().unwrap();
    std::fs::write(&math, &planted).unwrap();
    std::fs::File::options().write(true).open(&math).unwrap().set_modified(mtime).unwrap();
    ok_json(run(tsq(&["index", "--root", &root_arg(&ci), "--json"])));
    std::fs::write(&math, &real).unwrap();
    std::fs::File::options().write(true).open(&math).unwrap().set_modified(mtime).unwrap();
    let (_, url) = store(&base.0);
    ok_json(run(tsq(&["publish", "--to", &url, "--root", &root_arg(&ci), "--json"])));
    let reader = base.0.join("reader");
    clone(&ci, &reader);
    let got = ok_json(pull(&reader, &url, None));
    let checked = &got["checked"];
    assert!(checked["rows"].as_u64().unwrap() >= 4, "{got}");
    assert_eq!(checked["dropped"], serde_json::json!(["packages/core/src/math.ts"]), "{got}");
    let answer = run(tsq(&["search", "add two amounts in cents", "--root", &root_arg(&reader)]));
    let shown = String::from_utf8_lossy(&answer.stdout);
    assert!(shown.contains("return a + b;") && !shown.contains("return a - b;"), "{}", text(&answer));
}

#[cfg(unix)]
#[test]
fn a_directory_link_out_of_the_root_is_never_walked() {
    let base = TempDir::new("hostile-dirlink");
    let ws = base.0.join("ws");
    repo_at(&ws);
    let outside = base.0.join("secrets");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("vault.ts"), "export function leakTheVault(): string { return 'x'; }\n").unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("packages/linked")).unwrap();
    ok_json(run(tsq(&["index", "--root", &root_arg(&ws), "--no-structure", "--json"])));
    let status = ok_json(run(tsq(&["status", "--root", &root_arg(&ws), "--json"])));
    assert!(status["files"].as_u64().unwrap() > 0);
    assert!(status["skipped"].to_string().contains("linked"), "the link is recorded as skipped: {status}");
    let out = run(tsq(&["lookup", "symbol = leakTheVault", "--root", &root_arg(&ws)]));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

/// Waits for `tsq: pull paused at <step>` on the child's stderr.
/// Whether `path` (of a published index) belongs to the occurrence
/// tables, which an unsigned pull empties before its swap: their checker
/// text (signatures, types) is nothing the checkout can confirm, so only a
/// signed index brings them (`verify_pull::check_staged`).
fn unsigned_pull_empties(path: &str) -> bool {
    ["occurrences.lance/", "occ_files.lance/", "occ_declarations.lance/", "usage.lance/"].iter().any(|t| path.starts_with(t))
}

fn wait_for_pause(child: &mut std::process::Child, step: &str) {
    let stderr = child.stderr.take().unwrap();
    let want = format!("paused at {step}");
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if line.contains(&want) {
            return;
        }
    }
    panic!("the pull ended before {step}");
}

#[test]
fn a_pull_killed_at_any_step_leaves_the_old_index_or_the_new_one_whole() {
    let base = TempDir::new("hostile-kill");
    let (store, reader, url) = published(&base.0, None);
    let manifest: Value = serde_json::from_slice(&std::fs::read(manifest_path(&store)).unwrap()).unwrap();
    let published: BTreeMap<String, String> =
        manifest["files"].as_array().unwrap().iter().map(|e| (e["path"].as_str().unwrap().to_string(), e["sha256"].as_str().unwrap().to_string())).collect();
    let fresh = run(tsq(&["lookup", "symbol = total", "--root", &root_arg(&reader), "--format", "json"]));
    assert!(fresh.status.success(), "{}", text(&fresh));
    for step in ["download", "stage", "verify", "swap"] {
        let old = index_content(&reader);
        let mut c = tsq(&["index", "--from", &url, "--root", &root_arg(&reader)]);
        c.env("TSQ_TEST_PAUSE", step).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        wait_for_pause(&mut child, step);
        // kill -9: no destructor, no cleanup.
        child.kill().unwrap();
        child.wait().unwrap();
        // The next open (status) recovers; then the index is whole.
        let status = ok_json(run(tsq(&["status", "--root", &root_arg(&reader), "--json"])));
        assert!(status["files"].as_u64().unwrap() > 0, "{step}: {status}");
        let now = index_content(&reader);
        if step == "swap" {
            for (path, sha) in published.iter().filter(|(p, _)| !unsigned_pull_empties(p)) {
                assert_eq!(now.get(path), Some(sha), "killed at swap: {path} of the pulled index is not in place");
            }
        } else {
            assert_eq!(now, old, "killed at {step}: the old index changed");
        }
        let answer = run(tsq(&["lookup", "symbol = total", "--root", &root_arg(&reader), "--format", "json"]));
        assert!(answer.status.success(), "{step}: {}", text(&answer));
        assert_eq!(
            serde_json::from_slice::<Value>(&answer.stdout).unwrap()["graph"],
            serde_json::from_slice::<Value>(&fresh.stdout).unwrap()["graph"],
            "{step}: the answer after recovery differs"
        );
        // And a later pull completes.
        ok_json(pull(&reader, &url, None));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_while_serve_answers_is_seen_whole_by_the_next_answers() -> anyhow::Result<()> {
    use rmcp::model::CallToolRequestParams;
    use rmcp::ServiceExt;
    let base = TempDir::new("hostile-serve");
    let (_, reader, url) = published(&base.0, None);
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.arg("serve")
        .arg("--root")
        .arg(&reader)
        .env("TSQ_EMBEDDER", "none")
        .env("XDG_DATA_HOME", data_home())
        .env_remove("TSQ_SHARE_FROM")
        .stderr(Stdio::null());
    let (stdout, stdin, _child) = common::serve_stdio(cmd)?;
    let client = ().serve((stdout, stdin)).await?;
    let ask = || {
        let client = &client;
        async move {
            let args = serde_json::json!({ "query": "symbol = total" }).as_object().unwrap().clone();
            let r = client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args)).await?;
            anyhow::Ok(r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n"))
        }
    };
    let before = ask().await?;
    assert!(before.contains("total") && !before.contains("index: from"), "{before}");
    // The pull runs in another process while answers keep coming.
    let puller = {
        let (reader, url) = (reader.clone(), url.clone());
        std::thread::spawn(move || pull(&reader, &url, None))
    };
    let mut during = Vec::new();
    while !puller.is_finished() {
        during.push(ask().await?);
    }
    let out = puller.join().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    for a in &during {
        assert!(a.contains("total —") || a.contains("total"), "an answer during the pull failed: {a}");
    }
    let after = ask().await?;
    assert!(after.contains("index: from file://"), "serve reopened the pulled index: {after}");
    client.cancel().await?;
    Ok(())
}

/// Peak resident memory (KB) of `c`, run under GNU time.
fn peak_rss_kb(c: &Command) -> Option<(Output, u64)> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return None;
    }
    let mut timed = Command::new(time);
    timed.arg("-f").arg("tsq-peak-rss-kb %M").arg(c.get_program()).args(c.get_args());
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    let out = timed.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let kb = err.lines().find_map(|l| l.strip_prefix("tsq-peak-rss-kb ")).and_then(|v| v.trim().parse().ok())?;
    Some((out, kb))
}

/// A 200 MB object is streamed to disk in bounded memory: the pull's peak
/// RSS grows by far less than the object (a memory bound, not a clock).
#[test]
fn a_200_mb_object_is_pulled_in_bounded_memory() {
    let base = TempDir::new("hostile-big");
    let (store, reader, url) = published(&base.0, None);
    let Some((out, small)) = peak_rss_kb(&tsq(&["index", "--from", &url, "--root", &root_arg(&reader), "--json"])) else {
        eprintln!("SKIPPED a_200_mb_object_is_pulled_in_bounded_memory: no /usr/bin/time (apt-get install time)");
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    // An extra 200 MB file in the published index (Lance ignores a data
    // file no manifest names), stored by its hash like any other.
    let big: Vec<u8> = (0..200u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    let sha = format!("{:x}", sha2::Sha256::digest(&big));
    std::fs::write(store.join("objects").join(&sha), &big).unwrap();
    drop(big);
    edit_manifest(&store, |m| {
        m["files"].as_array_mut().unwrap().push(serde_json::json!({ "path": "chunks.lance/data/big.bin", "size": 200u64 << 20, "sha256": sha }));
    });
    let (out, peak) = peak_rss_kb(&tsq(&["index", "--from", &url, "--root", &root_arg(&reader), "--json"])).unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::metadata(reader.join(".tsq/chunks.lance/data/big.bin")).unwrap().len(), 200 << 20);
    eprintln!("peak RSS: {small} KB without the object, {peak} KB with it");
    assert!(peak < small + 64 * 1024, "the pull buffered the object: {peak} KB against {small} KB without it");
}
