//! The engine API: the one door both front ends use. An `Engine` owns one
//! workspace's index, its Language Service workspace, the parse pool, the
//! reranker, the shared file view and the settings; its methods are the
//! product (`query`, `inspect`, `analyze`, `index`, `sync`, `status`,
//! `clean`, `parse`). A front end turns its input into a `QueryInput`,
//! the engine checks it (`request`), answers, and `render` turns the answer
//! into text, JSON, concise records or MCP blocks.
//!
//! How a query flows: `Engine::request` (`Request::new`) → `Engine::query`
//! → `Engine::walk` (the query's one walk) →
//! - `symbol =`: with an occurrence index, `Engine::rows_answer`
//!   (the chunk sync, the occurrence sync by the builder rule, then
//!   `structure::answers::answer` from the rows); when the rows cannot
//!   answer exactly, `Engine::workspace` → `lookup::live_answer` (the
//!   live Language Service); both end in `lookup::answer_from` /
//!   `lookup::assemble`;
//! - natural language: `Index::try_sync_with` → concise:
//!   `search::retrieve` → `search::concise`; full: the occurrence sync,
//!   then `search::search` (`retrieve` → `select` → `enrich::answer`,
//!   live only for what the rows cannot answer) → `lookup::assemble`;
//!
//! then `render`. Keeping the index (`index`, `sync`, the background
//! steps, `status`, `clean`) is `maintain`; the occurrence index's own
//! entry points (`sync_occurrences`, `relations`) are `occurrences`.

mod impact;
mod inspect;
mod maintain;
mod occurrences;
pub mod peak;
pub mod printed;
pub mod render;
pub mod request;
mod share;

pub(crate) use maintain::IndexReport;
pub use maintain::StructureMode;
pub(crate) use occurrences::RelationsAnswer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use serde::Serialize;

use crate::answer::{Inspection, WorkspaceInfo};
use crate::config::{ConfigError, Overrides, Settings};
use crate::embed::{EmbedderChoice, Reranker};
use crate::index::{Index, IndexConfig, IndexError, SyncInput, SyncReport};
use crate::lookup::{ConciseResult, LookupAnswer, LookupConfig};
use crate::parse_pool::{FileParse, ParsePool, ParsePoolConfig};
use crate::progress::Progress;
use crate::query::SymbolQuery;
use crate::search::{Backends, SearchAnswer, SearchError};
use crate::source::{ReadConfig, Skipped, Tree};
use crate::ts::files::FileView;
use crate::ts::TsError;
use crate::workspace::{AnalyzeConfig, Workspace, ANALYSES};

pub use request::{is_symbol_query, QueryInput, Request, Shape};
pub(crate) use request::{Mode, RequestError, SymbolRequest};

/// How an engine is opened, built once at the edge.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// The embedder for the index; `None`: the settings' (environment,
    /// `tsq.toml`, default).
    pub embedder: Option<EmbedderChoice>,
    /// A long-lived process (`tsq serve`): the index keeps what repeated
    /// queries read (the window vectors) in memory.
    pub warm: bool,
    /// `tsq serve`: a background worker keeps the occurrence index fresh,
    /// and an answer re-indexes at most this many files itself
    /// (`INLINE_REINDEX_FILES`); a larger re-index, or one the worker is
    /// running, is not waited for (`Engine::occurrences_for_answer`).
    /// `None` (the CLI): every answer brings the rows up to date first.
    pub background: Option<usize>,
    /// `tsq search --no-wait`: on a workspace still being indexed, an
    /// answer parses the `INLINE_PARSE_FILES` files nearest its question
    /// and answers from those, as `tsq serve` does, instead of indexing
    /// everything first; the rest waits for the next `tsq index` or search.
    pub no_wait: bool,
}

/// Files a `tsq serve` answer re-indexes before it answers. A body-only
/// edit re-indexes one file, an exported-signature edit its importers; an
/// engine upgrade re-indexes every file, which is minutes on a monorepo
/// and is left to the background worker.
pub(crate) const INLINE_REINDEX_FILES: usize = 32;

