//! tsq's answer types: what a `symbol =` lookup, a search and `tsq inspect`
//! tell a user (and what `tsq lookup --format json` prints), kept apart
//! from the Rust-JS wire types (`ts::protocol`, twin of `js/protocol.d.ts`)
//! as rust-analyzer keeps its `ide` answers apart from `lsp_types`. The
//! wire types enter here, through the `From` impls at the bottom, and
//! nowhere past this module: the protocol may change without changing a
//! user's JSON (pinned by `tests/it/answer_shape.rs`) or the stored rows.

use serde::{Deserialize, Serialize};

use crate::ts::protocol as wire;

/// A declaration as answers name it: name, kind, where.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SymbolRef {
    pub name: String,
    pub kind: String,
    pub file_path: Option<String>,
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_abstract: Option<bool>,
}

/// The blueprint's `SymbolMetadata`: what the compiler says about one match.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SymbolMetadata {
    pub symbol: SymbolRef,
    pub project: String,
    pub signature: String,
    pub modifiers: Vec<String>,
    pub outgoing_calls: Vec<CallEntry>,
    pub incoming_callers: Vec<CallEntry>,
    pub references: References,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_hierarchy: Option<TypeHierarchy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<MemberInfo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_flows: Option<TypeFlow>,
}

/// One edge of a call tree, with the calls past it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CallEntry {
    pub name: String,
    pub kind: String,
    pub file_path: Option<String>,
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_abstract: Option<bool>,
    /// Lines of the calls, in the caller's file.
    pub call_sites: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cyclic: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_limited: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outgoing_calls: Option<Vec<CallEntry>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming_callers: Option<Vec<CallEntry>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct References {
    pub total_count: u32,
    pub file_count: u32,
    pub files: Vec<FileReferences>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileReferences {
    pub file_path: String,
    pub lines: Vec<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TypeHierarchy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<SymbolRef>,
    pub implements: Vec<SymbolRef>,
    pub subtypes: Vec<SymbolRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_abstract: Option<bool>,
    pub type_parameters: Vec<TypeParameter>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TypeParameter {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MemberInfo {
    pub name: String,
    pub kind: String,
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "type")]
    pub type_text: Option<String>,
    pub modifiers: Vec<String>,
}

/// Where a callable's parameter and return types come from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TypeFlow {
    pub symbol: SymbolRef,
    pub parameters: Vec<TypeFlowEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_type: Option<TypeFlowEntry>,
    pub referenced_types: Vec<SymbolRef>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TypeFlowEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "type")]
    pub type_text: Option<String>,
    pub resolved_types: Vec<SymbolRef>,
}

/// One exact match of a `symbol =` query: the declaration and its lines.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LookupMatch {
    pub symbol: SymbolRef,
    /// `Class.method`: containers and name.
    pub qualified_name: String,
    pub start_line: u32,
    pub end_line: u32,
    pub project: String,
}

/// One file's smart structural snapshot: `// path`, then the targets and
/// only the same-file declarations they reference.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub file_path: String,
    pub text: String,
}

/// One file's smart snapshot as parts, assembled into a `Snapshot` by
/// `tsq::snapshot` so that parts computed apart (stored per declaration)
/// merge exactly as one computation would.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotParts {
    pub file_path: String,
    pub targets: Vec<SnapshotPiece>,
    pub context: Vec<SnapshotPiece>,
    pub frames: Vec<SnapshotFrame>,
}

/// A declaration's text from its first line's start to its end; `pos` and
/// `end` are tsc's positions (they order pieces and test containment).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotPiece {
    pub pos: u32,
    pub end: u32,
    /// Where `text` starts (UTF-16, the start of its first line); the
    /// index keeps `start..end` and no text.
    #[serde(default)]
    pub start: u32,
    #[serde(default)]
    pub text: String,
    /// The `pos` of the class or interface it is a member of.
    pub frame: Option<u32>,
}

/// A class or interface around member pieces: its header through `{`, and
/// its last line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotFrame {
    pub pos: u32,
    /// `header` is `start..open`, `close` is `close_start..end` (UTF-16);
    /// the index keeps the ranges and no text.
    #[serde(default)]
    pub start: u32,
    #[serde(default)]
    pub open: u32,
    #[serde(default)]
    pub close_start: u32,
    #[serde(default)]
    pub end: u32,
    #[serde(default)]
    pub header: String,
    #[serde(default)]
    pub close: String,
}

/// A live lookup's exact matches, their files' snapshot parts, or hints.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Located {
    pub matches: Vec<LookupMatch>,
    pub snapshots: Vec<SnapshotParts>,
    /// Why nothing matched: case and path near-misses, missing parents.
    pub hints: Vec<String>,
}

