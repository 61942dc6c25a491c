//! Retrieval quality, measured: graded ground truth as line ranges, the
//! metrics (NDCG@10, Recall@5, MRR@10), and the peers' baseline (BM25 over
//! 2,500-character windows with 300 overlap). Used by `tsq bench search`.

use std::collections::HashMap;

/// One ground-truth declaration.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Relevant {
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub grade: u32,
}

/// One evaluation query (`benches/search-eval/queries.jsonl`).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct EvalQuery {
    /// Names the query in `TSQ_BENCH_DUMP`'s per-query rankings.
    pub id: String,
    pub repo: String,
    pub split: String,
    pub query: String,
    pub relevant: Vec<Relevant>,
    /// The commit a change-localization question is the subject of
    /// (`changes-<repo>.jsonl`); history evidence reads only the commits
    /// before it.
    #[serde(default)]
    pub commit: Option<String>,
    /// The question's kind in the agent-style sets (architecture,
    /// behaviour, symbol): each kind is also reported apart.
    #[serde(default)]
    pub kind: Option<String>,
}

/// A returned span.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub path: String,
    pub start: u32,
    pub end: u32,
}

/// Gains of a ranked list: each hit is credited with the ground-truth entry
/// it overlaps most specifically (highest overlap over union); an entry is
/// credited once, so duplicates and big windows earn nothing extra.
fn gains(hits: &[Hit], truth: &[Relevant]) -> Vec<(u32, Option<usize>)> {
    let mut used = vec![false; truth.len()];
    hits.iter()
        .map(|h| {
            let best = truth
                .iter()
                .enumerate()
                .filter(|(_, t)| t.path == h.path && t.start <= h.end && h.start <= t.end)
                .map(|(i, t)| {
                    let inter = (t.end.min(h.end) - t.start.max(h.start) + 1) as f64;
                    let union = (t.end.max(h.end) - t.start.min(h.start) + 1) as f64;
                    (i, inter / union)
                })
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match best {
                Some((i, _)) if !used[i] => {
                    used[i] = true;
                    (truth[i].grade, Some(i))
                }
                _ => (0, None),
            }
        })
        .collect()
}

/// NDCG@k with gains 2^grade - 1.
pub fn ndcg(hits: &[Hit], truth: &[Relevant], k: usize) -> f64 {
    let g = gains(&hits[..hits.len().min(k)], truth);
    let dcg: f64 = g.iter().enumerate().map(|(i, (grade, _))| ((1u64 << grade) - 1) as f64 / ((i + 2) as f64).log2()).sum();
    let mut ideal: Vec<u32> = truth.iter().map(|t| t.grade).collect();
    ideal.sort_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal.iter().take(k).enumerate().map(|(i, grade)| ((1u64 << grade) - 1) as f64 / ((i + 2) as f64).log2()).sum();
    if idcg == 0.0 {
        0.0
    } else {
        dcg / idcg
    }
}

/// File-level NDCG@k: a hit is any chunk of a target file (graded by the
/// file's best entry), each file credited once; the ideal list holds
/// min(k, target files) files.
pub fn ndcg_files(hits: &[Hit], truth: &[Relevant], k: usize) -> f64 {
    let mut grade_of: HashMap<&str, u32> = HashMap::new();
    for t in truth {
        let g = grade_of.entry(t.path.as_str()).or_insert(0);
        *g = (*g).max(t.grade);
    }
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let dcg: f64 = hits
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, h)| {
            let g = if seen.insert(h.path.as_str()) { grade_of.get(h.path.as_str()).copied().unwrap_or(0) } else { 0 };
            ((1u64 << g) - 1) as f64 / ((i + 2) as f64).log2()
        })
        .sum();
    let mut ideal: Vec<u32> = grade_of.values().copied().collect();
    ideal.sort_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal.iter().take(k).enumerate().map(|(i, g)| ((1u64 << g) - 1) as f64 / ((i + 2) as f64).log2()).sum();
    if idcg == 0.0 {
        0.0
    } else {
        dcg / idcg
    }
}

