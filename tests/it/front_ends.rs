//! Both front ends are one engine: the same requests, good and bad, sent
//! through the `tsq` CLI and through a real MCP client (rmcp over
//! `tsq serve`'s stdio) give the same answers and the same errors.

use crate::common;

use std::path::Path;
use std::process::Command;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::ServiceExt;
use serde_json::{json, Value};

use common::TempDir;

/// One request, as MCP arguments; `cli_args` gives the same on the CLI.
struct Case {
    args: Value,
}

impl Case {
    /// The same request as `tsq lookup`, for `symbol =` queries with only
    /// the flags a lookup takes (path, callDepth, maxTokenBudget).
    fn lookup_args(&self, root: &Path) -> Option<Vec<String>> {
        let a = self.args.as_object()?;
        let query = a["query"].as_str()?;
        let lookup_keys = ["query", "path", "callDepth", "maxTokenBudget"];
        if !tsq::query::is_symbol_query(query) || a.keys().any(|k| !lookup_keys.contains(&k.as_str())) {
            return None;
        }
        let mut out = self.cli_args(root);
        out[0] = "lookup".into();
        Some(out)
    }

    fn cli_args(&self, root: &Path) -> Vec<String> {
        let a = &self.args;
        let mut out = vec!["search".to_string(), a["query"].as_str().unwrap().to_string(), "--root".into(), root.display().to_string()];
        for p in a["path"].as_array().into_iter().flatten() {
            out.extend(["--path".into(), p.as_str().unwrap().into()]);
        }
        for l in a["languages"].as_array().into_iter().flatten() {
            out.extend(["--language".into(), l.as_str().unwrap().into()]);
        }
        if a["format"] == "concise" {
            out.extend(["--format".into(), "concise".into()]);
        }
        if let Some(d) = a["callDepth"].as_i64() {
            out.push(format!("--call-depth={d}"));
        }
        if let Some(d) = a["typeDepth"].as_i64() {
            out.push(format!("--type-depth={d}"));
        }
        if let Some(b) = a["maxTokenBudget"].as_i64() {
            out.push(format!("--budget={b}"));
        }
        if let Some(k) = a["topK"].as_i64() {
            out.push(format!("--top-k={k}"));
        }
        out
    }
}

