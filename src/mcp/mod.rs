//! The MCP server (blueprint phase 6.5): the `codebase_search` tool over
//! stdio with rmcp. It keeps one warm workspace, loaded on the first call;
//! engine work runs on blocking threads, off the async runtime. Every
//! problem with a call is a tool error (`isError: true`), never a protocol
//! error, and stdout carries only protocol messages.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Annotations, CallToolResult, ContentBlock, Implementation, ProgressNotificationParam, Role, ServerCapabilities, ServerConfig, TextContent};
use rmcp::service::RequestContext;
use rmcp::{schemars, tool, tool_handler, tool_router, RoleServer, ServerHandler};
use serde::Deserialize;
use tokio::sync::OnceCell;

use crate::api::{render, Answer, Engine, EngineOptions, QueryInput, Shape};
use crate::config::Overrides;
use crate::progress::Progress;
use roots::root_dir;

mod roots;

/// How results come back.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SearchFormat {
    /// The connection graph, then one smart snapshot per file.
    Full,
    /// For each result: file_path, language, start_line, end_line,
    /// definitions, preview (first 2 non-empty lines) and score.
    Concise,
}

/// Arguments of `codebase_search`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SearchArgs {
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
    /// Depth of type structure to expand, -1..10 (reserved for search; default 1).
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

/// Arguments of `change_impact`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ImpactArgs {
    /// The git revision the working tree is compared with (a commit, branch
    /// or tag); default "HEAD".
    #[serde(default)]
    pub base: Option<String>,
    /// Compare the staged changes with HEAD instead (as `git diff --staged`).
    #[serde(default)]
    pub staged: Option<bool>,
    /// Compare the unstaged changes with the staging area instead (as `git diff`).
    #[serde(default)]
    pub worktree: Option<bool>,
    /// Only changes to these files or directories, relative to the workspace root.
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Levels of dependents an API change reaches, 1-10; default 2.
    #[serde(default)]
    pub depth: Option<usize>,
    /// Upper bound on the changed code shown, in tokens; default 4000.
    #[serde(default)]
    pub max_token_budget: Option<usize>,
}

impl ImpactArgs {
    fn request(self) -> Result<crate::impact::ImpactRequest, String> {
        use crate::impact::{Base, ImpactRequest};
        let base = match (self.base, self.staged == Some(true), self.worktree == Some(true)) {
            (Some(_), true, _) | (Some(_), _, true) | (_, true, true) => return Err("give one of `base`, `staged` and `worktree`".into()),
            (_, true, _) => Base::Staged,
            (_, _, true) => Base::Worktree,
            (Some(rev), ..) => Base::Rev(rev),
            (None, ..) => Base::default(),
        };
        let d = ImpactRequest::default();
        Ok(ImpactRequest {
            base,
            depth: self.depth.unwrap_or(d.depth),
            budget: self.max_token_budget.unwrap_or(d.budget),
            paths: self.path.unwrap_or_default(),
        })
    }
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
    engine: Arc<OnceCell<Arc<Engine>>>,
    /// The background worker runs (one at a time).
    background: Arc<std::sync::atomic::AtomicBool>,
    /// Queries in flight: the background worker waits while any is.
    busy: Arc<std::sync::atomic::AtomicUsize>,
    /// The warm hand-off's socket, while this server answers the CLI's
    /// commands on its workspace (`crate::handoff`).
    socket: Arc<std::sync::Mutex<Option<PathBuf>>>,
    tool_router: ToolRouter<Self>,
}

/// A query in flight, counted until dropped (panics included).
struct Busy(Arc<std::sync::atomic::AtomicUsize>);

