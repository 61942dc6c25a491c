//! Keeping the index: `Engine::index` (`tsq index`: chunks, vectors, then
//! the occurrence index), `sync`, the background steps `tsq serve` runs
//! when idle (`structure_step`, `embed_some`), `status` and `clean`.

use super::peak::{self, PhasePeaks};
use super::{lock, Engine, EngineError};
use crate::embed::EmbedderChoice;
use crate::index::{Index, IndexConfig, Status, SyncInput, SyncReport};
use crate::progress::Progress;
use crate::structure::occurrences::Defer;

/// What `Engine::index` computes besides chunks and vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructureMode {
    /// Chunks and vectors only (`tsq index --no-structure`).
    None,
    /// The occurrence index (`tsq index`).
    Occurrences,
}

/// `tsq index`'s report: the chunk sync, then the occurrence sync.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IndexReport {
    #[serde(flatten)]
    pub sync: SyncReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occurrences: Option<crate::structure::occurrences::OccurrenceReport>,
    /// Peak resident memory by phase (Linux only).
    #[serde(rename = "peakMb", skip_serializing_if = "Option::is_none")]
    pub peak_mb: Option<PhasePeaks>,
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
    /// builder rule), or none. An embedding or structure
    /// failure is returned beside the report: what was synced stays.
    pub fn index(&self, mode: StructureMode, progress: &dyn Progress) -> Result<(IndexReport, Option<EngineError>), EngineError> {
        let tree = self.walk();
        let parser = self.parser()?;
        let sampler = peak::Sampler::start();
        let mut peaks = sampler.as_ref().map(|_| PhasePeaks::default());
        let chunks = || {
            let mut guard = self.open_index()?;
            let index = guard.as_mut().expect("opened above");
            let mut report = index.sync_with(parser, SyncInput { tree: &tree, view: &self.view, limit: None }, progress)?;
            let chunks_mb = sampler.as_ref().map(peak::Sampler::take);
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
            // The model is not needed by the occurrence pass.
            index.release_embedder();
            Ok::<_, EngineError>((report, failed, chunks_mb))
        };
        let (mut report, failed, chunks_mb) = std::thread::scope(|s| {
            // The occurrence sync needs the service isolate, the projects
            // and their lib files: a fresh CLI process prepares them on
            // the other core while the chunk sync runs
            // (benches/runs/2026-11-28-edits-issue44-pass4.md). `tsq serve`
            // keeps its own warm.
            if mode == StructureMode::Occurrences && self.options.background.is_none() && lock(&self.workspace).is_none() {
                s.spawn(|| self.prepare_structure(&tree));
            }
            chunks()
        })?;
        if let Some(p) = peaks.as_mut() {
            p.chunks = chunks_mb.unwrap_or_default();
            p.embed = sampler.as_ref().map_or(0, peak::Sampler::take);
        }
        if let Some(e) = failed {
            return Ok((IndexReport { sync: report, occurrences: None, peak_mb: peaks }, Some(e.into())));
        }
        // The structure pass holds its own isolate and programs: the parse
        // isolates are not needed meanwhile (a later parse starts them).
        parser.release();
        let (occurrences, failed) = match mode {
            StructureMode::None => (None, None),
            StructureMode::Occurrences => match self.sync_occurrences_of(&tree, progress, Defer::Nothing) {
                Ok(o) => {
                    report.ms += o.ms;
                    (Some(o), None)
                }
                Err(e) => (None, Some(e)),
            },
        };
        if let Some(p) = peaks.as_mut() {
            p.occurrences = if mode == StructureMode::None { 0 } else { sampler.as_ref().map_or(0, peak::Sampler::take) };
            tracing::debug!(chunks_mb = p.chunks, embed_mb = p.embed, occurrences_mb = p.occurrences, "peak resident memory by phase");
        }
        Ok((IndexReport { sync: report, occurrences, peak_mb: peaks }, failed))
    }

    /// `tsq serve`'s background structure step: first the search-index
    /// refresh its answers' writes left (`IndexConfig::refresh_when_idle`);
    /// then builds the occurrence
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
        // The search indexes first: what the answers' writes left for now
        // is found by a flat scan, which costs every answer meanwhile.
        if self.refresh_search_indexes()? {
            return Ok(1);
        }
        let tree = self.walk();
        let report = self.sync_occurrences_if_stale(&tree, &crate::progress::silent())?;
        let done = report.indexed + report.failed.len();
        if report.deferred > 0 {
            // It stopped for an answer waiting on the pass: let the answer
            // take it; the worker resumes once answers are done.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if done > 0 || report.interrupted || report.deferred > 0 {
            return Ok(done.max(1));
        }
        // What the answers' own passes left (they run without a memory
        // bound: an answer never waits for a collection).
        let warm = lock(&self.workspace).clone();
        if let Some(ws) = warm {
            if ws.tidy()? {
                return Ok(1);
            }
        }
        // The projects the latest answer showed, else (no answer yet: the
        // first edit after start) those of the files edited last.
        let mut files = lock(&self.answered).clone();
        if files.is_empty() {
            files = recently_modified(&tree, super::WARM_FILES);
        }
        if files.is_empty() {
            return Ok(0);
        }
        let ws = self.workspace(&tree, &crate::progress::silent())?;
        Ok(ws.warm(&files)?)
    }

    /// `tsq serve`'s first background step on a workspace still being
    /// indexed: parses `INLINE_PARSE_FILES` more of the files the last
    /// sync left unparsed. Returns the files parsed; 0 when none are left
    /// (or another process is writing the index).
    pub(crate) fn parse_step(&self) -> Result<usize, EngineError> {
        if *lock(&self.pending) == 0 {
            return Ok(0);
        }
        let tree = self.walk();
        let limit = crate::index::Limit { files: super::INLINE_PARSE_FILES, words: &[] };
        let report = self.sync_tree_limited(&tree, Some(limit), &crate::progress::silent())?;
        // Nobody waits for this write: its rows join the search indexes now.
        self.refresh_search_indexes()?;
        Ok(report.map_or(0, |r| r.parsed))
    }

    /// The search-index refresh the writes of `tsq serve` left for when
    /// it is idle (`IndexConfig::refresh_when_idle`); false when none was
    /// due.
    fn refresh_search_indexes(&self) -> Result<bool, EngineError> {
        Ok(match lock(&self.index).as_mut() {
            Some(index) => index.refresh_deferred()?,
            None => false,
        })
    }

    /// Embeds up to `limit` chunks lacking vectors; 0 when none are left or
    /// there is no embedder.
    pub(crate) fn embed_some(&self, limit: usize) -> Result<usize, EngineError> {
        let mut guard = self.open_index()?;
        Ok(guard.as_mut().expect("opened above").embed_missing(Some(limit), &crate::progress::silent())?)
    }

    /// Whether the index is open and has an embedder (a lookup never
    /// opens the index).
    pub(crate) fn has_embedder(&self) -> bool {
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

impl Engine {
    /// Opens the warm workspace and parses the lib files of the projects
    /// of the files modified last (likely the ones an incremental sync
    /// checks). A failure here is the occurrence sync's to report.
    pub(super) fn prepare_structure(&self, tree: &crate::source::Tree) {
        let started = std::time::Instant::now();
        let result = self.workspace(tree, &crate::progress::silent()).and_then(|ws| Ok(ws.parse_libs(&recently_modified(tree, super::WARM_FILES))?));
        match result {
            Ok(()) => tracing::debug!(ms = started.elapsed().as_millis() as u64, "workspace and lib files prepared beside the chunk sync"),
            Err(e) => tracing::debug!(error = %e, "preparing the workspace beside the chunk sync failed"),
        }
    }
}

/// The `n` walked sources modified last (an agent's next edit is likely
/// near its last one), newest first.
fn recently_modified(tree: &crate::source::Tree, n: usize) -> Vec<std::path::PathBuf> {
    let mut stamped: Vec<(std::time::SystemTime, &std::path::PathBuf)> =
        tree.sources.iter().filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok().map(|t| (t, p))).collect();
    stamped.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    stamped.into_iter().take(n).map(|(_, p)| p.clone()).collect()
}
