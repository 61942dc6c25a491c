//! Stage 2 scores. Every signal is brought to [0, 1] the same way for every
//! backend, so the relevance gate means the same thing everywhere:
//!
//! - **BM25**: divided by the best BM25 score among the candidates (the
//!   top keyword match is 1.0; absent is 0).
//! - **vector**: cosine similarity of the chunk's best window, min-max
//!   normalized over the candidates (absent is 0).
//! - **rerank**: Voyage's `relevance_score`, already in [0, 1].
//!
//! `relevance` is the rerank score when a reranker ran; otherwise the
//! hybrid `bm25Weight·bm25 + (1 - bm25Weight)·vector` (the share is the
//! `bm25Weight` setting, chosen on `tsq bench search`; BM25 alone when
//! there are no vectors).
//!
//! With a reranker, `finalScore = rerankWeight·rerank + vectorWeight·vector`,
//! the weights divided by their sum (the blueprint's blend). Without one,
//! `finalScore = relevance`: the hybrid already holds the vector signal,
//! and blending it in again would only shift the BM25 share. Without
//! vectors, `finalScore = relevance` too.

/// One candidate's raw signals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Signals {
    pub bm25: Option<f32>,
    /// Cosine similarity in [-1, 1].
    pub vector: Option<f32>,
    /// Reranker relevance in [0, 1].
    pub rerank: Option<f32>,
}

/// A candidate's normalized signals and scores.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scores {
    pub bm25: f64,
    pub vector: f64,
    pub rerank: Option<f64>,
    pub relevance: f64,
    pub final_score: f64,
}

#[derive(Debug, Clone, Copy)]
pub struct Weights {
    pub rerank: f64,
    pub vector: f64,
    /// BM25's share of the hybrid relevance when no reranker runs.
    pub bm25_in_hybrid: f64,
}

/// The hybrid relevance of normalized signals: `share·bm25 + (1 - share)·vector`.
pub fn hybrid(bm25: f64, vector: f64, share: f64) -> f64 {
    share * bm25 + (1.0 - share) * vector
}

/// Scores for every candidate, in input order.
pub fn score(signals: &[Signals], w: Weights) -> Vec<Scores> {
    let max_bm25 = signals.iter().filter_map(|s| s.bm25).fold(0f32, f32::max);
    let vecs: Vec<f32> = signals.iter().filter_map(|s| s.vector).collect();
    let (vmin, vmax) = vecs.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let have_vectors = !vecs.is_empty();
    signals
        .iter()
        .map(|s| {
            let bm25 = match s.bm25 {
                Some(b) if max_bm25 > 0.0 => (b / max_bm25) as f64,
                _ => 0.0,
            };
            let vector = match s.vector {
                Some(v) if vmax > vmin => ((v - vmin) / (vmax - vmin)) as f64,
                Some(_) => 1.0,
                None => 0.0,
            };
            let rerank = s.rerank.map(|r| r.clamp(0.0, 1.0) as f64);
            let relevance = match rerank {
                Some(r) => r,
                None if have_vectors => hybrid(bm25, vector, w.bm25_in_hybrid),
                None => bm25,
            };
            let final_score = if have_vectors && rerank.is_some() {
                let total = w.rerank + w.vector;
                (w.rerank * relevance + w.vector * vector) / total
            } else {
                relevance
            };
            Scores { bm25, vector, rerank, relevance, final_score }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Weights = Weights { rerank: 0.65, vector: 0.35, bm25_in_hybrid: 0.5 };

    #[test]
    fn blends_rerank_and_vector_as_the_blueprint() {
        let s =
            score(&[Signals { bm25: Some(4.0), vector: Some(0.8), rerank: Some(0.9) }, Signals { bm25: Some(2.0), vector: Some(0.4), rerank: Some(0.2) }], W);
        // vector normalized: 1.0 and 0.0.
        // (Signals are f32; scores f64.)
        assert!((s[0].final_score - (0.65 * 0.9 + 0.35 * 1.0)).abs() < 1e-6);
        assert!((s[1].final_score - (0.65 * 0.2 + 0.35 * 0.0)).abs() < 1e-6);
        assert_eq!(s[1].bm25, 0.5);
    }

    #[test]
    fn without_reranker_relevance_is_the_hybrid() {
        let s = score(&[Signals { bm25: Some(10.0), vector: Some(0.5), rerank: None }, Signals { bm25: None, vector: Some(0.7), rerank: None }], W);
        // First: bm25 1.0, vector 0.0 → relevance 0.5 = final.
        assert!((s[0].relevance - 0.5).abs() < 1e-9);
        assert!((s[0].final_score - 0.5).abs() < 1e-9);
        // Second: bm25 0, vector 1.0 → relevance 0.5 = final.
        assert!((s[1].final_score - 0.5).abs() < 1e-9);
        // The BM25 share tips the balance.
        let w = Weights { bm25_in_hybrid: 0.7, ..W };
        let s = score(&[Signals { bm25: Some(10.0), vector: Some(0.5), rerank: None }, Signals { bm25: Some(5.0), vector: Some(0.7), rerank: None }], w);
        assert!((s[0].final_score - 0.7).abs() < 1e-9);
        assert!((s[1].final_score - (0.7 * 0.5 + 0.3)).abs() < 1e-9);
    }

    #[test]
    fn without_vectors_final_is_bm25_relative_to_the_best() {
        let s = score(&[Signals { bm25: Some(8.0), ..Default::default() }, Signals { bm25: Some(2.0), ..Default::default() }], W);
        assert_eq!(s[0].final_score, 1.0);
        assert_eq!(s[1].final_score, 0.25);
    }

    #[test]
    fn weights_are_respected() {
        let w = Weights { rerank: 1.0, vector: 0.0, bm25_in_hybrid: 0.5 };
        let s =
            score(&[Signals { bm25: Some(1.0), vector: Some(0.9), rerank: Some(0.3) }, Signals { bm25: Some(1.0), vector: Some(0.1), rerank: Some(0.3) }], w);
        assert!((s[0].final_score - 0.3).abs() < 1e-6 && (s[1].final_score - 0.3).abs() < 1e-6);
    }
}