/// Share of the relevant entries (grade >= 2) found in the top k.
pub fn recall(hits: &[Hit], truth: &[Relevant], k: usize) -> f64 {
    let wanted = truth.iter().filter(|t| t.grade >= 2).count();
    if wanted == 0 {
        return 0.0;
    }
    let found = gains(&hits[..hits.len().min(k)], truth).iter().filter(|(g, _)| *g >= 2).count();
    found as f64 / wanted as f64
}

/// 1 / rank of the first relevant (grade >= 2) hit in the top k.
pub fn mrr(hits: &[Hit], truth: &[Relevant], k: usize) -> f64 {
    gains(&hits[..hits.len().min(k)], truth).iter().position(|(g, _)| *g >= 2).map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// Lower-cased word tokens (letters and digits), as a plain text BM25 does.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect()
}

/// The peers' baseline: BM25 (k1 1.2, b 0.75) over fixed windows of the
/// raw files.
pub struct WindowBm25 {
    windows: Vec<(Hit, HashMap<String, u32>, usize)>,
    df: HashMap<String, usize>,
    avg_len: f64,
}

impl WindowBm25 {
    /// Windows of `size` characters with `overlap`, over (path, text) files.
    pub fn new(files: &[(String, String)], size: usize, overlap: usize) -> WindowBm25 {
        let mut windows = Vec::new();
        let mut df: HashMap<String, usize> = HashMap::new();
        for (path, text) in files {
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            let mut start = 0;
            loop {
                let end = (start + size).min(chars.len());
                let (b0, b1) = (chars.get(start).map_or(text.len(), |c| c.0), chars.get(end).map_or(text.len(), |c| c.0));
                let slice = &text[b0..b1];
                let line0 = text[..b0].matches('\n').count() as u32 + 1;
                let line1 = line0 + slice.matches('\n').count() as u32;
                let toks = words(slice);
                let mut tf: HashMap<String, u32> = HashMap::new();
                for t in &toks {
                    *tf.entry(t.clone()).or_default() += 1;
                }
                for t in tf.keys() {
                    *df.entry(t.clone()).or_default() += 1;
                }
                windows.push((Hit { path: path.clone(), start: line0, end: line1 }, tf, toks.len()));
                if end >= chars.len() {
                    break;
                }
                start = end - overlap;
            }
        }
        let avg_len = windows.iter().map(|w| w.2).sum::<usize>() as f64 / windows.len().max(1) as f64;
        WindowBm25 { windows, df, avg_len }
    }

    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        self.search_scored(query, k).into_iter().map(|(h, _)| h).collect()
    }

    /// The `k` best windows with their BM25 scores, best first.
    pub fn search_scored(&self, query: &str, k: usize) -> Vec<(Hit, f64)> {
        let (k1, b) = (1.2, 0.75);
        let n = self.windows.len() as f64;
        let terms = words(query);
        let mut scored: Vec<(f64, usize)> = self
            .windows
            .iter()
            .enumerate()
            .map(|(i, (_, tf, len))| {
                let s: f64 = terms
                    .iter()
                    .filter_map(|t| {
                        let f = *tf.get(t)? as f64;
                        let df = *self.df.get(t)? as f64;
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        Some(idf * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * *len as f64 / self.avg_len)))
                    })
                    .sum();
                (s, i)
            })
            .filter(|(s, _)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.into_iter().take(k).map(|(s, i)| (self.windows[i].0.clone(), s)).collect()
    }
}

