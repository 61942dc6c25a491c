//! The first answer on a fresh clone (issue 75): `tsq serve` on a
//! workspace with no index answers after parsing the files nearest the
//! question, says how far each stage is, and its background worker
//! finishes the rest; a `kill -9` meanwhile loses nothing already indexed.
//! Through the real binary over stdio.

use rmcp::model::{CallToolRequestParams, NumberOrString, ProgressNotificationParam, ProgressToken, RequestParamsMeta};
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::common;

/// Files `tsq serve` parses before its first answer (`INLINE_PARSE_FILES`).
const INLINE: usize = 64;
const FILLERS: usize = 150;

const TOKENS: &str = "/** Gets a new access token once the old one has expired. */\nexport async function refreshAccessToken(refreshToken: string): Promise<string> {\n  const response = await fetch('/oauth/token', { method: 'POST', body: refreshToken });\n  return (await response.json()).access_token;\n}\n";
const CLIENT: &str = "import { refreshAccessToken } from './tokens';\n\nexport async function send(expired: boolean, refresh: string): Promise<string> {\n  return expired ? refreshAccessToken(refresh) : 'cached';\n}\n";

/// A workspace of `FILLERS` files that say nothing of tokens, and two that
/// do, last in walk order (`src/zz/`), so that only the question's words
/// can bring them into the first answer.
fn workspace(name: &str) -> common::TempDir {
    let ws = common::TempDir::new(name);
    ws.write("tsconfig.json", br#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext" }, "include": ["src"] }"#);
    for i in 0..FILLERS {
        let text = format!("export function helper{i}(x: number): number {{\n  return x * {i} + 1;\n}}\n\nexport const label{i} = 'item {i}';\n");
        ws.write(&format!("src/m{i:03}.ts"), text.as_bytes());
    }
    ws.write("src/zz/tokens.ts", TOKENS.as_bytes());
    ws.write("src/zz/client.ts", CLIENT.as_bytes());
    ws
}

/// A client that keeps every progress notification it hears.
#[derive(Clone, Default)]
struct Progressed(std::sync::Arc<std::sync::Mutex<Vec<ProgressNotificationParam>>>);

impl rmcp::ClientHandler for Progressed {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: rmcp::service::NotificationContext<rmcp::RoleClient>) {
        self.0.lock().unwrap().push(params);
    }
}

fn text_of(r: &rmcp::model::CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

fn status(root: &std::path::Path) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq")).args(["status", "--json", "--root"]).arg(root).output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn serve(root: &std::path::Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.arg("serve").arg("--root").arg(root).env("TSQ_EMBEDDER", "none").stderr(std::process::Stdio::null());
    cmd
}

const QUESTION: &str = "where do we refresh an expired access token?";

