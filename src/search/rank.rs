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
//!   several files;
//! - **the path boost and the file-level signals** (`boost`, `file_boost`):
//!   path evidence, history and whole-file evidence as shares of the top
//!   score.

pub use crate::files::classify;
pub(crate) use crate::files::Role;

pub use super::evidence::Known;
pub(crate) use super::shape::content_words;
pub use super::shape::{declares, identifiers, is_symbol_query, words};
pub use super::steps::*;

/// A candidate's ranking adjustments: `apply` keeps scores in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factors {
    pub role: Role,
    /// The role's demotion (1.0: none).
    pub demote: f64,
    /// How far the score moves toward 1.0 (definitions, the usage prior,
    /// path evidence as a lift).
    pub lift: f64,
    /// The path evidence ratio that `boost` adds, scaled to the top score
    /// (0 when path evidence is a lift or off).
    pub path: f64,
}

impl Factors {
    /// `(s + (1 - s)·lift)·demote`.
    pub fn apply(&self, score: f64) -> f64 {
        (score + (1.0 - score) * self.lift) * self.demote
    }
}

/// What the ranking steps read from a query, computed once.
#[derive(Debug, Clone)]
pub(crate) struct QueryShape<'q> {
    pub query: &'q str,
    /// Identifiers it names (`identifiers`).
    pub idents: Vec<String>,
    /// Its content words (`content_words`).
    pub words: Vec<String>,
    /// A `path` filter selects the files (no role is demoted).
    pub scoped: bool,
    /// It asks for types (`type_step::asks_for_types`), so they are not
    /// demoted.
    pub types_asked: bool,
    /// It is identifiers and little else (`is_symbol_query`): BM25 weighs
    /// more.
    pub symbolic: bool,
    /// It asks a question rather than states a change (`is_question`).
    pub question: bool,
    /// How much each content word says as path evidence
    /// (`paths::specificity`), when `Steps::path_specificity` is on.
    pub path_weights: Option<std::collections::HashMap<String, f64>>,
    pub steps: Steps,
}

