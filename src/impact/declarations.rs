//! Which declarations of one file changed between two texts, each parsed
//! by the vendored compiler's parser (`parse_pool`), and how: added,
//! removed, renamed, or changed in its API or only in its body.
//!
//! A declaration's own text is its span with its child declarations cut
//! out (a method's edit is the method's change, not its class's). Its API
//! text also leaves out the bodies that cannot change what callers see
//! (the parser's opaque bodies: a function with a written return type,
//! as the sync's API hash decides). Equal API text: a body-only change.
//! A changed body the type may be inferred from is `Inferred`, which the
//! compiler's own signatures settle (`api::impact`), else counted as API.
//! So is every function-like declaration of a file whose text outside its
//! declarations changed (a `/// <reference>`, an import): its inferred
//! type may have moved though its text did not.

use std::collections::HashMap;

use crate::parse::{LineRange, ParsedFile, ParsedSymbol, Span};

/// How a declaration changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    /// What callers see changed (its signature, members or type).
    Api,
    /// Only a body no caller's type depends on.
    Body,
    /// Only a body its type may be inferred from: the compiler decides.
    Inferred,
    Added,
    Removed,
    /// The same text under another name (a removal and an addition paired).
    Renamed,
}

/// One declaration of a parsed file.
#[derive(Debug, Clone)]
pub struct Decl {
    /// Containers, then the name.
    pub names: Vec<String>,
    pub kind: String,
    pub lines: LineRange,
    pub span: Span,
    /// The written signature (no body).
    pub signature: String,
    own: String,
    api: String,
    head: String,
}

/// A declaration that changed: the after side (`None` when removed) and
/// the before side (`None` when added).
#[derive(Debug, Clone)]
pub struct Changed {
    pub change: Change,
    pub before: Option<Decl>,
    pub after: Option<Decl>,
}

impl Changed {
    /// Whether the declaration's own text is the same on both sides: an
    /// `Inferred` candidate only because the text around it changed.
    pub fn unchanged_text(&self) -> bool {
        matches!((&self.before, &self.after), (Some(b), Some(a)) if b.own == a.own)
    }
}

/// Kinds that declare nothing a reference can name.
fn declares(kind: &str) -> bool {
    !matches!(kind, "import" | "export" | "expression")
}

/// Whitespace runs as one space (layout is not a change).
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text[span]` with each of `cuts` (sorted, disjoint, inside `span`)
/// replaced by its marker.
fn cut(text: &str, span: Span, cuts: &[(Span, &str)]) -> String {
    let mut out = String::new();
    let mut at = span.start;
    for (c, marker) in cuts {
        if c.start < at || c.end > span.end {
            continue;
        }
        out.push_str(text.get(at..c.start).unwrap_or(""));
        out.push_str(marker);
        at = c.end;
    }
    out.push_str(text.get(at..span.end).unwrap_or(""));
    out
}

/// Every declaration of `parsed`, keyed by its names (and `#k` for the
/// k-th of several with the same names and kind: overloads).
pub fn declarations(parsed: &ParsedFile) -> Vec<(String, Decl)> {
    let text = parsed.source.as_str();
    let bodies: Vec<Span> = parsed.bodies().into_iter().map(|r| Span { start: r.start, end: r.end }).collect();
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    fn visit(s: &ParsedSymbol, containers: &mut Vec<String>, text: &str, bodies: &[Span], seen: &mut HashMap<String, usize>, out: &mut Vec<(String, Decl)>) {
        let inside = |a: Span, b: Span| b.start <= a.start && a.end <= b.end;
        let children: Vec<Span> = s.children.iter().map(|c| c.span).collect();
        if declares(&s.kind) {
            // Opaque bodies of this declaration that no child holds, then
            // the children that no such body holds: disjoint, in order.
            let own_bodies: Vec<Span> = bodies.iter().copied().filter(|b| inside(*b, s.span) && !children.iter().any(|c| inside(*b, *c))).collect();
            let mut cuts: Vec<(Span, &str)> = children.iter().filter(|c| !own_bodies.iter().any(|b| inside(**c, *b))).map(|c| (*c, "\u{0}")).collect();
            let own = squash(&cut(text, s.span, &cuts));
            cuts.extend(own_bodies.iter().map(|b| (*b, "{}")));
            cuts.sort_by_key(|(c, _)| c.start);
            let api = squash(&cut(text, s.span, &cuts));
            let head_end = s.sig_span.end.clamp(s.span.start, s.span.end);
            let head = squash(&cut(text, Span { start: s.span.start, end: head_end }, &cuts));
            let mut names = containers.clone();
            names.push(s.name.clone());
            let base = format!("{} {}", accessor(&s.kind), names.join(" > "));
            let k = seen.entry(base.clone()).or_default();
            let key = if *k == 0 { base.clone() } else { format!("{base}#{k}") };
            *k += 1;
            out.push((key, Decl { names, kind: s.kind.clone(), lines: s.range, span: s.span, signature: s.signature.clone(), own, api, head }));
        }
        containers.push(s.name.clone());
        for c in &s.children {
            visit(c, containers, text, bodies, seen, out);
        }
        containers.pop();
    }
    let mut containers = Vec::new();
    for s in &parsed.symbols {
        visit(s, &mut containers, text, &bodies, &mut seen, &mut out);
    }
    out
}

