//! The MCP server through real rmcp clients: in process over
//! `tokio::io::duplex`, and the `tsq serve` binary over stdio.

use crate::common;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tsq::mcp::TsqServer;

fn args(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn texts(r: &CallToolResult) -> Vec<String> {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codebase_search_over_an_in_process_client() -> anyhow::Result<()> {
    let root = common::repo().join("fixtures/ts-ls/call-chain");
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let server = TsqServer::new(&root)?;
    tokio::spawn(async move {
        if let Ok(s) = server.serve(server_io).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(client_io).await?;

    let tools = client.list_all_tools().await?;
    let listed = serde_json::to_value(&tools)?;
    let golden = common::repo().join("tests/mcp_tools_list.json");
    let pretty = serde_json::to_string_pretty(&listed)? + "\n";
    if std::env::var_os("TSQ_BLESS").is_some() {
        std::fs::write(&golden, &pretty)?;
    }
    assert_eq!(pretty, std::fs::read_to_string(&golden)?, "tools/list changed: review and re-bless");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, vec!["change_impact", "codebase_search"]);
    let tool = &tools[1];
    let ann = tool.annotations.as_ref().unwrap();
    assert_eq!((ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint), (Some(true), Some(false), Some(true), Some(false)));

    // A lookup: the graph first, then one snapshot per file.
    let r = client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": "symbol = UserService > register" })))).await?;
    assert_ne!(r.is_error, Some(true));
    let t = texts(&r);
    assert!(t[0].starts_with("Search: \"symbol = UserService > register\" | 1 result |"), "{}", t[0]);
    assert!(t[1].starts_with("// service.ts\n"), "{}", t[1]);
    let v = serde_json::to_value(&r)?;
    assert_eq!(v["content"][0]["annotations"]["priority"], 1.0);
    assert_eq!(v["content"][0]["annotations"]["audience"], json!(["assistant"]));

    // Concise: structured content.
    let r = client
        .call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": "symbol = normalize", "format": "concise" }))))
        .await?;
    let sc = r.structured_content.clone().expect("structured content");
    assert_eq!(sc["results"][0]["file_path"], "helper.ts");

    // Tool errors, not protocol errors.
    for (a, expect) in [
        (json!({ "query": "" }), "Empty query"),
        (json!({ "query": "how does validation work", "minimumRelevanceThreshold": 3 }), "minimumRelevanceThreshold: 3 is outside 0.0-1.0"),
        (json!({ "query": "symbol = Normalize" }), "Did you mean \"normalize\" (helper.ts:1)?"),
        (json!({ "query": "symbol = normalize", "path": ["../../.."] }), "leaves the workspace"),
        (json!({ "query": "symbol = normalize", "path": ["/etc/passwd"] }), ""),
        (json!({ "query": "symbol = normalize", "path": ["nope.ts"] }), "File not found: nope.ts"),
        (json!({ "query": "symbol = normalize", "path": ["a\u{0}b"] }), "NUL byte"),
        (json!({ "query": "x".repeat(5000) }), "Query too long"),
        (json!({ "query": 42 }), "Malformed arguments"),
        (json!({ "query": "symbol = normalize", "callDepth": "deep" }), "Malformed arguments"),
        (json!({ "query": "symbol = normalize", "path": ["queries.txt"] }), "No supported files in path queries.txt"),
    ] {
        let r = client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(a.clone()))).await?;
        assert_eq!(r.is_error, Some(true), "{a}: {:?}", texts(&r));
        assert!(texts(&r).join("\n").contains(expect), "{a}: {:?}", texts(&r));
    }

    // 20 concurrent calls, all answered correctly.
    let mut calls = Vec::new();
    for name in ["normalize", "isBlank", "validateEmail", "formatName"].iter().cycle().take(20) {
        let c = client.clone();
        calls.push(tokio::spawn(async move {
            let r = c.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": format!("symbol = {name}") })))).await?;
            anyhow::Ok((name.to_string(), texts(&r)[0].clone()))
        }));
    }
    for c in calls {
        let (name, text) = c.await??;
        assert!(text.contains(&format!("{name} — ")), "{name}: {text}");
    }
    client.cancel().await?;
    Ok(())
}

/// A temp copy of fixtures/search with BM25 only (set by `tsq.toml`, so
/// results do not depend on how far background embedding has got).
fn search_workspace(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tsq-mcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let status = std::process::Command::new("cp").arg("-r").arg(common::repo().join("fixtures/search")).arg(&dir).status().unwrap();
    assert!(status.success());
    let _ = std::fs::remove_dir_all(dir.join(".tsq")); // the README's sample may have left one
    std::fs::write(dir.join("tsq.toml"), "embedder = \"none\"\n").unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn natural_language_over_an_in_process_client() -> anyhow::Result<()> {
    let root = search_workspace("nl");
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let server = TsqServer::new(&root)?;
    tokio::spawn(async move {
        if let Ok(s) = server.serve(server_io).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(client_io).await?;
    let query = "split comma separated lines into fields";
    let r = client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": query })))).await?;
    assert_ne!(r.is_error, Some(true), "{:?}", texts(&r));
    let v = serde_json::to_value(&r)?;
    let blocks = v["content"].as_array().unwrap();
    let summary = blocks[0]["text"].as_str().unwrap();
    assert!(summary.starts_with(&format!("Search: \"{query}\" | ")), "{summary}");
    assert!(summary.lines().next().unwrap().contains("embedder: none, reranker: none"), "{summary}");
    assert!(blocks.len() >= 2, "graph then snapshots: {v}");
    assert!(blocks[1]["text"].as_str().unwrap().starts_with("// src/data/csv.ts\n"), "{v}");
    assert_eq!(blocks[0]["annotations"]["priority"], 1.0);
    let priorities: Vec<f64> = blocks.iter().map(|b| b["annotations"]["priority"].as_f64().unwrap()).collect();
    assert!(priorities.windows(2).all(|w| w[0] > w[1]), "priorities decrease: {priorities:?}");
    assert!(blocks.iter().all(|b| b["annotations"]["audience"] == json!(["assistant"])));

    // Concise: ranked records with the backends.
    let r =
        client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": query, "format": "concise", "topK": 3 })))).await?;
    let sc = r.structured_content.clone().expect("structured content");
    assert_eq!(sc["backend"]["embedder"], "none");
    let results = sc["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3, "{sc}");
    assert_eq!(results[0]["file_path"], "src/data/csv.ts");
    assert_eq!(results[0]["definitions"], "function parseCsv");
    for key in ["language", "start_line", "end_line", "preview", "score"] {
        assert!(results[0].get(key).is_some(), "{key} missing: {sc}");
    }

    // A file created after the server started is found by the next query.
    std::fs::write(root.join("src/data/tsv.ts"), "/** Reads tab separated values into records. */\nexport function parseTabSeparated(text: string): string[][] {\n  return text.split(\"\\n\").map((l) => l.split(\"\\t\"));\n}\n")?;
    let r = client
        .call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": "read tab separated values", "format": "concise" }))))
        .await?;
    let sc = r.structured_content.clone().expect("structured content");
    assert_eq!(sc["results"][0]["file_path"], "src/data/tsv.ts", "{sc}");
    // And a deleted one is gone.
    std::fs::remove_file(root.join("src/data/tsv.ts"))?;
    let r = client
        .call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": "read tab separated values", "format": "concise" }))))
        .await?;
    let sc = r.structured_content.clone().expect("structured content");
    assert!(sc["results"].as_array().unwrap().iter().all(|x| x["file_path"] != "src/data/tsv.ts"), "{sc}");
    client.cancel().await?;
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tsq_serve_binary_over_stdio() -> anyhow::Result<()> {
    let root = common::repo().join("fixtures/ts-ls/multi-project");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.arg("serve").arg("--root").arg(&root);
    let (stdout, stdin, _child) = common::serve_stdio(cmd)?;
    let client = ().serve((stdout, stdin)).await?;
    let tools = client.list_all_tools().await?;
    assert_eq!(tools.len(), 2);
    let r = client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": "symbol = add", "callDepth": 2 })))).await?;
    let t = texts(&r);
    assert!(t[0].contains("Called by: checkout (packages/app/src/main.ts)"), "{}", t[0]);
    let r = client
        .call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": "symbol = add", "path": ["packages/app"] }))))
        .await?;
    assert_eq!(r.is_error, Some(true));
    client.cancel().await?;
    Ok(())
}

/// `tsq serve` with raw piped stdin and stdout, for hand-written lines.
fn serve_raw(root: &std::path::Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_tsq"))
        .args(["serve", "--root"])
        .arg(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn garbage_bom_and_wrong_shapes_do_not_kill_the_server() {
    use std::io::{BufRead, BufReader, Write};
    let root = common::repo().join("fixtures/ts-ls/call-chain");
    let mut child = serve_raw(&root);
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        "\u{feff}garbage that is not JSON".to_string(),
        r#"{"foo": 1}"#.to_string(),
        "[1, 2, 3]".to_string(),
        r#"{"jsonrpc":"2.0","id":"x","method":"no/such/method"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
            .to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"codebase_search","arguments":{"query":"symbol = normalize"}}}"#.to_string(),
    ];
    for l in &lines {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answered = false;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        // Stdout carries only JSON-RPC messages.
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("non-protocol line on stdout: {line:?}: {e}"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        if v["id"] == 2 {
            assert!(v["result"]["content"][0]["text"].as_str().unwrap().contains("normalize — helper.ts"), "{line}");
            answered = true;
            break;
        }
    }
    assert!(answered, "the valid request after the garbage was answered");
    drop(stdin);
    // Stdin EOF ends the server.
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn the_stateless_era_discover_then_call() {
    use std::io::{BufRead, BufReader, Write};
    let root = common::repo().join("fixtures/ts-ls/call-chain");
    let mut child = serve_raw(&root);
    let mut stdin = child.stdin.take().unwrap();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{meta}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"codebase_search","arguments":{{"query":"symbol = isBlank"}},{meta}}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    let mut seen = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["id"] == 1 {
            assert!(v["result"]["supportedVersions"].as_array().unwrap().iter().any(|x| x == "2026-07-28"), "{v}");
        }
        if v["id"] == 2 {
            assert!(v["result"]["content"][0]["text"].as_str().unwrap().contains("isBlank — helper.ts"), "{v}");
        }
        seen.push(v["id"].clone());
        if seen.len() == 2 {
            break;
        }
    }
    assert_eq!(seen, [json!(1), json!(2)]);
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[allow(deprecated)] // Roots are deprecated by SEP-2577; clients still send them.
mod roots_and_progress {
    use std::sync::{Arc, Mutex};

    use rmcp::model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, ErrorData, Implementation, ListRootsResult, NumberOrString, ProgressNotificationParam,
        ProgressToken, RequestParamsMeta, Root,
    };
    use rmcp::service::{NotificationContext, RequestContext};
    use rmcp::{ClientHandler, RoleClient, ServiceExt};
    use serde_json::json;
    use tsq::mcp::{RootChoice, TsqServer};

    #[derive(Clone)]
    struct RootsClient {
        roots: Vec<String>,
        progress: Arc<Mutex<Vec<f64>>>,
    }

    impl ClientHandler for RootsClient {
        fn get_info(&self) -> ClientConfig {
            ClientConfig::new(ClientCapabilities::builder().enable_roots().build(), Implementation::new("tsq-test", "1"))
        }

        #[allow(deprecated)]
        async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {
            Ok(ListRootsResult::new(self.roots.iter().cloned().map(Root::new).collect()))
        }

        async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
            self.progress.lock().unwrap().push(params.progress);
        }
    }

    /// A server without --root (its fallback: `multi-hop`) on an in-memory
    /// transport; the fixture the clients name as their root
    /// (`call-chain`), and the client's end.
    fn server_beside_a_wanted_root() -> anyhow::Result<(std::path::PathBuf, tokio::io::DuplexStream)> {
        let repo = super::common::repo();
        let wanted = repo.join("fixtures/ts-ls/call-chain").canonicalize()?;
        let elsewhere = repo.join("fixtures/ts-ls/multi-hop").canonicalize()?;
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(s) = TsqServer::with_root(RootChoice::FromClientOr(elsewhere)).serve(server_io).await {
                let _ = s.waiting().await;
            }
        });
        Ok((wanted, client_io))
    }

    /// Without --root, the workspace is the client's root; the first call
    /// reports progress while the projects load.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_clients_root_and_progress_during_the_first_load() -> anyhow::Result<()> {
        let (wanted, client_io) = server_beside_a_wanted_root()?;
        let progress = Arc::new(Mutex::new(Vec::new()));
        let client = RootsClient { roots: vec![format!("file://{}", wanted.display())], progress: Arc::clone(&progress) }.serve(client_io).await?;
        let mut params = CallToolRequestParams::new("codebase_search").with_arguments(json!({ "query": "symbol = normalize" }).as_object().unwrap().clone());
        params.set_progress_token(ProgressToken(NumberOrString::Number(7)));
        let r = client.call_tool(params).await?;
        let text = r.content[0].as_text().unwrap().text.clone();
        assert!(text.contains("normalize — helper.ts"), "answered from the client's root: {text}");
        // Notifications may arrive just after the result.
        for _ in 0..50 {
            if progress.lock().unwrap().len() >= 2 {
                break;
            }
            tokio::task::yield_now().await;
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(*progress.lock().unwrap(), vec![0.0, 1.0]);
        client.cancel().await?;
        Ok(())
    }

    /// A root with a bad percent escape (a `%` before a multi-byte
    /// character once panicked the parser, and the engine never started)
    /// is skipped; `file://localhost/…` is a local path.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bad_root_is_skipped_not_a_panic() -> anyhow::Result<()> {
        let (wanted, client_io) = server_beside_a_wanted_root()?;
        let roots = vec!["file:///x/%aé".to_string(), format!("file://localhost{}", wanted.display())];
        let client = RootsClient { roots, progress: Arc::new(Mutex::new(Vec::new())) }.serve(client_io).await?;
        let params = CallToolRequestParams::new("codebase_search").with_arguments(json!({ "query": "symbol = normalize" }).as_object().unwrap().clone());
        let r = client.call_tool(params).await?;
        let text = r.content[0].as_text().unwrap().text.clone();
        assert!(text.contains("normalize — helper.ts"), "answered from the second, valid root: {text}");
        client.cancel().await?;
        Ok(())
    }
}

/// A file created after `tsq serve` started is seen by the next query (its
/// declaration is found, its call shows up among the callers), and a file
/// deleted is gone from the next answer: the warm projects' file lists are
/// refreshed, through the real binary over stdio.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_created_or_deleted_after_start_are_seen_by_the_next_query() -> anyhow::Result<()> {
    let ws = common::TempDir::copy_of(&common::repo().join("fixtures/ts-ls/multi-project"), "mcp-created");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.arg("serve").arg("--root").arg(&ws.0).stderr(std::process::Stdio::null());
    let (stdout, stdin, _child) = common::serve_stdio(cmd)?;
    let client = ().serve((stdout, stdin)).await?;
    let ask = |q: &'static str| {
        let client = &client;
        async move { client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args(json!({ "query": q })))).await }
    };
    // Loaded before the file exists.
    let before = texts(&ask("symbol = add").await?).join("\n");
    assert!(!before.contains("refund"), "{before}");
    let r = ask("symbol = refund").await?;
    assert!(texts(&r).join("\n").contains("No symbol"), "{:?}", texts(&r));

    ws.write(
        "packages/app/src/refund.ts",
        b"import { add } from '@acme/core';\n\nexport function refund(cents: number): number {\n  return add(cents, -cents);\n}\n",
    );
    let r = ask("symbol = refund").await?;
    let found = texts(&r).join("\n");
    assert!(found.contains("export function refund(cents: number): number"), "{found}");
    let callers = texts(&ask("symbol = add").await?).join("\n");
    assert!(callers.contains("refund (packages/app/src/refund.ts)"), "{callers}");

    std::fs::remove_file(ws.0.join("packages/app/src/refund.ts"))?;
    let r = ask("symbol = refund").await?;
    assert!(texts(&r).join("\n").contains("No symbol"), "{:?}", texts(&r));
    let after = texts(&ask("symbol = add").await?).join("\n");
    assert!(!after.contains("refund"), "{after}");
    client.cancel().await?;
    Ok(())
}

