//! Path evidence (issue 45): how much of a question a file's path names.
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

/// The share of the question's distinct content words (3 characters or
/// more) that name a part of `path`: its directories and file stem.
pub(crate) fn path_match(path: &str, query_words: &[String]) -> f64 {
    let mut distinct: Vec<&str> = Vec::new();
    for w in query_words {
        if w.len() >= 3 && !distinct.contains(&w.as_str()) {
            distinct.push(w);
        }
    }
    if distinct.is_empty() {
        return 0.0;
    }
    let stem_path = path.rsplit_once('.').map_or(path, |(stem, ext)| if ext.contains('/') { path } else { stem });
    // `foo.test.ts`, `foo.d.ts`: the inner extension is not a name.
    let stem_path = stem_path.trim_end_matches(".d").trim_end_matches(".test").trim_end_matches(".spec");
    let parts: Vec<String> = words(stem_path).into_iter().filter(|p| p.len() >= 2 && !NOISE.contains(&p.as_str())).collect();
    let hits = distinct.iter().filter(|w| parts.iter().any(|p| same_word(w, p))).count();
    hits as f64 / distinct.len() as f64
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
        assert_eq!(path_match("packages/runtime-core/src/scheduler.ts", &q), 1.0 / 4.0);
        assert_eq!(path_match("packages/runtime-core/src/queueFlush.ts", &q), 2.0 / 4.0);
        assert_eq!(path_match("src/index.ts", &content_words("where is the index built")), 0.0);
        assert_eq!(path_match("src/collect.ts", &content_words("what collects the results")), 0.5);
        assert_eq!(path_match("src/router.test.ts", &content_words("router")), 1.0);
        assert!(stem_is("src/create-router.ts", "createRouter"));
        assert!(!stem_is("src/router.ts", "createRouter"));
    }
}
