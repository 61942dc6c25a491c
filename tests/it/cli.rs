//! The real `tsq` binary in a temp dir: output, exit codes and per-file
//! errors (ripgrep's style: run the binary, deserialize its JSON).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use common::TempDir;

fn tsq(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tsq")).current_dir(dir).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn symbols_json_follows_the_schema() {
    let t = TempDir::new("cli-json");
    t.write("a.ts", b"/** Adds. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n");
    let o = tsq(&t.0, &["symbols", "a.ts", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v["files"][0]["symbols"][0];
    assert_eq!(s["name"], "add");
    assert_eq!(s["kind"], "function");
    assert_eq!(s["range"], serde_json::json!({ "start": 1, "end": 4 }));
    assert_eq!(s["signature"], "export function add(a: number, b: number): number");
    assert_eq!(s["jsdoc"], "/** Adds. */");
    assert_eq!(s["exported"], true);
    assert_eq!(s["parentName"], Value::Null);
}

#[test]
fn chunks_text_view_shows_the_tree_with_ranges() {
    let t = TempDir::new("cli-text");
    t.write("c.ts", b"import { x } from './x';\n\nexport class C {\n  m() {\n    return x;\n  }\n}\n");
    let o = tsq(&t.0, &["chunks", "c.ts"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("1-1") && out.contains("import:./x"), "{out}");
    assert!(out.contains("3-7") && out.contains("class") && out.contains("(children collapsed)"), "{out}");
    assert!(out.contains("    4-6") && out.contains("method"), "{out}");
}

#[test]
fn nothing_found_exits_1() {
    let t = TempDir::new("cli-empty");
    t.write("empty.ts", b"");
    assert_eq!(tsq(&t.0, &["symbols", "empty.ts"]).status.code(), Some(1));
    assert_eq!(tsq(&t.0, &["chunks", "empty.ts"]).status.code(), Some(1));
}

#[test]
fn bad_files_are_reported_one_by_one_and_the_rest_still_print() {
    let t = TempDir::new("cli-bad");
    t.write("good.ts", b"export const ok = 1;\n");
    t.write("binary.ts", b"\x7fELF\0\0\x01");
    t.write("latin1.ts", b"const s = '\xe9';\n");
    t.write("notes.py", b"print(1)\n");
    let big = t.write("big.ts", b"");
    std::fs::File::options().write(true).open(&big).unwrap().set_len(17 * 1024 * 1024).unwrap();
    let o = tsq(&t.0, &["symbols", "good.ts", "binary.ts", "latin1.ts", "notes.py", "missing.ts", "big.ts"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("binary.ts: skipped: binary file (NUL byte at offset 4)"), "{err}");
    assert!(err.contains("latin1.ts: skipped: invalid UTF-8 at byte 11"), "{err}");
    assert!(err.contains("notes.py: skipped: unsupported extension"), "{err}");
    assert!(err.contains("missing.ts: skipped: no such file or directory"), "{err}");
    assert!(err.contains("big.ts: skipped: file is 17825792 bytes, over the 16777216-byte limit"), "{err}");
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("const") && out.contains("ok"), "{out}");
}

#[test]
fn syntax_errors_print_diagnostics_and_a_partial_tree() {
    let t = TempDir::new("cli-syntax");
    t.write("s.ts", b"function a() {}\nconst = ;\nclass B {}\n");
    let o = tsq(&t.0, &["symbols", "s.ts"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("s.ts:2:7: Variable declaration expected."), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains(" a") && out.contains(" B"), "{out}");
}

#[cfg(unix)]
#[test]
fn walks_skip_symlink_loops_and_escapes_with_reasons() {
    let t = TempDir::new("cli-walk");
    let outside = TempDir::new("cli-outside");
    outside.write("secret.ts", b"export const secret = 1;\n");
    t.write("src/a.ts", b"export const a = 1;\n");
    t.write("node_modules/dep/index.ts", b"export const dep = 1;\n");
    std::os::unix::fs::symlink(&t.0, t.0.join("src/loop")).unwrap();
    std::os::unix::fs::symlink(outside.0.join("secret.ts"), t.0.join("src/escape.ts")).unwrap();
    let o = tsq(&t.0, &["chunks", ".", "--json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let files: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["relativePath"].as_str().unwrap()).collect();
    assert_eq!(files, ["src/a.ts"]);
    let reasons: Vec<String> = v["skipped"].as_array().unwrap().iter().map(|s| s["message"].as_str().unwrap().to_string()).collect();
    assert!(reasons.iter().any(|r| r.contains("leaves the workspace")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.contains("loop")), "{reasons:?}");
}

#[test]
fn a_copied_binary_runs_without_the_source_tree() {
    let t = TempDir::new("cli-copy");
    let bin = t.0.join("tsq");
    std::fs::copy(env!("CARGO_BIN_EXE_tsq"), &bin).unwrap();
    t.write("x.mts", b"export const url = import.meta.url;\nawait Promise.resolve();\n");
    let o = Command::new(&bin).current_dir(&t.0).args(["chunks", "x.mts"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8(o.stdout).unwrap().contains("url"));
    // The benchmarks are a separate binary (`tsq-bench`), not beside this
    // copy: `tsq bench` says so and how to build it, exit 2.
    let o = Command::new(&bin).current_dir(&t.0).args(["bench", "parse", "."]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cargo build --release -p tsq-bench"), "{}", stderr(&o));
}

#[test]
fn check_flag_reports_rules_on_clean_files_as_passing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/parser");
    let o = tsq(&dir, &["chunks", "--check", "--json", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["files"].as_array().unwrap().len() >= 20);
    assert!(v["files"].as_array().unwrap().iter().all(|f| f["violations"].as_array().unwrap().is_empty()));
}

#[test]
fn inspect_json_works_on_a_monorepo_with_paths_and_a_solution_config() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ts-ls/multi-project");
    let o = tsq(&dir, &["inspect", "--json", "symbol = packages/core/src/math.ts > add"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["workspace"]["solutions"], serde_json::json!(["tsconfig.json"]));
    let m = &v["matches"][0];
    assert_eq!(m["signature"], "add(a: number, b: number): number");
    assert_eq!(m["project"], "packages/core/tsconfig.json");
    // The caller in packages/app reaches `add` through the `@acme/core` paths alias.
    let callers: Vec<&str> = m["incomingCallers"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(callers.contains(&"checkout"), "{callers:?}");
    assert_eq!(m["references"]["fileCount"], 4);
    assert_eq!(v["coverage"]["filesOutsideProjects"], 1);
    assert!(v["coverage"]["partial"].as_array().unwrap().iter().any(|p| p.as_str().unwrap().contains("not-installed")));
}

#[test]
fn inspect_reports_bad_queries_and_misses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ts-ls/call-chain");
    let bad = tsq(&dir, &["inspect", "symbol = A >> b"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("empty segment"), "{}", stderr(&bad));
    let none = tsq(&dir, &["inspect", "symbol = doesNotExist"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stderr(&none).contains("no declaration matches"), "{}", stderr(&none));
    let unknown = tsq(&dir, &["analyze", "no-such-analysis"]);
    assert_eq!(unknown.status.code(), Some(2));
}

/// `tsq doctor` on a healthy workspace exits 0, with the built-in model
/// loaded and answering; with a broken setting or an unreadable candidate
/// model it exits 2 and names the fix.
#[test]
fn doctor_reports_a_healthy_workspace_and_a_broken_setting() {
    let ws = common::TempDir::copy_of(&common::repo().join("fixtures/search"), "doctor");
    let tsq = env!("CARGO_BIN_EXE_tsq");
    let run = |envs: &[(&str, &str)]| {
        let mut c = std::process::Command::new(tsq);
        c.args(["doctor", "--json", "--root"]).arg(&ws.0).env_remove("TSQ_EMBEDDER").env_remove("VOYAGE_API_KEY").env_remove("TSQ_LOCAL_MODEL");
        for (k, v) in envs {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code(), v)
    };
    let check = |v: &serde_json::Value, name: &str| v["checks"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap().clone();
    let (code, v) = run(&[("TSQ_TOP_K", "7")]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["healthy"], true);
    let model = check(&v, "local model");
    assert_eq!(model["ok"], true, "{v}");
    assert!(model["detail"].as_str().unwrap().contains("all-MiniLM-L6-v2-int8-w4-a8-words (384d), built in: loaded and answered"), "{v}");
    // Which integer kernel ran, by name: this CPU's.
    assert!(model["detail"].as_str().unwrap().ends_with(&format!("(dense layers: {})", tsq::embed::local::kernel())), "{v}");
    assert!(check(&v, "engine")["detail"].as_str().unwrap().contains(tsq::ts::TYPESCRIPT_VERSION));
    let settings = v["settings"].as_array().unwrap();
    assert!(settings.iter().any(|s| s["key"] == "topK" && s["value"] == "7" && s["source"] == "env TSQ_TOP_K"), "{v}");
    assert!(settings.iter().any(|s| s["key"] == "callDepth" && s["source"] == "default"), "{v}");
    // A candidate model named by TSQ_LOCAL_MODEL (here a copy of the
    // built-in one) runs instead, and its vectors carry its own name.
    let weights = std::fs::read(common::repo().join("vendor-models/minilm/model-w4.onnx")).unwrap();
    let candidate = ws.0.join("candidate.onnx");
    std::fs::write(&candidate, &weights).unwrap();
    let sha: String = {
        use sha2::Digest;
        sha2::Sha256::digest(&weights).iter().take(6).map(|b| format!("{b:02x}")).collect()
    };
    let (code, v) = run(&[("TSQ_LOCAL_MODEL", candidate.to_str().unwrap())]);
    assert_eq!(code, Some(0), "{v}");
    let detail = check(&v, "local model")["detail"].as_str().unwrap().to_string();
    assert!(detail.contains(&format!("all-MiniLM-L6-v2-int8-w4-a8-words+{sha} (384d), from TSQ_LOCAL_MODEL=")), "{v}");
    assert!(detail.contains("loaded and answered"), "{v}");
    // One that is not a model, or is missing: unhealthy (exit 2), and the fix says
    // how to get the built-in one back.
    let garbage = ws.0.join("garbage.onnx");
    std::fs::write(&garbage, b"not a model").unwrap();
    for path in [garbage, ws.0.join("missing.onnx")] {
        let (code, v) = run(&[("TSQ_LOCAL_MODEL", path.to_str().unwrap())]);
        assert_eq!(code, Some(2), "{v}");
        assert_eq!(v["healthy"], false, "{v}");
        let model = check(&v, "local model");
        assert_eq!(model["ok"], false, "{v}");
        assert_eq!(model["fix"], "unset TSQ_LOCAL_MODEL to use the built-in model", "{v}");
    }
    // Without the local embedder the model is not asked.
    let (code, v) = run(&[("TSQ_EMBEDDER", "none")]);
    assert_eq!(code, Some(0));
    assert!(check(&v, "local model")["detail"].as_str().unwrap().contains("not used"), "{v}");
    // A setting that does not parse: exit 2, with the fix.
    let (code, v) = run(&[("TSQ_TOP_K", "many")]);
    assert_eq!(code, Some(2), "{v}");
    assert_eq!(v["healthy"], false);
    let settings = check(&v, "settings");
    assert_eq!(settings["ok"], false);
    assert!(settings["detail"].as_str().unwrap().contains("TSQ_TOP_K"), "{v}");
    assert!(settings["fix"].as_str().unwrap().contains("tsq.toml"), "{v}");
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq")).args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("tsq") && text.contains("lookup") && text.contains("doctor"), "{shell}: {text}");
    }
}

#[test]
fn version_names_tsq_typescript_and_the_engine() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq")).arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(env!("CARGO_PKG_VERSION")) && text.contains(tsq::ts::TYPESCRIPT_VERSION) && text.contains("engine"), "{text}");
}
