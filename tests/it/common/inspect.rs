//! The differential check of `tsq inspect` shared by the structure and
//! occurrence tests: an answer through the engine against the live
//! Language Service with every program built.

use tsq::api::InspectAnswer;
use tsq::workspace::{InspectConfig, Workspace};

/// Where `answer` (to `q`, at `call_depth`) differs from `live`'s: the
/// matches, the workspace and the coverage (only which programs each
/// process built may differ), as both sides' JSON; `None` when equal.
pub fn differs(answer: &InspectAnswer, live: &Workspace, q: &str, call_depth: i32) -> Option<String> {
    differs_but(answer, live, q, call_depth, false)
}

/// `differs`, with every match's references left out of the comparison
/// when `without_references` (a known difference that concerns them
/// alone: every other field is still compared).
#[allow(dead_code)]
pub fn differs_but(answer: &InspectAnswer, live: &Workspace, q: &str, call_depth: i32, without_references: bool) -> Option<String> {
    let parsed = tsq::query::SymbolQuery::parse(q).unwrap();
    let expected = live.inspect(&parsed, &InspectConfig { call_depth, resolvers: None }).unwrap();
    differs_from(answer, &expected, live, without_references)
}

/// `differs_but` against a live answer already computed on `live`.
#[allow(dead_code)]
pub fn differs_from(answer: &InspectAnswer, expected: &tsq::answer::Inspection, live: &Workspace, without_references: bool) -> Option<String> {
    let mut expected = expected.clone();
    let mut answer = answer.clone();
    if without_references {
        for m in answer.result.matches.iter_mut().chain(expected.matches.iter_mut()) {
            m.references = Default::default();
        }
    }
    let answer = &answer;
    let (a, b) = (&answer.result.coverage, &expected.coverage);
    let projects = |c: &tsq::answer::Coverage| {
        let mut all: Vec<String> = c.projects_loaded.iter().chain(&c.projects_not_loaded).cloned().collect();
        all.sort();
        all
    };
    let mut info = live.info();
    info.build_log.clear();
    let mut got = answer.workspace.clone();
    got.build_log.clear();
    let pretty = |m: &Vec<tsq::answer::SymbolMetadata>| serde_json::to_string_pretty(m).unwrap();
    let same = same_but_union_order(&pretty(&answer.result.matches), &pretty(&expected.matches))
        && got == info
        && projects(a) == projects(b)
        && (&a.projects_used, &a.partial, a.files_outside_projects, &a.config_errors)
            == (&b.projects_used, &b.partial, b.files_outside_projects, &b.config_errors);
    (!same).then(|| {
        format!(
            "--- from the engine\n{}\n--- live\n{}",
            serde_json::to_string_pretty(&(&answer.result, &got)).unwrap(),
            serde_json::to_string_pretty(&(&expected, &info)).unwrap()
        )
    })
}

/// Whether two texts are equal line by line, where lines that differ
/// differ only in the order of union members (`A | B` and `B | A`, at any
/// nesting). TypeScript prints a union's members in the order its checker
/// created their types (by type id), so the same declaration's signature
/// reads `string | A | B` after one history of checking and `string | B |
/// A` after another: a fresh tsserver and a warm one can differ the same
/// way. This is the one difference the occurrence index's comparisons
/// allow in text (ARCHITECTURE.md lists it).
pub fn same_but_union_order(a: &str, b: &str) -> bool {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    la.len() == lb.len() && la.iter().zip(&lb).all(|(x, y)| x == y || union_canonical(x) == union_canonical(y))
}

/// `text` with the members of every union (at every bracket depth) sorted.
/// A union runs between separators (`,` `;` `:` `=` `=>`, brackets and
/// the quotes of a JSON string: a union can end a signature's value).
pub fn union_canonical(text: &str) -> String {
    fn close(run: &mut Vec<String>, out: &mut String) {
        let mut parts: Vec<String> = std::mem::take(run).into_iter().map(|p| p.trim().to_string()).collect();
        if parts.len() > 1 {
            parts.sort();
        }
        out.push_str(&parts.join(" | "));
    }
    fn group(chars: &[char], i: &mut usize, closing: Option<char>) -> String {
        let mut out = String::new();
        let mut run = vec![String::new()];
        while *i < chars.len() {
            let c = chars[*i];
            if Some(c) == closing {
                break;
            }
            let next = chars.get(*i + 1).copied();
            let prev = if *i > 0 { Some(chars[*i - 1]) } else { None };
            match c {
                '(' | '[' | '{' | '<' => {
                    let end = match c {
                        '(' => ')',
                        '[' => ']',
                        '{' => '}',
                        _ => '>',
                    };
                    *i += 1;
                    let inner = group(chars, i, Some(end));
                    let part = run.last_mut().expect("a part");
                    part.push(c);
                    part.push_str(&inner);
                    if *i < chars.len() {
                        part.push(chars[*i]);
                        *i += 1;
                    }
                }
                '|' if next != Some('|') && prev != Some('|') => {
                    run.push(String::new());
                    *i += 1;
                }
                ',' | ';' | ':' | '=' | '"' => {
                    close(&mut run, &mut out);
                    run = vec![String::new()];
                    out.push(c);
                    *i += 1;
                    if c == '=' && next == Some('>') {
                        out.push('>');
                        *i += 1;
                    }
                }
                _ => {
                    run.last_mut().expect("a part").push(c);
                    *i += 1;
                }
            }
        }
        close(&mut run, &mut out);
        out
    }
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut out = String::new();
    while i < chars.len() {
        out.push_str(&group(&chars, &mut i, None));
        if i < chars.len() {
            // An unbalanced closer: kept as it is.
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}
