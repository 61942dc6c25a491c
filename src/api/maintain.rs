//! Keeping the index: `Engine::index` (`tsq index`: chunks, vectors, then
//! the occurrence index or the legacy per-declaration precompute),
//! `sync`, the background steps `tsq serve` runs when idle
//! (`structure_step`, `embed_some`), `verify_structure`, `status` and
//! `clean`.

use super::{lock, structure_error, Engine, EngineError};
use crate::embed::EmbedderChoice;
use crate::index::{Index, IndexConfig, Progress, Status, SyncInput, SyncReport};
use crate::source::Tree;

/// What `Engine::index` computes besides chunks and vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructureMode {
    /// Chunks and vectors only (`tsq index --no-structure`).
    None,
    /// The occurrence index (`tsq index`).
    Occurrences,
    /// The legacy per-declaration Language Service precompute.
    PerDeclaration,
}

/// `tsq index`'s report: the chunk sync, then the occurrence sync.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IndexReport {
    #[serde(flatten)]
    pub sync: SyncReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occurrences: Option<crate::structure::occurrences::OccurrenceReport>,
}

impl Engine {
    /// Syncs the index (walks once), unless another process is writing.
    pub fn sync(&self, progress: &dyn Progress) -> Result<Option<SyncReport>, EngineError> {
        let tree = self.walk();
        self.sync_tree(&tree, progress)
    }

    /// `tsq index`: a full sync (waiting for another writer), then every
    /// missing vector, then the structure `mode` asks for: the occurrence
    /// index (the default: one checker pass per changed file, by the
    /// builder rule), the legacy per-declaration precompute (kept as the
    /// oracle of tests/structure.rs), or none. An embedding or structure
    /// failure is returned beside the report: what was synced stays.
    pub fn index(&self, mode: StructureMode, progress: &dyn Progress) -> Result<(IndexReport, Option<EngineError>), EngineError> {
        let tree = self.walk();
        let parser = self.parser()?;
        let mut report = {
            let mut guard = self.open_index()?;
            let index = guard.as_mut().expect("opened above");
            let mut report = index.sync_with(parser, SyncInput { tree: &tree, view: &self.view }, progress)?;
            let started = std::time::Instant::now();
            let failed = match index.embed_missing(None, progress) {
                Ok(n) => {
                    report.embedded = n;
                    None
                }
                Err(e) => Some(e),
            };
            report.embed_ms = started.elapsed().as_millis() as u64;
            report.ms += report.embed_ms;
            if let Some(e) = failed {
                return Ok((IndexReport { sync: report, occurrences: None }, Some(e.into())));
            }
            report
        };
        // The structure pass holds its own isolate and programs: the parse
        // isolates are not needed meanwhile (a later parse starts them).
        parser.release();
        match mode {
            StructureMode::None => Ok((IndexReport { sync: report, occurrences: None }, None)),
            StructureMode::Occurrences => match self.sync_occurrences_of(&tree, progress) {
                Ok(o) => {
                    report.ms += o.ms;
                    Ok((IndexReport { sync: report, occurrences: Some(o) }, None))
                }
                Err(e) => Ok((IndexReport { sync: report, occurrences: None }, Some(e))),
            },
            StructureMode::PerDeclaration => match self.precompute(&tree, usize::MAX, false, progress, &|| false) {
                Ok(s) => {
                    report.structure_computed = s.computed;
                    report.structure_ms = s.ms;
                    report.ms += s.ms;
                    Ok((IndexReport { sync: report, occurrences: None }, None))
                }
                Err(e) => Ok((IndexReport { sync: report, occurrences: None }, Some(e))),
            },
        }
    }

    /// Computes and stores missing structure, at most `limit` declarations
    /// (`tsq serve` does a little at a time when idle, in its own Language
    /// Service: `background`), asking `stop` between batches. The index is
    /// locked only to read what is missing and to write each batch.
    fn precompute(
        &self,
        tree: &Tree,
        limit: usize,
        background: bool,
        progress: &dyn Progress,
        stop: &dyn Fn() -> bool,
    ) -> Result<crate::structure::PrecomputeReport, EngineError> {
        let ws = self.workspace_in(if background { &self.background } else { &self.workspace }, tree, progress)?;
        drop(self.open_index()?);
        // Declarations per commit (`TSQ_STRUCTURE_BATCH`, a tuning knob; the
        // kill -9 test sets 1).
        let batch = std::env::var("TSQ_STRUCTURE_BATCH").ok().and_then(|v| v.parse().ok()).unwrap_or(32usize).max(1).min(limit);
        let done = std::cell::Cell::new(0usize);
        let stop = || stop() || done.get() >= limit;
        let counting = Counting { inner: progress, done: &done };
        let with_index = |f: &mut dyn FnMut(&Index) -> Result<(), crate::structure::StructureError>| {
            let guard = lock(&self.index);
            f(guard.as_ref().expect("opened above"))
        };
        crate::structure::precompute(&with_index, &ws, &self.view, batch, &counting, &stop).map_err(structure_error)
    }

