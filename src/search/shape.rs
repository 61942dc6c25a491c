//! What a question says, read from its text alone: its words, the
//! identifiers it names, whether it is a symbol query or asks for types;
//! and whether a chunk is type-only. A leaf of `search`: the ranking
//! steps (`rank`, `paths`, `type_step`) read it.

/// Lowercase words of a text, identifiers split on case and `_`/`-`.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in text.split(|c: char| !(c.is_alphanumeric())) {
        if token.is_empty() {
            continue;
        }
        let mut cur = String::new();
        let chars: Vec<char> = token.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let boundary = i > 0 && crate::camel::starts_word(chars[i - 1], c, chars.get(i + 1).copied());
            if boundary && !cur.is_empty() {
                out.push(std::mem::take(&mut cur).to_lowercase());
            }
            cur.push(c);
        }
        if !cur.is_empty() {
            out.push(cur.to_lowercase());
        }
    }
    out
}

/// Identifiers a query names: tokens that look like code (camelCase,
/// PascalCase with a second capital or a lowercase start, `snake_case`,
/// `$x`, dotted `a.b`), whether the query is only that or a question
/// that contains it. Plain English words are not identifiers.
pub fn identifiers(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // A query that is one identifier, of any case pattern (`Router`,
    // `middleware`, `a.b`), or a name in backticks, is a symbol query.
    let bare = query.trim().trim_matches(|c: char| matches!(c, '`' | '?' | '.' | '!' | '"' | '\''));
    if !bare.is_empty() && bare.split('.').all(is_identifier) {
        // `a.b` names `b` (a member) in `a`: the last part is the target.
        return vec![bare.rsplit('.').next().unwrap_or(bare).to_string()];
    }
    for quoted in query.split('`').skip(1).step_by(2) {
        if is_identifier(quoted) && !out.iter().any(|o| o == quoted) {
            out.push(quoted.to_string());
        }
    }
    for raw in query.split(|c: char| c.is_whitespace() || matches!(c, ',' | '?' | '(' | ')' | '`' | '"' | '\'' | ';' | ':')) {
        let token = raw.trim_matches(|c: char| matches!(c, '.' | '!'));
        if token.is_empty() {
            continue;
        }
        for part in token.split('.') {
            if is_code_like(part) && !out.iter().any(|o| o == part) {
                out.push(part.to_string());
            }
        }
        // `a.b` names `b` (a member) in `a`: the last part is the target.
        if token.contains('.') && token.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')) {
            let last = token.rsplit('.').next().unwrap_or("");
            if !last.is_empty() && !out.iter().any(|o| o == last) {
                out.push(last.to_string());
            }
        }
    }
    out
}

/// Letters, digits, `_` and `$`, not starting with a digit.
fn is_identifier(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') && !t.starts_with(|c: char| c.is_ascii_digit())
}

/// The words that open a question (`is_question`).
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "where", "when", "which", "who", "why", "whose", "does", "do", "is", "are", "can", "could", "should", "would", "will", "was", "were", "did",
    "has", "have",
];

/// Whether a query asks a question ("how is a router created", "where do
/// we refresh tokens?", "caching inactive component instances") rather
/// than states a change ("skip async component callbacks after
/// unmount"): it opens with a question word or a gerund (a description
/// of behaviour), or ends with `?`. The file-level signals read only the
/// second kind, which is what commit subjects are
/// (`QueryShape::reads_file_level`).
pub fn is_question(query: &str) -> bool {
    let q = query.trim();
    let first = q.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()).unwrap_or("").to_lowercase();
    let gerund = first.len() > 5 && first.ends_with("ing");
    q.ends_with('?') || gerund || QUESTION_WORDS.contains(&first.as_str())
}

/// Whether a query is about symbols: it names identifiers and little
/// else (at most one other content word), so BM25's exact name matches
/// should weigh more than meaning.
pub fn is_symbol_query(query: &str, idents: &[String]) -> bool {
    if idents.is_empty() {
        return false;
    }
    let others = content_words(query).into_iter().filter(|w| !idents.iter().any(|i| words(i).contains(w))).count();
    others <= 1
}