/// What an answer rests on: the projects behind it and what is missing.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    /// Projects whose programs are built.
    pub projects_loaded: Vec<String>,
    /// Projects the answer did not need, never built.
    #[serde(default)]
    pub projects_not_loaded: Vec<String>,
    pub projects_used: Vec<String>,
    /// How many workspace files no tsconfig covers.
    pub files_outside_projects: u32,
    /// Why an answer may be incomplete (an unresolved import, say).
    pub partial: Vec<String>,
    pub config_errors: Vec<String>,
}

/// The workspace behind an answer: its projects and what no project covers.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceInfo {
    /// Programs built since the last answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_log: Vec<BuildEntry>,
    pub projects: Vec<ProjectInfo>,
    /// Solution-style configs (`"files": []` plus references).
    pub solutions: Vec<String>,
    /// Workspace source files no tsconfig covers (the inferred project's).
    pub files_outside_projects: Vec<String>,
    pub config_errors: Vec<String>,
}

/// One program build: which project, how big, how many lib files it
/// parsed, how long.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BuildEntry {
    pub project: String,
    pub files: u32,
    pub root_files: u32,
    pub lib_files_parsed: u32,
    pub ms: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInfo {
    /// The tsconfig path, or `inferred`.
    pub name: String,
    pub config_path: Option<String>,
    pub file_count: u32,
    pub references: Vec<String>,
    pub composite: bool,
}

/// `inspect`'s metadata per match and what it rests on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    pub matches: Vec<SymbolMetadata>,
    pub coverage: Coverage,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_log: Vec<BuildEntry>,
}

// ---- the one boundary: wire → answer ----

/// Each wire value of `v` as its answer type.
pub(crate) fn all<A, B: From<A>>(v: Vec<A>) -> Vec<B> {
    v.into_iter().map(B::from).collect()
}

impl From<wire::SymbolRef> for SymbolRef {
    fn from(w: wire::SymbolRef) -> Self {
        SymbolRef { name: w.name, kind: w.kind, file_path: w.file_path, line: w.line, is_abstract: w.is_abstract }
    }
}

impl From<wire::CallEntry> for CallEntry {
    fn from(w: wire::CallEntry) -> Self {
        CallEntry {
            name: w.name,
            kind: w.kind,
            file_path: w.file_path,
            line: w.line,
            is_abstract: w.is_abstract,
            call_sites: w.call_sites,
            cyclic: w.cyclic,
            depth_limited: w.depth_limited,
            outgoing_calls: w.outgoing_calls.map(all),
            incoming_callers: w.incoming_callers.map(all),
        }
    }
}

impl From<wire::References> for References {
    fn from(w: wire::References) -> Self {
        References { total_count: w.total_count, file_count: w.file_count, files: all(w.files) }
    }
}

impl From<wire::FileReferences> for FileReferences {
    fn from(w: wire::FileReferences) -> Self {
        FileReferences { file_path: w.file_path, lines: w.lines }
    }
}

impl From<wire::TypeHierarchy> for TypeHierarchy {
    fn from(w: wire::TypeHierarchy) -> Self {
        TypeHierarchy {
            extends: w.extends.map(SymbolRef::from),
            implements: all(w.implements),
            subtypes: all(w.subtypes),
            is_abstract: w.is_abstract,
            type_parameters: all(w.type_parameters),
        }
    }
}

impl From<wire::TypeParameter> for TypeParameter {
    fn from(w: wire::TypeParameter) -> Self {
        TypeParameter { name: w.name, constraint: w.constraint, default: w.default }
    }
}

impl From<wire::MemberInfo> for MemberInfo {
    fn from(w: wire::MemberInfo) -> Self {
        MemberInfo { name: w.name, kind: w.kind, line: w.line, type_text: w.type_text, modifiers: w.modifiers }
    }
}

impl From<wire::TypeFlow> for TypeFlow {
    fn from(w: wire::TypeFlow) -> Self {
        TypeFlow {
            symbol: w.symbol.into(),
            parameters: all(w.parameters),
            return_type: w.return_type.map(TypeFlowEntry::from),
            referenced_types: all(w.referenced_types),
        }
    }
}

impl From<wire::TypeFlowEntry> for TypeFlowEntry {
    fn from(w: wire::TypeFlowEntry) -> Self {
        TypeFlowEntry { name: w.name, type_text: w.type_text, resolved_types: all(w.resolved_types) }
    }
}

impl From<wire::SymbolMetadata> for SymbolMetadata {
    fn from(w: wire::SymbolMetadata) -> Self {
        SymbolMetadata {
            symbol: w.symbol.into(),
            project: w.project,
            signature: w.signature,
            modifiers: w.modifiers,
            outgoing_calls: all(w.outgoing_calls),
            incoming_callers: all(w.incoming_callers),
            references: w.references.into(),
            type_hierarchy: w.type_hierarchy.map(TypeHierarchy::from),
            members: w.members.map(all),
            type_flows: w.type_flows.map(TypeFlow::from),
        }
    }
}