/// `parsed`'s text outside its top-level declarations, layout squashed.
fn outside(parsed: &ParsedFile) -> String {
    let text = parsed.source.as_str();
    let mut cuts: Vec<(Span, &str)> = parsed.symbols.iter().map(|s| (s.span, "\u{0}")).collect();
    cuts.sort_by_key(|(c, _)| c.start);
    squash(&cut(text, Span { start: 0, end: text.len() }, &cuts))
}

/// Whether what names in other files are bound to stays as it was after
/// these changes of one file (`Defer::Cascade`): its text outside
/// declarations (imports, export lists, directives) is the same, no
/// declaration was added, removed or renamed, and each changed one keeps
/// the words before its name (`export`, `default`, `static`, its kind).
/// Such a change moves types at most: a file that uses it still refers to
/// the same declarations.
pub fn keeps_bindings(before: &ParsedFile, after: &ParsedFile, changed: &[Changed]) -> bool {
    let prefix = |d: &Decl| {
        let name = d.names.last().map_or("", |n| n.as_str());
        d.head.find(name).map(|at| d.head[..at].to_string())
    };
    // Imports, export lists and top-level statements count as outside.
    let unbound = |p: &ParsedFile| {
        let text = p.source.as_str();
        let kept: Vec<String> = p.symbols.iter().filter(|s| !declares(&s.kind)).map(|s| squash(text.get(s.span.start..s.span.end).unwrap_or(""))).collect();
        (outside(p), kept)
    };
    unbound(before) == unbound(after)
        && changed.iter().all(|c| match c.change {
            Change::Body | Change::Inferred => true,
            Change::Api => matches!((&c.before, &c.after), (Some(b), Some(a)) if prefix(b).is_some() && prefix(b) == prefix(a)),
            Change::Added | Change::Removed | Change::Renamed => false,
        })
}

/// A getter and a setter of one name are two declarations.
fn accessor(kind: &str) -> &'static str {
    match kind {
        "getter" => "get",
        "setter" => "set",
        _ => "",
    }
}

/// The declarations that differ between `before` and `after` (either may
/// be absent: an added or deleted file), in the after file's order, then
/// the removed ones.
pub fn compare(before: Option<&ParsedFile>, after: Option<&ParsedFile>) -> Vec<Changed> {
    let b = before.map(declarations).unwrap_or_default();
    let a = after.map(declarations).unwrap_or_default();
    // The file's text outside its declarations changed (a directive, an
    // import): an unchanged declaration's inferred type may have moved
    // with it, so each function-like one is `Inferred` too, for the
    // compiler's signatures to decide (`Changed::unchanged_text`).
    let context_changed = match (before, after) {
        (Some(x), Some(y)) => outside(x) != outside(y),
        _ => false,
    };
    let before_by: HashMap<&str, &Decl> = b.iter().map(|(k, d)| (k.as_str(), d)).collect();
    let after_keys: std::collections::HashSet<&str> = a.iter().map(|(k, _)| k.as_str()).collect();
    let mut out = Vec::new();
    let mut added = Vec::new();
    for (k, d) in &a {
        match before_by.get(k.as_str()) {
            None => added.push(d.clone()),
            Some(old) if old.own == d.own => {
                if context_changed && is_function_like(&d.kind) {
                    out.push(Changed { change: Change::Inferred, before: Some((*old).clone()), after: Some(d.clone()) });
                }
            }
            Some(old) => {
                let change = if old.api == d.api {
                    Change::Body
                } else if old.head == d.head && old.kind == d.kind && is_function_like(&d.kind) {
                    Change::Inferred
                } else {
                    Change::Api
                };
                out.push(Changed { change, before: Some((*old).clone()), after: Some(d.clone()) });
            }
        }
    }
    let mut removed: Vec<Decl> = b.iter().filter(|(k, _)| !after_keys.contains(k.as_str())).map(|(_, d)| d.clone()).collect();
    // A removal and an addition of the same kind and text but the name are
    // one rename, when the pairing is unique.
    let mut renamed = Vec::new();
    removed.retain(|r| {
        let same = |d: &Decl| {
            let (old, new) = (r.names.last().map_or("", |n| n.as_str()), d.names.last().map_or("", |n| n.as_str()));
            d.kind == r.kind && d.names.len() == r.names.len() && renamed_word(&r.own, old, new).is_some_and(|t| t == d.own)
        };
        let hits: Vec<usize> = added.iter().enumerate().filter(|(_, d)| same(d)).map(|(i, _)| i).collect();
        if let [i] = hits[..] {
            renamed.push((r.clone(), added.remove(i)));
            false
        } else {
            true
        }
    });
    out.extend(renamed.into_iter().map(|(r, d)| Changed { change: Change::Renamed, before: Some(r), after: Some(d) }));
    out.extend(added.into_iter().map(|d| Changed { change: Change::Added, before: None, after: Some(d) }));
    out.extend(removed.into_iter().map(|d| Changed { change: Change::Removed, before: Some(d), after: None }));
    out.sort_by_key(|c| c.after.as_ref().map_or(u32::MAX, |d| d.lines.start));
    out
}

