//! Comment-only chunks in a ranking. A comment directly above
//! a declaration is part of its chunk (`chunk`); what stays a comment
//! chunk is a file header, a license or a section note. Such blocks,
//! repeated byte for byte across files, crowded answers: the same header
//! of twelve adapter files took five to seven of one answer's ten places.
//! Here a block repeated in two files ranks once (its best copy), one in
//! three or more files (a license, a generated header) not at all, and at
//! most `COMMENTS_IN_TOP` comment chunks take a place in the top 10. The
//! search runs these rules after every reordering step, the concise
//! list's same-file decay included.

use crate::chunk::CodeChunk;

use super::steps::COMMENTS_IN_TOP;

/// In this many files, a repeated comment block is boilerplate.
const BOILERPLATE_FILES: usize = 3;

/// The places a ranking's top holds.
const TOP: usize = 10;

/// Applies both rules to `ranked` (best first): later copies of a comment
/// block are dropped, and the comment chunks past the first
/// `COMMENTS_IN_TOP` score just below the tenth other candidate, so they
/// fall out of the top 10 (scores stay in order: `select` sorts again).
pub fn limit<T>(ranked: &mut Vec<T>, chunk: impl Fn(&T) -> &CodeChunk, score: impl Fn(&mut T) -> &mut f64) {
    // A block in `BOILERPLATE_FILES` or more files is boilerplate (a
    // license, a generated header): none of its copies ranks.
    let mut files: std::collections::HashMap<String, std::collections::HashSet<&str>> = std::collections::HashMap::new();
    for t in ranked.iter() {
        let c = chunk(t);
        if c.node_kind == "comment" {
            files.entry(normalized(&c.full_source)).or_default().insert(c.relative_path.as_str());
        }
    }
    let boilerplate: std::collections::HashSet<String> = files.into_iter().filter(|(_, f)| f.len() >= BOILERPLATE_FILES).map(|(k, _)| k).collect();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    ranked.retain(|t| {
        let c = chunk(t);
        if c.node_kind != "comment" {
            return true;
        }
        let text = normalized(&c.full_source);
        !boilerplate.contains(&text) && seen.insert(text)
    });
    let mut comments = 0;
    let mut extra = Vec::new();
    let mut others: Vec<f64> = Vec::new();
    for (i, t) in ranked.iter_mut().enumerate() {
        if chunk(t).node_kind == "comment" {
            comments += 1;
            if comments > COMMENTS_IN_TOP {
                extra.push(i);
                continue;
            }
        }
        others.push(*score(t));
    }
    if extra.is_empty() {
        return;
    }
    // Below the tenth place the others hold (or below the last of them).
    let floor = others.get(TOP - 1).or(others.last()).copied().unwrap_or(0.0);
    for &i in &extra {
        let s = score(&mut ranked[i]);
        *s = s.min(floor * 0.999);
    }
    let mut keyed: Vec<(f64, usize, T)> = ranked.drain(..).enumerate().map(|(i, mut t)| (*score(&mut t), i, t)).collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.extend(keyed.into_iter().map(|(_, _, t)| t));
}

/// A comment's text with each line trimmed: the same header indented
/// differently is the same header.
fn normalized(text: &str) -> String {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(path: &str, kind: &str, source: &str) -> CodeChunk {
        crate::chunk::test_chunk(path, kind, source)
    }

    #[test]
    fn a_block_in_three_files_is_boilerplate_and_never_ranks() {
        let header = "/**\n * Adapter for the fetch API.\n * Copyright the authors.\n */";
        let mut ranked: Vec<(CodeChunk, f64)> = vec![
            (chunk("a/adapter.ts", "comment", header), 0.9),
            (chunk("b/adapter.ts", "comment", &header.replace("\n *", "\n   *")), 0.89),
            (chunk("c/adapter.ts", "comment", header), 0.88),
            (chunk("a/other.ts", "comment", "// another note"), 0.87),
            (chunk("a/adapter.ts", "function", "function adapt() {}"), 0.5),
        ];
        limit(&mut ranked, |(c, _)| c, |(_, s)| s);
        let order: Vec<(&str, &str)> = ranked.iter().map(|(c, _)| (c.relative_path.as_str(), c.node_kind.as_str())).collect();
        // The header is in three files: boilerplate, no copy ranks. The
        // first comment keeps its place above the function.
        assert_eq!(order, vec![("a/other.ts", "comment"), ("a/adapter.ts", "function")]);
    }

    #[test]
    fn a_block_in_two_files_ranks_once_and_one_comment_at_most_holds_a_top_place() {
        let header = "/**\n * Adapter for the fetch API.\n */";
        let mut ranked: Vec<(CodeChunk, f64)> = vec![
            (chunk("a/adapter.ts", "comment", header), 0.9),
            (chunk("b/adapter.ts", "comment", &header.replace("\n *", "\n   *")), 0.89),
            (chunk("a/other.ts", "comment", "// another note"), 0.87),
            (chunk("a/adapter.ts", "function", "function adapt() {}"), 0.5),
        ];
        limit(&mut ranked, |(c, _)| c, |(_, s)| s);
        let order: Vec<(&str, &str)> = ranked.iter().map(|(c, _)| (c.relative_path.as_str(), c.node_kind.as_str())).collect();
        // The block once (its best copy), the function, then the other
        // comment below every non-comment candidate.
        assert_eq!(order, vec![("a/adapter.ts", "comment"), ("a/adapter.ts", "function"), ("a/other.ts", "comment")]);
        assert!(ranked[2].1 < ranked[1].1);
    }
}
