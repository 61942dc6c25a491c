//! The persistent index (blueprint phase 7): a LanceDB database at
//! `<root>/.tsq/`, which this module alone owns. `Index` opens it (schema
//! and embedder checks, crash recovery), keeps it fresh (`sync`), fills in
//! vectors (`embed_missing`), reports on it (`status`), and serves the
//! search stage's reads (`search_reads`).

pub mod checkout;
mod confine;
mod disk;
pub mod history;
mod invariants;
mod layout;
mod lock;
mod made_here;
mod nearest;
pub(crate) use made_here::mark as mark_made_here;
pub mod names;
pub mod occurrences;
mod schema;
mod seal;
mod search_reads;
mod store;
mod swap;
mod sync;
pub mod usage;
mod vectors;
pub(crate) mod verify_pull;
mod warm;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::embed::{self, EmbedError, Embedder, EmbedderChoice, EmbedderId, HttpConfig};

pub use disk::{clean, read_origin, write_origin};
use disk::{clear_tables, dir_size, prepare_dir, read_meta, write_meta};
pub(crate) use disk::{read_record, write_atomic};
pub(crate) use disk::{snapshot_files, with_writer_lock, Origin, Trust};

pub(crate) use layout::{is_index_entry, is_local_only};
pub(crate) use lock::PassLock;
pub use schema::{ChunkRow, SCHEMA_VERSION};

pub use search_reads::{Filter, Hit, IdHit};
pub use store::MAX_VERSIONS;
pub use swap::install as install_pulled;
pub(crate) use swap::{crash_point, generation, stage_local, wait_for_swap, INCOMING};
pub use sync::SyncReport;
pub(crate) use sync::{Limit, SyncInput};

use crate::progress::Progress;
pub(crate) use schema::UNRANKED_KINDS;
use store::Store;
pub(crate) use sync::relative;

/// Index settings, built once at the edge.
#[derive(Debug, Clone)]
pub struct IndexConfig {
    pub embedder: EmbedderChoice,
    pub http: HttpConfig,
    /// A file whose mean line is longer than this is minified.
    pub minified_mean_line: usize,
    /// Files parsed and written per LanceDB commit.
    pub files_per_commit: usize,
    /// A long-lived process (`tsq serve`): keep the window vectors in
    /// memory for flat search, and the ranking evidence (`warm`).
    pub warm_vectors: bool,
    /// Keep the workspace's commit history beside the tables at each sync
    /// (`history`), for the ranking step that reads it (`Steps::history`).
    pub history: bool,
    /// A long-lived process (`tsq serve`): after a write, the search
    /// indexes take the new rows at the idle step (`Index::refresh_deferred`),
    /// not before the answer that wrote them. LanceDB searches the rows no
    /// index covers yet by a flat scan, so answers stay complete.
    pub refresh_when_idle: bool,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            embedder: EmbedderChoice::Auto,
            http: HttpConfig::default(),
            minified_mean_line: 400,
            files_per_commit: 200,
            warm_vectors: false,
            history: false,
            refresh_when_idle: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("LanceDB: {0}")]
    Lance(String),
    #[error("index damaged: {0}")]
    Corrupt(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error("the TypeScript engine: {0}")]
    Engine(String),
    #[error("{0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The index directory is not one tsq may write in (`confine`).
    #[error("refusing to use {path}: {message}")]
    Unsafe { path: String, message: String },
}

fn io(path: &Path, e: std::io::Error) -> IndexError {
    IndexError::Io { path: path.display().to_string(), message: e.to_string() }
}

/// `.tsq/meta.json`: what wrote the index.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Meta {
    pub schema_version: u32,
    pub tsq_version: String,
    /// The model whose vectors the index holds; `None`: no vectors.
    pub embedder: Option<EmbedderId>,
    pub dimension: usize,
    /// Unix milliseconds of the last finished sync.
    pub last_sync: Option<u64>,
}

