//! Result selection before the budget: the relevance gate and the concern
//! level (parent/child dedupe). The token budget is applied by the shared
//! output path (`lookup::assemble`), whole results in score order.

/// What selection needs of a candidate.
pub trait Candidate {
    fn id(&self) -> &str;
    fn parent_id(&self) -> Option<&str>;
    fn final_score(&self) -> f64;
    /// The declaration's name and kind (`class`, `interface`, …): a
    /// question that names a parent, or its kind, keeps the parent.
    fn name(&self) -> &str;
    fn kind(&self) -> &str;
}

/// How much higher a parent must score to win over its child.
pub(crate) const PARENT_MARGIN: f64 = 0.1;
/// How many below-gate results to show when nothing passes.
pub(crate) const BELOW_GATE_SHOWN: usize = 3;

/// The candidates that pass the gate, best first, with a parent and its
/// child never both kept (`dedupe_concerns`, which reads `query`). When
/// nothing passes: the best few below the gate, and `false`.
pub fn select<C: Candidate + Clone>(mut ranked: Vec<C>, query: &str, threshold: f64) -> (Vec<C>, bool) {
    ranked.sort_by(|a, b| b.final_score().total_cmp(&a.final_score()));
    let ranked = dedupe_concerns(ranked, query);
    let passing: Vec<C> = ranked.iter().filter(|c| c.final_score() >= threshold).cloned().collect();
    if passing.is_empty() {
        (ranked.into_iter().take(BELOW_GATE_SHOWN).collect(), false)
    } else {
        (passing, true)
    }
}

/// Keeps the more specific of a parent and child, unless the parent scores
/// `PARENT_MARGIN` higher or the question names the parent (its name as
/// one of the question's words) or its kind ("the … class"): a question
/// about a class wants the class, not its best-matching method. Order is
/// kept.
pub fn dedupe_concerns<C: Candidate + Clone>(ranked: Vec<C>, query: &str) -> Vec<C> {
    let words: std::collections::HashSet<String> =
        query.split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    let named = |c: &C| words.contains(&c.name().to_lowercase()) || (NAMED_KINDS.contains(&c.kind()) && words.contains(c.kind()));
    let parent_of = |id: &str| ranked.iter().find(|c| c.id() == id);
    let mut dropped: std::collections::HashSet<String> = std::collections::HashSet::new();
    for c in &ranked {
        if let Some(parent) = c.parent_id().and_then(parent_of) {
            if parent.final_score() > c.final_score() + PARENT_MARGIN || (named(parent) && !named(c)) {
                dropped.insert(c.id().to_string());
            } else {
                dropped.insert(parent.id().to_string());
            }
        }
    }
    ranked.into_iter().filter(|c| !dropped.contains(c.id())).collect()
}

/// Kinds a question names as a word ("the TokenService class").
const NAMED_KINDS: [&str; 5] = ["class", "interface", "enum", "namespace", "module"];

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
        // The id is the name; a candidate without a parent is a class.
        fn name(&self) -> &str {
            self.0
        }
        fn kind(&self) -> &str {
            if self.1.is_none() {
                "class"
            } else {
                "method"
            }
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
        let (kept, passed) = select(cands, "q", 0.5);
        assert!(passed);
        assert_eq!(ids(&kept), vec!["a", "b", "c"]);
    }

    #[test]
    fn nothing_passes_shows_the_best_few_marked() {
        let cands = vec![C("a", None, 0.3), C("b", None, 0.45), C("c", None, 0.1), C("d", None, 0.2), C("e", None, 0.05)];
        let (kept, passed) = select(cands, "q", 0.5);
        assert!(!passed);
        assert_eq!(ids(&kept), vec!["b", "a", "d"]);
    }

    #[test]
    fn empty_candidates_give_empty_results() {
        let (kept, passed) = select(Vec::<C>::new(), "q", 0.5);
        assert!(kept.is_empty() && !passed);
    }

    #[test]
    fn child_wins_unless_parent_is_clearly_higher() {
        let (kept, _) = select(vec![C("Store", None, 0.8), C("flush", Some("Store"), 0.75)], "where is data written", 0.5);
        assert_eq!(ids(&kept), vec!["flush"]);
        let (kept, _) = select(vec![C("Store", None, 0.95), C("flush", Some("Store"), 0.7)], "where is data written", 0.5);
        assert_eq!(ids(&kept), vec!["Store"]);
    }

    #[test]
    fn a_question_naming_the_parent_or_its_kind_keeps_it() {
        // The method scores within the margin, and would win.
        let cands = || vec![C("Store", None, 0.8), C("flush", Some("Store"), 0.78)];
        for q in ["how does Store keep data", "what does the store class do", "store.ts: the Store"] {
            let (kept, _) = select(cands(), q, 0.5);
            assert_eq!(ids(&kept), vec!["Store"], "{q}");
        }
        // Naming the method too keeps the method; naming another kind
        // ("function") keeps the more specific one.
        for q in ["Store flush", "which function writes data"] {
            let (kept, _) = select(cands(), q, 0.5);
            assert_eq!(ids(&kept), vec!["flush"], "{q}");
        }
    }
}