impl<'q> QueryShape<'q> {
    pub fn new(query: &'q str, scoped: bool, steps: Steps) -> QueryShape<'q> {
        QueryShape {
            query,
            idents: if steps.definitions { identifiers(query) } else { Vec::new() },
            words: content_words(query),
            scoped,
            types_asked: super::shape::asks_for_types(query),
            symbolic: steps.symbols && is_symbol_query(query, &identifiers(query)),
            question: super::shape::is_question(query),
            path_weights: None,
            steps,
        }
    }

    /// Whether the file-level signals (history and whole-file evidence)
    /// read this query: not a symbol query, and one that states a change
    /// rather than asks a question, as the past subjects do (on questions
    /// they lost: benches/README.md).
    pub(crate) fn reads_file_level(&self) -> bool {
        !self.symbolic && !self.question
    }

    /// Whether the type step may demote this chunk: the step is on, the
    /// question does not ask for types or name the chunk, and the chunk is
    /// type-only (`type_step::is_type_only`).
    pub(crate) fn demotable_type(&self, chunk: &crate::chunk::CodeChunk) -> bool {
        self.steps.types < 1.0
            && !self.types_asked
            && !declares(&chunk.name, &chunk.breadcrumb, &self.idents)
            && (super::shape::is_type_only(&chunk.node_kind, chunk.parent_chunk_id.is_some(), &chunk.full_source)
                || self.steps.data_as_types && super::shape::is_data_only(&chunk.node_kind, &chunk.full_source))
    }

    /// One chunk's adjustments: its role's demotion (unless asked for or
    /// selected by a path), the definition lift, the usage lift, and the
    /// path evidence (a lift, or a ratio that `boost` scales to the top
    /// score). `known` is what the index says of it (`evidence`).
    pub(crate) fn factors(&self, chunk: &crate::chunk::CodeChunk, known: Known) -> Factors {
        let path = chunk.relative_path.as_str();
        let role = classify(path, self.steps.barrels && known.barrel);
        let demote = if self.steps.roles && !self.scoped && !asked_for(self.query, role) { role.factor() } else { 1.0 };
        let mut keep = 1.0;
        if self.steps.definitions && declares(&chunk.name, &chunk.breadcrumb, &self.idents) {
            keep *= 1.0 - definition_lift(chunk, self.steps.definition_syntax);
        }
        let mut ratio = 0.0;
        if self.steps.paths {
            ratio = super::paths::path_match(path, &self.words, self.path_weights.as_ref());
            if self.steps.path_top == 0.0 {
                keep *= 1.0 - PATH_LIFT * ratio;
                ratio = 0.0;
            }
        }
        keep *= 1.0 - self.steps.usage_lift * known.usage;
        Factors { role, demote, lift: 1.0 - keep, path: ratio }
    }
}

/// How far a chunk that declares a name the query names moves toward 1.0.
/// With `syntax`, only declaration syntax earns the full lift
/// (`class`, `function`, `interface`, `type`, `enum`, members, a
/// `const X =` whose value is a function or class), more when the file
/// is named after it; any other variable half of it; an `export default
/// X;`, an assignment `lib.X = X` or a re-export none.
pub(crate) fn definition_lift(chunk: &crate::chunk::CodeChunk, syntax: bool) -> f64 {
    if !syntax {
        return DEFINITION_LIFT;
    }
    let base = match chunk.node_kind.as_str() {
        "class" | "function" | "generator" | "component" | "interface" | "type" | "enum" | "namespace" | "module" | "method" | "getter" | "setter"
        | "constructor" => DEFINITION_LIFT,
        "variable" | "property" if has_function_value(&chunk.full_source) => DEFINITION_LIFT,
        // `lib.X = X` names what is declared elsewhere.
        "property" if chunk.parent_chunk_id.is_none() && is_alias(&chunk.signature) => 0.0,
        "variable" | "property" => DEFINITION_LIFT / 2.0,
        _ => 0.0,
    };
    if base > 0.0 && super::paths::stem_is(&chunk.relative_path, &chunk.name) {
        1.0 - (1.0 - base) * (1.0 - STEM_LIFT)
    } else {
        base
    }
}

/// What follows the first `=` of an assignment or initializer (not `==`
/// or `=>`), trimmed at the start.
fn assigned_value(source: &str) -> Option<&str> {
    let at = source.find('=').filter(|&i| !source[i + 1..].starts_with(['=', '>']))?;
    Some(source[at + 1..].trim_start())
}

/// Whether an assignment's value is a bare name (`lib.X = X;`).
fn is_alias(source: &str) -> bool {
    let Some(value) = assigned_value(source) else { return false };
    let value = value.trim_end().trim_end_matches(';').trim_end();
    !value.is_empty() && value.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
}

/// Whether a `const X = …` (or a property) has a function or class value.
fn has_function_value(source: &str) -> bool {
    let Some(value) = assigned_value(source) else { return false };
    value.starts_with("function")
        || value.starts_with("async")
        || value.starts_with("class")
        || value.starts_with('<')
        || (value.starts_with('(') && value.contains("=>"))
        || value.split_once("=>").is_some_and(|(head, _)| head.trim().chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$'))
}

/// Whether the query asks for a role (so it is not demoted): it mentions
/// tests, specs, mocks, fixtures, examples or type declarations.
pub(crate) fn asked_for(query: &str, role: Role) -> bool {
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

/// Path evidence as a boost, after every other step: each candidate gains
/// `ratio × weight × top` (demoted with its role), `top` being the best
/// score before the boost. When that lifts a score past 1.0, every score
/// is divided by the largest, so scores stay in [0, 1] and their order is
/// the boost's.
pub fn boost(scores: &[f64], factors: &[Factors], weight: f64) -> Vec<f64> {
    lift_by_top(scores, factors.iter().map(|f| f.path), factors, weight)
}

/// Each score plus `ratio × weight × top`, demoted with its role (`top`:
/// the best score before), back in [0, 1]: the path and file boosts.
fn lift_by_top(scores: &[f64], ratios: impl Iterator<Item = f64>, factors: &[Factors], weight: f64) -> Vec<f64> {
    let top = scores.iter().copied().fold(0.0, f64::max);
    within_one(scores.iter().zip(ratios).zip(factors).map(|((&s, r), f)| s + r * weight * top * f.demote).collect())
}

/// A file-level signal after path evidence: history evidence
/// (`Steps::history`, `ratio` a file's vote) and whole-file evidence
/// (`Steps::whole_files`, `ratio` its BM25 over whole texts over the best
/// file's). Each candidate gains `ratio × weight × top` (demoted with its
/// role), `top` being the best score before it; back in [0, 1] as `boost`
/// is.
pub fn file_boost(scores: &[f64], ratios: &[f64], factors: &[Factors], weight: f64) -> Vec<f64> {
    lift_by_top(scores, ratios.iter().copied(), factors, weight)
}

/// Scores a step may have lifted past 1.0, divided by the largest when it
/// passes 1.0: back in [0, 1], in the same order.
fn within_one(scores: Vec<f64>) -> Vec<f64> {
    let max = scores.iter().copied().fold(0.0, f64::max);
    if max > 1.0 {
        scores.iter().map(|s| s / max).collect()
    } else {
        scores
    }
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
        // One identifier alone is a symbol query, whatever its case.
        assert_eq!(identifiers("Middleware"), vec!["Middleware"]);
        assert_eq!(identifiers("router"), vec!["router"]);
        assert_eq!(identifiers("`Router`?"), vec!["Router"]);
        assert_eq!(identifiers("where is `Router` built"), vec!["Router"]);
        assert!(is_symbol_query("Middleware", &identifiers("Middleware")));
        assert!(is_symbol_query("createRouter options", &identifiers("createRouter options")));
        assert!(!is_symbol_query("how does createRouter merge nested routers", &identifiers("how does createRouter merge nested routers")));
        assert!(declares("createRouter", "src/r.ts > createRouter", &identifiers("createRouter")));
        assert!(declares("createCaller", "src/r.ts > Router > createCaller", &identifiers("router.createCaller")));
        assert!(!declares("createRouterInner", "src/r.ts > createRouterInner", &identifiers("createRouter")));
        // An assignment declaration is named by its access path.
        assert!(declares("router.dispatch", "lib/router.js > router.dispatch", &identifiers("router.dispatch")));
        assert!(declares("Layer.prototype.match", "lib/layer.js > Layer.prototype.match", &identifiers("how does `match` test a path")));
        assert!(!declares("router.dispatchAll", "lib/router.js > router.dispatchAll", &identifiers("router.dispatch")));
    }

    #[test]
    fn file_signals_lift_their_files_by_the_top_score() {
        let f = |demote: f64| Factors { role: Role::Implementation, demote, lift: 0.0, path: 0.0 };
        // b.ts (0.4) has the full vote, c.ts (0.1, a test demoted to half) half.
        let out = file_boost(&[0.8, 0.4, 0.1], &[0.0, 1.0, 0.5], &[f(1.0), f(1.0), f(0.5)], 0.5);
        let want = [0.8, 0.4 + 0.5 * 0.8, 0.1 + 0.5 * 0.5 * 0.8 * 0.5];
        out.iter().zip(want).for_each(|(a, b)| assert!((a - b).abs() < 1e-9, "{out:?}"));
        // Past 1.0, every score is divided by the largest, order kept.
        let out = file_boost(&[1.0, 0.9], &[0.0, 1.0], &[f(1.0), f(1.0)], 1.0);
        assert!((out[1] - 1.0).abs() < 1e-9 && (out[0] - 1.0 / 1.9).abs() < 1e-9, "{out:?}");
    }

    #[test]
    fn path_evidence_and_decay() {
        let q = content_words("how is a router created");
        assert_eq!(q, vec!["router", "created"]);
        assert!(super::super::paths::path_match("packages/server/src/core/router.ts", &q, None) > 0.0);
        assert_eq!(super::super::paths::path_match("packages/server/src/core/body.ts", &q, None), 0.0);
        // a.ts ×3, b.ts: the second and third of a.ts fall below b.ts.
        let order = decay(&["a.ts", "a.ts", "a.ts", "b.ts"], &[1.0, 0.9, 0.8, 0.6], 0.5);
        assert_eq!(order, vec![0, 3, 1, 2]);
    }
}
