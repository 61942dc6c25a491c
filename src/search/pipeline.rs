//! Stage 1's ranking in one pass: the fused scores (`fusion`), then an
//! ordered list of steps (`STEPS`), each of which reads the candidates
//! and what the question shares with them (`Board`) and rewrites their
//! scores; then the order, and the caps that act on it last (`comments`).
//! A step's rule lives in its own module (`rank`, `evidence`,
//! `type_step`); this file only orders them. A step turned off by
//! `Steps` leaves the scores as they are.

use std::collections::HashMap;
use std::sync::Mutex;

use super::candidates::CandidateChunk;
use super::evidence::{Known, Lending, Uses};
use super::rank::{self, Factors, QueryShape};
use super::{comments, fusion, type_step};
use crate::index::{ChunkRow, Index};

/// What the steps read besides the candidates, gathered once per question
/// (`search::retrieve`).
pub(super) struct Ranking<'a> {
    pub index: &'a Index,
    pub shape: &'a QueryShape<'a>,
    pub weights: fusion::Weights,
    pub known: &'a HashMap<String, Known>,
    pub lending: Option<&'a Lending>,
    pub uses: Mutex<Uses>,
    /// Each voted file's history vote (`history`); empty when off.
    pub history: &'a HashMap<String, f64>,
    /// Each file's BM25 over whole texts over the best file's, in (0, 1]
    /// (`search::whole_file_scores`); empty when off or for a symbol query.
    pub whole: &'a HashMap<String, f64>,
}

/// The candidates as every step reads them.
struct Board<'a> {
    rows: Vec<&'a ChunkRow>,
    /// The fused scores before any step (what lenders lend from).
    raw: Vec<f64>,
    /// Each candidate's factors for this question (role, definition,
    /// usage, path evidence).
    factors: Vec<Factors>,
}

/// One step: reads the board, rewrites the scores (one per candidate).
type Step = fn(&Ranking, &Board, &mut [f64]);

/// The steps, in order, each with what it does.
const STEPS: &[(&str, Step)] = &[
    ("query factors: roles, definitions, the usage prior, path evidence as a lift", factors),
    ("lending: tests and implementations lend to what they use", lending),
    ("types: type-only declarations below behaviour", types),
    ("path evidence as a boost", paths),
    ("whole-file evidence", whole_files),
    ("history evidence", history),
    ("re-exports rank only where the question names their file", reexports),
];

impl Ranking<'_> {
    /// The candidates with their scores, strongest first.
    pub(super) fn rank(&self, cands: Vec<CandidateChunk>) -> Vec<(CandidateChunk, fusion::Scores)> {
        let mut scores = fusion::score(&cands.iter().map(|c| c.signals.clone()).collect::<Vec<_>>(), self.weights);
        let board = Board {
            rows: cands.iter().map(|c| &c.row).collect(),
            raw: scores.iter().map(|s| s.final_score).collect(),
            factors: cands.iter().map(|c| self.shape.factors(&c.row.chunk, self.known.get(&c.row.chunk.id).copied().unwrap_or_default())).collect(),
        };
        let mut finals = board.raw.clone();
        for (_, step) in STEPS {
            step(self, &board, &mut finals);
        }
        drop(board);
        scores.iter_mut().zip(finals).for_each(|(s, f)| s.final_score = f);
        let mut ranked: Vec<_> = cands.into_iter().zip(scores).filter(|(c, s)| c.row.chunk.node_kind != "re-export" || s.final_score > 0.0).collect();
        ranked.sort_by(|a, b| b.1.final_score.total_cmp(&a.1.final_score).then_with(|| a.0.row.chunk.id.cmp(&b.0.row.chunk.id)));
        // Last, on the order: comment-only chunks (one in the top 10, a
        // block repeated in several files once, boilerplate never).
        if self.shape.steps.comments {
            comments::limit(&mut ranked, |(c, _)| &c.row.chunk, |(_, s)| &mut s.final_score);
        }
        ranked
    }
}

fn factors(_: &Ranking, board: &Board, finals: &mut [f64]) {
    for (s, f) in finals.iter_mut().zip(&board.factors) {
        *s = f.apply(*s);
    }
}

fn lending(r: &Ranking, board: &Board, finals: &mut [f64]) {
    if let Some(lending) = r.lending {
        lending.lend(&board.rows, &board.raw, finals);
    }
}

fn types(r: &Ranking, board: &Board, finals: &mut [f64]) {
    if r.shape.steps.types < 1.0 {
        type_step::apply(r.index, r.shape, &board.rows, &r.uses, finals);
    }
}

fn paths(r: &Ranking, board: &Board, finals: &mut [f64]) {
    if r.shape.steps.paths && r.shape.steps.path_top > 0.0 {
        finals.copy_from_slice(&rank::boost(finals, &board.factors, r.shape.steps.path_top));
    }
}

/// A file-level vote (`votes`: file -> ratio) as a boost of `weight`.
fn file_votes(votes: &HashMap<String, f64>, weight: f64, board: &Board, finals: &mut [f64]) {
    if votes.is_empty() {
        return;
    }
    let ratios: Vec<f64> = board.rows.iter().map(|r| votes.get(&r.chunk.relative_path).copied().unwrap_or(0.0)).collect();
    finals.copy_from_slice(&rank::file_boost(finals, &ratios, &board.factors, weight));
}

fn whole_files(r: &Ranking, board: &Board, finals: &mut [f64]) {
    file_votes(r.whole, r.shape.steps.whole_files, board, finals);
}

fn history(r: &Ranking, board: &Board, finals: &mut [f64]) {
    file_votes(r.history, r.shape.steps.history, board, finals);
}

fn reexports(r: &Ranking, board: &Board, finals: &mut [f64]) {
    if !r.shape.steps.reexports {
        return;
    }
    for ((row, s), f) in board.rows.iter().zip(finals.iter_mut()).zip(&board.factors) {
        if row.chunk.node_kind == "re-export" && f.path == 0.0 {
            *s = 0.0;
        }
    }
}
