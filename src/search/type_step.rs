//! The type step (issue 24, third pass): questions ask for behaviour, so
//! a type-only declaration (an interface, a type alias, a member with
//! neither body nor initializer) gives way to implementations, unless the
//! question asks for types or names it, or its file holds one of the
//! strongest other candidates (a config interface beside the operator that
//! answers). Measured in benches/README.md; `demoteTypes` turns it off.

use super::rank::words;

/// What a type-only declaration is worth when the question asks for
/// behaviour (`Steps::types`).
pub const TYPE_DEMOTE: f64 = 0.7;

/// How many of the strongest behaviour candidates keep the types of their
/// files from the type step's demotion.
pub const TYPE_OWNERS: usize = 3;

/// The type step: each demotable type (`demotable[i]`) is multiplied by
/// `factor` unless its file holds one of the `owners` strongest
/// candidates that are not types: a config interface beside the operator
/// that answers is part of the answer, a types module of options is not.
pub fn demote(files: &[&str], demotable: &[bool], scores: &mut [f64], factor: f64, owners: usize) {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| !demotable[i]).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let owners: std::collections::HashSet<&str> = order.iter().take(owners).map(|&i| files[i]).collect();
    for (i, s) in scores.iter_mut().enumerate() {
        if demotable[i] && !owners.contains(files[i]) {
            *s *= factor;
        }
    }
}

/// Whether a question asks for types (so type-only declarations are not
/// demoted): it names a kind of type declaration (`interface`,
/// `signature`, `typings`), asks "what/which type(s)/options/props/fields",
/// or says "type of/for", "type definition", "type parameter". A bare
/// domain word ("the content type", "the timing option") does not ask.
pub fn asks_for_types(query: &str) -> bool {
    let w = words(query);
    let is = |x: &str, ys: &[&str]| ys.iter().any(|y| x == *y || x.strip_suffix('s') == Some(y));
    w.iter().any(|x| is(x, &["interface", "typing", "signature", "typedef", "generic"]))
        || w.windows(2).any(|p| {
            (is(&p[0], &["what", "which"]) && is(&p[1], &["type", "option", "prop", "field", "parameter", "argument"]))
                || (is(&p[0], &["type"]) && is(&p[1], &["of", "for", "definition", "alias", "parameter", "argument", "declaration"]))
        })
}

/// Whether a chunk declares a type and no behaviour: an interface or type
/// alias, or a member with neither a body nor an initializer (an
/// interface's property or method signature, a class field without a
/// value, an object literal's plain value).
pub fn is_type_only(kind: &str, member: bool, source: &str) -> bool {
    match kind {
        "interface" | "type" => true,
        "property" | "method" | "call" | "construct" | "index" if member => {
            let src = source.trim_end().trim_end_matches([';', ',']).trim_end();
            let b = src.as_bytes();
            // `=` that is not part of `=>`, `==`, `!=`, `<=`, `>=`.
            let assigns = b
                .iter()
                .enumerate()
                .any(|(i, &c)| c == b'=' && i > 0 && !matches!(b.get(i + 1), Some(b'>' | b'=')) && !matches!(b[i - 1], b'=' | b'!' | b'<' | b'>'));
            !src.ends_with('}') && !assigns
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_beside_a_strong_implementation_keep_their_place() {
        // 0: the operator, 1: its config beside it, 2: an options
        // interface in a types module, 3-6: other behaviour, 7: a weak
        // function in the types module (not among the 5 strongest).
        let files = ["op.ts", "op.ts", "types.ts", "a.ts", "b.ts", "c.ts", "d.ts", "types.ts"];
        let demotable = [false, true, true, false, false, false, false, false];
        let mut scores = [0.9, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7, 0.1];
        demote(&files, &demotable, &mut scores, 0.5, 5);
        assert_eq!(scores, [0.9, 0.8, 0.4, 0.7, 0.7, 0.7, 0.7, 0.1]);
        // When the weak function is among the 5 strongest, its file's types stay.
        let mut scores = [0.9, 0.8, 0.8, 0.7, 0.7, 0.7, 0.1, 0.2];
        demote(&files, &demotable, &mut scores, 0.5, 5);
        assert_eq!(scores[2], 0.8);
        let files = ["op.ts", "op.ts", "types.ts", "types.ts"];
        let mut scores = [0.9, 0.8, 0.8, 0.1];
        demote(&files, &[true, true, true, true], &mut scores, 0.5, TYPE_OWNERS);
        assert_eq!(scores, [0.45, 0.4, 0.4, 0.05], "no behaviour candidate: every type gives way");
    }

    #[test]
    fn type_only_declarations_and_questions_that_ask_for_them() {
        assert!(is_type_only("interface", false, "interface A { a: string }"));
        assert!(is_type_only("type", false, "type K = readonly unknown[]"));
        assert!(is_type_only("property", true, "retry?: boolean | number | ShouldRetryFunction<TError>"));
        assert!(is_type_only("method", true, "subscribe(listener: () => void): () => void;"));
        assert!(is_type_only("property", true, "gcTime?: number,"));
        // A body or an initializer is behaviour.
        assert!(!is_type_only("method", true, "subscribe(listener: () => void) {\n  return () => {}\n}"));
        assert!(!is_type_only("property", true, "#abortSignalConsumed = false"));
        assert!(!is_type_only("property", true, "onFocus = () => { this.refetch() }"));
        assert!(!is_type_only("property", true, "ready = a !== b;"));
        assert!(is_type_only("property", true, "ready: a !== b"), "an object literal's plain value is data");
        // A top-level declaration that is not a member.
        assert!(!is_type_only("property", false, "x: number"));
        assert!(!is_type_only("function", false, "function f(): void {}"));
        assert!(!is_type_only("enum", false, "enum E { A }"));

        assert!(asks_for_types("What options does useQuery accept?"));
        assert!(asks_for_types("which type does createRouter return"));
        assert!(asks_for_types("the type of a procedure's input"));
        assert!(asks_for_types("QueryClient interface"));
        assert!(asks_for_types("signature of defineComponent"));
        assert!(!asks_for_types("How does the HTTP handler pick the parser for the content type?"));
        assert!(!asks_for_types("How is a watcher's timing option applied?"));
        assert!(!asks_for_types("Where do we refresh tokens?"));
    }
}