/// `change_impact` through the `tsq serve` binary over stdio: the answer
/// as text and as structured content; bad input as tool errors that say
/// what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_impact_over_stdio() -> anyhow::Result<()> {
    let t = common::TempDir::new("mcp-impact");
    t.write("tsconfig.json", br#"{ "compilerOptions": { "strict": true } }"#);
    t.write("lib.ts", b"export function add(a: number, b: number): number {\n  return a + b;\n}\n");
    t.write("main.ts", b"import { add } from './lib';\n\nexport function total(): number {\n  return add(1, 2);\n}\n");
    common::git(&t.0, &["init", "-q"]);
    common::git(&t.0, &["add", "-A"]);
    common::git(&t.0, &["commit", "-q", "-m", "base"]);
    t.write("lib.ts", b"export function add(a: number, b: number, c = 0): number {\n  return a + b + c;\n}\n");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.arg("serve").arg("--root").arg(&t.0).env("TSQ_EMBEDDER", "none");
    let (stdout, stdin, _child) = common::serve_stdio(cmd)?;
    let client = ().serve((stdout, stdin)).await?;
    let call = |a: Value| client.call_tool(CallToolRequestParams::new("change_impact").with_arguments(args(a)));
    let r = call(json!({})).await?;
    assert_ne!(r.is_error, Some(true), "{:?}", texts(&r));
    let sc = r.structured_content.clone().expect("structured content");
    assert_eq!(sc["changed"][0]["name"], "add");
    assert_eq!(sc["changed"][0]["change"], "api");
    assert_eq!(sc["affected"][0]["name"], "total");
    assert_eq!(sc["affected"][0]["why"], "calls");
    assert!(texts(&r)[0].contains("api      lib.ts:1-3  add (function)"), "{}", texts(&r)[0]);
    for (bad, says) in [
        (json!({ "base": "no-such-rev" }), "unknown revision `no-such-rev`"),
        (json!({ "base": "--output=/tmp/x" }), "unknown revision"),
        (json!({ "path": ["../.."] }), "leaves the workspace"),
        (json!({ "depth": 99 }), "the depth must be between 1 and 10"),
        (json!({ "staged": true, "base": "HEAD" }), "give one of"),
        (json!({ "query": "x" }), "Malformed arguments"),
    ] {
        let r = call(bad.clone()).await?;
        assert_eq!(r.is_error, Some(true), "{bad}");
        assert!(texts(&r)[0].contains(says), "{bad}: {}", texts(&r)[0]);
    }
    client.cancel().await?;
    Ok(())
}
