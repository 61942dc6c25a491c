//! Which changed files a limited sync parses first (`sync::Limit`): on a
//! workspace still being indexed, `tsq serve` parses the files nearest the
//! question before it answers and leaves the rest to its background
//! worker. The text is read and hashed by the sync anyway, so the order
//! costs one lowercase copy and a substring count per word: BM25 over raw
//! whole files, the path counted as a field of its own.

/// The order in which to parse `files` (relative path, text) for a
/// question of lowercase `words`: best first, ties in walk order. With no
/// words, walk order.
pub(super) fn order(files: &[(&str, &str)], words: &[String]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..files.len()).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).filter(|w| w.len() >= 3).collect();
    if words.is_empty() || files.is_empty() {
        return idx;
    }
    // Term frequencies, per file and word, in the text and in the path.
    let tf: Vec<Vec<(usize, bool)>> = files
        .iter()
        .map(|(path, text)| {
            let (text, path) = (text.to_lowercase(), path.to_lowercase());
            words.iter().map(|w| (text.matches(w).count(), path.contains(w))).collect()
        })
        .collect();
    let n = files.len() as f64;
    let avg = files.iter().map(|(_, t)| t.len()).sum::<usize>() as f64 / n;
    let idf: Vec<f64> = (0..words.len())
        .map(|j| {
            let df = tf.iter().filter(|f| f[j].0 > 0 || f[j].1).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let (k1, b) = (1.2, 0.75);
    let score: Vec<f64> = tf
        .iter()
        .zip(files)
        .map(|(f, (_, text))| {
            let norm = k1 * (1.0 - b + b * text.len() as f64 / avg.max(1.0));
            f.iter()
                .zip(&idf)
                .map(|(&(count, in_path), idf)| {
                    let count = count as f64;
                    idf * (count * (k1 + 1.0) / (count + norm) + if in_path { 1.0 } else { 0.0 })
                })
                .sum()
        })
        .collect();
    idx.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_say_the_questions_words_come_first_and_the_path_counts() {
        let files = [
            ("src/a.ts", "export const a = 1;"),
            ("src/retry.ts", "export function backoff() { return 2; }"),
            ("src/b.ts", "function send() { retry(); retry(); } // retry the request"),
            ("src/c.ts", "export const c = 3;"),
        ];
        let words = vec!["retry".to_string(), "request".to_string(), "the".to_string()];
        // b says both words; retry.ts has one in its path only; the rest
        // none, in walk order.
        assert_eq!(order(&files, &words), vec![2, 1, 0, 3]);
        assert_eq!(order(&files, &[]), vec![0, 1, 2, 3], "no words: walk order");
    }
}