/// Files a `tsq serve` answer parses before it answers, those nearest its
/// question first (`index::Limit`); on a workspace still being indexed
/// (a fresh clone), the background worker parses the others, this many
/// at a time (`Engine::parse_step`).
pub(crate) const INLINE_PARSE_FILES: usize = 64;

/// Errors of the engine API, one enum for both front ends.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error("workspace root {path}: {message}")]
    Root { path: String, message: String },
    #[error("Bad setting: {0}")]
    Setting(#[from] ConfigError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error("The TypeScript engine failed: {0}")]
    Ts(#[from] TsError),
    #[error("unknown analysis `{0}`; known: {known}", known = ANALYSES.join(", "))]
    UnknownAnalysis(String),
    #[error(transparent)]
    Share(#[from] crate::share::ShareError),
    #[error(transparent)]
    Impact(#[from] crate::impact::ImpactError),
}

/// An answer to a query. Made once per query and moved to a front end,
/// never held in bulk, so the size difference between the variants costs
/// nothing and boxing would only change every caller's patterns.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Answer {
    Full(FullAnswer),
    Concise(ConciseAnswer),
}

/// The graph and snapshots: a lookup's, or a search's with its ranking.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum FullAnswer {
    Lookup(LookupAnswer),
    Search(SearchAnswer),
}

impl FullAnswer {
    pub fn lookup(&self) -> &LookupAnswer {
        match self {
            FullAnswer::Lookup(a) => a,
            FullAnswer::Search(s) => &s.answer,
        }
    }

    pub fn notes(&self) -> &[String] {
        match self {
            FullAnswer::Lookup(_) => &[],
            FullAnswer::Search(s) => &s.notes,
        }
    }
}

/// The concise list (seed 002): navigational records, no Language Service.
#[derive(Debug, Clone, Serialize)]
pub struct ConciseAnswer {
    pub query: String,
    /// The backends that ranked (natural-language search only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<Backends>,
    pub notes: Vec<String>,
    pub results: Vec<ConciseResult>,
    /// Hints when a lookup found nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}

impl Answer {
    /// Whether nothing was found (exit code 1; an MCP tool error).
    pub fn is_empty(&self) -> bool {
        match self {
            Answer::Full(FullAnswer::Lookup(a)) => a.results.is_empty() && a.omitted == 0,
            Answer::Full(FullAnswer::Search(s)) => s.answer.results.is_empty() && s.answer.omitted == 0,
            Answer::Concise(c) => c.results.is_empty(),
        }
    }
}

/// `inspect`'s answer: the metadata per match and the workspace behind it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectAnswer {
    pub query: String,
    pub workspace: WorkspaceInfo,
    #[serde(flatten)]
    pub result: Inspection,
    /// Where the answer came from, as `structure: N/M declarations (from
    /// the index)` or `(computed live)`; `None` without an index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structure: Option<String>,
}

pub struct Engine {
    root: PathBuf,
    options: EngineOptions,
    /// File texts and hashes, shared by the sync, the parse pool's callers
    /// and the compiler host.
    view: Arc<FileView>,
    index: Mutex<Option<Index>>,
    workspace: Mutex<Option<Arc<Workspace>>>,
    /// Held for an occurrence sync: one pass at a time (`tsq serve`'s
    /// worker and an answer's own sync).
    occurrence_pass: Mutex<()>,
    /// Threads waiting for `occurrence_pass`: the background pass stops
    /// between batches when one does (`Defer::Yield`).
    pass_waiters: Arc<std::sync::atomic::AtomicUsize>,
    parser: OnceLock<Result<ParsePool, String>>,
    reranker: OnceLock<Option<Box<dyn Reranker>>>,
    /// Notes from opening the index (rebuilds, fallbacks), said once.
    notes: Mutex<Vec<String>>,
    /// The files the latest answer showed (absolute, at most
    /// `WARM_FILES`): `tsq serve` warms their projects when idle
    /// (`Engine::structure_step`), since the next edit is likely there.
    answered: Mutex<Vec<PathBuf>>,
    /// Changed files the last sync left unparsed (`index::Limit`): the
    /// background worker parses them first (`parse_step`).
    pending: Mutex<usize>,
}

/// How many of an answer's files have their projects kept warm.
pub(crate) const WARM_FILES: usize = 3;

impl Engine {
    /// An engine on the workspace at `root`. Opens nothing yet: the index,
    /// the projects and the parse pool start when a call needs them.
    pub fn open(root: &Path, options: EngineOptions) -> Result<Engine, EngineError> {
        let root = root.canonicalize().map_err(|e| EngineError::Root { path: root.display().to_string(), message: e.to_string() })?;
        if !root.is_dir() {
            return Err(EngineError::Root { path: root.display().to_string(), message: "not a directory".into() });
        }
        Ok(Engine {
            root,
            options,
            view: Arc::new(FileView::new(ReadConfig::default())),
            index: Mutex::new(None),
            workspace: Mutex::new(None),
            occurrence_pass: Mutex::new(()),
            pass_waiters: Arc::default(),
            parser: OnceLock::new(),
            reranker: OnceLock::new(),
            notes: Mutex::new(Vec::new()),
            answered: Mutex::new(Vec::new()),
            pending: Mutex::new(0),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Checks a front end's input against this workspace.
    pub fn request(&self, input: QueryInput) -> Result<Request, EngineError> {
        Ok(Request::new(&self.root, input)?)
    }

    /// The settings in force without per-query arguments.
    pub fn settings(&self) -> Result<Settings, EngineError> {
        Ok(Settings::load(&self.root, Overrides { embedder: self.options.embedder, ..Default::default() })?)
    }

    /// Files the index still lacks (parsed in the background by `tsq
    /// serve`; 0 once every file is in, or before the first sync).
    pub fn parse_pending(&self) -> usize {
        *lock(&self.pending)
    }

    /// Files read from disk so far (a debug counter: a warm query over
    /// unchanged files reads none).
    pub fn files_read(&self) -> usize {
        self.view.reads()
    }

    /// Notes from opening the index (said once, then cleared).
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.notes))
    }

    /// The query's one walk: sources, configs, skips.
    fn walk(&self) -> Tree {
        let started = std::time::Instant::now();
        let tree = Tree::walk(&self.root);
        tracing::debug!(ms = started.elapsed().as_millis() as u64, sources = tree.sources.len(), configs = tree.configs.len(), "walk");
        tree
    }

    fn parser(&self) -> Result<&ParsePool, EngineError> {
        self.parser
            .get_or_init(|| ParsePool::new(&ParsePoolConfig::default()).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| EngineError::Ts(TsError::Startup(e.clone())))
    }

    fn reranker(&self) -> Option<&dyn Reranker> {
        self.reranker
            .get_or_init(|| {
                crate::embed::choose_reranker(&Default::default()).unwrap_or_else(|e| {
                    tracing::warn!("no reranker: {e}");
                    None
                })
            })
            .as_deref()
    }

    /// The index, opened on first use.
    fn open_index(&self) -> Result<MutexGuard<'_, Option<Index>>, EngineError> {
        let mut guard = lock(&self.index);
        if guard.as_ref().is_some_and(Index::replaced) {
            // A pull swapped another index in: reopen it (and its warm reads).
            tracing::info!("the index was replaced by a pull; reopening it");
            *guard = None;
        }
        if guard.is_none() {
            let settings = self.settings()?;
            let mut index = Index::open(
                &self.root,
                &IndexConfig {
                    embedder: settings.embedder,
                    warm_vectors: self.options.warm,
                    refresh_when_idle: self.options.background.is_some(),
                    history: settings.ranking.history > 0.0,
                    ..Default::default()
                },
            )?;
            lock(&self.notes).extend(std::mem::take(&mut index.notes));
            *guard = Some(index);
        }
        Ok(guard)
    }

    /// The Language Service workspace, loaded on first use from `tree`,
    /// else brought up to `tree` (files created or deleted).
    fn workspace(&self, tree: &Tree, progress: &dyn Progress) -> Result<Arc<Workspace>, EngineError> {
        let mut guard = lock(&self.workspace);
        if let Some(ws) = guard.as_ref() {
            ws.refresh(tree)?;
            return Ok(Arc::clone(ws));
        }
        progress.update("loading the TypeScript projects", 0, 1);
        let ws = Arc::new(Workspace::open_with(&self.root, tree, Arc::clone(&self.view))?);
        progress.update("projects loaded", 1, 1);
        *guard = Some(Arc::clone(&ws));
        Ok(ws)
    }

    /// Syncs the index with `tree`, unless another process is writing
    /// (`None`: answered from its last committed version).
    fn sync_tree(&self, tree: &Tree, progress: &dyn Progress) -> Result<Option<SyncReport>, EngineError> {
        self.sync_tree_limited(tree, None, progress)
    }

    /// `sync_tree` parsing at most what `limit` says; `tsq serve`'s answers
    /// (`answer_limit`) and its background worker (`parse_step`).
    fn sync_tree_limited(&self, tree: &Tree, limit: Option<crate::index::Limit<'_>>, progress: &dyn Progress) -> Result<Option<SyncReport>, EngineError> {
        let parser = self.parser()?;
        let mut guard = self.open_index()?;
        let index = guard.as_mut().expect("opened above");
        let report = index.try_sync_with(parser, SyncInput { tree, view: &self.view, limit }, progress)?;
        if let Some(r) = &report {
            *lock(&self.pending) = r.pending;
        }
        Ok(report)
    }

    /// How much of what changed an answer parses itself: in `tsq serve`,
    /// `INLINE_PARSE_FILES`, nearest the question's `words` first, as with
    /// `tsq search --no-wait`; otherwise the CLI parses everything.
    fn answer_limit<'w>(&self, words: &'w [String]) -> Option<crate::index::Limit<'w>> {
        (self.options.background.is_some() || self.options.no_wait).then_some(crate::index::Limit { files: INLINE_PARSE_FILES, words })
    }

    /// Answers a checked request: a lookup or a natural-language search,
    /// full or concise.
    pub fn query(&self, req: &Request, progress: &dyn Progress) -> Result<Answer, EngineError> {
        let tree = self.walk();
        for rel in &req.scope {
            if !rel.contains(['*', '?', '[']) && !tree.has_sources_under(&self.root, rel) {
                return Err(RequestError::NoSources(rel.clone()).into());
            }
        }
        // A pull in another process may swap the index in while this
        // answer reads it (`index::swap`): an answer whose reads straddle
        // a swap is computed again on the new index, never mixed.
        let mut tries = 0;
        let answer = loop {
            let dir = crate::index::index_dir(&self.root);
            crate::index::wait_for_swap(&dir)?;
            let before = crate::index::generation(&dir);
            let answer = match &req.mode {
                Mode::Symbol(query) => self.symbol_answer(req, query, &tree, progress),
                Mode::Natural(text) => self.search(req, text, &tree, progress),
            };
            tries += 1;
            if tries < 3 && crate::index::generation(&dir) != before {
                tracing::info!("the index was replaced by a pull while answering; answering again from the new one");
                continue;
            }
            break answer?;
        };
        *lock(&self.answered) = self.files_of(&answer);
        Ok(answer)
    }

    /// The first `WARM_FILES` distinct files an answer shows, absolute.
    fn files_of(&self, answer: &Answer) -> Vec<PathBuf> {
        let relative: Vec<&str> = match answer {
            Answer::Full(full) => full.lookup().results.iter().filter_map(|r| r.location.symbol.file_path.as_deref()).collect(),
            Answer::Concise(c) => c.results.iter().map(|r| r.file_path.as_str()).collect(),
        };
        let mut out: Vec<PathBuf> = Vec::new();
        for rel in relative {
            let path = self.root.join(rel);
            if !out.contains(&path) {
                out.push(path);
            }
            if out.len() == WARM_FILES {
                break;
            }
        }
        out
    }

    fn symbol_answer(&self, req: &Request, query: &SymbolQuery, tree: &Tree, progress: &dyn Progress) -> Result<Answer, EngineError> {
        let config = LookupConfig { call_depth: req.settings.call_depth, max_token_budget: req.settings.max_token_budget, paths: req.scope.clone() };
        let (stored, refreshing) = self.stored_answer(query, &config, tree, progress)?;
        let mut answer = match stored {
            Some(answer) => answer,
            None => {
                let ws = self.workspace(tree, progress)?;
                let mut answer = crate::lookup::live_answer(&ws, query, &config).map_err(EngineError::Ts)?;
                if let Some(line) = self.live_structure_line()? {
                    answer = crate::lookup::with_backends(answer, &line);
                }
                answer
            }
        };
        if let Some(pending) = refreshing {
            answer = crate::lookup::with_backends(answer, &occurrences::RowsFor::refreshing_note(pending));
        }
        Ok(match req.shape {
            Shape::Full => Answer::Full(FullAnswer::Lookup(answer)),
            Shape::Concise => Answer::Concise(ConciseAnswer {
                query: req.text.clone(),
                backend: None,
                notes: Vec::new(),
                results: crate::lookup::concise(&answer, &self.root),
                hints: answer.hints,
            }),
        })
    }

    /// A lookup from the occurrence index alone (no Language Service),
    /// when the workspace has one that can answer it exactly
    /// (`Engine::rows_answer`). Beside the answer: `Some(files
    /// pending)` when the occurrence rows are being refreshed in the
    /// background and were not read.
    fn stored_answer(
        &self,
        query: &SymbolQuery,
        config: &LookupConfig,
        tree: &Tree,
        progress: &dyn Progress,
    ) -> Result<(Option<LookupAnswer>, Option<usize>), EngineError> {
        if !crate::index::index_dir(&self.root).exists() {
            return Ok((None, None));
        }
        Ok(match self.rows_answer(query, config, tree, progress)? {
            occurrences::OccurrenceLookup::Answered(answer) => (Some(*answer), None),
            occurrences::OccurrenceLookup::Unanswered => (None, None),
            occurrences::OccurrenceLookup::Refreshing { pending } => (None, Some(pending)),
        })
    }

    fn search(&self, req: &Request, text: &str, tree: &Tree, progress: &dyn Progress) -> Result<Answer, EngineError> {
        let started = std::time::Instant::now();
        let mut words = crate::search::content_words(text);
        words.extend(crate::search::identifiers(text).iter().map(|w| w.to_lowercase()));
        let synced = self.sync_tree_limited(tree, self.answer_limit(&words), progress)?;
        let sync_ms = started.elapsed().as_millis() as u64;
        let mut notes = self.take_notes();
        if synced.is_none() {
            notes.push("another tsq is writing the index; answered from its last committed version".into());
        }
        let filter = crate::search::filter(&req.scope, req.language.as_deref());
        let guard = self.open_index()?;
        let index = guard.as_ref().expect("opened above");
        // A workspace still being indexed (`tsq serve` on a fresh clone):
        // the answer ranks what is parsed so far, says how far each stage
        // is, and does not wait for the TypeScript projects to load.
        let building = synced.as_ref().is_some_and(|r| r.pending > 0);
        if building {
            let finish = if self.options.background.is_some() {
                "still being built in the background"
            } else {
                "`tsq index` (or a search without --no-wait) builds the rest"
            };
            let synced = synced.as_ref().expect("checked above");
            notes.insert(0, building_line(index, synced, finish)?);
            // MCP clients see the same state as a progress notification.
            let (state, parsed, total) = building_state(index, synced)?;
            progress.stage(&format!("{state}; {finish}"), parsed as u64, total as u64);
        }
        if req.shape == Shape::Concise {
            let retrieval = crate::search::retrieve(index, self.reranker(), text, &filter, &req.settings.search())?;
            notes.extend(retrieval.notes);
            return Ok(Answer::Concise(ConciseAnswer {
                query: req.text.clone(),
                results: crate::search::concise(&retrieval.ranked, text, req.settings.top_k, &|r| {
                    crate::index::checkout::chunk(&self.view, &self.root, &r.row.content_hash, &r.row.chunk)
                }),
                backend: Some(retrieval.backends),
                notes,
                hints: Vec::new(),
            }));
        }
        // The occurrence index, when the workspace has one, is brought up
        // to date first (the builder rule: a body-only edit re-indexes one
        // file), so that enrichment reads fresh rows; in `tsq serve`, a
        // larger re-index is left to the worker and the rows are not read.
        if building {
            return self.full_search_in(index, req, text, tree, progress, notes, sync_ms, Structure::AsIndexed);
        }
        if index.has_occurrences()? {
            drop(guard);
            let rows = match self.occurrences_for_answer(tree, progress)? {
                occurrences::RowsFor::Fresh(_) => true,
                occurrences::RowsFor::Refreshing { pending } => {
                    notes.push(occurrences::RowsFor::refreshing_note(pending));
                    false
                }
            };
            let guard = self.open_index()?;
            let structure = if rows { Structure::Rows } else { Structure::Live };
            return self.full_search_in(guard.as_ref().expect("opened above"), req, text, tree, progress, notes, sync_ms, structure);
        }
        self.full_search_in(index, req, text, tree, progress, notes, sync_ms, Structure::Live)
    }

    #[allow(clippy::too_many_arguments)]
    fn full_search_in(
        &self,
        index: &Index,
        req: &Request,
        text: &str,
        tree: &Tree,
        progress: &dyn Progress,
        mut notes: Vec<String>,
        sync_ms: u64,
        structure: Structure,
    ) -> Result<Answer, EngineError> {
        let filter = crate::search::filter(&req.scope, req.language.as_deref());
        // The Language Service starts only if a result's structure is not
        // stored yet.
        let live = || {
            self.workspace(tree, progress).map_err(|e| match e {
                EngineError::Ts(e) => e,
                other => TsError::Service(other.to_string()),
            })
        };
        let rows = crate::structure::answers::Rows::new(index, &self.view, &tree.sources);
        // Rows only when they are fresh (synced above; not while the
        // background worker refreshes them).
        let structures = crate::structure::Structures::new(&live, req.settings.call_depth);
        let structures = match structure {
            Structure::Rows => structures.with_rows(&rows),
            Structure::Live => structures,
            Structure::AsIndexed => structures.as_indexed(),
        };
        let mut answer = crate::search::search(index, &self.view, &structures, self.reranker(), text, &filter, &req.settings.search())?;
        let computed = structures.computed.get();
        if computed > 0 {
            notes.push(format!("structure: {computed} of {} results computed live by the Language Service", computed + structures.served.get()));
        }
        answer.timings.sync = sync_ms;
        notes.append(&mut answer.notes);
        answer.notes = notes;
        let t = &answer.timings;
        tracing::debug!(sync = t.sync, retrieval = t.retrieval, rerank = t.rerank, enrichment = t.enrichment, "search timings (ms)");
        Ok(Answer::Full(FullAnswer::Search(answer)))
    }

    /// An extended analysis (`ANALYSES`), over the workspace or the
    /// declarations `query` names.
    /// `type_depth`: `None` takes the settings' (`typeDepth`), checked as
    /// a search checks it.
    pub fn analyze(&self, analysis: &str, query: Option<&str>, type_depth: Option<i32>) -> Result<serde_json::Value, EngineError> {
        if !ANALYSES.contains(&analysis) {
            return Err(EngineError::UnknownAnalysis(analysis.to_string()));
        }
        let overrides = Overrides { type_depth, ..Default::default() };
        let (query, settings) = match query {
            Some(q) => {
                let r = SymbolRequest::new(&self.root, q, overrides)?;
                (Some(r.query), r.settings)
            }
            None => (None, Settings::load(&self.root, overrides).map_err(RequestError::Setting)?),
        };
        let tree = self.walk();
        let ws = self.workspace(&tree, &crate::progress::silent())?;
        Ok(ws.analyze(analysis, query.as_ref(), &AnalyzeConfig { type_depth: settings.type_depth })?)
    }

    /// Files the walk skipped, and why (walks once).
    pub fn skipped(&self) -> Vec<Skipped> {
        self.walk().skipped
    }
}

