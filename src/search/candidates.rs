//! Stage 1: the top candidates by vector similarity and by BM25, merged
//! into one set (each keeps both raw signals when it has them).

use std::collections::HashMap;

use super::fusion::Signals;
use super::SearchError;
use crate::index::{ChunkRow, Filter, Index};

pub struct CandidateChunk {
    pub row: ChunkRow,
    pub signals: Signals,
}

/// Up to `n` by each signal, merged by chunk id.
pub fn gather(index: &Index, query: &str, filter: &Filter, n: usize, notes: &mut Vec<String>) -> Result<Vec<CandidateChunk>, SearchError> {
    let mut by_id: HashMap<String, CandidateChunk> = HashMap::new();
    for hit in index.bm25(query, filter, n)? {
        let id = hit.row.chunk.id.clone();
        by_id.insert(id, CandidateChunk { row: hit.row, signals: Signals { bm25: Some(hit.score), ..Default::default() } });
    }
    if let Some(embedder) = index.embedder() {
        match embedder.embed_query(query) {
            Ok(vector) => {
                let near = index.nearest(&vector, filter, n)?;
                let missing: Vec<String> = near.iter().filter(|(id, _)| !by_id.contains_key(id)).map(|(id, _)| id.clone()).collect();
                for row in index.chunks_by_id(&missing)? {
                    by_id.insert(row.chunk.id.clone(), CandidateChunk { row, signals: Signals::default() });
                }
                for (id, sim) in near {
                    if let Some(c) = by_id.get_mut(&id) {
                        c.signals.vector = Some(sim);
                    }
                }
            }
            Err(e) => notes.push(format!("query embedding failed ({e}); ranked by BM25 only")),
        }
    }
    let mut out: Vec<CandidateChunk> = by_id.into_values().collect();
    out.sort_by(|a, b| a.row.chunk.id.cmp(&b.row.chunk.id));
    Ok(out)
}
