//! The MCP server (blueprint phase 6.5): the `codebase_search` tool over
//! stdio with rmcp. It keeps one warm workspace, loaded on the first call;
//! engine work runs on blocking threads, off the async runtime. Every
//! problem with a call is a tool error (`isError: true`), never a protocol
//! error, and stdout carries only protocol messages.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    Annotations, CallToolResult, ContentBlock, Implementation, ProgressNotificationParam, Role, ServerCapabilities, ServerConfig, TextContent,
};
use rmcp::service::RequestContext;
use rmcp::{schemars, tool, tool_handler, tool_router, RoleServer, ServerHandler};
use serde::Deserialize;
use tokio::sync::OnceCell;

use crate::config::{Overrides, Settings};
use crate::index::Progress;
use crate::inspect::Workspace;
use crate::lookup::{concise, lookup, LookupConfig, LookupError};
use crate::search::session::Session;

/// The longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 4096;
/// The most `path` entries accepted.
pub const MAX_PATHS: usize = 64;

/// How results come back.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SearchFormat {
    /// The connection graph, then one smart snapshot per file.
    Full,
    /// For each result: file_path, language, start_line, end_line,
    /// definitions, preview (first 2 non-empty lines) and score.
    Concise,
}

/// Arguments of `codebase_search`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchArgs {
    /// What to find: a question in natural language ("where do we refresh
    /// tokens?"; naming likely identifiers helps), or an exact lookup
    /// `symbol = name`, `symbol = Parent > name`, `symbol = path/to/file.ts > Parent > name`.
    pub query: String,
    /// Only search these files, directories or globs, relative to the workspace
    /// root (e.g. ["src/auth/"], ["*.ts"]).
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Languages to search; TypeScript and JavaScript only for now.
    #[serde(default)]
    pub languages: Option<Vec<String>>,
    /// How many hops of callers and callees to show: 1 (default), N, or -1 for all.
    #[serde(default)]
    pub call_depth: Option<i32>,
    /// Depth of type structure to expand (reserved; default 1).
    #[serde(default)]
    pub type_depth: Option<i32>,
    /// Upper bound on the answer's size in tokens (chars/4); default 8000.
    #[serde(default)]
    pub max_token_budget: Option<usize>,
    /// "full" (default) or "concise".
    #[serde(default)]
    pub format: Option<SearchFormat>,
    /// Natural-language search: weight of the rerank (or hybrid) score in finalScore; default 0.65.
    #[serde(default)]
    pub rerank_weight: Option<f64>,
    /// Natural-language search: weight of vector similarity in finalScore; default 0.35.
    #[serde(default)]
    pub vector_weight: Option<f64>,
    /// Natural-language search: results below this finalScore (0-1) are left out; default 0.5.
    #[serde(default)]
    pub minimum_relevance_threshold: Option<f64>,
    /// Natural-language search: candidates taken from each of vector search and BM25; default 40.
    #[serde(default)]
    pub max_vector_candidates: Option<usize>,
    /// Concise format: how many results; default 10.
    #[serde(default)]
    pub top_k: Option<usize>,
}

/// Where the workspace comes from.
#[derive(Debug, Clone)]
pub enum RootChoice {
    /// `--root`: always this directory.
    Given(PathBuf),
    /// The client's first valid root, else this directory (the current one).
    FromClientOr(PathBuf),
}

#[derive(Clone)]
pub struct TsqServer {
    choice: RootChoice,
    workspace: Arc<OnceCell<Arc<Workspace>>>,
    session: Arc<OnceCell<Arc<Session>>>,
    embedding: Arc<std::sync::atomic::AtomicBool>,
    tool_router: ToolRouter<Self>,
}

/// Progress notifications on the client's token, at most every 250 ms.
struct McpProgress {
    peer: rmcp::Peer<RoleServer>,
    token: Option<rmcp::model::ProgressToken>,
    handle: tokio::runtime::Handle,
    last: std::sync::Mutex<Option<std::time::Instant>>,
}

