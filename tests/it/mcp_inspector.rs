//! The official MCP Inspector CLI (`@modelcontextprotocol/inspector`,
//! `--cli` mode, from npm) driving `tsq serve` for tools/list and
//! tools/call. `.ci/run` installs it and sets `TSQ_MCP_INSPECTOR` to its
//! `mcp-inspector` binary; without that variable the test says so and
//! checks nothing else.

use crate::common;

use std::process::Command;

use serde_json::Value;

fn inspector(args: &[&str]) -> Value {
    inspector_at(&common::repo().join("fixtures/ts-ls/call-chain"), args)
}

/// The Inspector's CLI: `TSQ_MCP_INSPECTOR`, else where `.ci/run`
/// installs it.
fn inspector_bin() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("TSQ_MCP_INSPECTOR") {
        return Some(p.into());
    }
    let default = std::path::PathBuf::from("/var/tmp/tsq-npm/node_modules/.bin/mcp-inspector");
    default.is_file().then_some(default)
}

fn inspector_at(root: &std::path::Path, args: &[&str]) -> Value {
    let bin = inspector_bin().expect("the inspector");
    let out =
        Command::new(bin).arg("--cli").arg(env!("CARGO_BIN_EXE_tsq")).args(["serve", "--root"]).arg(root).args(args).output().expect("the inspector runs");
    assert!(out.status.success(), "inspector failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = &stdout[stdout.find('{').expect("JSON on stdout")..];
    serde_json::from_str(json).expect("inspector JSON")
}

#[test]
fn the_mcp_inspector_cli_lists_and_calls_the_tool() {
    if inspector_bin().is_none() {
        // A recorded skip, not a pass: .ci/run installs the Inspector and
        // fails when it cannot.
        eprintln!(
            "SKIPPED the_mcp_inspector_cli_lists_and_calls_the_tool: no MCP Inspector (set TSQ_MCP_INSPECTOR, or run .ci/run, which installs @modelcontextprotocol/inspector@0.15.0 into /var/tmp/tsq-npm)"
        );
        return;
    }
    let list = inspector(&["--method", "tools/list"]);
    let names: Vec<&str> = list["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, vec!["change_impact", "codebase_search"], "{list}");
    let call = inspector(&["--method", "tools/call", "--tool-name", "codebase_search", "--tool-arg", "query=symbol = normalize"]);
    let text = call["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Search: \"symbol = normalize\" | 1 result |"), "{text}");
    assert!(call["content"][1]["text"].as_str().unwrap().starts_with("// helper.ts\n"));

    // A natural-language call, on a temp copy (the index is written there).
    let ws = std::env::temp_dir().join(format!("tsq-inspector-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&ws);
    assert!(Command::new("cp").arg("-r").arg(common::repo().join("fixtures/search")).arg(&ws).status().unwrap().success());
    let _ = std::fs::remove_dir_all(ws.join(".tsq"));
    std::fs::write(ws.join("tsq.toml"), "embedder = \"none\"\n").unwrap();
    let call =
        inspector_at(&ws, &["--method", "tools/call", "--tool-name", "codebase_search", "--tool-arg", "query=evict the least recently used cache entry"]);
    let text = call["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Search: \"evict the least recently used cache entry\" |"), "{text}");
    assert!(call["content"][1]["text"].as_str().unwrap().starts_with("// src/util/cache.ts\n"), "{call}");
    let _ = std::fs::remove_dir_all(&ws);
    println!("mcp inspector: tools/list and tools/call (symbol and natural language) ok");
}
