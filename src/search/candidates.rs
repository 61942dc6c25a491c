//! Stage 1: the top candidates by vector similarity and by BM25, merged
//! into one set. Every candidate gets both signals: a chunk only BM25
//! found gets its exact best-window similarity, and one only vectors found
//! gets its BM25 score when it ranks within a deeper BM25 list (else 0, it
//! matched no query term or barely any). A signal left at "absent" would
//! read as "irrelevant" and sink good candidates of the other signal.
//!
//! With `Steps::feedback` (measured, off), the vector signal reads the
//! question moved toward its first neighbours (Rocchio's pseudo-relevance
//! feedback): `q/|q| + FEEDBACK_WEIGHT · mean(w/|w|)` over the best window
//! of each of the first `feedback` chunks, and its neighbours are found
//! again.

use std::collections::HashMap;

use super::fusion::Signals;
use super::SearchError;
use crate::index::{ChunkRow, Filter, IdHit, Index};

pub struct CandidateChunk {
    pub row: ChunkRow,
    pub signals: Signals,
}

/// How much deeper than `n` the BM25 list goes to score vector candidates.
const BM25_DEPTH: usize = 5;
/// How much deeper than `n` the nearest list goes when more files are
/// asked for (`Steps::more_files`).
const VECTOR_DEPTH: usize = 4;
/// The share of the first neighbours' mean direction added to the
/// question's (`Steps::feedback`).
const FEEDBACK_WEIGHT: f32 = 0.5;

/// How far each signal reaches.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reach {
    /// Candidates by each signal.
    pub n: usize,
    /// The best chunk of this many more files (`Steps::more_files`).
    pub more_files: usize,
    /// The first neighbours the question moves toward (`Steps::feedback`);
    /// 0: none.
    pub feedback: usize,
}

/// Up to `reach.n` by each signal, merged by chunk id: BM25 reads
/// `bm25_query`, vectors `query`. With `more_files`, each signal also brings the best
/// chunk of each of the next `more_files` files its first `n` miss, so
/// that more files are candidates (`Steps::more_files`). BM25 runs on its own
/// thread while the query is embedded and its neighbours found; the rows of
/// both lists are then read at once.
pub(crate) fn gather(
    index: &Index,
    query: &str,
    bm25_query: &str,
    filter: &Filter,
    reach: Reach,
    notes: &mut Vec<String>,
) -> Result<Vec<CandidateChunk>, SearchError> {
    let Reach { n, more_files, feedback } = reach;
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
                let depth = if more_files > 0 { n * VECTOR_DEPTH } else { n };
                let near = index.nearest_hits(&v, filter, depth);
                let (v, near) = match near {
                    Ok(hits) if feedback > 0 && !hits.is_empty() => {
                        let ids: Vec<String> = hits.iter().take(feedback).map(|h| h.id.clone()).collect();
                        match index.best_windows(&v, &ids) {
                            Ok(mut best) => {
                                let windows: Vec<Vec<f32>> = ids.iter().filter_map(|id| best.remove(id)).map(|(_, w)| w).collect();
                                let moved = moved_toward(&v, &windows, FEEDBACK_WEIGHT);
                                let near = index.nearest_hits(&moved, filter, depth);
                                (moved, near)
                            }
                            Err(e) => (v, Err(e)),
                        }
                    }
                    near => (v, near),
                };
                let near = near.map(|hits| diverse(hits, n, more_files).0);
                tracing::debug!(embed_ms = embedded, nearest_ms = t.elapsed().as_millis() as u64 - embedded, "query embedded, nearest read");
                near.map(|near| (v, near))
            })
        });
        (bm25.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), near)
    });
    let (bm25, deeper) = diverse(bm25?, n, more_files);
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

/// `q` moved toward `windows`: `q/|q| + weight · mean(w/|w|)` (Rocchio's
/// update with the question's neighbours as the relevant set). `q` as a
/// unit vector when there are none.
fn moved_toward(q: &[f32], windows: &[Vec<f32>], weight: f32) -> Vec<f32> {
    let unit = |v: &[f32]| {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| if n > 0.0 { x / n } else { 0.0 }).collect::<Vec<f32>>()
    };
    let mut out = unit(q);
    let share = if windows.is_empty() { 0.0 } else { weight / windows.len() as f32 };
    for w in windows.iter().filter(|w| w.len() == q.len()) {
        for (o, x) in out.iter_mut().zip(unit(w)) {
            *o += share * x;
        }
    }
    out
}

/// The first `n` of `hits` (best first), then the best of each of the
/// next `more` files none of those is in; and the rest, in order.
fn diverse(hits: Vec<IdHit>, n: usize, more: usize) -> (Vec<IdHit>, Vec<IdHit>) {
    let mut files: std::collections::HashSet<String> = std::collections::HashSet::new();
    let (mut top, mut rest) = (Vec::with_capacity(n + more), Vec::new());
    let mut added = 0;
    for h in hits {
        if top.len() < n {
            files.insert(h.path.clone());
            top.push(h);
        } else if added < more && files.insert(h.path.clone()) {
            added += 1;
            top.push(h);
        } else {
            rest.push(h);
        }
    }
    (top, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, path: &str, score: f32) -> IdHit {
        IdHit { id: id.into(), path: path.into(), score }
    }

    #[test]
    fn feedback_moves_the_question_toward_its_neighbours() {
        // Unit question, two neighbours' windows (not unit): half their
        // mean unit direction is added.
        let moved = moved_toward(&[2.0, 0.0, 0.0], &[vec![0.0, 3.0, 0.0], vec![0.0, 0.0, 0.5]], 0.5);
        assert_eq!(moved, vec![1.0, 0.25, 0.25]);
        // No neighbours: the question alone, as a unit vector.
        assert_eq!(moved_toward(&[0.0, 3.0, 4.0], &[], 0.5), vec![0.0, 0.6, 0.8]);
        // A window of another dimension is left out, and the share stays
        // that of the windows given.
        assert_eq!(moved_toward(&[1.0, 0.0], &[vec![1.0], vec![0.0, 1.0]], 1.0), vec![1.0, 0.5]);
    }

    #[test]
    fn more_files_take_their_best_chunk() {
        let hits = vec![
            hit("a1", "a.ts", 0.9),
            hit("a2", "a.ts", 0.8),
            hit("b1", "b.ts", 0.7),
            hit("a3", "a.ts", 0.6),
            hit("b2", "b.ts", 0.5),
            hit("c1", "c.ts", 0.4),
            hit("c2", "c.ts", 0.3),
            hit("d1", "d.ts", 0.2),
        ];
        let (top, rest) = diverse(hits.clone(), 2, 1);
        assert_eq!(top.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["a1", "a2", "b1"]);
        assert_eq!(rest.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["a3", "b2", "c1", "c2", "d1"]);
        let (top, _) = diverse(hits.clone(), 3, 2);
        assert_eq!(top.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["a1", "a2", "b1", "c1", "d1"]);
        let (top, rest) = diverse(hits, 3, 0);
        assert_eq!(top.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["a1", "a2", "b1"]);
        assert_eq!(rest.len(), 5);
    }
}
