//! The Rust paths a module's code names (`crate::`, `super::`, `self::`,
//! a parent's `child::`), read from its text without comments and unit
//! tests: what `layers.rs` builds the module graph from.

use std::collections::BTreeSet;

/// The code of a file without comments and without its unit tests (a
/// `#[cfg(test)] mod tests` may name anything).
pub(super) fn code_of(text: &str) -> String {
    let tests = text.match_indices("\nmod tests").map(|(i, _)| i + 1).find(|&i| {
        let attr = &text[text[..i - 1].rfind('\n').map_or(0, |s| s + 1)..i - 1];
        attr.starts_with("#[cfg(") && attr.contains("test")
    });
    let text = match tests {
        Some(i) => &text[..text[..i - 1].rfind('\n').map_or(0, |s| s + 1)],
        None => text,
    };
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// A path a module's code names, made absolute (segments from the crate
/// root).
#[derive(Debug, PartialEq)]
pub(super) struct Named {
    pub line: usize,
    pub path: Vec<String>,
    /// The name it is known by here: its alias, else its last segment;
    /// `None` for a glob.
    pub name: Option<String>,
    /// Named by a `pub use` (of any visibility): a re-export.
    pub reexport: bool,
}

/// The paths a file's code names from `crate::`, `super::` or `self::`,
/// or, in a parent, from one of its `children` (`child::x`).
pub(super) fn named_paths(code: &str, module: &[String], children: &BTreeSet<String>) -> Vec<Named> {
    let mut out = Vec::new();
    // The module `super` names (a `mod.rs` is its directory's module).
    let parent_of = |ups: usize| -> Vec<String> { module[..module.len().saturating_sub(ups)].to_vec() };
    let bytes: Vec<char> = code.chars().collect();
    let text = |a: usize, b: usize| -> String { bytes[a.min(bytes.len())..b.min(bytes.len())].iter().collect() };
    let line_at = |i: usize| bytes[..i].iter().filter(|&&c| c == '\n').count() + 1;
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == ':' || bytes[i - 1] == '.');
        let mut word_end = i;
        while word_end < bytes.len() && is_ident(bytes[word_end]) {
            word_end += 1;
        }
        let word = text(i, word_end);
        let child_path = children.contains(&word) && text(word_end, word_end + 2) == "::" && text(word_end + 2, word_end + 3) != "<";
        let (base, mut j) = if !starts_word {
            i += 1;
            continue;
        } else if text(i, i + 7) == "crate::" {
            (Vec::new(), i + 7)
        } else if text(i, i + 7) == "super::" {
            let mut ups = 0;
            let mut j = i;
            while text(j, j + 7) == "super::" {
                ups += 1;
                j += 7;
            }
            (parent_of(ups), j)
        } else if text(i, i + 6) == "self::" {
            (module.to_vec(), i + 6)
        } else if child_path {
            (module.to_vec(), i)
        } else {
            i = word_end.max(i + 1);
            continue;
        };
        let line = line_at(i);
        // The statement so far: `pub use`, `pub(crate) use`, … re-export.
        let from = bytes[..i].iter().rposition(|&c| c == ';' || c == '{' || c == '}').map_or(0, |s| s + 1);
        let before = text(from, i);
        let words: Vec<&str> = before.split_whitespace().collect();
        let reexport = words.last() == Some(&"use") && words.iter().any(|w| w.starts_with("pub"));
        // Segments, then a glob, an alias or a `{…}` group.
        let mut prefix = base;
        loop {
            let start = j;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            if j > start {
                prefix.push(text(start, j));
            }
            if text(j, j + 2) == "::" {
                j += 2;
                continue;
            }
            break;
        }
        if j < bytes.len() && bytes[j] == '{' {
            let mut depth = 0;
            let start = j;
            while j < bytes.len() {
                match bytes[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            for (p, name) in group_paths(&text(start + 1, j)) {
                let mut full = prefix.clone();
                full.extend(p);
                let name = name.or_else(|| full.last().cloned()).filter(|n| n != "*");
                out.push(Named { line, path: full, name, reexport });
            }
        } else {
            let glob = j < bytes.len() && bytes[j] == '*';
            let alias = text(j, bytes.len().min(j + 80)).strip_prefix(" as ").map(|rest| rest.chars().take_while(|&c| is_ident(c)).collect::<String>());
            let name = if glob { None } else { alias.or_else(|| prefix.last().cloned()) };
            out.push(Named { line, path: prefix, name, reexport });
        }
        i = j.max(i + 1);
    }
    out
}

/// The paths inside a `use` group: `a, b::c, d::{e, f}` (`self` dropped),
/// each with its alias (`b::c as d`; `*` for a glob).
fn group_paths(group: &str) -> Vec<(Vec<String>, Option<String>)> {
    let mut parts = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    let mut out = Vec::new();
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        if let (Some(open), Some(close)) = (p.find('{'), p.rfind('}')) {
            let head: Vec<String> = p[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
            for (rest, alias) in group_paths(&p[open + 1..close]) {
                let mut full = head.clone();
                full.extend(rest);
                out.push((full, alias));
            }
        } else {
            let mut halves = p.split(" as ");
            let path = halves.next().unwrap_or(p);
            let alias = halves.next().map(|a| a.trim().to_string()).or_else(|| path.trim().ends_with('*').then(|| "*".to_string()));
            out.push((path.split("::").map(str::trim).filter(|s| !s.is_empty() && *s != "self" && *s != "*").map(String::from).collect(), alias));
        }
    }
    out
}

/// `code` without its `use` items: what the module's own code names.
pub(super) fn without_use_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.match_indices("use ").map(|(i, _)| i).find(|&i| i == 0 || !is_ident(rest[..i].chars().last().unwrap())) {
        out.push_str(&rest[..at]);
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e + 1);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

pub(super) fn has_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(i, _)| {
        let before = code[..i].chars().last();
        let after = code[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}
