//! A search session: the index and the parse engine of one workspace,
//! kept together so both front ends sync, embed and search the same way.
//! The MCP server keeps one warm and embeds in the background; the CLI
//! makes one per process.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::config::Settings;
use crate::embed::{EmbedderChoice, Reranker};
use crate::engine::TsqEngine;
use crate::index::{Filter, Index, IndexConfig, IndexError, Progress, SyncReport};
use crate::inspect::Workspace;

use super::{Retrieval, SearchAnswer, SearchError};

pub struct Session {
    root: PathBuf,
    index: Mutex<Index>,
    engine: TsqEngine,
    reranker: Option<Box<dyn Reranker>>,
    /// Notes from opening (rebuilds, fallbacks), said once.
    pub notes: Vec<String>,
}

impl Session {
    pub fn open(root: &Path, embedder: EmbedderChoice) -> Result<Session, SearchError> {
        let mut index = Index::open(root, &IndexConfig { embedder, ..Default::default() })?;
        let notes = std::mem::take(&mut index.notes);
        let engine = TsqEngine::new(&Default::default()).map_err(|e| IndexError::Engine(e.to_string()))?;
        let reranker = crate::embed::choose_reranker(&Default::default()).map_err(IndexError::from)?;
        Ok(Session { root: index.root().to_path_buf(), index: Mutex::new(index), engine, reranker, notes })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn index(&self) -> std::sync::MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Syncs unless another process is writing (`None`: answered from the
    /// last committed version).
    pub fn sync(&self, progress: &dyn Progress) -> Result<Option<SyncReport>, SearchError> {
        Ok(self.index().try_sync(&self.engine, progress)?)
    }

    /// Embeds up to `limit` chunks that lack vectors; 0 when none are left
    /// (or there is no embedder).
    pub fn embed_some(&self, limit: usize, progress: &dyn Progress) -> Result<usize, SearchError> {
        Ok(self.index().embed_missing(Some(limit), progress)?)
    }

    pub fn has_embedder(&self) -> bool {
        self.index().embedder().is_some()
    }

    pub fn retrieve(&self, query: &str, filter: &Filter, settings: &Settings) -> Result<Retrieval, SearchError> {
        super::retrieve(&self.index(), self.reranker.as_deref(), query, filter, settings)
    }

    pub fn search(&self, ws: &Workspace, query: &str, filter: &Filter, settings: &Settings) -> Result<SearchAnswer, SearchError> {
        super::search(&self.index(), ws, self.reranker.as_deref(), query, filter, settings)
    }

    /// Syncs (unless another process is writing), then searches; the
    /// answer's timings include the sync. What both front ends call.
    pub fn sync_and_search(&self, ws: &Workspace, query: &str, filter: &Filter, settings: &Settings, progress: &dyn Progress) -> Result<SearchAnswer, SearchError> {
        let started = std::time::Instant::now();
        let synced = self.sync(progress)?;
        let sync_ms = started.elapsed().as_millis() as u64;
        let mut answer = self.search(ws, query, filter, settings)?;
        if synced.is_none() {
            answer.notes.push("another tsq is writing the index; answered from its last committed version".into());
        }
        answer.timings.sync = sync_ms;
        Ok(answer)
    }
}
