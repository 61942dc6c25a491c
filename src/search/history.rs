//! History evidence (`Steps::history`): the past
//! commits whose subjects are most like the question vote for the files
//! they changed, so a question that names an effect ("recover from errors
//! thrown while applying a message") reaches the file earlier changes of
//! that kind went to, though the file's code shares few of its words.
//!
//! The commits are the index's record (`index::history`, newest first);
//! a subject is read as the question is (content words, stemmed), scored
//! by BM25 over all subjects. Votes rank files, never chunks: each
//! candidate of a voted file gains `vote × weight × top` after every other
//! step (as path evidence does), and a voted file retrieval missed is
//! taken in by its chunk that shares most words with the question.

use std::collections::{HashMap, HashSet};

use super::candidates::CandidateChunk;
use super::paths::stem;
use super::shape::content_words;
use super::steps::{HISTORY_COMMITS, HISTORY_FILES};
use crate::index::history::History;
use crate::index::{Filter, Index, IndexError};

/// BM25's constants, as LanceDB's full-text search uses them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

fn terms(text: &str) -> Vec<String> {
    content_words(text).iter().map(|w| stem(w)).collect()
}

/// Each voted file's vote in (0, 1] (the most voted 1.0), strongest
/// first, at most `HISTORY_FILES`: the `HISTORY_COMMITS` subjects most
/// like the question by BM25 each give their score, shared among the
/// files they changed.
///
/// With `relative`, each commit's score is first divided by the score of
/// a subject that is the question itself, and a file's summed vote kept at
/// most 1.0: a file only weak matches voted for gains little.
pub fn votes(history: &History, query: &str, relative: bool) -> Vec<(String, f64)> {
    let q: HashSet<String> = terms(query).into_iter().collect();
    if q.is_empty() || history.commits.is_empty() {
        return Vec::new();
    }
    let docs = history.terms.get_or_init(|| history.commits.iter().map(|c| terms(&c.subject)).collect());
    let n = docs.len() as f64;
    let mean_len = docs.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let idf: HashMap<&str, f64> = q
        .iter()
        .map(|t| {
            let df = docs.iter().filter(|d| d.contains(t)).count() as f64;
            (t.as_str(), (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
        })
        .collect();
    let mut scored: Vec<(f64, usize)> = docs
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let norm = K1 * (1.0 - B + B * d.len() as f64 / mean_len.max(1.0));
            let s: f64 = q
                .iter()
                .map(|t| {
                    let tf = d.iter().filter(|w| *w == t).count() as f64;
                    if tf == 0.0 {
                        0.0
                    } else {
                        idf[t.as_str()] * tf * (K1 + 1.0) / (tf + norm)
                    }
                })
                .sum();
            (s > 0.0).then_some((s, i))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // The score of a subject that is the question itself.
    let own = {
        let norm = K1 * (1.0 - B + B * q.len() as f64 / mean_len.max(1.0));
        q.iter().map(|t| idf[t.as_str()] * (K1 + 1.0) / (1.0 + norm)).sum::<f64>()
    };
    let mut votes: HashMap<&str, f64> = HashMap::new();
    for &(s, i) in scored.iter().take(HISTORY_COMMITS) {
        let files = &history.commits[i].files;
        for f in files {
            *votes.entry(f).or_default() += s / files.len() as f64;
        }
    }
    let top = if relative { own } else { votes.values().copied().fold(0.0, f64::max) };
    let mut out: Vec<(String, f64)> = votes.into_iter().map(|(f, v)| (f.to_string(), (v / top).min(1.0))).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.truncate(HISTORY_FILES);
    out
}

/// Takes in, for each voted file no candidate is in, its chunk sharing
/// most of the question's words (the longest, when none shares any).
pub(crate) fn take_in(index: &Index, cands: &mut Vec<CandidateChunk>, votes: &[(String, f64)], query: &str, filter: &Filter) -> Result<(), IndexError> {
    let have: HashSet<&str> = cands.iter().map(|c| c.row.chunk.relative_path.as_str()).collect();
    let missing: Vec<String> = votes.iter().map(|(f, _)| f).filter(|f| !have.contains(f.as_str())).cloned().collect();
    if missing.is_empty() {
        return Ok(());
    }
    let q: HashSet<String> = terms(query).into_iter().collect();
    let mut best: HashMap<String, (usize, usize, crate::index::ChunkRow)> = HashMap::new();
    for row in index.chunks_in_files(&missing, filter)? {
        if row.chunk.node_kind == "comment" {
            continue;
        }
        let words: HashSet<String> = terms(&row.chunk.embedding_text).into_iter().collect();
        let key = (q.intersection(&words).count(), row.chunk.full_source.len());
        match best.get(&row.chunk.relative_path) {
            Some((shared, len, _)) if (*shared, *len) >= key => {}
            _ => {
                best.insert(row.chunk.relative_path.clone(), (key.0, key.1, row));
            }
        }
    }
    for f in &missing {
        if let Some((_, _, row)) = best.remove(f) {
            cands.push(CandidateChunk { row, signals: Default::default() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::history::Commit;

    fn commit(subject: &str, files: &[&str]) -> Commit {
        Commit { subject: subject.into(), files: files.iter().map(|f| f.to_string()).collect() }
    }

    #[test]
    fn past_subjects_like_the_question_vote_for_their_files() {
        let history = History {
            terms: Default::default(),
            head: "h".into(),
            commits: vec![
                commit("fix(persist): restore the cache after a cross-tab message", &["src/broadcast.ts"]),
                commit("feat: retry failed mutations", &["src/retryer.ts", "src/mutation.ts"]),
                commit("handle errors in broadcast channel messages", &["src/broadcast.ts", "src/utils.ts"]),
                commit("update readme wording", &["src/index.ts"]),
            ],
        };
        let v = votes(&history, "recover from errors while applying an incoming cross-tab message", false);
        assert_eq!(v.first().map(|(f, s)| (f.as_str(), *s)), Some(("src/broadcast.ts", 1.0)));
        assert!(v.iter().any(|(f, s)| f == "src/utils.ts" && *s > 0.0 && *s < 1.0));
        assert!(!v.iter().any(|(f, _)| f == "src/retryer.ts" || f == "src/index.ts"), "{v:?}");
        assert!(votes(&history, "the a of", false).is_empty());
        assert!(votes(&History::default(), "broadcast message", false).is_empty());
        // Relative votes: below the strongest file's 1.0, since no past
        // subject is the question itself; a subject that is gets 1.0.
        let r = votes(&history, "recover from errors while applying an incoming cross-tab message", true);
        assert!(r.iter().all(|(_, s)| *s > 0.0 && *s < 1.0), "{r:?}");
        let same = votes(&history, "update readme wording", true);
        assert_eq!(same.first().map(|(f, s)| (f.as_str(), *s)), Some(("src/index.ts", 1.0)));
    }
}