/// `tsq status`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub files: usize,
    pub chunks: usize,
    pub skipped: Vec<SkippedFile>,
    pub embedder: String,
    pub dimensions: usize,
    pub last_sync: Option<u64>,
    pub bytes: u64,
    pub versions: usize,
    /// Chunks with vectors, of those that get them (imports do not).
    pub vectors: usize,
    pub embeddable: usize,
    /// The occurrence index's coverage: indexed source files whose rows
    /// are current, and all indexed source files
    /// (`Index::occurrence_coverage`).
    pub structure: [usize; 2],
    /// Files in the occurrence index, and its rows.
    pub occurrences: [usize; 2],
    /// Chunks the full-text index does not cover yet: written by `tsq
    /// serve` since its last idle step (`IndexConfig::refresh_when_idle`),
    /// found by a flat scan meanwhile.
    pub unindexed: usize,
    /// Files the occurrence pass failed on, with the error (retried after
    /// their next change).
    pub occurrence_failures: Vec<SkippedFile>,
    pub location: String,
    /// Where the index was pulled from (`tsq index --from`), if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

pub struct Index {
    root: PathBuf,
    dir: PathBuf,
    runtime: crate::runtime::OwnedRuntime,
    store: Store,
    embedder: Option<Box<dyn Embedder>>,
    meta: Meta,
    config: IndexConfig,
    /// What repeated queries read, in memory, when `config.warm_vectors`.
    warm: Option<warm::Cache>,
    /// The index's generation when opened (`swap`): a pull since then
    /// replaced the files under this handle.
    generation: String,
    /// Things the user should know (rebuilds, fallbacks); said once.
    pub notes: Vec<String>,
    /// The stored commit history, read at its first use (`history`).
    history: std::sync::OnceLock<Option<std::sync::Arc<history::History>>>,
    /// Rows written since the search indexes last took them in
    /// (`IndexConfig::refresh_when_idle`).
    refresh_due: bool,
}

pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The index directory of a workspace.
pub fn index_dir(root: &Path) -> PathBuf {
    root.join(".tsq")
}

/// The occurrence pass lock of `root`'s index (`lock::PassLock`), which
/// exists: waits for another process's pass when `wait`, else `None`
/// while one runs. Taken before the writer lock, never while holding it.
pub(crate) fn occurrence_pass(root: &Path, wait: bool) -> Result<Option<PassLock>, IndexError> {
    let dir = index_dir(root);
    if wait { lock::acquire_pass(&dir).map(Some) } else { lock::try_acquire_pass(&dir) }.map_err(|e| io(&dir, e))
}

/// Refuses an index directory tsq may not write in (`confine`): a link,
/// or one holding a link.
pub(crate) fn check_confined(root: &Path) -> Result<(), IndexError> {
    let dir = index_dir(root);
    confine::check(&dir)?;
    disk::refuse_tracked(root, &dir)
}

/// What an index stored as `old` needs before `wanted` may use it: a
/// rebuild (another schema, or vectors of another size) or new vectors
/// only (another model of the same size), each with the note saying why.
fn rebuild_or_reembed(old: Option<&Meta>, wanted: Option<&EmbedderId>) -> (Option<String>, Option<String>) {
    let Some(m) = old else { return (None, None) };
    if m.schema_version != SCHEMA_VERSION {
        return (Some(format!("index schema v{} is not v{SCHEMA_VERSION}: rebuilding", m.schema_version)), None);
    }
    match (&m.embedder, wanted) {
        // Another model of the same size needs new vectors only; the
        // chunks and the occurrence rows do not depend on it.
        (Some(old), Some(new)) if old != new && old.dimension == new.dimension => {
            (None, Some(format!("embedder changed from {old} to {new}: re-embedding everything (chunks and structure kept)")))
        }
        (Some(old), Some(new)) if old != new => (Some(format!("embedder changed from {old} to {new}: re-embedding everything")), None),
        _ => (None, None),
    }
}

