//! The blueprint's symbol notation: `symbol = [file >] [Parent >] name`;
//! the one mode test (`is_symbol_query`) and the `--path` scope (`in_scope`).

use std::fmt;

/// Whether `text` is a `symbol =` lookup: the one mode test.
pub fn is_symbol_query(text: &str) -> bool {
    let t = text.trim_start();
    t.strip_prefix("symbol").is_some_and(|rest| rest.trim_start().starts_with('='))
}

/// Whether a workspace-relative path is inside the `--path` scope.
pub(crate) fn in_scope(path: &str, scope: &[String]) -> bool {
    scope.is_empty()
        || scope.iter().any(|p| {
            let p = p.trim_start_matches("./").trim_end_matches('/');
            if p.contains(['*', '?', '[']) {
                globset::Glob::new(p).map(|g| g.compile_matcher().is_match(path)).unwrap_or(false)
                    || globset::Glob::new(&format!("**/{p}")).map(|g| g.compile_matcher().is_match(path)).unwrap_or(false)
            } else {
                path == p || path.starts_with(&format!("{p}/"))
            }
        })
}

/// A parsed symbol query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolQuery {
    /// A file path (or its tail) the symbol must be declared in.
    pub file: Option<String>,
    /// Containers, outermost first, then the symbol's own name.
    pub names: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("empty symbol query: expected `symbol = [file >] [Parent >] name`")]
    Empty,
    #[error("empty segment in symbol query `{0}`: segments are separated by `>`")]
    EmptySegment(String),
}

impl SymbolQuery {
    /// Parses `symbol = a > b`, or the same without the `symbol =` prefix.
    /// The first segment is a file when it has a `/` or a source extension.
    pub fn parse(text: &str) -> Result<SymbolQuery, QueryError> {
        let body = text.trim();
        let body = body.strip_prefix("symbol").map(str::trim_start).and_then(|b| b.strip_prefix('=')).unwrap_or(body).trim();
        if body.is_empty() {
            return Err(QueryError::Empty);
        }
        let mut segments: Vec<String> = body.split('>').map(|s| s.trim().to_string()).collect();
        if segments.iter().any(String::is_empty) {
            return Err(QueryError::EmptySegment(text.to_string()));
        }
        let first_is_file = segments.len() > 1 && {
            let s = &segments[0];
            s.contains('/') || crate::source::is_supported(std::path::Path::new(s))
        };
        let file = first_is_file.then(|| segments.remove(0));
        Ok(SymbolQuery { file, names: segments })
    }
}

impl fmt::Display for SymbolQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "symbol = ")?;
        if let Some(file) = &self.file {
            write!(f, "{file} > ")?;
        }
        write!(f, "{}", self.names.join(" > "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(SymbolQuery::parse("symbol = validateToken").unwrap().names, ["validateToken"]);
        let q = SymbolQuery::parse("symbol = TokenService > validateToken").unwrap();
        assert_eq!((q.file, q.names), (None, vec!["TokenService".to_string(), "validateToken".to_string()]));
        let q = SymbolQuery::parse("symbol = src/auth/tokenService.ts > TokenService > validateToken").unwrap();
        assert_eq!(q.file.as_deref(), Some("src/auth/tokenService.ts"));
        assert_eq!(q.names, ["TokenService", "validateToken"]);
        assert_eq!(SymbolQuery::parse("a.ts > f").unwrap().file.as_deref(), Some("a.ts"));
        assert_eq!(q.to_string(), "symbol = src/auth/tokenService.ts > TokenService > validateToken");
    }

    #[test]
    fn rejects_bad_queries() {
        assert_eq!(SymbolQuery::parse("symbol = "), Err(QueryError::Empty));
        assert!(matches!(SymbolQuery::parse("A >> b"), Err(QueryError::EmptySegment(_))));
    }
}
