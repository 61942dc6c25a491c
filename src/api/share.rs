//! The shared team index through the engine: `Engine::publish` (`tsq
//! publish --to`, for CI) and `Engine::pull` (`tsq index --from`, and
//! `tsq serve` with `[share] from`). The remote side is `crate::share`;
//! the check of the staged index against the checkout is
//! `index::verify_pull`, and the swap is `index::install_pulled`.

use serde::Serialize;

use super::{lock, Engine, EngineError, IndexReport, StructureMode};
use crate::index::{Origin, SCHEMA_VERSION};
use crate::progress::Progress;
use crate::share::{self, Key, ShareConfig};

/// `tsq index --from`'s answer: what was pulled (if anything was
/// published for HEAD or an ancestor), then the local sync on top.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PullAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pulled: Option<share::Pulled>,
    /// Why nothing was pulled (the index was then built locally).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// The staged chunks compared with the checkout, and the files whose
    /// pulled rows were dropped for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<crate::index::verify_pull::PullCheck>,
    /// Files re-indexed locally: the content differs from the pulled
    /// index's (edits, or commits since the published ancestor).
    pub reindexed: usize,
    /// What the user should know about this pull (a key the checkout
    /// names that counts for nothing until trusted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub index: IndexReport,
}

fn embedder_key(id: Option<crate::embed::EmbedderId>) -> String {
    id.map(|e| format!("{}-{}d", e.model, e.dimension)).unwrap_or_else(|| "none".into())
}

impl Engine {
    /// The key a pulled index must have: this tsq's schema and TypeScript,
    /// and the embedder the settings choose.
    fn share_key(&self) -> Result<Key, EngineError> {
        let settings = self.settings()?;
        let embedder = crate::embed::choose(settings.embedder, &Default::default()).map_err(crate::index::IndexError::from)?;
        Ok(Key { schema_version: SCHEMA_VERSION, typescript: crate::ts::TYPESCRIPT_VERSION.to_string(), embedder: embedder_key(embedder.map(|e| e.id())) })
    }

    /// `tsq publish --to <url>`: brings the index of this clean checkout up
    /// to date (`index`: chunks, vectors, occurrences), compacts it, and
    /// uploads it under HEAD's commit and the index's key.
    pub fn publish(&self, url: &str, progress: &dyn Progress) -> Result<share::PublishReport, EngineError> {
        crate::index::check_confined(&self.root)?;
        let commit = share::head(&self.root)?;
        let dirty = share::dirty(&self.root)?;
        if let Some(first) = dirty.first() {
            return Err(share::ShareError::Dirty { count: dirty.len(), first: first.clone() }.into());
        }
        let (_, failed) = self.index(StructureMode::Occurrences, progress)?;
        if let Some(e) = failed {
            // An incomplete index is not published: readers would trust it.
            return Err(e);
        }
        let key = {
            let mut guard = self.open_index()?;
            let index = guard.as_mut().expect("opened above");
            index.prune_versions()?;
            Key { schema_version: SCHEMA_VERSION, typescript: crate::ts::TYPESCRIPT_VERSION.to_string(), embedder: embedder_key(index.embedder_id()) }
        };
        let config = ShareConfig::new(self.settings()?.share_public_key.as_deref())?;
        crate::index::with_writer_lock(&self.root, |dir| {
            let files = crate::index::snapshot_files(dir)?;
            Ok::<_, EngineError>(share::publish(url, &commit, &key, dir, &files, &config, progress)?)
        })?
    }