fn is_code_like(t: &str) -> bool {
    if t.is_empty() || !t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') || t.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return false;
    }
    let upper = t.chars().filter(|c| c.is_uppercase()).count();
    let lower = t.chars().filter(|c| c.is_lowercase()).count();
    let first_lower = t.chars().next().is_some_and(|c| c.is_lowercase());
    t.contains('_') && t.len() > 1 || t.starts_with('$') || (first_lower && upper > 0) || (!first_lower && upper >= 2 && lower > 0)
}

/// Whether a chunk declares one of `idents`: its name, the last part of
/// an assignment declaration's access path (`router.dispatch` declares
/// `dispatch`), or its breadcrumb's last part (a member).
pub fn declares(name: &str, breadcrumb: &str, idents: &[String]) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    !name.is_empty() && idents.iter().any(|i| i == name || i == last || breadcrumb.ends_with(&format!(" > {i}")))
}

/// Whether a chunk is one-line noise (`Steps::noise`): one or two lines
/// that declare nothing, such as `'use strict'`, `export default X;` or a
/// short comment. An assignment declaration (`exports.x = 1`) declares.
pub(crate) fn is_noise(chunk: &crate::chunk::CodeChunk) -> bool {
    chunk.end_line.saturating_sub(chunk.start_line) < 2 && matches!(chunk.node_kind.as_str(), "expression" | "export" | "comment" | "import")
}

/// English function words: they carry no meaning in a question about
/// code, and match every comment.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "be", "do", "does", "did", "how", "what", "where", "when", "which", "who", "why", "we", "i", "you", "it", "of", "in",
    "on", "to", "for", "from", "by", "with", "and", "or", "not", "that", "this", "these", "those", "there", "into", "our", "my", "its", "can",
];

/// Words that say a question is about code without saying which: left
/// out of the content words, kept for BM25 (`get`, `use` and `handle`
/// are parts of names).
const CODE_WORDS: &[&str] = &["get", "gets", "code", "function", "functions", "file", "files", "find", "handle", "handles", "handled", "used", "use", "uses"];

/// Words of a question that carry meaning (stop words left out).
pub(crate) fn content_words(query: &str) -> Vec<String> {
    words(query).into_iter().filter(|w| !FUNCTION_WORDS.contains(&w.as_str()) && !CODE_WORDS.contains(&w.as_str())).collect()
}

/// The question BM25 reads (`Steps::stop_words`): its whitespace-separated
/// terms without the English function words, identifiers and the rest
/// as written; the question itself when nothing else is left.
pub(crate) fn bm25_terms(query: &str) -> String {
    let kept: Vec<&str> = query
        .split_whitespace()
        .filter(|t| {
            let w = t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
            !w.is_empty() && !FUNCTION_WORDS.contains(&w.as_str())
        })
        .collect();
    if kept.is_empty() {
        query.to_string()
    } else {
        kept.join(" ")
    }
}

/// Whether a question asks for types (so type-only declarations are not
/// demoted): it names a kind of type declaration (`interface`,
/// `signature`, `typings`), asks "what/which type(s)/options/props/fields",
/// or says "type of/for", "type definition", "type parameter". A bare
/// domain word ("the content type", "the timing option") does not ask.
pub(crate) fn asks_for_types(query: &str) -> bool {
    let w = words(query);
    let is = |x: &str, ys: &[&str]| ys.iter().any(|y| x == *y || x.strip_suffix('s') == Some(y));
    // Types, inference, generics, schemas and shapes: such a
    // question's answer is often a file of types.
    w.iter().any(|x| is(x, &["interface", "typing", "signature", "typedef", "generic", "types", "infer", "inference", "inferred", "schema", "shape"]))
        || w.windows(2).any(|p| {
            (is(&p[0], &["what", "which"]) && is(&p[1], &["type", "option", "prop", "field", "parameter", "argument"]))
                || (is(&p[0], &["type"]) && is(&p[1], &["of", "for", "definition", "alias", "parameter", "argument", "declaration"]))
        })
}

