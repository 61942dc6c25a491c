//! Model-independent ranking steps after fusion (stage 2b), each measured
//! alone in `benches/README.md`:
//!
//! - **file roles**: tests, examples, mocks, fixtures, generated code,
//!   declaration files and barrels are demoted unless the query asks for
//!   them or a `path` selects them;
//! - **definitions**: a chunk that declares an identifier the query names
//!   (`createRouter`, `ZodType`, `a.b`) is boosted;
//! - **path evidence**: a file whose path parts match query words is
//!   boosted;
//! - **diversity** (`decay`): in the concise list, each further chunk of an
//!   already listed file is worth less, so a file-level question gets
//!   several files.

use serde::Serialize;

/// Which steps run (all by default; the ablation turns them on in turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    pub roles: bool,
    pub definitions: bool,
    pub paths: bool,
}

impl Steps {
    pub const ALL: Steps = Steps { roles: true, definitions: true, paths: true };
    pub const NONE: Steps = Steps { roles: false, definitions: false, paths: false };
}

/// How far a definition the query names moves toward 1.0.
pub const DEFINITION_LIFT: f64 = 0.5;
/// How far a file whose path parts match every query word moves toward 1.0.
pub const PATH_LIFT: f64 = 0.3;
/// Same-file decay in the concise list.
pub const DECAY: f64 = 0.5;

/// A candidate's ranking adjustments: `apply` keeps scores in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factors {
    pub role: Role,
    /// The role's demotion (1.0: none).
    pub demote: f64,
    /// How far the score moves toward 1.0 (definitions, path evidence).
    pub lift: f64,
}

impl Factors {
    /// `(s + (1 - s)·lift)·demote`.
    pub fn apply(&self, score: f64) -> f64 {
        (score + (1.0 - score) * self.lift) * self.demote
    }
}

/// What the ranking steps read from a query, computed once.
#[derive(Debug, Clone)]
pub struct QueryShape<'q> {
    pub query: &'q str,
    /// Identifiers it names (`identifiers`).
    pub idents: Vec<String>,
    /// Its content words (`content_words`).
    pub words: Vec<String>,
    /// A `path` filter selects the files (no role is demoted).
    pub scoped: bool,
    pub steps: Steps,
}

impl<'q> QueryShape<'q> {
    pub fn new(query: &'q str, scoped: bool, steps: Steps) -> QueryShape<'q> {
        QueryShape { query, idents: if steps.definitions { identifiers(query) } else { Vec::new() }, words: content_words(query), scoped, steps }
    }

    /// One chunk's adjustments: its role's demotion (unless asked for or
    /// selected by a path), the definition lift, the path lift.
    pub fn factors(&self, path: &str, name: &str, breadcrumb: &str) -> Factors {
        let role = classify(path, false);
        let demote = if self.steps.roles && !self.scoped && !asked_for(self.query, role) { role.factor() } else { 1.0 };
        let mut keep = 1.0;
        if self.steps.definitions && declares(name, breadcrumb, &self.idents) {
            keep *= 1.0 - DEFINITION_LIFT;
        }
        if self.steps.paths {
            keep *= 1.0 - PATH_LIFT * path_match(path, &self.words);
        }
        Factors { role, demote, lift: 1.0 - keep }
    }
}

/// What a file is for, from its path (and, for barrels, its chunks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Implementation,
    Test,
    Example,
    Mock,
    Fixture,
    Generated,
    Declaration,
    Barrel,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Implementation => "implementation",
            Role::Test => "test",
            Role::Example => "example",
            Role::Mock => "mock",
            Role::Fixture => "fixture",
            Role::Generated => "generated",
            Role::Declaration => "declaration",
            Role::Barrel => "barrel",
        }
    }

    /// The score factor of a role the query did not ask for.
    pub fn factor(self) -> f64 {
        match self {
            Role::Implementation => 1.0,
            Role::Declaration | Role::Barrel => 0.7,
            Role::Test | Role::Example | Role::Mock | Role::Fixture | Role::Generated => 0.3,
        }
    }
}