/// Parses `files`, reporting paths relative to `root`, and calls `sink`
/// per file in order (`tsq symbols`, `tsq chunks`): one parse pool of at
/// most one isolate per file.
pub fn parse_files(files: &[PathBuf], root: &Path, sink: &mut dyn FnMut(Result<FileParse, Skipped>)) -> Result<(), EngineError> {
    if files.is_empty() {
        return Ok(());
    }
    let mut config = ParsePoolConfig::default();
    config.pool.workers = config.pool.workers.min(files.len()).max(1);
    ParsePool::new(&config)?.parse_files(files, root, sink);
    Ok(())
}

/// Where a full search answer's structure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Structure {
    /// The occurrence rows, fresh; live where they cannot answer.
    Rows,
    /// The Language Service.
    Live,
    /// Neither: the chunks as indexed (a workspace still being indexed).
    AsIndexed,
}

/// `index: 64/527 files, vectors 0%, structure 0%; ...`: how far each stage
/// of a workspace still being indexed is, for the answer's first note.
fn building_line(index: &Index, synced: &SyncReport, finish: &str) -> Result<String, EngineError> {
    let (state, _, _) = building_state(index, synced)?;
    Ok(format!(
        "{state}; {finish}, so this answer ranks the files parsed so far (those nearest the question first) and shows their code as indexed, without callers and types"
    ))
}