/// `text` with its first whole-word `old` replaced by `new`.
fn renamed_word(text: &str, old: &str, new: &str) -> Option<String> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let at = text
        .match_indices(old)
        .map(|(i, _)| i)
        .find(|&i| !text[..i].chars().next_back().is_some_and(word) && !text[i + old.len()..].chars().next().is_some_and(word))?;
    Some(format!("{}{new}{}", &text[..at], &text[at + old.len()..]))
}

/// Kinds whose type a body may be inferred from.
fn is_function_like(kind: &str) -> bool {
    matches!(kind, "function" | "method" | "getter" | "generator" | "component" | "const" | "variable" | "property")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_pool::{ParsePool, ParsePoolConfig};

    fn changes(before: &str, after: &str) -> Vec<(Change, String)> {
        let pool = ParsePool::new(&ParsePoolConfig::default()).unwrap();
        let b = pool.parse_text("a.ts", before.to_string());
        let a = pool.parse_text("a.ts", after.to_string());
        compare(Some(&b), Some(&a))
            .into_iter()
            .map(|c| (c.change, c.after.as_ref().or(c.before.as_ref()).map(|d| d.names.join(".")).unwrap_or_default()))
            .collect()
    }

    #[test]
    fn a_body_behind_a_written_return_type_is_body_only() {
        let got = changes("export function f(a: number): number {\n  return a + 1;\n}\n", "export function f(a: number): number {\n  return a + 2;\n}\n");
        assert_eq!(got, vec![(Change::Body, "f".to_string())]);
    }

    #[test]
    fn an_inferred_return_type_leaves_the_body_to_the_compiler() {
        let got = changes("export function f(a: number) {\n  return a + 1;\n}\n", "export function f(a: number) {\n  return String(a);\n}\n");
        assert_eq!(got, vec![(Change::Inferred, "f".to_string())]);
    }

    #[test]
    fn a_method_edit_is_the_methods_change_and_a_new_member_changes_the_class() {
        let before = "export class A {\n  m(): number {\n    return 1;\n  }\n}\n";
        let got = changes(before, "export class A {\n  m(): number {\n    return 2;\n  }\n}\n");
        assert_eq!(got, vec![(Change::Body, "A.m".to_string())]);
        let got = changes(before, "export class A {\n  m(): number {\n    return 1;\n  }\n  n(): void {}\n}\n");
        assert_eq!(got, vec![(Change::Api, "A".to_string()), (Change::Added, "A.n".to_string())]);
    }

    #[test]
    fn a_signature_edit_is_api_and_layout_is_nothing() {
        let got = changes("export function f(a: number): number { return a; }\n", "export function f(a: string): number { return 1; }\n");
        assert_eq!(got, vec![(Change::Api, "f".to_string())]);
        assert!(changes("export function f(a: number): number { return a; }\n", "export function f(a: number): number {\n    return a;\n}\n").is_empty());
    }

    fn keeps(before: &str, after: &str) -> bool {
        let pool = ParsePool::new(&ParsePoolConfig::default()).unwrap();
        let b = pool.parse_text("a.ts", before.to_string());
        let a = pool.parse_text("a.ts", after.to_string());
        keeps_bindings(&b, &a, &compare(Some(&b), Some(&a)))
    }

    #[test]
    fn bindings_are_kept_by_type_edits_and_moved_by_names_and_export_forms() {
        let f = "import { X } from \"./x\";\nexport function f(a: number): number { return a; }\nexport class C {\n  m(): X { return 1; }\n}\n";
        assert!(keeps(f, &f.replace("a: number", "a: string")), "a parameter's type");
        assert!(keeps(f, &f.replace("return a;", "return a + 1;")), "a body");
        assert!(keeps(f, &f.replace("m(): X", "m(): number")), "a member's type");
        assert!(!keeps(f, &f.replace("export function f", "function f")), "an export removed");
        assert!(!keeps(f, &f.replace("  m(): X", "  static m(): X")), "a member made static");
        assert!(!keeps(f, &f.replace("function f(", "function g(")), "a rename");
        assert!(!keeps(f, &format!("{f}export const k = 1;\n")), "an addition");
        assert!(!keeps(f, &f.replace("./x", "./y")), "an import moved");
        assert!(!keeps(f, &format!("{f}export {{ f as g }};\n")), "an export list");
    }

    #[test]
    fn a_rename_is_one_change_and_removals_are_kept() {
        let got = changes("export function f(): void {}\nexport function g(): void {}\n", "export function h(): void {}\n");
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.contains(&(Change::Removed, "g".to_string())) || got.contains(&(Change::Removed, "f".to_string())), "{got:?}");
        let got = changes("export function f(a: number): void { a; }\n", "export function h(a: number): void { a; }\n");
        assert_eq!(got, vec![(Change::Renamed, "h".to_string())]);
    }
}
