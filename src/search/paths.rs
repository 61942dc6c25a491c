//! Path evidence: how much of a question a file's path names.
//! Query words are matched against the file stem and the parent
//! directories, split like identifiers, by light stemming on both sides
//! and by prefix (the shorter side at least 3 characters), so
//! "collects" finds `collect.ts` and "initializes" finds `init.ts`. The
//! ratio is over the question's distinct content words; `rank` turns it
//! into a boost scaled to the current top score, so a file the question
//! names can win.

use super::shape::words;

/// Path parts that say nothing about what a file does.
const NOISE: &[&str] = &["src", "lib", "dist", "packages", "package", "index", "main", "mod", "internal", "source", "sources"];

/// A word without its common English inflection: plural `s`/`es`/`ies`,
/// `ing`, `ed`, `er`, `ation(s)`, and a final `e` (so "create",
/// "created" and "creates" meet at "creat").
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    let mut s = w.as_str();
    for suffix in ["ations", "ation", "ings", "ing", "ies", "es", "ed", "er", "s"] {
        if let Some(rest) = s.strip_suffix(suffix) {
            if rest.len() >= 3 {
                s = rest;
                break;
            }
        }
    }
    let mut out = s.to_string();
    if w.ends_with("ies") && s.len() + 3 == w.len() {
        out.push('y');
    }
    if out.len() > 3 && out.ends_with('e') {
        out.pop();
    }
    out
}

/// Whether a query word and a path part name the same thing: equal stems,
/// or one stem a prefix of the other with the shorter at least 3
/// characters long.
pub(crate) fn same_word(query_word: &str, part: &str) -> bool {
    let (a, b) = (stem(query_word), stem(part));
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    short.len() >= 3 && long.starts_with(short.as_str())
}

/// The question's distinct content words of 3 characters or more: what
/// path evidence counts over.
fn distinct(query_words: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for w in query_words {
        if w.len() >= 3 && !out.contains(&w.as_str()) {
            out.push(w);
        }
    }
    out
}

/// The parts of `path` a word can name: its directories and file stem,
/// split like identifiers, noise parts left out.
fn parts(path: &str) -> Vec<String> {
    let stem_path = path.rsplit_once('.').map_or(path, |(stem, ext)| if ext.contains('/') { path } else { stem });
    // `foo.test.ts`, `foo.d.ts`: the inner extension is not a name.
    let stem_path = stem_path.trim_end_matches(".d").trim_end_matches(".test").trim_end_matches(".spec");
    words(stem_path).into_iter().filter(|p| p.len() >= 2 && !NOISE.contains(&p.as_str())).collect()
}

/// How much each query word says when a path names it
/// (`Steps::path_specificity`): `ln(N / df) / ln(N)` over the workspace's
/// `N` files, `df` of which have a path part the word names. A word that
/// names one file's path counts fully; one that names a directory most
/// files sit in (`server` in a monorepo's `packages/server/`) counts
/// little. Words no path names, and workspaces of one file, count 1.
pub(crate) fn specificity(all_paths: &[String], query_words: &[String]) -> std::collections::HashMap<String, f64> {
    use std::collections::{HashMap, HashSet};
    let words = distinct(query_words);
    let n = all_paths.len();
    let mut out: HashMap<String, f64> = words.iter().map(|w| (w.to_string(), 1.0)).collect();
    if n < 2 || words.is_empty() {
        return out;
    }
    // A directory is split once however many files it holds, and each
    // distinct part (a directory's, a file stem's) compared once.
    let mut by_part: HashMap<String, Vec<usize>> = HashMap::new();
    let mut named_by = |parts: Vec<String>, named: &mut HashSet<usize>| {
        for p in parts {
            named.extend(by_part.entry(p).or_insert_with_key(|p| (0..words.len()).filter(|&i| same_word(words[i], p)).collect()).iter().copied());
        }
    };
    let mut by_dir: HashMap<&str, HashSet<usize>> = HashMap::new();
    let mut df = vec![0usize; words.len()];
    for path in all_paths {
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        let mut named = by_dir
            .entry(dir)
            .or_insert_with(|| {
                let mut in_dir = HashSet::new();
                named_by(parts(&format!("{dir}/")), &mut in_dir);
                in_dir
            })
            .clone();
        named_by(parts(file), &mut named);
        named.into_iter().for_each(|i| df[i] += 1);
    }
    let total = (n as f64).ln();
    for (w, &d) in words.iter().zip(&df) {
        if d > 0 {
            out.insert(w.to_string(), ((n as f64 / d as f64).ln() / total).clamp(0.0, 1.0));
        }
    }
    out
}