impl From<wire::LookupMatch> for LookupMatch {
    fn from(w: wire::LookupMatch) -> Self {
        LookupMatch { symbol: w.symbol.into(), qualified_name: w.qualified_name, start_line: w.start_line, end_line: w.end_line, project: w.project }
    }
}

impl From<wire::Coverage> for Coverage {
    fn from(w: wire::Coverage) -> Self {
        Coverage {
            projects_loaded: w.projects_loaded,
            projects_not_loaded: w.projects_not_loaded,
            projects_used: w.projects_used,
            files_outside_projects: w.files_outside_projects,
            partial: w.partial,
            config_errors: w.config_errors,
        }
    }
}

impl From<wire::WorkspaceInfo> for WorkspaceInfo {
    fn from(w: wire::WorkspaceInfo) -> Self {
        WorkspaceInfo {
            build_log: all(w.build_log),
            projects: all(w.projects),
            solutions: w.solutions,
            files_outside_projects: w.files_outside_projects,
            config_errors: w.config_errors,
        }
    }
}

impl From<wire::BuildEntry> for BuildEntry {
    fn from(w: wire::BuildEntry) -> Self {
        BuildEntry { project: w.project, files: w.files, root_files: w.root_files, lib_files_parsed: w.lib_files_parsed, ms: w.ms }
    }
}

impl From<wire::ProjectInfo> for ProjectInfo {
    fn from(w: wire::ProjectInfo) -> Self {
        ProjectInfo { name: w.name, config_path: w.config_path, file_count: w.file_count, references: w.references, composite: w.composite }
    }
}

impl From<wire::InspectResult> for Inspection {
    fn from(w: wire::InspectResult) -> Self {
        Inspection { matches: all(w.matches), coverage: w.coverage.into(), build_log: all(w.build_log) }
    }
}

impl From<wire::SnapshotParts> for SnapshotParts {
    fn from(w: wire::SnapshotParts) -> Self {
        SnapshotParts { file_path: w.file_path, targets: all(w.targets), context: all(w.context), frames: all(w.frames) }
    }
}

impl From<wire::SnapshotPiece> for SnapshotPiece {
    fn from(w: wire::SnapshotPiece) -> Self {
        SnapshotPiece { pos: w.pos, end: w.end, start: w.start, text: w.text, frame: w.frame }
    }
}

impl From<wire::SnapshotFrame> for SnapshotFrame {
    fn from(w: wire::SnapshotFrame) -> Self {
        SnapshotFrame { pos: w.pos, start: w.start, open: w.open, close_start: w.close_start, end: w.end, header: w.header, close: w.close }
    }
}

impl From<wire::LookupResult> for Located {
    fn from(w: wire::LookupResult) -> Self {
        Located { matches: all(w.matches), snapshots: all(w.snapshots), hints: w.hints }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer type reads back what it writes and writes what the wire
    /// type wrote: the conversion drops and renames nothing.
    #[test]
    fn a_converted_metadata_serializes_as_the_wire_did() {
        let json = serde_json::json!({
            "symbol": {"name": "f", "kind": "function", "filePath": "a.ts", "line": 3},
            "project": "tsconfig.json",
            "signature": "function f(x: number): string",
            "modifiers": ["export"],
            "outgoingCalls": [{"name": "g", "kind": "function", "filePath": "b.ts", "line": 1, "callSites": [4],
                               "outgoingCalls": [{"name": "h", "kind": "method", "filePath": null, "line": null, "callSites": [], "depthLimited": true}]}],
            "incomingCallers": [{"name": "main", "kind": "function", "filePath": "c.ts", "line": 9, "callSites": [10, 12], "cyclic": true}],
            "references": {"totalCount": 2, "fileCount": 1, "files": [{"filePath": "c.ts", "lines": [10, 12]}]},
            "typeHierarchy": {"extends": {"name": "B", "kind": "class", "filePath": "b.ts", "line": 2, "isAbstract": true},
                              "implements": [], "subtypes": [], "typeParameters": [{"name": "T", "constraint": "object"}]},
            "members": [{"name": "m", "kind": "method", "line": 4, "type": "() => void", "modifiers": ["private"]}],
            "typeFlows": {"symbol": {"name": "f", "kind": "function", "filePath": "a.ts", "line": 3},
                          "parameters": [{"name": "x", "type": "number", "resolvedTypes": []}],
                          "returnType": {"name": "return", "resolvedTypes": []}, "referencedTypes": []}
        });
        let w: wire::SymbolMetadata = serde_json::from_value(json.clone()).unwrap();
        let a: SymbolMetadata = w.clone().into();
        assert_eq!(serde_json::to_value(&a).unwrap(), serde_json::to_value(&w).unwrap());
        assert_eq!(serde_json::to_value(&a).unwrap(), json);
        let back: SymbolMetadata = serde_json::from_value(json).unwrap();
        assert_eq!(back, a);
    }
}