/// Whether a chunk declares a type and no behaviour: an interface or type
/// alias, or a member with neither a body nor an initializer (an
/// interface's property or method signature, a class field without a
/// value, an object literal's plain value).
pub(crate) fn is_type_only(kind: &str, member: bool, source: &str) -> bool {
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

/// Whether a chunk declares data and no behaviour: an enum or one of its
/// members, or a constant whose value is an object or array literal with
/// no parenthesis outside its strings (no call, no function).
pub(crate) fn is_data_only(kind: &str, source: &str) -> bool {
    match kind {
        "enum" | "enumMember" => true,
        "const" | "variable" => {
            let Some((_, value)) = source.split_once('=') else { return false };
            let value = value.trim_start();
            if !(value.starts_with('{') || value.starts_with('[')) || value.contains("=>") {
                return false;
            }
            let mut quote: Option<char> = None;
            let mut escaped = false;
            for c in value.chars() {
                match quote {
                    Some(q) => {
                        if escaped {
                            escaped = false;
                        } else if c == '\\' {
                            escaped = true;
                        } else if c == q {
                            quote = None;
                        }
                    }
                    None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
                    None if c == '(' => return false,
                    None => {}
                }
            }
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_are_told_from_changes() {
        for q in [
            "how is a router created",
            "Where do we refresh tokens?",
            "what's the cache key",
            "refresh tokens?",
            "  Does the store batch writes",
            "Caching inactive instances",
        ] {
            assert!(is_question(q), "{q}");
        }
        for q in [
            "skip async component callbacks after unmount",
            "handle whereabouts of teleported nodes",
            "isolate the cache",
            "add support for howler",
            "bring back the ring",
            "",
        ] {
            assert!(!is_question(q), "{q}");
        }
    }

    #[test]
    fn bm25_reads_a_question_without_its_function_words() {
        assert_eq!(bm25_terms("Where do we refresh tokens?"), "refresh tokens?");
        assert_eq!(bm25_terms("How does the HTTP handler get the body of a request"), "HTTP handler get body request");
        // Identifiers and punctuation stay as written; so do code words.
        assert_eq!(bm25_terms("what does createTRPCProxyClient use for the links"), "createTRPCProxyClient use links");
        // Nothing but function words: the question as it is.
        assert_eq!(bm25_terms("how is it where"), "how is it where");
        assert_eq!(bm25_terms("The"), "The");
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
        // Data is told apart for the type step's `data_as_types`.
        assert!(is_data_only("enum", "enum E { A }"));
        assert!(is_data_only("enumMember", "SETUP_CONST = 'setup-const'"));
        assert!(is_data_only(
            "const",
            "export const ErrorTypeStrings: Record<ErrorTypes, string> = {\n  [ErrorCodes.SETUP_FUNCTION]: 'setup function (x)',\n}"
        ));
        assert!(is_data_only("const", "const order = ['pre', \"post\"]"));
        assert!(!is_data_only("const", "const handlers = { get(target) { return target } }"));
        assert!(!is_data_only("const", "const table = { run: () => 1 }"));
        assert!(!is_data_only("const", "const client = createClient({ url })"));
        assert!(!is_data_only("const", "const pending = new Set()"));
        assert!(!is_data_only("function", "function f() { return { a: 1 } }"));

        assert!(asks_for_types("What options does useQuery accept?"));
        assert!(asks_for_types("which type does createRouter return"));
        assert!(asks_for_types("the type of a procedure's input"));
        assert!(asks_for_types("QueryClient interface"));
        assert!(asks_for_types("signature of defineComponent"));
        assert!(!asks_for_types("How does the HTTP handler pick the parser for the content type?"));
        assert!(!asks_for_types("How is a watcher's timing option applied?"));
        assert!(!asks_for_types("Where do we refresh tokens?"));
        assert!(asks_for_types("How does type inference extract input and output types"));
        assert!(asks_for_types("where are the schemas' shapes merged"));
    }
}