/// The share of the question's distinct content words (3 characters or
/// more) that name a part of `path`: its directories and file stem. With
/// `weights` (`specificity`), each word counts as much as it says.
pub(crate) fn path_match(path: &str, query_words: &[String], weights: Option<&std::collections::HashMap<String, f64>>) -> f64 {
    let distinct = distinct(query_words);
    if distinct.is_empty() {
        return 0.0;
    }
    let parts = parts(path);
    let weight = |w: &str| weights.and_then(|m| m.get(w)).copied().unwrap_or(1.0);
    let hits: f64 = distinct.iter().filter(|w| parts.iter().any(|p| same_word(w, p))).map(|w| weight(w)).sum();
    hits / distinct.len() as f64
}

/// Whether `name` is the file's stem, compared without case, `-` or `_`
/// (`createRouter` in `create-router.ts`).
pub(crate) fn stem_is(path: &str, name: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    let norm = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
    !name.is_empty() && norm(stem) == norm(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::shape::content_words;

    #[test]
    fn inflections_and_prefixes_match_path_parts() {
        assert_eq!(stem("collects"), "collect");
        assert_eq!(stem("created"), stem("create"));
        assert_eq!(stem("queries"), "query");
        assert!(same_word("collects", "collect"));
        assert!(same_word("initializes", "init"));
        assert!(same_word("config", "configuration"));
        assert!(!same_word("route", "body"));
        // Two letters never match by prefix.
        assert!(!same_word("op", "options"));
    }

    #[test]
    fn the_ratio_is_over_distinct_content_words_and_noise_parts_never_match() {
        let q = content_words("how does the scheduler flush the queue and the queue jobs");
        assert_eq!(path_match("packages/runtime-core/src/scheduler.ts", &q, None), 1.0 / 4.0);
        assert_eq!(path_match("packages/runtime-core/src/queueFlush.ts", &q, None), 2.0 / 4.0);
        assert_eq!(path_match("src/index.ts", &content_words("where is the index built"), None), 0.0);
        assert_eq!(path_match("src/collect.ts", &content_words("what collects the results"), None), 0.5);
        assert_eq!(path_match("src/router.test.ts", &content_words("router"), None), 1.0);
        assert!(stem_is("src/create-router.ts", "createRouter"));
        assert!(!stem_is("src/router.ts", "createRouter"));
    }

    #[test]
    fn a_word_that_names_a_directory_most_files_sit_in_counts_little() {
        let paths: Vec<String> = (0..6)
            .map(|i| format!("packages/server/src/handler{i}.ts"))
            .chain(["packages/server/src/router.ts", "packages/client/src/link.ts"].map(String::from))
            .collect();
        let q = content_words("where does the server router match a path");
        let w = specificity(&paths, &q);
        // `server` names 7 of 8 paths, `router` one, `match` and `path` none.
        assert!((w["server"] - (8.0f64 / 7.0).ln() / 8.0f64.ln()).abs() < 1e-12, "{w:?}");
        assert_eq!(w["router"], 1.0);
        assert_eq!(w["match"], 1.0);
        let plain = path_match("packages/server/src/router.ts", &q, None);
        let weighted = path_match("packages/server/src/router.ts", &q, Some(&w));
        assert_eq!(plain, 2.0 / 4.0);
        assert!((weighted - (1.0 + w["server"]) / 4.0).abs() < 1e-12);
        // A handler file is named by `server` alone: almost nothing.
        assert!(path_match("packages/server/src/handler0.ts", &q, Some(&w)) < 0.05);
        // One file: nothing to compare with, every word counts fully.
        assert_eq!(specificity(&paths[..1], &q)["server"], 1.0);
    }
}