impl Busy {
    fn enter(n: &Arc<std::sync::atomic::AtomicUsize>) -> Busy {
        n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Busy(Arc::clone(n))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Progress notifications on the client's token, at most every 250 ms.
struct McpProgress {
    peer: rmcp::Peer<RoleServer>,
    token: Option<rmcp::model::ProgressToken>,
    handle: tokio::runtime::Handle,
    last: std::sync::Mutex<Option<std::time::Instant>>,
}

impl McpProgress {
    fn send(&self, token: &rmcp::model::ProgressToken, message: String, done: u64, total: u64) {
        let mut p = ProgressNotificationParam::new(token.clone(), done as f64);
        p.total = (total > 0).then_some(total as f64);
        p.message = Some(message);
        let peer = self.peer.clone();
        self.handle.spawn(async move {
            let _ = peer.notify_progress(p).await;
        });
    }
}

impl Progress for McpProgress {
    fn update(&self, phase: &str, done: u64, total: u64) {
        let Some(token) = &self.token else { return };
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| t.elapsed() < std::time::Duration::from_millis(250)) && done < total {
            return;
        }
        *last = Some(std::time::Instant::now());
        self.send(token, format!("indexing: {phase} {done}/{total}"), done, total);
    }

    fn stage(&self, phase: &str, done: u64, total: u64) {
        if let Some(token) = &self.token {
            self.send(token, phase.to_string(), done, total);
        }
    }
}

fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

impl SearchArgs {
    /// The front-end-neutral input (checked by the engine, as the CLI's).
    fn input(self) -> QueryInput {
        QueryInput {
            query: self.query,
            paths: self.path.unwrap_or_default(),
            languages: self.languages.unwrap_or_default(),
            shape: match self.format {
                Some(SearchFormat::Concise) => Shape::Concise,
                _ => Shape::Full,
            },
            overrides: Overrides {
                rerank_weight: self.rerank_weight,
                vector_weight: self.vector_weight,
                minimum_relevance_threshold: self.minimum_relevance_threshold,
                max_vector_candidates: self.max_vector_candidates,
                top_k: self.top_k,
                max_token_budget: self.max_token_budget,
                call_depth: self.call_depth,
                type_depth: self.type_depth,
                ..Default::default()
            },
            symbol_only: false,
        }
    }
}

/// An answer as MCP content: full answers as blocks for the assistant,
/// concise ones as structured content; an empty lookup is a tool error.
pub(crate) fn tool_result(answer: &Answer) -> CallToolResult {
    if let Some(message) = render::nothing_found(answer) {
        return tool_error(message);
    }
    match answer {
        Answer::Concise(c) => CallToolResult::structured(render::concise(c)),
        Answer::Full(full) => {
            let assistant = |priority: f32| Annotations::default().with_audience(vec![Role::Assistant]).with_priority(priority);
            CallToolResult::success(
                render::blocks(full).into_iter().map(|b| ContentBlock::Text(TextContent::new(b.text).with_annotations(assistant(b.priority)))).collect(),
            )
        }
    }
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
            engine: Arc::new(OnceCell::new()),
            background: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            busy: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
            socket: Arc::new(std::sync::Mutex::new(None)),
            tool_router: Self::tool_router(),
        }
    }

    /// The workspace root: `--root`, else the client's first valid root,
    /// else the current directory. Fixed once the engine is open.
    async fn root(&self, ctx: &RequestContext<RoleServer>) -> PathBuf {
        if let Some(e) = self.engine.get() {
            return e.root().to_path_buf();
        }
        match &self.choice {
            RootChoice::Given(root) => root.clone(),
            RootChoice::FromClientOr(fallback) => {
                let supports_roots = ctx.peer.peer_info().is_some_and(|i| i.capabilities.roots.is_some());
                // Roots are deprecated by SEP-2577 but still what clients send.
                #[allow(deprecated)]
                let from_client =
                    if supports_roots { ctx.peer.list_roots().await.ok().and_then(|r| r.roots.iter().find_map(|root| root_dir(&root.uri))) } else { None };
                from_client.unwrap_or_else(|| fallback.clone())
            }
        }
    }

    /// The warm engine, opened on first use.
    async fn engine(&self, ctx: &RequestContext<RoleServer>) -> Result<Arc<Engine>, String> {
        let root = self.root(ctx).await;
        self.engine_at(root).await
    }

    /// The warm engine on `root`, opened on first use (later calls get the
    /// engine opened first, whatever root they name).
    async fn engine_at(&self, root: PathBuf) -> Result<Arc<Engine>, String> {
        let this = self.clone();
        self.engine
            .get_or_try_init(|| async move {
                let engine = Arc::new(
                    Engine::open(&root, EngineOptions { warm: true, background: Some(crate::api::INLINE_REINDEX_FILES), ..Default::default() })
                        .map_err(|e| e.to_string())?,
                );
                this.listen(engine.root());
                // `[share] from`: the team's published index first, then the
                // local sync on top. A failure leaves the local index in use.
                let pulling = Arc::clone(&engine);
                match tokio::task::spawn_blocking(move || pulling.pull_configured(&crate::progress::silent())).await {
                    Ok(Ok(Some(p))) => match &p.pulled {
                        Some(got) => tracing::info!(
                            "pulled the index of {} from {} ({} files, {} bytes); {} files re-indexed locally",
                            got.commit,
                            got.url,
                            got.downloaded,
                            got.bytes_pulled,
                            p.reindexed
                        ),
                        None => tracing::info!("{}", p.fallback.unwrap_or_default()),
                    },
                    Ok(Ok(None)) => {}
                    Ok(Err(e)) => tracing::warn!("[share] from: {e}; answering from the local index"),
                    Err(e) => tracing::warn!("[share] from: {e}; answering from the local index"),
                }
                Ok(engine)
            })
            .await
            .cloned()
    }

    /// Answers the CLI's commands on `root` through the warm hand-off,
    /// unless another server already does.
    fn listen(&self, root: &Path) {
        let Some(listener) = crate::handoff::bind(root) else { return };
        tracing::info!("answering the CLI's commands on this workspace at {}", listener.path().display());
        *self.socket.lock().unwrap_or_else(|p| p.into_inner()) = Some(listener.path().to_path_buf());
        let this = self.clone();
        tokio::spawn(listener.serve(root.to_path_buf(), move |work| {
            let this = this.clone();
            async move { this.hand_off(work).await }
        }));
    }

    /// Engine work on a blocking thread, off the async runtime, counted as
    /// a query in flight (the background worker waits while any is).
    async fn blocking<T: Send + 'static>(&self, engine: &Arc<Engine>, work: impl FnOnce(&Engine) -> T + Send + 'static) -> Result<T, tokio::task::JoinError> {
        let busy = Busy::enter(&self.busy);
        let e = Arc::clone(engine);
        tokio::task::spawn_blocking(move || {
            let _busy = busy;
            work(&e)
        })
        .await
    }

    /// One CLI command (`handoff::answer`), counted as a query in flight.
    async fn hand_off(&self, work: crate::handoff::Work) -> crate::handoff::Reply {
        use crate::api::printed::{Outcome, Printed};
        use crate::handoff::Reply;
        let Some(engine) = self.engine.get().cloned() else { return Reply::Declined("the engine is not open yet".into()) };
        let reply = self.blocking(&engine, move |e| crate::handoff::answer(e, work)).await.unwrap_or_else(|e| {
            Reply::Printed(Printed { stdout: String::new(), stderr: vec![format!("tsq: error: internal error in tsq serve ({e})")], outcome: Outcome::Error })
        });
        self.work_in_background(&engine);
        reply
    }

    /// Opens the engine on `root` and starts the background worker, as
    /// an MCP client's first call would (`tsq serve --listen-only`).
    pub async fn warm(&self, root: PathBuf) -> Result<(), String> {
        let engine = self.engine_at(root).await?;
        self.work_in_background(&engine);
        Ok(())
    }

    /// At exit: the hand-off's socket goes, so that the next command
    /// answers in its own process at once.
    pub fn shutdown(&self) {
        if let Some(path) = self.socket.lock().unwrap_or_else(|p| p.into_inner()).take() {
            crate::handoff::Listener::remove(&path);
        }
    }

    /// Starts the background worker unless it is running. When no query
    /// is in flight it computes what the index lacks: the files answers
    /// left unparsed first (`Engine::parse_step`), then the occurrence
    /// index (`Engine::structure_step`: the first build, then whatever
    /// edits made stale; a query meanwhile is answered without the rows
    /// and says so: `Engine::occurrences_for_answer`), then the programs
    /// of the projects the latest answer showed, so that the re-index
    /// after the next edit there is incremental; then vectors, a small
    /// batch at a time (a query never waits for more than one).
    fn work_in_background(&self, engine: &Arc<Engine>) {
        use std::sync::atomic::Ordering;
        if self.background.swap(true, Ordering::SeqCst) {
            return;
        }
        let (engine, flag, busy) = (Arc::clone(engine), Arc::clone(&self.background), Arc::clone(&self.busy));
        std::thread::spawn(move || {
            let idle = || {
                while busy.load(Ordering::SeqCst) > 0 {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            };
            // Files the answers left unparsed first (a fresh clone), then
            // structure, then vectors (the answers' callers and
            // types matter more than the vector signal, and an embedding
            // stage of minutes must not hold them back).
            #[derive(Clone, Copy, Debug)]
            enum Stage {
                Parse,
                Structure,
                Vectors,
            }
            let mut stage = Stage::Parse;
            loop {
                idle();
                let step = match stage {
                    Stage::Parse => engine.parse_step(),
                    Stage::Structure => engine.structure_step(),
                    Stage::Vectors => engine.embed_some(128),
                };
                match step {
                    Ok(0) => match stage {
                        Stage::Parse => stage = Stage::Structure,
                        Stage::Structure if engine.has_embedder() => stage = Stage::Vectors,
                        Stage::Structure | Stage::Vectors => break,
                    },
                    Ok(n) => tracing::debug!(?stage, "background: {n} done"),
                    Err(e) => {
                        tracing::warn!("background work stopped: {e}; retried after the next query");
                        break;
                    }
                }
            }
            flag.store(false, Ordering::SeqCst);
        });
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

    #[tool(
        name = "change_impact",
        description = "What the working tree's changes touch, compiler-exact: the declarations they change (API or body only, added, removed, renamed), every declaration that depends on them (callers, implementers, subtypes, type users, to a depth), the test files that reach them with the command that runs them, and the changed code. Compares with HEAD unless `base`, `staged` or `worktree` says otherwise.",
        annotations(title = "Change impact", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        input_schema = rmcp::handler::server::common::schema_for_input::<ImpactArgs>().expect("ImpactArgs has a JSON schema")
    )]
    async fn change_impact(&self, Parameters(raw): Parameters<rmcp::model::JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let args: ImpactArgs = match serde_json::from_value(serde_json::Value::Object(raw)) {
            Ok(a) => a,
            Err(e) => return tool_error(format!("Malformed arguments: {e}. Expected {{\"base\": \"HEAD\", \"depth\": 2}} (every field optional).")),
        };
        let request = match args.request() {
            Ok(r) => r,
            Err(e) => return tool_error(e),
        };
        let engine = match self.engine(&ctx).await {
            Ok(e) => e,
            Err(e) => return tool_error(e),
        };
        let progress =
            McpProgress { peer: ctx.peer.clone(), token: ctx.meta.get_progress_token(), handle: tokio::runtime::Handle::current(), last: Default::default() };
        let answer = self.blocking(&engine, move |e| e.impact(&request, &progress)).await;
        self.work_in_background(&engine);
        match answer {
            Ok(Ok(a)) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(crate::impact::render::text(&a))]);
                result.structured_content = serde_json::to_value(&a).ok();
                result
            }
            Ok(Err(e)) => tool_error(e.to_string()),
            Err(e) => tool_error(format!("internal error: the impact question failed ({e}); the server goes on")),
        }
    }

    /// Checks the arguments and answers through the engine, on a
    /// blocking thread, with progress on the client's token.
    async fn search(&self, args: SearchArgs, ctx: &RequestContext<RoleServer>) -> Result<CallToolResult, String> {
        let engine = self.engine(ctx).await?;
        let request = engine.request(args.input()).map_err(|e| e.to_string())?;
        let progress =
            McpProgress { peer: ctx.peer.clone(), token: ctx.meta.get_progress_token(), handle: tokio::runtime::Handle::current(), last: Default::default() };
        let answer = self
            .blocking(&engine, move |e| {
                let answer = e.query(&request, &progress);
                for n in e.take_notes() {
                    tracing::info!("{n}");
                }
                answer
            })
            .await
            .map_err(|e| format!("the search failed: {e}"))?
            .map_err(|e| e.to_string())?;
        self.work_in_background(&engine);
        Ok(tool_result(&answer))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TsqServer {
    /// With `--root`, the engine opens as soon as the client is ready and
    /// the background worker starts: it brings the index up to date and
    /// builds the programs of the files edited last, so that the first
    /// answer after the first edit does not wait for a program.
    fn on_initialized(&self, _context: rmcp::service::NotificationContext<RoleServer>) -> impl std::future::Future<Output = ()> + Send + '_ {
        if let RootChoice::Given(root) = &self.choice {
            let (this, root) = (self.clone(), root.clone());
            tokio::spawn(async move {
                match this.engine_at(root).await {
                    Ok(engine) => this.work_in_background(&engine),
                    Err(e) => tracing::warn!("{e}"),
                }
            });
        }
        std::future::ready(())
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("tsq", env!("CARGO_PKG_VERSION")))
            .with_instructions(
            "tsq answers questions about a TypeScript/JavaScript codebase with the real TypeScript compiler. Call codebase_search with a natural-language question, or with `symbol = Name` / `symbol = Parent > name` for an exact lookup.",
        )
    }
}
