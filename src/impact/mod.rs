//! What a change touches (`tsq impact`, MCP `change_impact`): the
//! declarations a diff changes (`changes`, `declarations`), everything
//! that depends on them and the tests that reach them (`reach`, from the
//! occurrence rows after the sync), the command that runs those tests
//! (`runner`), and the answer's text (`render`).
//!
//! Exactness: which declarations changed is the compiler's parser on
//! both texts; whether a change is API is the sync's own rule (opaque
//! bodies), settled by the compiler's signatures where a body is inferred
//! from; what depends on them is the compiler's resolved references.
//! What the rows cannot place per declaration (a config or package.json
//! edit) is said in `notes`, with what the sync re-checked for it.

pub mod changes;
pub mod declarations;
pub mod reach;
pub mod render;
pub mod runner;

use std::collections::HashSet;

use serde::Serialize;

pub use changes::FileStatus;
pub use declarations::Change;

/// What the working tree is compared with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum Base {
    /// A revision (default `HEAD`): the working tree's changes since it.
    Rev(String),
    /// The staged changes against `HEAD` (`git diff --staged`).
    Staged,
    /// The unstaged changes against the staging area (`git diff`).
    Worktree,
}

impl Default for Base {
    fn default() -> Self {
        Base::Rev("HEAD".into())
    }
}

/// Levels of dependents an API change reaches by default.
pub const DEFAULT_DEPTH: usize = 2;
/// Tokens of changed code an answer shows by default.
pub const DEFAULT_BUDGET: usize = 4_000;

/// An impact question, checked by the front end's parser.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ImpactRequest {
    pub base: Base,
    pub depth: usize,
    pub budget: usize,
    /// Only changes under these files or directories (relative to the
    /// root; checked to stay inside it).
    pub paths: Vec<String>,
}

impl Default for ImpactRequest {
    fn default() -> Self {
        ImpactRequest { base: Base::default(), depth: DEFAULT_DEPTH, budget: DEFAULT_BUDGET, paths: Vec::new() }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImpactError {
    #[error("{0} is not inside a git work tree: `tsq impact` compares the working tree with a git revision; run it in a git checkout")]
    NotARepository(String),
    #[error("unknown revision `{0}`: name one commit, branch or tag (`git log --oneline` lists them)")]
    UnknownRev(String),
    #[error("these staged files also have unstaged edits: {}; tsq answers for the working tree, so stage or stash those edits first", .0.join(", "))]
    UnstagedEdits(Vec<String>),
    #[error("the depth must be between 1 and 10 (got {0})")]
    Depth(usize),
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    Structure(#[from] crate::structure::StructureError),
}

/// A changed file, as git reports it, with what tsq made of it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    pub path: String,
    pub status: FileStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_path: Option<String>,
    /// Why its declarations are not compared (not a source file, too large).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A declaration that changed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedDeclaration {
    pub file: String,
    /// `Parent.name`.
    pub name: String,
    pub kind: String,
    pub change: Change,
    /// Its lines now (`None` when removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<(u32, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_signature: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_signature: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
    /// How a changed body was classified when the text alone could not
    /// say (its type may be inferred from it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
}

/// A declaration (or a file's top-level code) that depends on a change.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Affected {
    pub file: String,
    pub name: String,
    pub kind: String,
    pub lines: (u32, u32),
    /// 1: depends on a changed declaration; 2: on an affected one; …
    pub depth: u32,
    /// calls, extends or implements, uses the type, references, overrides
    /// or implements, referenced the removed declaration.
    pub why: String,
    /// What it depends on (`Parent.name`).
    pub of: String,
    /// The line of the reference.
    pub line: u32,
    /// Its symbol id (`None` for top-level code): where the search for
    /// tests goes on from.
    #[serde(skip)]
    pub(crate) id: Option<String>,
}

/// A test file that reaches the change, and how many steps away.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestToRun {
    pub file: String,
    pub distance: u32,
}

/// A changed declaration's code, read from the checkout.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub file: String,
    pub name: String,
    pub lines: (u32, u32),
    pub code: String,
}

/// The answer to an impact question.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImpactAnswer {
    pub base: String,
    pub depth: usize,
    pub files: Vec<ChangedFile>,
    pub changed: Vec<ChangedDeclaration>,
    pub affected: Vec<Affected>,
    pub tests: Vec<TestToRun>,
    /// Commands that run `tests`, one per package whose runner is known.
    pub commands: Vec<String>,
    pub snapshots: Vec<Snapshot>,
    /// Changed declarations whose code did not fit the budget.
    pub snapshots_left: usize,
    /// What the answer could not place exactly, and what it did instead.
    pub notes: Vec<String>,
    /// Where the structure came from (the sync that ran first).
    pub structure: String,
}

impl ImpactAnswer {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.changed.is_empty()
    }
}

/// Snapshots of the changed declarations that fit `budget` tokens, in
/// order; the number left out.
pub(crate) fn snapshots(changed: &[(ChangedDeclaration, Option<String>)], budget: usize) -> (Vec<Snapshot>, usize) {
    let mut used = 0;
    let mut out = Vec::new();
    let mut left = 0;
    for (c, code) in changed {
        let (Some(code), Some(lines)) = (code, c.lines) else { continue };
        let cost = crate::chunk::estimate_tokens(code);
        if used + cost > budget {
            left += 1;
            continue;
        }
        used += cost;
        out.push(Snapshot { file: c.file.clone(), name: c.name.clone(), lines, code: code.clone() });
    }
    (out, left)
}

/// The changed declarations' ids that reach dependents as API changes
/// and as body changes, and every changed id.
pub(crate) fn split_ids(changed: &[(ChangedDeclaration, Option<String>)], ids: &[Option<String>]) -> (Vec<String>, Vec<String>, HashSet<String>) {
    let (mut api, mut body, mut all) = (Vec::new(), Vec::new(), HashSet::new());
    for ((c, _), id) in changed.iter().zip(ids) {
        let Some(id) = id else { continue };
        all.insert(id.clone());
        match c.change {
            Change::Body => body.push(id.clone()),
            Change::Api | Change::Inferred | Change::Renamed | Change::Added => api.push(id.clone()),
            Change::Removed => {}
        }
    }
    (api, body, all)
}