impl Index {
    /// Opens (or creates) the index of `root`. A read-only workspace gets a
    /// private index under the temp directory, with a note.
    pub fn open(root: &Path, config: &IndexConfig) -> Result<Index, IndexError> {
        let started = std::time::Instant::now();
        let embedder = embed::choose(config.embedder, &config.http)?;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "embedder chosen");
        Index::open_with(root, config, embedder)
    }

    /// `open` with a given embedder (tests use a deterministic one).
    pub fn open_with(root: &Path, config: &IndexConfig, embedder: Option<Box<dyn Embedder>>) -> Result<Index, IndexError> {
        let root = root.canonicalize().map_err(|e| io(root, e))?;
        let mut notes = Vec::new();
        let dir = match prepare_dir(&index_dir(&root), Some(&root)) {
            Ok(d) => d,
            Err(e @ IndexError::Unsafe { .. }) => return Err(e),
            Err(e) => {
                let fallback = disk::fallback_dir(&root)?;
                notes.push(format!("cannot write {} ({e}); the index lives in {} for now", index_dir(&root).display(), fallback.display()));
                prepare_dir(&fallback, None)?
            }
        };
        let runtime = crate::runtime::OwnedRuntime::new(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| IndexError::Io { path: "tokio".into(), message: e.to_string() })?,
        );
        if swap::recover(&dir)? {
            notes.push("the last `tsq index --from` was stopped while swapping in the pulled index: the swap was finished".into());
        }
        let generation = swap::generation(&dir);
        let wanted = embedder.as_ref().map(|e| e.id());
        let mut old_meta = read_meta(&dir);
        let (mut rebuild, mut reembed) = rebuild_or_reembed(old_meta.as_ref(), wanted.as_ref());
        // Another process may be rebuilding too (both opened an index an
        // upgrade outdated): decide again under the writer lock, which is
        // held until the new tables and `meta.json` are written, so the
        // second finds the rebuild done instead of clearing its tables.
        let mut rebuilding = None;
        if rebuild.is_some() {
            rebuilding = Some(lock::acquire(&dir).map_err(|e| io(&dir, e))?);
            old_meta = read_meta(&dir);
            (rebuild, reembed) = rebuild_or_reembed(old_meta.as_ref(), wanted.as_ref());
            if rebuild.is_none() {
                rebuilding = None;
            }
        }
        // An index being rebuilt (or a `meta.json` that is not one: a planted
        // `{}`) says nothing about the size of vectors.
        let kept = old_meta.as_ref().filter(|_| rebuild.is_none()).map(|m| m.dimension).filter(|d| *d > 0);
        let dimension = wanted.as_ref().map(|w| w.dimension).or(kept).unwrap_or(embed::local::DIMENSION);
        if let Some(why) = &rebuild {
            notes.push(why.clone());
            clear_tables(&dir)?;
        }
        // Creating tables races with another process doing the same: the
        // first open of a new index holds the writer lock. A table counts as
        // created once it has a manifest; should another writer still be
        // creating one anyway, the open is retried under the lock, which
        // that writer holds until every table is committed.
        let creating = store::TABLES.iter().any(|t| !store::created(&dir, t));
        let mut guard = match rebuilding {
            Some(g) => Some(g),
            None if creating => Some(lock::acquire(&dir).map_err(|e| io(&dir, e))?),
            None => None,
        };
        let started = std::time::Instant::now();
        let opened = runtime.block_on(Store::open(&dir, dimension));
        let (mut store, mut recovered) = match opened {
            Err(e) if guard.is_none() => {
                tracing::debug!("index open raced with a writer ({e}); retrying under the lock");
                guard = Some(lock::acquire(&dir).map_err(|e| io(&dir, e))?);
                runtime.block_on(Store::open(&dir, dimension))?
            }
            other => other?,
        };
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "index store opened");
        if rebuild.is_some() {
            let meta =
                Meta { schema_version: SCHEMA_VERSION, tsq_version: env!("CARGO_PKG_VERSION").into(), embedder: wanted.clone(), dimension, last_sync: None };
            write_meta(&dir, &meta)?;
        }
        drop(guard);
        if runtime.block_on(store.table_dimension())? != dimension {
            notes.push(format!("the index holds vectors of another size than {dimension}: rebuilding"));
            runtime.block_on(store.drop_all())?;
            clear_tables(&dir)?;
            (store, recovered) = runtime.block_on(Store::open(&dir, dimension))?;
        }
        let meta = Meta {
            schema_version: SCHEMA_VERSION,
            tsq_version: env!("CARGO_PKG_VERSION").into(),
            embedder: wanted.or(if rebuild.is_none() { old_meta.as_ref().and_then(|m| m.embedder.clone()) } else { None }),
            dimension,
            last_sync: if rebuild.is_none() { old_meta.as_ref().and_then(|m| m.last_sync) } else { None },
        };
        let warm = config.warm_vectors.then(warm::Cache::default);
        let mut index = Index {
            root,
            dir,
            runtime,
            store,
            embedder,
            meta,
            config: config.clone(),
            warm,
            generation,
            notes,
            history: Default::default(),
            refresh_due: false,
        };
        if let Some(why) = reembed {
            // Vectors first, then the record of the model: a crash between
            // the two clears them again at the next open.
            index.with_lock(|ix| {
                ix.runtime.block_on(ix.store.clear_vectors())?;
                write_meta(&ix.dir, &ix.meta)
            })?;
            index.notes.push(why);
        }
        if index.dir.join(sync::JOURNAL).exists() {
            // A writer died mid-batch (or is writing now: the lock waits for it).
            index.with_lock(|ix| ix.runtime.block_on(sync::recover_journal(&ix.store)))?;
        }
        if recovered {
            index.notes.push("the latest index version was unreadable; recovered from the previous one".into());
            index.with_lock(|ix| ix.runtime.block_on(invariants::reconcile(&ix.store)))?;
        }
        index.claim()?;
        Ok(index)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether a pull swapped another index in since this one was opened
    /// (then the caller reopens it).
    pub fn replaced(&self) -> bool {
        swap::generation(&self.dir) != self.generation
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The active embedder (`None`: BM25 only).
    pub fn embedder(&self) -> Option<&dyn Embedder> {
        self.embedder.as_deref()
    }

    /// Frees what the embedder holds until its next use (a local model's
    /// weights), so that the next phase does not grow beside it.
    pub(crate) fn release_embedder(&self) {
        if let Some(e) = &self.embedder {
            e.release();
        }
    }

    /// The model whose vectors the index holds (`None`: BM25 only).
    pub(crate) fn embedder_id(&self) -> Option<EmbedderId> {
        self.meta.embedder.clone()
    }

    /// Where the index was pulled from, when it was (`tsq index --from`).
    pub fn origin(&self) -> Option<Origin> {
        read_origin(&self.dir)
    }

    /// Prunes every table's old versions, so that a publish uploads only
    /// the live index. No compaction: it would rewrite every data file, and
    /// readers of the previous commit's index would download it all again.
    pub(crate) fn prune_versions(&mut self) -> Result<(), IndexError> {
        self.with_lock(|ix| ix.runtime.block_on(ix.store.prune()))
    }

    /// After a pull (`sync::adopt_stamps`): files whose content the pulled
    /// rows hold take their local stamps without a chunk rewrite.
    pub(crate) fn adopt_stamps(&mut self, input: SyncInput<'_>) -> Result<usize, IndexError> {
        self.with_lock(|ix| ix.runtime.block_on(sync::adopt_stamps(&ix.store, &ix.root, input)))
    }

    /// `local`, `voyage-code-3`…, or `none`.
    pub fn embedder_name(&self) -> String {
        self.embedder.as_ref().map(|e| e.id().model).unwrap_or_else(|| "none".into())
    }

    fn with_lock<T>(&mut self, f: impl FnOnce(&mut Index) -> Result<T, IndexError>) -> Result<T, IndexError> {
        let _lock = lock::acquire(&self.dir).map_err(|e| io(&self.dir, e))?;
        f(self)
    }

    /// Brings the index up to date with the files on disk (the blueprint's
    /// steps 1-7); waits for another writer to finish first. Walks and
    /// reads on its own (tests and tools; the engine API passes its walk
    /// and file view to `sync_with`).
    pub fn sync(&mut self, engine: &crate::parse_pool::ParsePool, progress: &dyn Progress) -> Result<SyncReport, IndexError> {
        let tree = crate::source::Tree::walk(&self.root);
        let view = crate::ts::files::FileView::new(Default::default());
        self.sync_with(engine, SyncInput { tree: &tree, view: &view, limit: None }, progress)
    }

    /// `sync` over the caller's walk and file view.
    pub(crate) fn sync_with(&mut self, engine: &crate::parse_pool::ParsePool, input: SyncInput<'_>, progress: &dyn Progress) -> Result<SyncReport, IndexError> {
        let _lock = lock::acquire(&self.dir).map_err(|e| io(&self.dir, e))?;
        self.sync_locked(engine, input, progress)
    }

    /// Like `sync_with`, but when another process is writing, answers from
    /// the last committed version instead of waiting (`None`).
    pub(crate) fn try_sync_with(
        &mut self,
        engine: &crate::parse_pool::ParsePool,
        input: SyncInput<'_>,
        progress: &dyn Progress,
    ) -> Result<Option<SyncReport>, IndexError> {
        match lock::try_acquire(&self.dir).map_err(|e| io(&self.dir, e))? {
            Some(_lock) => self.sync_locked(engine, input, progress).map(Some),
            None => {
                self.runtime.block_on(async { self.store.chunks.checkout_latest().await.ok() });
                Ok(None)
            }
        }
    }

    fn sync_locked(&mut self, engine: &crate::parse_pool::ParsePool, input: SyncInput<'_>, progress: &dyn Progress) -> Result<SyncReport, IndexError> {
        let started = std::time::Instant::now();
        let before = self.runtime.block_on(self.store.table_versions())?;
        let mut report = self.runtime.block_on(sync::run(&self.store, &self.root, engine, &self.config, input, progress))?;
        // Housekeeping (index refresh, compaction) only after a write: a
        // no-change sync stays a walk, a stat and one read of `files`.
        if self.runtime.block_on(self.store.table_versions())? != before {
            self.after_write()?;
            disk::sweep_temporaries(&self.dir);
        }
        if self.config.history && history::refresh(self)? {
            self.history = Default::default();
        }
        self.meta.last_sync = Some(now_ms());
        write_meta(&self.dir, &self.meta)?;
        report.embedder = self.embedder_name();
        report.ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// A JSON record kept beside the tables (`structure::scope`), or
    /// `None` when there is none.
    pub fn record(&self, name: &str) -> Option<String> {
        disk::read_record(&self.dir.join(format!("{name}.json")))
    }

    /// The workspace's commit history as last stored (`history`), or `None`.
    pub fn history(&self) -> Option<std::sync::Arc<history::History>> {
        self.history.get_or_init(|| history::load(self).map(std::sync::Arc::new)).clone()
    }

    /// Ranks with this history in place of the stored one: `tsq-bench
    /// changes` gives each question only the commits before it.
    pub fn set_history(&mut self, history: Option<history::History>) {
        self.history = std::sync::OnceLock::from(history.map(std::sync::Arc::new));
    }

    /// Writes a record atomically.
    pub(crate) fn put_record(&self, name: &str, json: &str) -> Result<(), IndexError> {
        write_atomic(&self.dir.join(format!("{name}.json")), json.as_bytes())
    }

    /// Computes vectors for chunks that lack them, at most `limit` chunks
    /// (all when `None`). A failed batch leaves its chunks without vectors,
    /// to be retried by the next call; nothing placeholder is stored.
    pub fn embed_missing(&mut self, limit: Option<usize>, progress: &dyn Progress) -> Result<usize, IndexError> {
        let Some(embedder) = self.embedder.as_deref() else { return Ok(0) };
        let _lock = lock::acquire(&self.dir).map_err(|e| io(&self.dir, e))?;
        let n = self.runtime.block_on(vectors::embed_missing(&self.store, embedder, limit, progress))?;
        if n > 0 {
            self.runtime.block_on(self.store.housekeeping(false))?;
        }
        Ok(n)
    }

    pub fn status(&self) -> Result<Status, IndexError> {
        self.runtime.block_on(async {
            let files = self.store.files().await?;
            let chunks = Store::count(&self.store.chunks, None).await?;
            let vectors = Store::count(&self.store.chunks, Some("vector IS NOT NULL")).await?;
            let embeddable = Store::count(&self.store.chunks, Some(&schema::embeddable())).await?;
            let structure = self.store.occurrence_coverage().await?;
            Ok(Status {
                structure,
                files: files.len(),
                chunks,
                skipped: files.iter().filter_map(|f| f.skip_reason.clone().map(|reason| SkippedFile { path: f.relative_path.clone(), reason })).collect(),
                embedder: self.meta.embedder.as_ref().map(|e| e.model.clone()).unwrap_or_else(|| "none".into()),
                dimensions: self.meta.dimension,
                last_sync: self.meta.last_sync,
                bytes: dir_size(&self.dir),
                versions: self.store.versions().await?,
                vectors,
                embeddable,
                occurrences: [Store::count(&self.store.occ_files, Some("error IS NULL")).await?, Store::count(&self.store.occurrences, None).await?],
                unindexed: self.store.fts_unindexed().await?,
                occurrence_failures: self
                    .store
                    .occ_files(false)
                    .await?
                    .into_iter()
                    .filter_map(|r| r.error.map(|reason| SkippedFile { path: r.relative_path, reason }))
                    .collect(),
                location: self.dir.display().to_string(),
                origin: self.origin(),
            })
        })
    }

    /// Problems that break the index's invariants (empty when sound): file
    /// rows whose chunk count differs from their chunks, chunks without a
    /// file row, window vectors without a chunk.
    pub fn check_invariants(&self) -> Result<Vec<String>, IndexError> {
        self.runtime.block_on(invariants::problems(&self.store))
    }

    /// After the occurrence sync wrote: the symbol index (built once, new
    /// rows folded in), and compaction once the tables pass
    /// `MAX_VERSIONS`, as every other writer does (a full occurrence
    /// index commits a version per batch). True when it compacted.
    pub(crate) fn compact_if_due(&mut self) -> Result<bool, IndexError> {
        let _lock = lock::acquire(&self.dir).map_err(|e| io(&self.dir, e))?;
        let defer = self.config.refresh_when_idle;
        let (compacted, deferred) = self.runtime.block_on(async {
            self.store.ensure_occurrence_index().await?;
            if self.store.versions().await? > MAX_VERSIONS {
                return Ok::<_, IndexError>((self.store.housekeeping(true).await?, false));
            }
            if !defer {
                // New rows join the symbol index.
                self.store.refresh_occurrence_index().await?;
            }
            Ok((false, defer))
        })?;
        self.refresh_due |= deferred;
        Ok(compacted)
    }

    /// After a sync wrote: compaction when due; else the search indexes
    /// take the new rows now, or at the idle step of a long-lived process
    /// (`IndexConfig::refresh_when_idle`).
    fn after_write(&mut self) -> Result<(), IndexError> {
        if self.config.refresh_when_idle && self.runtime.block_on(self.store.versions())? <= MAX_VERSIONS {
            self.refresh_due = true;
            return Ok(());
        }
        self.runtime.block_on(self.store.housekeeping(false))?;
        Ok(())
    }

    /// The index refresh the writes since the last one left for the idle
    /// step (`IndexConfig::refresh_when_idle`): full-text, vector and
    /// symbol indexes take the new rows. False when none was due, or
    /// another process holds the writer lock (it refreshes them itself).
    pub fn refresh_deferred(&mut self) -> Result<bool, IndexError> {
        if !self.refresh_due {
            return Ok(false);
        }
        let Some(_lock) = lock::try_acquire(&self.dir).map_err(|e| io(&self.dir, e))? else { return Ok(false) };
        let started = std::time::Instant::now();
        self.runtime.block_on(async {
            self.store.housekeeping(false).await?;
            self.store.refresh_occurrence_index().await
        })?;
        self.refresh_due = false;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "the search indexes took the rows written since the last refresh");
        Ok(true)
    }
}
