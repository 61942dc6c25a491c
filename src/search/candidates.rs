//! Stage 1: the top candidates by vector similarity and by BM25, merged
//! into one set. Every candidate gets both signals: a chunk only BM25
//! found gets its exact best-window similarity, and one only vectors found
//! gets its BM25 score when it ranks within a deeper BM25 list (else 0, it
//! matched no query term or barely any). A signal left at "absent" would
//! read as "irrelevant" and sink good candidates of the other signal.

use std::collections::HashMap;

use super::fusion::Signals;
use super::SearchError;
use crate::index::{ChunkRow, Filter, Index};

pub struct CandidateChunk {
    pub row: ChunkRow,
    pub signals: Signals,
}

/// How much deeper than `n` the BM25 list goes to score vector candidates.
const BM25_DEPTH: usize = 5;

/// Up to `n` by each signal, merged by chunk id.
pub fn gather(index: &Index, query: &str, filter: &Filter, n: usize, notes: &mut Vec<String>) -> Result<Vec<CandidateChunk>, SearchError> {
    let mut by_id: HashMap<String, CandidateChunk> = HashMap::new();
    let mut deeper: HashMap<String, f32> = HashMap::new();
    for (rank, hit) in index.bm25(query, filter, n * BM25_DEPTH)?.into_iter().enumerate() {
        let id = hit.row.chunk.id.clone();
        if rank < n {
            by_id.insert(id, CandidateChunk { row: hit.row, signals: Signals { bm25: Some(hit.score), ..Default::default() } });
        } else {
            deeper.insert(id, hit.score);
        }
    }
    if let Some(embedder) = index.embedder() {
        match embedder.embed_query(query) {
            Ok(vector) => {
                let near = index.nearest(&vector, filter, n)?;
                let missing: Vec<String> = near.iter().filter(|(id, _)| !by_id.contains_key(id)).map(|(id, _)| id.clone()).collect();
                for row in index.chunks_by_id(&missing)? {
                    let bm25 = deeper.get(&row.chunk.id).copied();
                    by_id.insert(row.chunk.id.clone(), CandidateChunk { row, signals: Signals { bm25, ..Default::default() } });
                }
                for (id, sim) in near {
                    if let Some(c) = by_id.get_mut(&id) {
                        c.signals.vector = Some(sim);
                    }
                }
                let unscored: Vec<String> = by_id.values().filter(|c| c.signals.vector.is_none()).map(|c| c.row.chunk.id.clone()).collect();
                for (id, sim) in index.similarities(&vector, &unscored)? {
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