/// A file's role from its workspace-relative path. `barrel`: the file
/// holds only imports and re-exports (the index knows its chunks).
pub fn classify(path: &str, barrel: bool) -> Role {
    let lower = path.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let file = parts.last().copied().unwrap_or("");
    let dirs = &parts[..parts.len().saturating_sub(1)];
    let dir_is = |names: &[&str]| dirs.iter().any(|d| names.contains(d));
    let stem_has = |marks: &[&str]| marks.iter().any(|m| file.contains(m));
    if stem_has(&[".test.", ".spec.", "_test.", "-test.", ".e2e.", ".bench."])
        || dir_is(&["__tests__", "test", "tests", "__test__", "e2e", "spec", "specs", "__snapshots__", "bench", "benchmarks"])
    {
        return Role::Test;
    }
    if stem_has(&[".mock.", ".mocks."]) || dir_is(&["__mocks__", "mocks", "mock"]) {
        return Role::Mock;
    }
    if stem_has(&[".fixture.", ".fixtures."]) || dir_is(&["fixtures", "fixture", "__fixtures__", "testdata", "test-utils", "testing"]) {
        return Role::Fixture;
    }
    if dir_is(&["examples", "example", "demo", "demos", "playground", "playgrounds", "sandbox", "docs", "stories"]) || stem_has(&[".stories.", ".example."]) {
        return Role::Example;
    }
    if stem_has(&[".generated.", ".gen.", ".min."]) || dir_is(&["generated", "__generated__", "dist", "build"]) {
        return Role::Generated;
    }
    if file.ends_with(".d.ts") || file.ends_with(".d.mts") || file.ends_with(".d.cts") {
        return Role::Declaration;
    }
    if barrel {
        return Role::Barrel;
    }
    Role::Implementation
}

/// Whether the query asks for a role (so it is not demoted): it mentions
/// tests, specs, mocks, fixtures, examples or type declarations.
pub fn asked_for(query: &str, role: Role) -> bool {
    let words: Vec<String> = words(query);
    let any = |w: &[&str]| words.iter().any(|x| w.iter().any(|y| x == y || x.strip_suffix('s') == Some(y)));
    match role {
        Role::Implementation => true,
        Role::Test => any(&["test", "spec", "testing", "tested", "e2e", "assert", "expect", "vitest", "jest", "bench", "benchmark"]),
        Role::Mock => any(&["mock", "stub", "fake", "spy"]),
        Role::Fixture => any(&["fixture", "testdata"]),
        Role::Example => any(&["example", "demo", "playground", "story", "sample"]),
        Role::Generated => any(&["generated", "codegen"]),
        Role::Declaration => any(&["declaration", "dts", "ambient", "typing"]),
        Role::Barrel => any(&["export", "reexport", "barrel", "index", "entry", "public"]),
    }
}

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
            let boundary = c.is_uppercase() && i > 0 && (chars[i - 1].is_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_lowercase()));
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

fn is_code_like(t: &str) -> bool {
    if t.is_empty() || !t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') || t.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return false;
    }
    let upper = t.chars().filter(|c| c.is_uppercase()).count();
    let lower = t.chars().filter(|c| c.is_lowercase()).count();
    let first_lower = t.chars().next().is_some_and(|c| c.is_lowercase());
    t.contains('_') && t.len() > 1 || t.starts_with('$') || (first_lower && upper > 0) || (!first_lower && upper >= 2 && lower > 0)
}

/// Whether a chunk declares one of `idents` (its name, or its breadcrumb's
/// last parts for `a.b`).
pub fn declares(name: &str, breadcrumb: &str, idents: &[String]) -> bool {
    !name.is_empty() && idents.iter().any(|i| i == name || breadcrumb.ends_with(&format!(" > {i}")))
}

/// How many query words name a part of the path (directories and the file
/// stem, split like identifiers), over the query's content words.
pub fn path_match(path: &str, query_words: &[String]) -> f64 {
    if query_words.is_empty() {
        return 0.0;
    }
    let parts: Vec<String> = words(path.rsplit_once('.').map_or(path, |(stem, _)| stem));
    let hits = query_words.iter().filter(|w| w.len() > 2 && parts.iter().any(|p| p == *w || p.strip_suffix('s') == Some(w.as_str()))).count();
    hits as f64 / query_words.len() as f64
}

