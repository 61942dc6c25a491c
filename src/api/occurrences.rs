//! The occurrence index through the engine: `Engine::sync_occurrences`
//! (`tsq index --occurrences`, and before every `relations` answer) and
//! `Engine::relations` (references and call trees derived from the rows,
//! `tsq relations`). No checker runs for an answer once the rows are
//! fresh; a sync re-indexes what changed by TypeScript's builder rule
//! (`structure::occurrences`).

use serde::Serialize;

use super::request::RequestError;
use super::{lock, structure_error, Engine, EngineError};
use crate::config::Overrides;
use crate::index::{Index, PassLock};
use crate::lookup::{LookupAnswer, LookupConfig};
use crate::progress::Progress;
use crate::query::SymbolQuery;
use crate::source::Tree;
use crate::structure::answers;
use crate::structure::occurrences::{self, Defer, Graph, OccurrenceReport, Relations};
use crate::structure::StructureError;

/// The occurrence rows an answer may read (`Engine::occurrences_for_answer`).
pub(super) enum RowsFor {
    /// Up to date; the sync that made them so.
    Fresh(OccurrenceReport),
    /// Being brought up to date in the background: the answer does not
    /// read them. `pending`: files left to re-index (before any cascade).
    Refreshing { pending: usize },
}

impl RowsFor {
    /// The note an answer computed without the rows carries.
    pub(super) fn refreshing_note(pending: usize) -> String {
        format!("structure: the occurrence index is being refreshed in the background ({pending} files to re-index), so this answer's structure was computed without it")
    }
}

/// What the occurrence rows made of a `symbol =` lookup.
pub(super) enum OccurrenceLookup {
    Answered(Box<LookupAnswer>),
    /// No occurrence index, or the rows cannot answer exactly (a file
    /// that failed, no match): the caller asks the Language Service.
    Unanswered,
    /// The rows are being refreshed in the background (`RowsFor`): the
    /// caller answers without them and says so.
    Refreshing {
        pending: usize,
    },
}

/// A `relations` answer: the declarations the query names, each with its
/// references, callers and callees from the occurrence index, and the
/// sync that made the rows fresh.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RelationsAnswer {
    pub query: String,
    pub call_depth: i32,
    pub matches: Vec<Relations>,
    pub sync: OccurrenceReport,
    /// Files without rows (failed, with their errors in `tsq status`):
    /// answers may miss what they hold.
    pub unindexed: Vec<String>,
}

impl Engine {
    /// Brings the occurrence index up to date: the chunk sync first, then
    /// every file whose rows are missing or stale (by the builder rule).
    pub fn sync_occurrences(&self, progress: &dyn Progress) -> Result<OccurrenceReport, EngineError> {
        self.sync_occurrences_of(&self.walk(), progress, Defer::Nothing)
    }

    /// `sync_occurrences` for a walk the caller made, leaving what `defer`
    /// allows to the next sync. Waits for a pass another thread is running
    /// (then finds little or nothing to do).
    pub(super) fn sync_occurrences_of(&self, tree: &Tree, progress: &dyn Progress, defer: Defer) -> Result<OccurrenceReport, EngineError> {
        // A fresh CLI process whose rows are stale needs the service
        // isolate, the projects and their lib files: they are prepared on
        // the other core while the chunk sync parses (as `tsq index` does).
        // Fresh rows, or a warm workspace, start nothing.
        if self.options.background.is_none() && lock(&self.workspace).is_none() && self.rows_stale(tree)? {
            std::thread::scope(|s| {
                s.spawn(|| self.prepare_structure(tree));
                self.sync_tree(tree, progress)
            })?;
        } else {
            self.sync_tree(tree, progress)?;
        }
        let _pass = self.wait_for_pass();
        let _across = self.pass_lock(true)?;
        self.run_occurrence_sync(tree, progress, defer)
    }

