//! Result selection before the budget: the relevance gate and the concern
//! level (parent/child dedupe). The token budget is applied by the shared
//! output path (`lookup::assemble`), whole results in score order.

/// What selection needs of a candidate.
pub trait Candidate {
    fn id(&self) -> &str;
    fn parent_id(&self) -> Option<&str>;
    fn final_score(&self) -> f64;
}

/// How much higher a parent must score to win over its child.
pub(crate) const PARENT_MARGIN: f64 = 0.1;
/// How many below-gate results to show when nothing passes.
pub(crate) const BELOW_GATE_SHOWN: usize = 3;

/// The candidates that pass the gate, best first, with a parent and its
/// child never both kept (the more specific one wins unless the parent
/// scores clearly higher). When nothing passes: the best few below the
/// gate, and `false`.
pub fn select<C: Candidate + Clone>(mut ranked: Vec<C>, threshold: f64) -> (Vec<C>, bool) {
    ranked.sort_by(|a, b| b.final_score().total_cmp(&a.final_score()));
    let ranked = dedupe_concerns(ranked);
    let passing: Vec<C> = ranked.iter().filter(|c| c.final_score() >= threshold).cloned().collect();
    if passing.is_empty() {
        (ranked.into_iter().take(BELOW_GATE_SHOWN).collect(), false)
    } else {
        (passing, true)
    }
}

/// Keeps the more specific of a parent and child unless the parent scores
/// `PARENT_MARGIN` higher. Order is kept.
pub fn dedupe_concerns<C: Candidate + Clone>(ranked: Vec<C>) -> Vec<C> {
    let score_of = |id: &str| ranked.iter().find(|c| c.id() == id).map(|c| c.final_score());
    let mut dropped: std::collections::HashSet<String> = std::collections::HashSet::new();
    for c in &ranked {
        if let Some(parent) = c.parent_id() {
            if let Some(ps) = score_of(parent) {
                if ps > c.final_score() + PARENT_MARGIN {
                    dropped.insert(c.id().to_string());
                } else {
                    dropped.insert(parent.to_string());
                }
            }
        }
    }
    ranked.into_iter().filter(|c| !dropped.contains(c.id())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug)]
    struct C(&'static str, Option<&'static str>, f64);
    impl Candidate for C {
        fn id(&self) -> &str {
            self.0
        }
        fn parent_id(&self) -> Option<&str> {
            self.1
        }
        fn final_score(&self) -> f64 {
            self.2
        }
    }
    fn ids(v: &[C]) -> Vec<&str> {
        v.iter().map(|c| c.0).collect()
    }

    #[test]
    fn relevance_gate_ten_candidates_three_pass() {
        let cands: Vec<C> = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
            .iter()
            .enumerate()
            .map(|(i, id)| C(id, None, if i < 3 { 0.9 - i as f64 * 0.1 } else { 0.4 - i as f64 * 0.01 }))
            .collect();
        let (kept, passed) = select(cands, 0.5);
        assert!(passed);
        assert_eq!(ids(&kept), vec!["a", "b", "c"]);
    }

    #[test]
    fn nothing_passes_shows_the_best_few_marked() {
        let cands = vec![C("a", None, 0.3), C("b", None, 0.45), C("c", None, 0.1), C("d", None, 0.2), C("e", None, 0.05)];
        let (kept, passed) = select(cands, 0.5);
        assert!(!passed);
        assert_eq!(ids(&kept), vec!["b", "a", "d"]);
    }

    #[test]
    fn empty_candidates_give_empty_results() {
        let (kept, passed) = select(Vec::<C>::new(), 0.5);
        assert!(kept.is_empty() && !passed);
    }

    #[test]
    fn child_wins_unless_parent_is_clearly_higher() {
        let (kept, _) = select(vec![C("class", None, 0.8), C("method", Some("class"), 0.75)], 0.5);
        assert_eq!(ids(&kept), vec!["method"]);
        let (kept, _) = select(vec![C("class", None, 0.95), C("method", Some("class"), 0.7)], 0.5);
        assert_eq!(ids(&kept), vec!["class"]);
    }
}