/// The first answer ranks the files parsed so far, the nearest first: the
/// token code is found complete, as the checkout has it, and the header
/// counts what the index holds; once the worker is done, the same
/// question is answered with structure and no header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_answer_ranks_what_is_parsed_and_says_how_far_the_index_is() -> anyhow::Result<()> {
    let ws = workspace("first-answer");
    let (stdout, stdin, _child) = common::serve_stdio(serve(&ws.0))?;
    let heard = Progressed::default();
    let client = heard.clone().serve((stdout, stdin)).await?;
    let ask = || {
        let mut params = CallToolRequestParams::new("codebase_search").with_arguments(json!({ "query": QUESTION }).as_object().unwrap().clone());
        params.set_progress_token(ProgressToken(NumberOrString::Number(1)));
        client.call_tool(params)
    };
    let first = text_of(&ask().await?);
    let total = FILLERS + 2;
    let state = format!("index: {INLINE}/{total} files, vectors 0%, structure 0%");
    assert!(first.contains(&state), "{first}");
    // The same state as an MCP progress notification on the call's token
    // (it may arrive just after the result).
    let mut said = None;
    for _ in 0..100 {
        said = heard.0.lock().unwrap().iter().find(|p| p.message.as_deref().is_some_and(|m| m.starts_with(&state))).cloned();
        if said.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let said = said.unwrap_or_else(|| panic!("no progress notification says {state:?}: {:?}", heard.0.lock().unwrap()));
    assert_eq!((said.progress, said.total), (INLINE as f64, Some(total as f64)));
    assert!(said.message.unwrap().ends_with("still being built in the background"));
    // The token code, whole, exactly as the checkout holds it.
    for line in TOKENS.lines() {
        assert!(first.contains(line), "{line:?} missing from\n{first}");
    }
    assert!(first.contains("src/zz/tokens.ts"), "{first}");
    // Shown as indexed: no callers yet.
    assert!(!first.contains("Called by"), "{first}");

    // The worker parses the rest, then builds the occurrence index.
    let mut done = false;
    for _ in 0..1200 {
        let s = status(&ws.0);
        if s["files"] == total && s["structure"][0] == total && s["structure"][1] == total {
            done = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(done, "the background worker never finished: {}", status(&ws.0));
    let later = text_of(&ask().await?);
    assert!(!later.contains("files, vectors "), "{later}");
    // The call and the signature: structure, from the occurrence index (or
    // computed live when the worker re-checks a file written in the same
    // second as its first pass).
    assert!(later.contains("send (client.ts)\n    → refreshAccessToken (tokens.ts)"), "{later}");
    assert!(later.contains("Signature: refreshAccessToken(refreshToken: string): Promise<string>"), "{later}");
    client.cancel().await?;
    Ok(())
}

/// `kill -9` while the worker parses: what the first answer indexed is
/// still there, the index opens, and a CLI search completes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_the_background_stages_loses_nothing_indexed() -> anyhow::Result<()> {
    let ws = workspace("first-answer-kill");
    let (stdout, stdin, mut child) = common::serve_stdio(serve(&ws.0))?;
    let client = ().serve((stdout, stdin)).await?;
    let first = text_of(
        &client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(json!({ "query": QUESTION }).as_object().unwrap().clone())).await?,
    );
    assert!(first.contains(&format!("index: {INLINE}/")), "{first}");
    child.start_kill()?;
    child.wait().await?;
    let s = status(&ws.0);
    let files = s["files"].as_u64().unwrap() as usize;
    assert!(files >= INLINE, "the first answer's files are kept: {s}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq")).args(["search", QUESTION, "--root"]).arg(&ws.0).env("TSQ_EMBEDDER", "none").output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("export async function refreshAccessToken"), "{text}");
    assert!(!text.contains("files, vectors "), "the CLI parses every file first: {text}");
    assert_eq!(status(&ws.0)["files"], FILLERS + 2);
    Ok(())
}

/// A CLI search's answer, then its notes (the text format prints them on
/// stderr).
fn cli_search(root: &std::path::Path, extra: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq"))
        .arg("search")
        .arg(QUESTION)
        .args(extra)
        .arg("--root")
        .arg(root)
        .env("TSQ_EMBEDDER", "none")
        .output()
        .unwrap();
    let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    text
}

/// `tsq search --no-wait` on a fresh clone: each call parses the files
/// nearest the question and answers from them (nothing runs after the
/// process exits, so the index holds exactly those); a search without it
/// builds the rest first.
#[test]
fn the_cli_answers_at_once_with_no_wait_and_indexes_the_rest_without_it() {
    let ws = workspace("first-answer-cli");
    let total = FILLERS + 2;
    let first = cli_search(&ws.0, &["--no-wait"]);
    assert!(first.contains(&format!("index: {INLINE}/{total} files, vectors 0%, structure 0%; `tsq index`")), "{first}");
    for line in TOKENS.lines() {
        assert!(first.contains(line), "{line:?} missing from\n{first}");
    }
    assert_eq!(status(&ws.0)["files"], INLINE, "the header counts what the index holds");
    let second = cli_search(&ws.0, &["--no-wait"]);
    assert!(second.contains(&format!("index: {}/{total} files", 2 * INLINE)), "{second}");
    assert_eq!(status(&ws.0)["files"], 2 * INLINE);
    let full = cli_search(&ws.0, &[]);
    assert!(!full.contains("files, vectors "), "{full}");
    assert!(full.contains("send (client.ts)\n    → refreshAccessToken (tokens.ts)"), "{full}");
    assert_eq!(status(&ws.0)["files"], total);
}