    /// `tsq serve`'s background structure step: builds the occurrence
    /// index, or brings it up to date by the builder rule, on top of an
    /// index (lookups alone never create one); when nothing is stale, it
    /// builds the programs of the projects the latest answer showed, so
    /// that the re-index after an edit there is incremental. Returns the
    /// work done (files re-indexed plus programs built; 0: nothing to do).
    /// Files that fail are recorded with their error and retried after
    /// their next change; they never stop the step.
    pub fn structure_step(&self) -> Result<usize, EngineError> {
        if !crate::index::index_dir(&self.root).exists() {
            return Ok(0);
        }
        let tree = self.walk();
        let report = self.sync_occurrences_of(&tree, &crate::index::sync_silent())?;
        let done = report.indexed + report.failed.len();
        if done > 0 || report.interrupted {
            return Ok(done.max(1));
        }
        let files = lock(&self.answered).clone();
        if files.is_empty() {
            return Ok(0);
        }
        let ws = self.workspace(&tree, &crate::index::sync_silent())?;
        Ok(ws.warm(&files)?)
    }

    /// The legacy per-declaration precompute's refill (the oracle of
    /// tests/structure.rs): up to `limit` declarations that lack stored
    /// structure; 0 when none are left or the workspace has no index.
    pub fn structure_some(&self, limit: usize) -> Result<usize, EngineError> {
        if !crate::index::index_dir(&self.root).exists() {
            return Ok(0);
        }
        let tree = self.walk();
        self.sync_tree(&tree, &crate::index::sync_silent())?;
        Ok(self.precompute(&tree, limit, true, &crate::index::sync_silent(), &|| false)?.computed)
    }

    /// Service's (the edit property test; `tsq index --verify`).
    pub fn verify_structure(&self) -> Result<crate::structure::Verification, EngineError> {
        let tree = self.walk();
        self.sync_tree(&tree, &crate::index::sync_silent())?;
        let ws = self.workspace(&tree, &crate::index::sync_silent())?;
        let guard = self.open_index()?;
        crate::structure::verify(guard.as_ref().expect("opened above"), &ws).map_err(structure_error)
    }

    /// Embeds up to `limit` chunks lacking vectors; 0 when none are left or
    /// there is no embedder.
    pub fn embed_some(&self, limit: usize) -> Result<usize, EngineError> {
        let mut guard = self.open_index()?;
        Ok(guard.as_mut().expect("opened above").embed_missing(Some(limit), &crate::index::sync_silent())?)
    }

    /// Whether the index is open and has an embedder (a lookup never
    /// opens the index).
    pub fn has_embedder(&self) -> bool {
        lock(&self.index).as_ref().is_some_and(|i| i.embedder().is_some())
    }

    /// What the index holds; `None` when there is no index yet (nothing is
    /// created).
    pub fn status(&self) -> Result<Option<Status>, EngineError> {
        if !crate::index::index_dir(&self.root).exists() {
            return Ok(None);
        }
        // Status reads what the index holds, whatever embedder built it.
        let index = Index::open(&self.root, &IndexConfig { embedder: EmbedderChoice::None, ..Default::default() })?;
        Ok(Some(index.status()?))
    }

    /// Removes the index; false when there was none.
    pub fn clean(&self) -> Result<bool, EngineError> {
        lock(&self.index).take();
        Ok(crate::index::clean(&self.root)?)
    }
}

/// Progress that also counts what was done (for `limit`).
struct Counting<'a> {
    inner: &'a dyn Progress,
    done: &'a std::cell::Cell<usize>,
}

impl Progress for Counting<'_> {
    fn update(&self, phase: &str, done: u64, total: u64) {
        self.done.set(done as usize);
        self.inner.update(phase, done, total);
    }
}
