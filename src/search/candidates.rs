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

/// Up to `n` by each signal, merged by chunk id: BM25 reads `bm25_query`,
/// vectors `query`. BM25 runs on its own thread while the query is
/// embedded and its neighbours found; the rows of both lists are then
/// read at once.
pub(crate) fn gather(
    index: &Index,
    query: &str,
    bm25_query: &str,
    filter: &Filter,
    n: usize,
    notes: &mut Vec<String>,
) -> Result<Vec<CandidateChunk>, SearchError> {
    let (bm25, near) = std::thread::scope(|s| {
        let bm25 = s.spawn(|| {
            let t = std::time::Instant::now();
            let hits = index.bm25_ids(bm25_query, filter, n * BM25_DEPTH);
            tracing::debug!(ms = t.elapsed().as_millis() as u64, "BM25 read");
            hits
        });
        let near = index.embedder().map(|embedder| {
            let t = std::time::Instant::now();
            embedder.embed_query(query).map(|v| {
                let embedded = t.elapsed().as_millis() as u64;
                let near = index.nearest_hits(&v, filter, n);
                tracing::debug!(embed_ms = embedded, nearest_ms = t.elapsed().as_millis() as u64 - embedded, "query embedded, nearest read");
                near.map(|near| (v, near))
            })
        });
        (bm25.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), near)
    });
    let mut bm25 = bm25?;
    let deeper = bm25.split_off(n.min(bm25.len()));
    // Every candidate's signals: BM25 for the top `n` of its list (and the
    // deeper list's score for those only vectors found).
    let deeper: HashMap<&str, f32> = deeper.iter().map(|h| (h.id.as_str(), h.score)).collect();
    let mut signals: HashMap<String, Signals> = bm25.iter().map(|h| (h.id.clone(), Signals { bm25: Some(h.score), ..Default::default() })).collect();
    let mut vector = None;
    match near {
        None => {}
        Some(Err(e)) => notes.push(format!("query embedding failed ({e}); ranked by BM25 only")),
        Some(Ok(near)) => {
            let (v, near) = near?;
            for hit in near {
                let s = signals.entry(hit.id.clone()).or_insert_with(|| Signals { bm25: deeper.get(hit.id.as_str()).copied(), ..Default::default() });
                s.vector = Some(hit.score);
            }
            vector = Some(v);
        }
    }
    // The rows, and the similarity of those only BM25 found, read together.
    let ids: Vec<String> = signals.keys().cloned().collect();
    let unscored: Vec<String> = signals.iter().filter(|(_, s)| s.vector.is_none()).map(|(id, _)| id.clone()).collect();
    let t = std::time::Instant::now();
    let (rows, sims) = std::thread::scope(|s| {
        let sims = s.spawn(|| match &vector {
            Some(v) => index.similarities(v, &unscored),
            None => Ok(HashMap::new()),
        });
        (index.chunks_by_id(&ids), sims.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    });
    tracing::debug!(ms = t.elapsed().as_millis() as u64, rows = ids.len(), similarities = unscored.len(), "candidate rows and BM25-only similarities read");
    for (id, sim) in sims? {
        if let Some(s) = signals.get_mut(&id) {
            s.vector = Some(sim);
        }
    }
    let mut by_id: HashMap<String, CandidateChunk> = HashMap::new();
    for row in rows? {
        if let Some(s) = signals.remove(&row.chunk.id) {
            by_id.insert(row.chunk.id.clone(), CandidateChunk { row, signals: s });
        }
    }
    let mut out: Vec<CandidateChunk> = by_id.into_values().collect();
    out.sort_by(|a, b| a.row.chunk.id.cmp(&b.row.chunk.id));
    Ok(out)
}