impl Progress for McpProgress {
    fn update(&self, phase: &str, done: u64, total: u64) {
        let Some(token) = &self.token else { return };
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| t.elapsed() < std::time::Duration::from_millis(250)) && done < total {
            return;
        }
        *last = Some(std::time::Instant::now());
        let mut p = ProgressNotificationParam::new(token.clone(), done as f64);
        p.total = (total > 0).then_some(total as f64);
        p.message = Some(format!("indexing: {phase} {done}/{total}"));
        let peer = self.peer.clone();
        self.handle.spawn(async move {
            let _ = peer.notify_progress(p).await;
        });
    }
}

/// A client root (`file://` URI) as a directory, if it is one.
fn root_dir(uri: &str) -> Option<PathBuf> {
    let path = uri.strip_prefix("file://")?;
    let decoded = percent_decode(path);
    let p = PathBuf::from(decoded).canonicalize().ok()?;
    p.is_dir().then_some(p)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// Resolves a `path` argument inside `root`: canonical, symlinks resolved,
/// contained by path components; `Err` is the tool error to send.
pub fn scoped_path(root: &Path, arg: &str) -> Result<String, String> {
    if arg.contains('\0') {
        return Err(format!("path {arg:?} contains a NUL byte"));
    }
    if arg.contains(['*', '?', '[']) {
        // A glob is matched against workspace-relative paths; it reads nothing.
        if Path::new(arg).is_absolute() || Path::new(arg).components().any(|c| c == Component::ParentDir) {
            return Err(format!("path {arg:?} leaves the workspace {}", root.display()));
        }
        return Ok(arg.to_string());
    }
    let joined = root.join(arg);
    let real = joined.canonicalize().map_err(|_| format!("File not found: {arg} (workspace root: {})", root.display()))?;
    let rel = real.strip_prefix(root).map_err(|_| format!("path {arg:?} leaves the workspace {}", root.display()))?;
    Ok(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

#[tool_router]
impl TsqServer {
    /// A server on `root` (as `--root` gives it).
    pub fn new(root: &Path) -> std::io::Result<TsqServer> {
        Ok(TsqServer::with_root(RootChoice::Given(root.canonicalize()?)))
    }

    pub fn with_root(choice: RootChoice) -> TsqServer {
        TsqServer {
            choice,
            workspace: Arc::new(OnceCell::new()),
            session: Arc::new(OnceCell::new()),
            embedding: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            tool_router: Self::tool_router(),
        }
    }

    /// The workspace root: `--root`, else the client's first valid root,
    /// else the current directory. Fixed once anything is loaded.
    async fn root(&self, ctx: &RequestContext<RoleServer>) -> PathBuf {
        if let Some(ws) = self.workspace.get() {
            return ws.root().to_path_buf();
        }
        if let Some(s) = self.session.get() {
            return s.root().to_path_buf();
        }
        match &self.choice {
            RootChoice::Given(root) => root.clone(),
            RootChoice::FromClientOr(fallback) => {
                let supports_roots = ctx.peer.peer_info().is_some_and(|i| i.capabilities.roots.is_some());
                // Roots are deprecated by SEP-2577 but still what clients send.
                #[allow(deprecated)]
                let from_client = if supports_roots {
                    ctx.peer.list_roots().await.ok().and_then(|r| r.roots.iter().find_map(|root| root_dir(&root.uri)))
                } else {
                    None
                };
                from_client.unwrap_or_else(|| fallback.clone())
            }
        }
    }

    /// The warm search session (index and parse engine), opened and synced
    /// on first use with progress notifications; vectors are then computed
    /// in the background, a batch at a time, between queries.
    async fn session(&self, ctx: &RequestContext<RoleServer>, embedder: crate::embed::EmbedderChoice) -> Result<Arc<Session>, String> {
        let root = self.root(ctx).await;
        let progress = McpProgress { peer: ctx.peer.clone(), token: ctx.meta.get_progress_token(), handle: tokio::runtime::Handle::current(), last: Default::default() };
        let session = self
            .session
            .get_or_try_init(|| async move {
                tokio::task::spawn_blocking(move || {
                    let session = Session::open(&root, embedder).map_err(|e| format!("opening the index: {e}"))?;
                    for n in &session.notes {
                        tracing::info!("{n}");
                    }
                    session.sync(&progress).map_err(|e| format!("indexing: {e}"))?;
                    Ok::<_, String>(Arc::new(session))
                })
                .await
                .map_err(|e| format!("opening the index failed: {e}"))?
            })
            .await
            .cloned()?;
        self.embed_in_background(&session);
        Ok(session)
    }

    /// Starts the background embedder unless it is running.
    fn embed_in_background(&self, session: &Arc<Session>) {
        use std::sync::atomic::Ordering;
        if !session.has_embedder() || self.embedding.swap(true, Ordering::SeqCst) {
            return;
        }
        let (session, flag) = (Arc::clone(session), Arc::clone(&self.embedding));
        std::thread::spawn(move || {
            loop {
                match session.embed_some(128, &crate::index::sync_silent()) {
                    Ok(0) => break,
                    Ok(n) => tracing::debug!("embedded {n} chunks"),
                    Err(e) => {
                        tracing::warn!("background embedding stopped: {e}; retried on the next query");
                        break;
                    }
                }
            }
            flag.store(false, Ordering::SeqCst);
        });
    }

    /// The warm workspace, loaded on first use on a blocking thread, with
    /// progress notifications when the client asked for them.
    async fn workspace(&self, ctx: &RequestContext<RoleServer>) -> Result<Arc<Workspace>, String> {
        if let Some(ws) = self.workspace.get() {
            return Ok(Arc::clone(ws));
        }
        let root = self.root(ctx).await;
        let token = ctx.meta.get_progress_token();
        if let Some(t) = &token {
            let mut p = ProgressNotificationParam::new(t.clone(), 0.0);
            p.total = Some(1.0);
            p.message = Some(format!("loading the TypeScript projects under {}", root.display()));
            let _ = ctx.peer.notify_progress(p).await;
        }
        let ws = self
            .workspace
            .get_or_try_init(|| async move {
                tokio::task::spawn_blocking(move || Workspace::open(&root).map(Arc::new).map_err(|e| e.to_string()))
                    .await
                    .map_err(|e| format!("loading the workspace failed: {e}"))?
            })
            .await
            .cloned()?;
        if let Some(t) = token {
            let mut p = ProgressNotificationParam::new(t, 1.0);
            p.total = Some(1.0);
            p.message = Some("projects loaded".into());
            let _ = ctx.peer.notify_progress(p).await;
        }
        Ok(ws)
    }

    #[tool(
        name = "codebase_search",
        description = "Ask about a TypeScript/JavaScript codebase in natural language (\"where do we refresh expired tokens?\"; naming likely identifiers helps), or look a symbol up exactly with `symbol = name`, `symbol = Parent > name` or `symbol = path/file.ts > Parent > name`. Either way you get only the code that matters: a connection graph (signatures, callers, callees, types) first, then each relevant symbol complete in a smart snapshot of its file, within a token budget.",
        annotations(title = "Codebase search", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        input_schema = rmcp::handler::server::common::schema_for_input::<SearchArgs>().expect("SearchArgs has a JSON schema")
    )]
    async fn codebase_search(&self, Parameters(raw): Parameters<rmcp::model::JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        // Arguments are checked here, not by the protocol layer: a malformed
        // argument is a tool error the agent can read and fix.
        let args: SearchArgs = match serde_json::from_value(serde_json::Value::Object(raw)) {
            Ok(a) => a,
            Err(e) => return tool_error(format!("Malformed arguments: {e}. Expected {{\"query\": \"symbol = name\", ...}}.")),
        };
        let cancelled = ctx.ct.clone();
        let started = std::time::Instant::now();
        let query = args.query.clone();
        // On its own task, so that a panic is a tool error, not a lost session.
        let this = self.clone();
        let task = tokio::spawn(async move { this.search(args, &ctx).await });
        let result = tokio::select! {
            joined = task => match joined {
                Ok(Ok(result)) => result,
                Ok(Err(message)) => tool_error(message),
                Err(e) if e.is_panic() => tool_error(format!("internal error: the search panicked ({e}); the server goes on")),
                Err(e) => tool_error(format!("internal error: {e}")),
            },
            // The engine work finishes on its thread; its answer is dropped.
            _ = cancelled.cancelled() => tool_error("cancelled"),
        };
        tracing::info!(query = %query.chars().take(200).collect::<String>(), error = result.is_error == Some(true), ms = started.elapsed().as_millis() as u64, "codebase_search");
        result
    }

    async fn search(&self, args: SearchArgs, ctx: &RequestContext<RoleServer>) -> Result<CallToolResult, String> {
        let query = args.query.trim().to_string();
        if query.is_empty() {
            return Err("Empty query: pass `symbol = name`, `symbol = Parent > name` or `symbol = path/file.ts > Parent > name`.".into());
        }
        if query.len() > MAX_QUERY_BYTES {
            return Err(format!("Query too long: {} bytes, the limit is {MAX_QUERY_BYTES}.", query.len()));
        }
        let mut language = None;
        if let Some(langs) = &args.languages {
            if let Some(other) = langs.iter().find(|l| !matches!(l.to_ascii_lowercase().as_str(), "typescript" | "javascript" | "ts" | "js")) {
                return Err(format!("Unsupported language {other:?}: tsq reads TypeScript and JavaScript."));
            }
            let wanted: std::collections::BTreeSet<&str> =
                langs.iter().map(|l| if l.to_ascii_lowercase().starts_with('j') { "javascript" } else { "typescript" }).collect();
            if wanted.len() == 1 {
                language = wanted.into_iter().next().map(str::to_string);
            }
        }
        let paths = args.path.clone().unwrap_or_default();
        if paths.len() > MAX_PATHS {
            return Err(format!("Too many paths: {}, the limit is {MAX_PATHS}.", paths.len()));
        }
        let root = self.root(ctx).await;
        let scoped: Vec<String> = paths.iter().map(|p| scoped_path(&root, p)).collect::<Result<_, _>>()?;
        for (arg, rel) in paths.iter().zip(&scoped) {
            if rel.contains(['*', '?', '[']) {
                continue;
            }
            let full = root.join(rel);
            let has_sources = if full.is_dir() { !crate::source::walk(&full).files.is_empty() } else { crate::source::is_supported(&full) };
            if !has_sources {
                return Err(format!("No supported files in path {arg} (tsq reads .ts .tsx .js .jsx .mts .mjs .cts .cjs)."));
            }
        }
        if !query.starts_with("symbol") || !query.contains('=') {
            return self.natural_language(query, args, scoped, language, ctx).await;
        }
        let workspace = self.workspace(ctx).await?;
        let config = LookupConfig {
            call_depth: args.call_depth.unwrap_or(1).clamp(-1, 16),
            max_token_budget: args.max_token_budget.unwrap_or(8000).clamp(200, 200_000),
            paths: scoped,
        };
        let format = args.format.unwrap_or(SearchFormat::Full);
        let ws = Arc::clone(&workspace);
        let answer = tokio::task::spawn_blocking(move || lookup(&ws, &query, &config))
            .await
            .map_err(|e| format!("the search failed: {e}"))?
            .map_err(|e| match e {
                LookupError::Query(m) => format!("Failed to parse the query: {m}"),
                LookupError::Ts(e) => format!("The TypeScript engine failed: {e}"),
            })?
            .ok_or("not a symbol lookup")?;
        if answer.results.is_empty() && answer.omitted == 0 {
            return Err(answer.hints.join("\n"));
        }
        if format == SearchFormat::Concise {
            let value = serde_json::to_value(concise(&answer, workspace.root())).map_err(|e| e.to_string())?;
            return Ok(CallToolResult::structured(serde_json::json!({ "results": value })));
        }
        Ok(CallToolResult::success(content_blocks(&answer, |i| (0.95 - 0.05 * i as f32).max(0.1))))
    }

    /// The natural-language pipeline: sync, retrieve, rerank, select,
    /// enrich (the same output path as lookups).
    async fn natural_language(&self, query: String, args: SearchArgs, paths: Vec<String>, language: Option<String>, ctx: &RequestContext<RoleServer>) -> Result<CallToolResult, String> {
        let root = self.root(ctx).await;
        let overrides = Overrides {
            rerank_weight: args.rerank_weight,
            vector_weight: args.vector_weight,
            minimum_relevance_threshold: args.minimum_relevance_threshold,
            max_vector_candidates: args.max_vector_candidates,
            top_k: args.top_k,
            max_token_budget: args.max_token_budget,
            call_depth: args.call_depth,
            ..Default::default()
        };
        let settings = Settings::load(&root, overrides).map_err(|e| format!("Bad setting: {e}"))?;
        let session = self.session(ctx, settings.embedder).await?;
        let filter = crate::search::filter(&paths, language.as_deref());
        let format = args.format.unwrap_or(SearchFormat::Full);
        if format == SearchFormat::Concise {
            let s = Arc::clone(&session);
            let (q, f, st) = (query.clone(), filter.clone(), settings.clone());
            let retrieval = tokio::task::spawn_blocking(move || {
                s.sync(&crate::index::sync_silent())?;
                s.retrieve(&q, &f, &st)
            })
            .await
            .map_err(|e| format!("the search failed: {e}"))?
            .map_err(|e| format!("the search failed: {e}"))?;
            let results = crate::search::concise(&retrieval.ranked, settings.top_k);
            return Ok(CallToolResult::structured(serde_json::json!({
                "query": query,
                "backend": {"embedder": retrieval.backends.embedder, "reranker": retrieval.backends.reranker, "vectors": retrieval.backends.vectors},
                "notes": retrieval.notes,
                "results": results,
            })));
        }
        let workspace = self.workspace(ctx).await?;
        let answer = tokio::task::spawn_blocking(move || session.sync_and_search(&workspace, &query, &filter, &settings, &crate::index::sync_silent()))
        .await
        .map_err(|e| format!("the search failed: {e}"))?
        .map_err(|e| format!("the search failed: {e}"))?;
        let t = &answer.timings;
        tracing::debug!(sync = t.sync, retrieval = t.retrieval, rerank = t.rerank, enrichment = t.enrichment, "search timings (ms)");
        // Priority follows finalScore, strictly decreasing after the graph.
        let mut priorities = Vec::new();
        let mut prev = 1.0f32;
        for s in &answer.answer.snapshots {
            let best = answer.answer.results.iter().filter(|r| r.location.symbol.file_path.as_deref() == Some(s.file_path.as_str())).map(|r| r.score as f32).fold(0.0, f32::max);
            let p = best.min(prev - 0.01).max(0.01);
            priorities.push(p);
            prev = p;
        }
        Ok(CallToolResult::success(content_blocks(&answer.answer, |i| priorities.get(i).copied().unwrap_or(0.01))))
    }
}

/// The graph (and summary) at priority 1.0, then one block per snapshot,
/// all for the assistant.
fn content_blocks(answer: &crate::lookup::LookupAnswer, priority: impl Fn(usize) -> f32) -> Vec<ContentBlock> {
    let assistant = |priority: f32| Annotations::default().with_audience(vec![Role::Assistant]).with_priority(priority);
    let graph_end = answer.snapshots.first().and_then(|s| answer.text.find(&s.text)).unwrap_or(answer.text.len());
    let mut content = vec![ContentBlock::Text(TextContent::new(answer.text[..graph_end].trim_end()).with_annotations(assistant(1.0)))];
    for (i, s) in answer.snapshots.iter().enumerate() {
        content.push(ContentBlock::Text(TextContent::new(s.text.clone()).with_annotations(assistant(priority(i)))));
    }
    content
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TsqServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("tsq", env!("CARGO_PKG_VERSION")))
            .with_instructions(
            "tsq answers questions about a TypeScript/JavaScript codebase with the real TypeScript compiler. Call codebase_search with a natural-language question, or with `symbol = Name` / `symbol = Parent > name` for an exact lookup.",
        )
    }
}