/// The independent test label (issue 24), apart from the classifier that
/// demotes tests (`tsq::files::classify`): a path that says test or spec
/// in any part (a `test`, `tests`, `__tests__`, `spec` directory, or a
/// `.test.`/`.spec.`/`-test`/`_spec` file name), or a file that calls a
/// test framework at the start of a line, naming the case with a string
/// (`describe('…'`, `it("…"`, `test(\`…\``, `describe.skip('…'`) or a
/// table (`it.each(…)(`).
pub fn is_test_file(path: &str, text: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let path_says = lower.split(['/', '.', '-', '_']).any(|part| matches!(part, "test" | "tests" | "__tests__" | "spec" | "specs" | "e2e"));
    path_says
        || text.lines().any(|line| {
            let t = line.trim_start();
            ["describe", "it", "test"].iter().any(|f| {
                // A call names its case with a string; a method that is
                // itself called `describe` (zod's `describe(description:
                // string): this`) is not a test.
                t.strip_prefix(f).is_some_and(|rest| {
                    let rest = rest.strip_prefix(".skip").or_else(|| rest.strip_prefix(".only")).unwrap_or(rest);
                    rest.starts_with(".each") || rest.strip_prefix('(').is_some_and(|arg| arg.starts_with(['\'', '"', '`']))
                })
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(path: &str, start: u32, end: u32, grade: u32) -> Relevant {
        Relevant { path: path.into(), start, end, grade }
    }
    fn hit(path: &str, start: u32, end: u32) -> Hit {
        Hit { path: path.into(), start, end }
    }

    #[test]
    fn metrics_credit_each_truth_once_and_prefer_the_most_specific() {
        let truth = vec![rel("a.ts", 1, 100, 2), rel("a.ts", 10, 20, 3)];
        // The method's own range matches the grade-3 entry, not the class.
        assert_eq!(gains(&[hit("a.ts", 10, 20)], &truth), vec![(3, Some(1))]);
        // A duplicate earns nothing.
        let g = gains(&[hit("a.ts", 10, 20), hit("a.ts", 11, 19)], &truth);
        assert_eq!(g[1], (0, None));
        // Perfect order gives NDCG 1; nothing relevant gives 0.
        assert!((ndcg(&[hit("a.ts", 10, 20), hit("a.ts", 1, 100)], &truth, 10) - 1.0).abs() < 1e-9);
        assert_eq!(ndcg(&[hit("b.ts", 1, 5)], &truth, 10), 0.0);
        assert_eq!(mrr(&[hit("b.ts", 1, 5), hit("a.ts", 10, 20)], &truth, 10), 0.5);
        assert_eq!(recall(&[hit("a.ts", 10, 20)], &truth, 5), 0.5);
    }

    #[test]
    fn the_test_label_reads_paths_and_framework_calls() {
        assert!(is_test_file("packages/query-core/src/__tests__/query.test.tsx", ""));
        assert!(is_test_file("src/utils.spec.ts", ""));
        assert!(is_test_file("packages/x/src/helpers.ts", "import { it } from 'vitest'\n\ndescribe('x', () => {\n  it('y', () => {})\n})\n"));
        assert!(is_test_file("packages/x/src/table.ts", "  it.each([1, 2])('n', (n) => {})"));
        assert!(!is_test_file("packages/query-core/src/retryer.ts", "export function createRetryer() {\n  item(1)\n}\n"));
        assert!(!is_test_file("packages/latest/src/testing-library.ts", "const testing = 1"), "a word that only contains test");
        assert!(
            !is_test_file("v3/types.ts", "class ZodType {\n  describe(description: string): this {\n    return this;\n  }\n}\n"),
            "a method named describe"
        );
        assert!(is_test_file("src/a.ts", "describe.skip(\"later\", () => {})\n"));
        assert!(is_test_file("src/a.ts", "test(`case ${n}`, () => {})\n"));
    }

    #[test]
    fn window_bm25_finds_the_window_with_the_terms() {
        let files = vec![("a.ts".to_string(), "alpha beta\n".repeat(300)), ("b.ts".to_string(), "refresh token here\n".to_string())];
        let idx = WindowBm25::new(&files, 2500, 300);
        let top = idx.search("refresh the token", 3);
        assert_eq!(top[0].path, "b.ts");
        assert!(idx.windows.len() >= 3, "a 3,300-char file makes two windows");
    }
}