/// The summary line without what may change between two calls as `tsq
/// serve` stores structure in the background: how much the index holds
/// (and the token count, which counts that text).
fn summary(line: &str) -> String {
    line.split(" | ")
        .filter(|p| !p.ends_with(" tokens") && !p.starts_with("structure: "))
        .map(|p| p.split(", structure: ").next().unwrap_or(p))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Non-empty lines, without the notes (MCP shows them in the graph block,
/// the CLI on stderr).
fn lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_notes = false;
    for l in text.lines() {
        if l == tsq::api::render::NOTES {
            in_notes = true;
            continue;
        }
        if l.trim().is_empty() {
            in_notes = false;
            continue;
        }
        if !in_notes {
            out.push(if l.starts_with("Search: ") { summary(l.trim_end()) } else { l.trim_end().to_string() });
        }
    }
    out
}

fn texts(r: &CallToolResult) -> Vec<String> {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_and_mcp_give_the_same_answers_and_errors() -> anyhow::Result<()> {
    let ws = TempDir::copy_of(&common::repo().join("fixtures/search"), "front-ends");
    // BM25 only: answers must not depend on background embedding.
    ws.write("tsq.toml", b"embedder = \"none\"\n");
    ws.write("notes.txt", b"not code\n");
    let root = ws.0.canonicalize()?;
    let cases: Vec<Case> = [
        // Answers.
        json!({ "query": "symbol = parseCsv" }),
        json!({ "query": "symbol = parseCsv", "format": "concise" }),
        json!({ "query": "symbol = LruCache > get", "callDepth": 2, "maxTokenBudget": 3000 }),
        json!({ "query": "split comma separated lines into fields" }),
        json!({ "query": "split comma separated lines into fields", "format": "concise", "topK": 3 }),
        json!({ "query": "evict the least recently used entry", "path": ["src"], "languages": ["ts"] }),
        // Nothing found: a lookup's hints.
        json!({ "query": "symbol = parsecsv" }),
        // Errors.
        json!({ "query": "   " }),
        json!({ "query": "x".repeat(5000) }),
        json!({ "query": "symbol = a >> b" }),
        json!({ "query": "symbol = parseCsv", "path": ["../.."] }),
        json!({ "query": "how are tokens refreshed", "path": ["/etc"] }),
        json!({ "query": "symbol = parseCsv", "path": ["nope.ts"] }),
        json!({ "query": "symbol = parseCsv", "path": ["notes.txt"] }),
        json!({ "query": "how are tokens refreshed", "languages": ["python"] }),
        json!({ "query": "symbol = parseCsv", "callDepth": 99 }),
        json!({ "query": "symbol = parseCsv", "callDepth": -2 }),
        json!({ "query": "how are tokens refreshed", "callDepth": 11 }),
        json!({ "query": "how are tokens refreshed", "typeDepth": 11 }),
        json!({ "query": "symbol = parseCsv", "typeDepth": -2 }),
        json!({ "query": "symbol = ../outside/csv.ts > parseCsv" }),
        json!({ "query": "how are tokens refreshed", "topK": 0, "format": "concise" }),
    ]
    .into_iter()
    .map(|args| Case { args })
    .collect();

    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.arg("serve").arg("--root").arg(&root).stderr(std::process::Stdio::null());
    let (stdout, stdin, _child) = common::serve_stdio(cmd)?;
    let client = ().serve((stdout, stdin)).await?;
    let (mut answers, mut errors, mut lookups) = (0, 0, 0);
    for case in &cases {
        let a = &case.args;
        let r = client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(a.as_object().unwrap().clone())).await?;
        // The CLI answering alone, compared with MCP; the same command
        // handed to the warm server beside it prints the same
        // (`tsq::handoff`).
        let cli = Command::new(env!("CARGO_BIN_EXE_tsq")).arg("--local").args(case.cli_args(&root)).output()?;
        let handed = Command::new(env!("CARGO_BIN_EXE_tsq")).args(case.cli_args(&root)).env("TSQ_LOG", "debug").output()?;
        let said = String::from_utf8_lossy(&handed.stderr);
        assert!(said.contains("answered by the tsq serve at"), "{a}: {said}");
        let user_lines = |s: &str| s.lines().filter(|l| l.starts_with("tsq: ") && !crate::handoff::is_progress(l)).map(String::from).collect::<Vec<_>>();
        // Up to what the background worker stores meanwhile (the
        // summary's structure count, the notes on how structure was read).
        assert_eq!(handed.status.code(), cli.status.code(), "{a}: handed off");
        assert_eq!(lines(&String::from_utf8_lossy(&handed.stdout)), lines(&String::from_utf8_lossy(&cli.stdout)), "{a}: handed off");
        if cli.status.code() == Some(2) {
            assert_eq!(user_lines(&said), user_lines(&String::from_utf8_lossy(&cli.stderr)), "{a}: handed off");
        }
        let (stdout, stderr) = (String::from_utf8_lossy(&cli.stdout).into_owned(), String::from_utf8_lossy(&cli.stderr).into_owned());
        let mcp = texts(&r).join("\n\n");
        if r.is_error == Some(true) {
            errors += 1;
            match cli.status.code() {
                // Nothing found: the hints are the MCP error and in the CLI's answer.
                Some(1) => assert!(!mcp.is_empty() && stdout.contains(&mcp), "{a}: MCP {mcp:?}, CLI {stdout:?}"),
                Some(2) => {
                    assert_eq!(stderr.trim_end(), format!("tsq: {mcp}"), "{a}");
                    // `tsq lookup` takes a symbol query's flags and refuses
                    // them with the same message.
                    if let Some(args) = case.lookup_args(&root) {
                        let o = Command::new(env!("CARGO_BIN_EXE_tsq")).args(&args).output()?;
                        assert_eq!(o.status.code(), Some(2), "lookup {a}");
                        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end(), format!("tsq: {mcp}"), "lookup {a}");
                        lookups += 1;
                    }
                }
                other => panic!("{a}: MCP error {mcp:?}, CLI exit {other:?}: {stderr}"),
            }
            continue;
        }
        answers += 1;
        assert_eq!(cli.status.code(), Some(0), "{a}: {stderr}");
        match &r.structured_content {
            Some(sc) => {
                let from_cli: Value = serde_json::from_str(&stdout)?;
                assert_eq!(&from_cli, sc, "{a}: concise records differ");
            }
            None => assert_eq!(lines(&stdout), lines(&mcp), "{a}: full answers differ"),
        }
    }
    assert_eq!((answers, errors), (6, 16), "every case answered or refused as expected");
    assert_eq!(lookups, 7, "the symbol-query errors were also sent through `tsq lookup`");
    client.cancel().await?;
    Ok(())
}

