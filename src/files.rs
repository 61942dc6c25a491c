//! What a workspace path is, from the path alone: its language and its
//! role (implementation, test, example, mock, fixture, generated code,
//! declaration file, barrel). Shared by the index, ranking and the answers'
//! concise form, below all of them.

use serde::Serialize;

/// `typescript` or `javascript`, from the extension.
pub(crate) fn language_of(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("js" | "jsx" | "mjs" | "cjs") => "javascript",
        _ => "typescript",
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
    pub(crate) fn factor(self) -> f64 {
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
    if is_declaration_file(file) {
        return Role::Declaration;
    }
    if barrel {
        return Role::Barrel;
    }
    Role::Implementation
}

/// Whether a path names a declaration file (`.d.ts`, `.d.mts`, `.d.cts`).
pub(crate) fn is_declaration_file(path: &str) -> bool {
    path.ends_with(".d.ts") || path.ends_with(".d.mts") || path.ends_with(".d.cts")
}
