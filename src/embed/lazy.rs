//! An embedder loaded on first use: an answer that embeds nothing (a
//! `symbol =` lookup, an inspect) never pays for a model or a table, and
//! `release` drops it until the next use (`tsq index` before the
//! occurrence pass).

use std::sync::{Arc, Mutex};

use super::{Document, EmbedError, Embedder, EmbedderId};

pub(crate) struct Lazy<E> {
    /// Known before loading: the index compares it with its vectors'.
    id: EmbedderId,
    batch: usize,
    load: fn() -> Result<E, EmbedError>,
    loaded: Mutex<Option<Arc<E>>>,
}

impl<E: Embedder> Lazy<E> {
    /// `id` and `batch` are the loaded embedder's, known without loading.
    pub(crate) fn new(id: EmbedderId, batch: usize, load: fn() -> Result<E, EmbedError>) -> Lazy<E> {
        Lazy { id, batch, load, loaded: Mutex::new(None) }
    }

    fn get(&self) -> Result<Arc<E>, EmbedError> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = loaded.as_ref() {
            return Ok(Arc::clone(e));
        }
        let e = Arc::new((self.load)()?);
        *loaded = Some(Arc::clone(&e));
        Ok(e)
    }
}

impl<E: Embedder> Embedder for Lazy<E> {
    fn id(&self) -> EmbedderId {
        self.id.clone()
    }

    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        self.get()?.embed_documents(docs)
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.get()?.embed_query(query)
    }

    fn release(&self) {
        self.loaded.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    fn batch_size(&self) -> usize {
        self.batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_once_and_again_after_release() {
        let lazy = super::super::static_table::lazy();
        let loaded = super::super::static_table::StaticEmbedder::load().unwrap();
        assert_eq!((lazy.id(), lazy.batch_size()), (loaded.id(), loaded.batch_size()));
        assert!(lazy.loaded.lock().unwrap().is_none(), "loaded before use");
        let v = lazy.embed_query("refresh the token").unwrap();
        assert_eq!(v.len(), lazy.id().dimension);
        let first = Arc::as_ptr(&lazy.get().unwrap());
        assert_eq!(first, Arc::as_ptr(&lazy.get().unwrap()), "loaded twice");
        lazy.release();
        assert!(lazy.loaded.lock().unwrap().is_none(), "release kept it");
        assert_eq!(lazy.embed_query("refresh the token").unwrap(), v);
    }
}
