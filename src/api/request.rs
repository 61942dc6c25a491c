//! One validated request, whichever front end it came from (ripgrep's
//! `HiArgs::from_low_args`): the raw input a front end collected
//! (`QueryInput`) becomes a `Request` here and nowhere else. Mode
//! detection, query length, path containment, languages and every setting
//! (argument > `TSQ_*` environment > `tsq.toml` > default, in both modes)
//! are decided once, with the same messages for the CLI and MCP.

use std::collections::BTreeSet;
use std::path::{Component, Path};

use crate::config::{ConfigError, Overrides, Settings};
pub use crate::query::is_symbol_query;
use crate::query::{QueryError, SymbolQuery};

/// The longest query accepted, in bytes.
pub(crate) const MAX_QUERY_BYTES: usize = 4096;
/// The most `path` entries accepted.
pub(crate) const MAX_PATHS: usize = 64;
/// The longest `path` entry (a file, directory or glob), in bytes: a glob
/// is compiled, and its cost grows with its length.
pub(crate) const MAX_PATH_BYTES: usize = 1024;

/// What comes back: the connection graph and snapshots, or the concise list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Shape {
    #[default]
    Full,
    Concise,
}

/// A query as a front end collected it: nothing checked yet.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct QueryInput {
    pub query: String,
    /// Files, directories or globs relative to the workspace root.
    pub paths: Vec<String>,
    /// `typescript`/`ts`, `javascript`/`js`; empty: both.
    pub languages: Vec<String>,
    pub shape: Shape,
    /// Settings given with the query (the highest precedence).
    pub overrides: Overrides,
    /// Refuse natural language (`tsq lookup`).
    pub symbol_only: bool,
}

/// A `symbol =` lookup or a question in natural language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Symbol(SymbolQuery),
    Natural(String),
}

/// A checked query: everything the engine needs, resolved.
#[derive(Debug, Clone)]
pub struct Request {
    /// The query text, trimmed.
    pub text: String,
    pub mode: Mode,
    /// Workspace-relative files, directories or globs; all when empty.
    pub scope: Vec<String>,
    /// One language, or `None` for both.
    pub language: Option<String>,
    pub shape: Shape,
    pub settings: Settings,
}

/// Why a query was refused. The messages are what both front ends say.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("Empty query: ask a question (\"where do we refresh tokens?\") or look up `symbol = name`, `symbol = Parent > name` or `symbol = path/file.ts > Parent > name`.")]
    Empty,
    #[error("Query too long: {0} bytes, the limit is {MAX_QUERY_BYTES}.")]
    TooLong(usize),
    #[error("Not a symbol lookup: queries start with `symbol = ` (ask questions in natural language with `tsq search`).")]
    NotSymbol,
    #[error("Failed to parse the query: {0}")]
    Query(#[from] QueryError),
    #[error("Unsupported language {0:?}: tsq reads TypeScript and JavaScript.")]
    Language(String),
    #[error("Too many paths: {0}, the limit is {MAX_PATHS}.")]
    TooManyPaths(usize),
    #[error("{0}")]
    Path(String),
    #[error("No supported files in path {0} (tsq reads .ts .tsx .js .jsx .mts .mjs .cts .cjs).")]
    NoSources(String),
    #[error("Bad setting: {0}")]
    Setting(#[from] ConfigError),
}

impl Request {
    /// Checks `input` against the workspace at `root` (canonical).
    pub fn new(root: &Path, input: QueryInput) -> Result<Request, RequestError> {
        let text = input.query.trim().to_string();
        if text.is_empty() {
            return Err(RequestError::Empty);
        }
        if text.len() > MAX_QUERY_BYTES {
            return Err(RequestError::TooLong(text.len()));
        }
        let mode = if is_symbol_query(&text) {
            let query = SymbolQuery::parse(&text)?;
            if let Some(file) = &query.file {
                contained(root, file).map_err(RequestError::Path)?;
            }
            Mode::Symbol(query)
        } else if input.symbol_only {
            return Err(RequestError::NotSymbol);
        } else {
            Mode::Natural(text.clone())
        };
        let language = language(&input.languages)?;
        if input.paths.len() > MAX_PATHS {
            return Err(RequestError::TooManyPaths(input.paths.len()));
        }
        let scope = input.paths.iter().map(|p| scoped_path(root, p)).collect::<Result<Vec<_>, _>>().map_err(RequestError::Path)?;
        let settings = Settings::load(root, input.overrides)?;
        Ok(Request { text, mode, scope, language, shape: input.shape, settings })
    }
}

/// A checked `symbol =` request of the commands that take only a symbol
/// (`inspect`, `analyze`, `relations`): the query (the `symbol =` prefix
/// optional), its settings.
#[derive(Debug, Clone)]
pub(crate) struct SymbolRequest {
    pub query: SymbolQuery,
    pub settings: Settings,
}

impl SymbolRequest {
    /// The checks `Request::new` makes of a lookup, with the same errors:
    /// empty, too long, unparsable, a file segment that leaves the
    /// workspace, a bad setting.
    pub fn new(root: &Path, text: &str, overrides: Overrides) -> Result<SymbolRequest, RequestError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RequestError::Empty);
        }
        if text.len() > MAX_QUERY_BYTES {
            return Err(RequestError::TooLong(text.len()));
        }
        let query = SymbolQuery::parse(text)?;
        if let Some(file) = &query.file {
            contained(root, file).map_err(RequestError::Path)?;
        }
        let settings = Settings::load(root, overrides)?;
        Ok(SymbolRequest { query, settings })
    }
}