    /// `tsq index --from <url>`: pulls the published index of HEAD, or of
    /// its nearest published ancestor, verified, into `.tsq/` (only the
    /// files the local index lacks), then syncs as `tsq index` does: only
    /// files whose content differs are re-indexed. When nothing is
    /// published for these commits, the index is built locally and
    /// `fallback` says why. A refused index (tampered, wrongly signed,
    /// another version) is an error and leaves the local index as it was.
    pub fn pull(&self, url: &str, progress: &dyn Progress) -> Result<PullAnswer, EngineError> {
        crate::index::check_confined(&self.root)?;
        let settings = self.settings()?;
        let config = ShareConfig::new(settings.share_public_key.as_deref())?;
        let notes: Vec<String> = settings
            .share_untrusted_key
            .iter()
            .map(|k| {
                format!(
                    "the checkout's tsq.toml names [share] publicKey {k}, which you have not trusted, so it counts for nothing: this pull is unsigned. If it is your team's key, run `tsq trust --root {}`",
                    self.root.display()
                )
            })
            .collect();
        let candidates = share::ancestors(&self.root, config.max_ancestors)?;
        let key = self.share_key()?;
        let tree = self.walk();
        let walked: std::collections::HashSet<String> = tree.sources.iter().map(|p| crate::index::relative(p, &self.root)).collect();
        // The open index (if any) is closed: its files are about to change.
        lock(&self.index).take();
        let existed = crate::index::index_dir(&self.root).exists();
        let pulled = crate::index::with_writer_lock(&self.root, |dir| {
            let staging = dir.join(crate::index::INCOMING);
            let Some(pulled) = share::fetch(url, &candidates, &key, dir, &staging, &config, progress)? else { return Ok::<_, EngineError>(None) };
            for rel in &pulled.local {
                crate::index::stage_local(dir, &staging, rel)?;
            }
            crate::index::crash_point("stage");
            progress.update("checking the pulled index against the checkout", 0, 1);
            let checked = crate::index::verify_pull::check_staged(&staging, &self.root, &walked, pulled.trust == crate::index::Trust::Verified)?;
            crate::index::crash_point("verify");
            crate::index::install_pulled(dir)?;
            crate::index::write_origin(dir, None)?;
            // Checked against this checkout above: this install's own now.
            crate::index::mark_made_here(dir, &self.root)?;
            Ok(Some((pulled, checked)))
        })?;
        let (pulled, checked) = match pulled {
            Ok(Some((p, c))) => (Some(p), Some(c)),
            Ok(None) => (None, None),
            Err(e) => {
                if !existed {
                    // A refused pull leaves no index where there was none.
                    let _ = crate::index::clean(&self.root);
                }
                return Err(e);
            }
        };
        let fallback = pulled.is_none().then(|| {
            format!(
                "no index is published at {url} for HEAD or its {} nearest ancestors under {}; built locally",
                candidates.len().saturating_sub(1),
                key.scope()
            )
        });
        if pulled.is_some() {
            let mut guard = self.open_index()?;
            guard.as_mut().expect("opened above").adopt_stamps(crate::index::SyncInput { tree: &tree, view: &self.view, limit: None })?;
        }
        let (index, failed) = self.index(StructureMode::Occurrences, progress)?;
        let reindexed = index.sync.parsed.max(index.occurrences.as_ref().map_or(0, |o| o.indexed));
        if let Some(p) = &pulled {
            let origin = Origin { url: p.url.clone(), commit: p.commit.clone(), reindexed, trust: p.trust };
            crate::index::with_writer_lock(&self.root, |dir| crate::index::write_origin(dir, Some(&origin)))??;
        }
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(PullAnswer { pulled, fallback, checked, reindexed, notes, index })
    }
}

impl Engine {
    /// `[share] from` (`TSQ_SHARE_FROM`, or tsq.toml's once trusted):
    /// pulls that index, as `tsq serve` does on start; `None` when no share
    /// is configured, or when only the checkout names it (a hostile
    /// checkout would name its own store), said on stderr.
    pub(crate) fn pull_configured(&self, progress: &dyn Progress) -> Result<Option<PullAnswer>, EngineError> {
        let settings = self.settings()?;
        match settings.share_from {
            Some(url) if settings.share_from_trusted => self.pull(&url, progress).map(Some),
            Some(url) => {
                tracing::warn!(
                    "[share] from = {url} is named only by the checkout's tsq.toml: not pulled (a checkout may name any store). If it is your team's, run `tsq trust --root {}`, or set TSQ_SHARE_FROM",
                    self.root.display()
                );
                Ok(None)
            }
            None => Ok(None),
        }
    }
}