#[test]
fn the_cli_refuses_paths_that_escape_the_workspace() {
    let root = common::repo().join("fixtures/ts-ls/call-chain");
    for (cmd, query) in [("lookup", "symbol = normalize"), ("search", "symbol = normalize"), ("search", "how are names normalized")] {
        for path in ["../..", "/etc", "../*.ts"] {
            let o = Command::new(env!("CARGO_BIN_EXE_tsq")).args([cmd, query, "--path", path, "--root"]).arg(&root).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} --path {path}: {err}");
            assert!(err.contains("leaves the workspace"), "{cmd} --path {path}: {err}");
        }
    }
}

/// The commands MCP does not have (`inspect`, `relations`, `analyze` with
/// a symbol) check their input as a lookup does and refuse it with the
/// lookup's own message and exit code 2, which the test above shows MCP
/// gives too: a symbol file that leaves the workspace, an out-of-range
/// depth, an empty or unparsable query; and an unknown analysis is named
/// with the known ones.
#[test]
fn commands_without_an_mcp_tool_refuse_as_the_lookup_does() {
    let root = common::repo().join("fixtures/ts-ls/call-chain");
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_tsq")).args(args).arg("--root").arg(&root).output().unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let cases: [(&str, &[&str]); 6] = [
        ("symbol = ../outside/a.ts > normalize", &[]),
        ("symbol = /etc/a.ts > normalize", &[]),
        ("symbol = helper.ts > normalize", &["--call-depth", "99"]),
        ("symbol = helper.ts > normalize", &["--call-depth", "-2"]),
        ("symbol = a >> b", &[]),
        ("   ", &[]),
    ];
    for (query, flags) in cases {
        let args = |cmd: &'static str| [&[cmd, query][..], flags].concat();
        let (code, lookup) = run(&args("lookup"));
        assert_eq!(code, Some(2), "lookup {query:?} {flags:?}: {lookup}");
        assert!(lookup.starts_with("tsq: "), "{lookup}");
        for cmd in ["inspect", "relations"] {
            assert_eq!(run(&args(cmd)), (Some(2), lookup.clone()), "{cmd} {query:?} {flags:?}");
        }
        if flags.is_empty() {
            assert_eq!(run(&["analyze", "callbacks", query]), (Some(2), lookup.clone()), "analyze {query:?}");
        }
    }
    // `--type-depth` is checked as MCP's `typeDepth` (the parity test
    // above): the same message, with and without a symbol.
    let (code, search) = run(&["search", "how are tokens refreshed", "--type-depth", "11"]);
    assert_eq!(code, Some(2), "{search}");
    assert!(search.contains("typeDepth: 11 is outside -1..10"), "{search}");
    assert_eq!(run(&["analyze", "advanced-types", "--type-depth", "11"]), (Some(2), search.clone()));
    assert_eq!(run(&["analyze", "advanced-types", "symbol = normalize", "--type-depth", "11"]), (Some(2), search));
    let (code, below) = run(&["analyze", "advanced-types", "--type-depth", "-2"]);
    assert_eq!(code, Some(2), "{below}");
    assert!(below.contains("typeDepth: -2 is outside -1..10"), "{below}");
    let (code, err) = run(&["analyze", "no-such-analysis"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.starts_with("tsq: unknown analysis `no-such-analysis`; known: ") && err.contains("callbacks"), "{err}");
}