/// A symbol query's file segment names a workspace file (or its tail): it
/// is matched against workspace paths, never read, but one that climbs out
/// (`../x.ts`) or is absolute outside the root is refused as a `path` is.
fn contained(root: &Path, file: &str) -> Result<(), String> {
    let path = Path::new(file);
    let outside = if path.is_absolute() { !path.starts_with(root) } else { path.components().any(|c| c == Component::ParentDir) };
    if outside {
        return Err(format!("path {file:?} leaves the workspace {}", root.display()));
    }
    Ok(())
}

/// One language out of `languages`, or `None` when both (or none) are named.
fn language(languages: &[String]) -> Result<Option<String>, RequestError> {
    if let Some(other) = languages.iter().find(|l| !matches!(l.to_ascii_lowercase().as_str(), "typescript" | "javascript" | "ts" | "js")) {
        return Err(RequestError::Language(other.clone()));
    }
    let wanted: BTreeSet<&str> = languages.iter().map(|l| if l.to_ascii_lowercase().starts_with('j') { "javascript" } else { "typescript" }).collect();
    Ok(if wanted.len() == 1 { wanted.into_iter().next().map(str::to_string) } else { None })
}

/// Resolves a `path` argument inside `root`: canonical, symlinks resolved,
/// contained by path components; `Err` says why not.
pub(crate) fn scoped_path(root: &Path, arg: &str) -> Result<String, String> {
    if arg.contains('\0') {
        return Err(format!("path {arg:?} contains a NUL byte"));
    }
    if arg.len() > MAX_PATH_BYTES {
        return Err(format!("path of {} bytes: the limit is {MAX_PATH_BYTES} (globs included)", arg.len()));
    }
    if arg.contains(['*', '?', '[']) {
        // A glob is matched against workspace-relative paths; it reads nothing.
        if Path::new(arg).is_absolute() || Path::new(arg).components().any(|c| c == Component::ParentDir) {
            return Err(format!("path {arg:?} leaves the workspace {}", root.display()));
        }
        return Ok(arg.to_string());
    }
    let joined = root.join(arg);
    let real = joined.canonicalize().map_err(|_| format!("File not found: {arg} (workspace root: {})", root.display()))?;
    let rel = real.strip_prefix(root).map_err(|_| format!("path {arg:?} leaves the workspace {}", root.display()))?;
    Ok(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_globs_are_refused() {
        let root = std::env::temp_dir();
        let err = scoped_path(&root, &"*".repeat(MAX_PATH_BYTES + 1)).unwrap_err();
        assert!(err.contains("the limit is 1024"), "{err}");
        assert!(scoped_path(&root, "src/**/*.ts").is_ok());
    }

    #[test]
    fn the_mode_test_needs_symbol_then_equals() {
        assert!(is_symbol_query("symbol = a"));
        assert!(is_symbol_query("  symbol=a"));
        assert!(!is_symbol_query("symbolic links = where?"));
        assert!(!is_symbol_query("where is symbol resolution done? a=b"));
    }

    #[test]
    fn requests_are_checked_the_same_way_in_both_modes() {
        let root = std::env::temp_dir().canonicalize().unwrap();
        let req = |q: &str, f: fn(&mut QueryInput)| {
            let mut input = QueryInput { query: q.into(), ..Default::default() };
            f(&mut input);
            Request::new(&root, input)
        };
        assert!(matches!(req("  ", |_| {}), Err(RequestError::Empty)));
        assert!(matches!(req(&"x".repeat(5000), |_| {}), Err(RequestError::TooLong(5000))));
        assert!(matches!(req("where?", |i| i.symbol_only = true), Err(RequestError::NotSymbol)));
        assert!(matches!(req("symbol = a >> b", |_| {}), Err(RequestError::Query(_))));
        assert!(matches!(req("where?", |i| i.languages = vec!["python".into()]), Err(RequestError::Language(_))));
        assert!(matches!(req("symbol = a", |i| i.paths = vec!["../..".into()]), Err(RequestError::Path(_))));
        assert!(matches!(req("where?", |i| i.paths = vec!["/**/x".into()]), Err(RequestError::Path(_))));
        assert!(matches!(req("symbol = ../outside/a.ts > f", |_| {}), Err(RequestError::Path(_))));
        assert!(matches!(req("symbol = /etc/a.ts > f", |_| {}), Err(RequestError::Path(_))));
        let e = req("symbol = a", |i| i.overrides.call_depth = Some(99)).unwrap_err().to_string();
        assert!(e.starts_with("Bad setting: callDepth"), "{e}");
        let ok = req("where? ", |i| i.languages = vec!["JS".into(), "javascript".into()]).unwrap();
        assert_eq!((ok.text.as_str(), ok.language.as_deref()), ("where?", Some("javascript")));
        assert_eq!(ok.mode, Mode::Natural("where?".into()));
    }
}