    /// Takes `occurrence_pass`, counted as waiting meanwhile: a background
    /// pass stops at its next batch for it.
    fn wait_for_pass(&self) -> std::sync::MutexGuard<'_, ()> {
        use std::sync::atomic::Ordering;
        self.pass_waiters.fetch_add(1, Ordering::SeqCst);
        let guard = lock(&self.occurrence_pass);
        self.pass_waiters.fetch_sub(1, Ordering::SeqCst);
        guard
    }

    /// Whether the occurrence rows would be re-indexed (the builder
    /// rule's pending count), read before the chunk sync.
    fn rows_stale(&self, tree: &Tree) -> Result<bool, EngineError> {
        let guard = self.open_index()?;
        let index = guard.as_ref().expect("opened above");
        Ok(index.has_occurrences()? && occurrences::needs_sync(index, tree, &self.view).map_err(structure_error)?)
    }

    /// The index's occurrence pass lock, which orders passes across
    /// processes (`index::occurrence_pass`); the caller holds
    /// `occurrence_pass`, which orders this engine's threads. `None`
    /// when `wait` is false and another process's pass is running. Taken
    /// without the `index` mutex, so that answers meanwhile still read
    /// the index (order: `occurrence_pass`, the pass lock, `index`, the
    /// writer lock).
    fn pass_lock(&self, wait: bool) -> Result<Option<PassLock>, EngineError> {
        Ok(crate::index::occurrence_pass(&self.root, wait)?)
    }

    /// The occurrence rows an answer may read. A CLI process brings them
    /// up to date first, as `sync_occurrences_of`. In `tsq serve`
    /// (`EngineOptions::background`) an answer never waits for a large
    /// re-index: when the background worker is running a pass, or more
    /// files are pending than the answer may re-index itself (an
    /// upgrade's engine change re-indexes every file), the answer is
    /// `Refreshing` and is computed without the rows; the worker, started
    /// after every answer, brings them up to date.
    pub(super) fn occurrences_for_answer(&self, tree: &Tree, progress: &dyn Progress) -> Result<RowsFor, EngineError> {
        let Some(inline) = self.options.background else {
            return Ok(RowsFor::Fresh(self.sync_occurrences_of(tree, progress, Defer::Nothing)?));
        };
        self.sync_tree(tree, progress)?;
        let pending = || -> Result<usize, EngineError> {
            let guard = self.open_index()?;
            occurrences::pending(guard.as_ref().expect("opened above"), tree, &self.view).map_err(structure_error)
        };
        let _pass = match self.occurrence_pass.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Ok(RowsFor::Refreshing { pending: pending()? }),
        };
        // Another process's pass (a `tsq index` beside `tsq serve`): not waited for.
        let Some(_across) = self.pass_lock(false)? else { return Ok(RowsFor::Refreshing { pending: pending()? }) };
        let n = pending()?;
        if n > inline {
            return Ok(RowsFor::Refreshing { pending: n });
        }
        // A cascade larger than the budget is left to the worker (an
        // exported signature of a hub file re-indexes hundreds).
        let report = self.run_occurrence_sync(tree, progress, Defer::Past(inline))?;
        if report.deferred > 0 {
            return Ok(RowsFor::Refreshing { pending: report.deferred });
        }
        Ok(RowsFor::Fresh(report))
    }

    /// `sync_occurrences_of` for the background worker: it takes the pass
    /// lock only when there is work, so that an answer meanwhile is not
    /// told that rows are being refreshed when none are (`RowsFor`).
    pub(super) fn sync_occurrences_if_stale(&self, tree: &Tree, progress: &dyn Progress) -> Result<OccurrenceReport, EngineError> {
        self.sync_tree(tree, progress)?;
        {
            let guard = self.open_index()?;
            if !occurrences::needs_sync(guard.as_ref().expect("opened above"), tree, &self.view).map_err(structure_error)? {
                return Ok(OccurrenceReport::default());
            }
        }
        let _pass = lock(&self.occurrence_pass);
        let _across = self.pass_lock(true)?;
        self.run_occurrence_sync(tree, progress, Defer::Yield(std::sync::Arc::clone(&self.pass_waiters)))
    }

    /// One occurrence sync; the caller holds `occurrence_pass` and the
    /// index's pass lock. The index
    /// is locked only to read and to write, not while a batch is checked.
    fn run_occurrence_sync(&self, tree: &Tree, progress: &dyn Progress, defer: Defer) -> Result<OccurrenceReport, EngineError> {
        {
            let guard = self.open_index()?;
            if !occurrences::needs_sync(guard.as_ref().expect("opened above"), tree, &self.view).map_err(structure_error)? {
                return Ok(OccurrenceReport::default());
            }
        }
        let ws = self.workspace(tree, progress)?;
        let with_index = |f: &mut dyn FnMut(&mut Index) -> Result<(), StructureError>| {
            let mut guard = lock(&self.index);
            f(guard.as_mut().expect("opened above"))
        };
        let mut report = occurrences::sync(&with_index, &ws, tree, &self.view, progress, defer.clone()).map_err(structure_error)?;
        // A file edited during the pass: its batch was dropped; once more
        // picks it up (a second interruption is reported as is).
        if report.interrupted {
            let again = occurrences::sync(&with_index, &ws, tree, &self.view, progress, defer).map_err(structure_error)?;
            report = OccurrenceReport { indexed: report.indexed + again.indexed, occurrences: report.occurrences + again.occurrences, ..again };
        }
        if report.indexed + report.removed + report.failed.len() > 0 {
            tracing::info!(
                full = report.full,
                cascaded = report.cascaded,
                failed = report.failed.len(),
                ms = report.ms,
                "occurrence sync: {} files re-indexed",
                report.indexed
            );
        }
        Ok(report)
    }

    /// References, callers and callees of the declarations `query` names
    /// (`symbol = file > [Parent >] name`; the file is required), from the
    /// occurrence index, synced first.
    pub fn relations(&self, query: &str, call_depth: Option<i32>, progress: &dyn Progress) -> Result<RelationsAnswer, EngineError> {
        let super::SymbolRequest { query: parsed, settings } = super::SymbolRequest::new(self.root(), query, Overrides { call_depth, ..Default::default() })?;
        let Some(file) = parsed.file.clone() else {
            return Err(RequestError::Path(format!("`{query}` names no file: relations need the declaring file (`symbol = path/to/file.ts > name`)")).into());
        };
        super::request::scoped_path(self.root(), &file).map_err(RequestError::Path)?;
        let sync = self.sync_occurrences(progress)?;
        let guard = lock(&self.index);
        let index = guard.as_ref().expect("opened by the sync");
        let graph = Graph::load(index, true).map_err(structure_error)?;
        let matches = occurrences::relations(index, &graph, &file, &parsed.names, settings.call_depth).map_err(structure_error)?;
        Ok(RelationsAnswer { query: parsed.to_string(), call_depth: settings.call_depth, matches, sync, unindexed: graph.unindexed })
    }

    /// A `symbol =` lookup from the occurrence index alone, at any call
    /// depth, when the workspace has one (`tsq index`): synced first by
    /// the builder rule, then answered by query (`structure::answers`).
    /// `None` when the rows cannot answer exactly (no index, a file that
    /// failed, no match): the caller asks the Language Service.
    pub(super) fn rows_answer(
        &self,
        query: &SymbolQuery,
        config: &LookupConfig,
        tree: &Tree,
        progress: &dyn Progress,
    ) -> Result<OccurrenceLookup, EngineError> {
        {
            let guard = self.open_index()?;
            if !guard.as_ref().expect("opened above").has_occurrences()? {
                return Ok(OccurrenceLookup::Unanswered);
            }
        }
        let sync = match self.occurrences_for_answer(tree, progress)? {
            RowsFor::Fresh(sync) => sync,
            RowsFor::Refreshing { pending } => return Ok(OccurrenceLookup::Refreshing { pending }),
        };
        let guard = lock(&self.index);
        let index = guard.as_ref().expect("opened by the sync");
        let started = std::time::Instant::now();
        let found = answers::answer(index, &self.view, &tree.sources, query, config.call_depth).map_err(structure_error)?;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "answer from the occurrence rows");
        let found = match found {
            Ok(found) => found,
            Err(why) => {
                tracing::debug!(query = %query, "occurrence index cannot answer: {why:?}");
                return Ok(OccurrenceLookup::Unanswered);
            }
        };
        let (matches, hints) = crate::lookup::in_scope_only(found.matches, Vec::new(), config);
        if matches.is_empty() {
            return Ok(OccurrenceLookup::Unanswered);
        }
        let line = super::structure_line(index, &super::from_rows(sync.indexed))?;
        Ok(OccurrenceLookup::Answered(Box::new(crate::lookup::answer_from(query, config, Some(line), matches, &found.snapshots, hints, found.metadata))))
    }
}