/// Words of a question that carry meaning (stop words left out).
pub fn content_words(query: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "be",
        "do",
        "does",
        "did",
        "how",
        "what",
        "where",
        "when",
        "which",
        "who",
        "why",
        "we",
        "i",
        "you",
        "it",
        "of",
        "in",
        "on",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "not",
        "that",
        "this",
        "these",
        "those",
        "there",
        "get",
        "gets",
        "into",
        "our",
        "my",
        "its",
        "can",
        "code",
        "function",
        "functions",
        "file",
        "files",
        "find",
        "handle",
        "handles",
        "handled",
        "used",
        "use",
        "uses",
    ];
    words(query).into_iter().filter(|w| !STOP.contains(&w.as_str())).collect()
}

/// Same-file decay: the score of each result after the first of its file
/// is multiplied by `factor` per earlier result of that file; the list is
/// re-sorted (stable). Returns the new order as indexes into `scores`.
pub fn decay(files: &[&str], scores: &[f64], factor: f64) -> Vec<usize> {
    let mut seen: std::collections::HashMap<&str, i32> = std::collections::HashMap::new();
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut adjusted = vec![0.0; scores.len()];
    for &i in &order {
        let n = seen.entry(files[i]).or_insert(0);
        adjusted[i] = scores[i] * factor.powi(*n);
        *n += 1;
    }
    let mut out: Vec<usize> = (0..scores.len()).collect();
    out.sort_by(|&a, &b| adjusted[b].total_cmp(&adjusted[a]).then(a.cmp(&b)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_from_paths() {
        for (path, role) in [
            ("src/body.ts", Role::Implementation),
            ("src/body.test.ts", Role::Test),
            ("packages/server/test/router.ts", Role::Test),
            ("src/__tests__/a.ts", Role::Test),
            ("src/a.spec.tsx", Role::Test),
            ("src/__mocks__/fs.ts", Role::Mock),
            ("test-utils/render.ts", Role::Fixture),
            ("examples/next/app.ts", Role::Example),
            ("src/types.d.ts", Role::Declaration),
            ("src/gen/api.generated.ts", Role::Generated),
            ("src/latest.ts", Role::Implementation),
            ("src/contest.ts", Role::Implementation),
        ] {
            assert_eq!(classify(path, false), role, "{path}");
        }
        assert_eq!(classify("src/index.ts", true), Role::Barrel);
        assert!(asked_for("where are the router tests?", Role::Test));
        assert!(!asked_for("where are request bodies parsed?", Role::Test));
    }

    #[test]
    fn identifiers_in_queries() {
        assert_eq!(identifiers("ZodType"), vec!["ZodType"]);
        assert_eq!(identifiers("createRouter"), vec!["createRouter"]);
        assert_eq!(identifiers("how does createTRPCProxyClient batch calls?"), vec!["createTRPCProxyClient"]);
        assert_eq!(identifiers("router.createCaller"), vec!["createCaller"]);
        assert_eq!(identifiers("MAX_RETRIES and $ref"), vec!["MAX_RETRIES", "$ref"]);
        assert!(identifiers("Where do we refresh tokens?").is_empty());
        assert!(identifiers("How is a Router created").is_empty());
        assert!(declares("createRouter", "src/r.ts > createRouter", &identifiers("createRouter")));
        assert!(declares("createCaller", "src/r.ts > Router > createCaller", &identifiers("router.createCaller")));
        assert!(!declares("createRouterInner", "src/r.ts > createRouterInner", &identifiers("createRouter")));
    }

    #[test]
    fn path_evidence_and_decay() {
        let q = content_words("how is a router created");
        assert_eq!(q, vec!["router", "created"]);
        assert!(path_match("packages/server/src/core/router.ts", &q) > 0.0);
        assert_eq!(path_match("packages/server/src/core/body.ts", &q), 0.0);
        // a.ts ×3, b.ts: the second and third of a.ts fall below b.ts.
        let order = decay(&["a.ts", "a.ts", "a.ts", "b.ts"], &[1.0, 0.9, 0.8, 0.6], 0.5);
        assert_eq!(order, vec![0, 3, 1, 2]);
    }
}