/// `index: N/M files, vectors V%, structure S%`, with N and M: how far
/// each stage of an index still being built is.
fn building_state(index: &Index, synced: &SyncReport) -> Result<(String, usize, usize), EngineError> {
    let (vectors, embeddable) = index.vector_coverage()?;
    let [structure, files] = index.occurrence_coverage()?;
    let percent = |n: usize, m: usize| (n * 100).checked_div(m).unwrap_or(0);
    let parsed = synced.files.saturating_sub(synced.pending);
    let state = format!(
        "index: {}/{} files, vectors {}%, structure {}%",
        group(parsed),
        group(synced.files),
        percent(vectors, embeddable),
        percent(structure, files.max(synced.files)),
    );
    Ok((state, parsed, synced.files))
}

fn structure_error(e: crate::structure::StructureError) -> EngineError {
    match e {
        crate::structure::StructureError::Index(e) => EngineError::Index(e),
        crate::structure::StructureError::Ts(e) => EngineError::Ts(e),
    }
}

/// `structure: <how>; occurrence index: N/M files`: where this answer's
/// structure came from, and how many indexed source files have current
/// occurrence rows (`Index::occurrence_coverage`).
fn structure_line(index: &Index, how: &str) -> Result<String, EngineError> {
    let [n, m] = index.occurrence_coverage()?;
    Ok(with_origin(index, format!("structure: {how}; occurrence index: {}/{} files", group(n), group(m))))
}

/// How an answer from the occurrence rows says so, after a sync that
/// re-indexed `indexed` files.
fn from_rows(indexed: usize) -> String {
    match indexed {
        0 => "from the occurrence index".to_string(),
        n => format!("from the occurrence index ({n} files re-indexed first)"),
    }
}

/// A structure line, with where the index came from when it was pulled.
fn with_origin(index: &Index, line: String) -> String {
    match index.origin() {
        Some(o) => format!("{line}; {}", o.line()),
        None => line,
    }
}

fn group(n: usize) -> String {
    crate::lookup::group(n)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
