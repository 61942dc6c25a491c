//! The Rust <-> JS contract: the serde twins of `js/protocol.d.ts`.
//!
//! Change both files in one commit. Positions are UTF-16 offsets into the
//! text Rust handed to JS; `tsq::parse` converts them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What Rust hands JS for one parse.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParseRequest {
    pub file_name: String,
    pub text: String,
}

/// What JS hands back for one parse.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParseResponse {
    /// Every node in pre-order; roots have `parent == -1`. Flat, so deep
    /// nesting never meets serde's recursion limit.
    pub nodes: Vec<RawNode>,
    pub comments: Vec<(u32, u32)>,
    pub diagnostics: Vec<RawDiagnostic>,
    /// Bodies that cannot change the file's API (function-likes with an
    /// explicit return type; TypeScript constructors and set accessors),
    /// outermost only: the API hash skips them.
    #[serde(default)]
    pub opaque_bodies: Vec<(u32, u32)>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawNode {
    pub name: String,
    pub kind: String,
    pub start: u32,
    pub end: u32,
    pub sig_start: u32,
    pub sig_end: u32,
    pub body_bearing: bool,
    pub in_expression: bool,
    pub modifiers: Vec<String>,
    pub exported: bool,
    pub jsdoc: Option<(u32, u32)>,
    /// For imports: the local names the import binds.
    pub bindings: Vec<String>,
    /// Index of the parent in `nodes`, or -1.
    pub parent: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawDiagnostic {
    pub start: u32,
    pub length: u32,
    pub message: String,
}

// ---- the Language Service (js/service/20_service.js, js/answers/30_resolvers.js) ----

/// A request to the service isolate.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "method", rename_all = "camelCase")]
pub enum ServiceRequest {
    /// Builds the workspace's projects. Paths are absolute, with `/`.
    #[serde(rename_all = "camelCase")]
    Load { root: String, configs: Vec<String>, source_files: Vec<String> },
    /// Re-reads the configs with the current file lists (files were added
    /// or deleted); the warm projects rebuild incrementally.
    #[serde(rename_all = "camelCase")]
    Refresh { configs: Vec<String>, source_files: Vec<String> },
    /// Resolves the declarations `names` points at (containers, then the
    /// symbol), in files whose path ends with `file` when given.
    #[serde(rename_all = "camelCase")]
    Inspect {
        file: Option<String>,
        names: Vec<String>,
        call_depth: i32,
        /// Only these resolvers (signature, members, typeHierarchy,
        /// outgoingCalls, incomingCallers, references, typeFlows); all when
        /// absent.
        #[serde(default)]
        resolvers: Option<Vec<String>>,
        /// Files that may declare the name (absolute): only their projects
        /// are built. All projects when absent.
        #[serde(default)]
        candidates: Option<Vec<String>>,
        /// Files that import the declaring files through relative paths
        /// (transitively): their projects can see the declaration too.
        #[serde(default)]
        importers: Option<Vec<String>>,
    },
    /// Resolves a `symbol =` query exactly (with hints when nothing
    /// matches) and builds the smart snapshot of each matched file.
    #[serde(rename_all = "camelCase")]
    Lookup { targets: Vec<LookupTarget> },
    /// Runs one of the extended analyses (`js/analyses/40_*.js` … `48_*.js`) over the workspace,
    /// or over the declarations `names` points at when given.
    #[serde(rename_all = "camelCase")]
    Analyze { analysis: String, file: Option<String>, names: Option<Vec<String>>, type_depth: i32 },
    /// Indexes the occurrences of these files (absolute), each with its
    /// owner project's program (`js/occurrences/60_occurrences.js`). `release` marks
    /// a full pass, sent in owner order: the programs of projects this
    /// request does not need are dropped first, and each project it used
    /// starts the next request with a fresh checker (a slice), so one
    /// checker never holds a whole large project's types.
    #[serde(rename_all = "camelCase")]
    Occurrences {
        files: Vec<String>,
        #[serde(default)]
        release: bool,
        /// In a full pass, a soft bound on the process's resident memory
        /// in MiB: past it, the engine collects garbage, and if that is
        /// not enough the project goes on with a fresh checker (0: fresh
        /// checkers only between requests).
        #[serde(default)]
        memory_mb: u32,
        /// An incremental sync of a few files whose owner program is not
        /// built yet (a fresh CLI process): each file may be checked in a
        /// program of its own import closure instead (`Narrow`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        narrow: Option<Narrow>,
        /// Each file's budget: past it, the file stops and is one of the
        /// response's `failed`, with the reason (its answers come live).
        #[serde(default)]
        budget: FileBudget,
    },
    /// Each file's owner project (its index in load order), from the
    /// config graph alone (no program is built): the order of a full
    /// occurrence pass.
    Owners { files: Vec<String> },
    /// Builds and binds the programs of these files' owner projects
    /// (absolute paths), so that the next occurrence pass over them is
    /// incremental (`tsq serve` when idle).
    Warm { files: Vec<String> },
    /// Parses the lib files of these files' owner projects (absolute
    /// paths) into the shared lib registry, building no program: the next
    /// program build finds them parsed. A fresh CLI process asks this
    /// beside its chunk sync. Answered `warmed` with nothing built.
    Libs { files: Vec<String> },
    /// Makes every project resolve these files' imports again when it
    /// next builds its program (a package.json their resolution read
    /// changed): TypeScript's `hasInvalidatedResolutions`. Answered
    /// `warmed` with nothing built.
    Invalidate { files: Vec<String> },
    /// Gives every project whose checker was asked for since its last
    /// fresh one a fresh checker over the same program (its files stay
    /// parsed and bound), and collects: what a long incremental pass
    /// checked stops holding memory before the next phase allocates
    /// (`tsq serve` after a cascade). Answered `warmed` with nothing built.
    Settle,
    /// Collects, and records the level left as where the next bounded
    /// occurrence request starts: `tsq serve` when idle, after passes that
    /// an answer waited for ran without a bound. Answered `warmed`.
    Collect,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ServiceResponse {
    Loaded {
        workspace: WorkspaceInfo,
    },
    Inspected {
        result: InspectResult,
    },
    #[serde(rename_all = "camelCase")]
    LookedUp {
        result: LookupResult,
    },
    /// An extended analysis's answer: its shape is declared per analysis
    /// in `js/protocol.d.ts` and passed through as JSON.
    Analyzed {
        result: serde_json::Value,
    },
    #[serde(rename_all = "camelCase")]
    Occurrences {
        files: Vec<FileOccurrences>,
        failed: Vec<FileFailure>,
        /// The workspace files of every program this request built or
        /// used (the scope of live answers from their files).
        #[serde(default)]
        programs: Vec<ProgramFiles>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        build_log: Vec<BuildEntry>,
        /// How often the memory bound (`memory_mb`) made the request go
        /// on with fresh checkers.
        #[serde(default)]
        fresh_checkers: u32,
        /// How often the bound collected garbage inside a file (one
        /// type-heavy file's growth), besides between files.
        #[serde(default)]
        collected_inside: u32,
    },
    /// `owners`: per file, its owner project's index, or -1.
    Owners {
        projects: Vec<i64>,
    },
    /// `warm`: how many programs this request built.
    #[serde(rename_all = "camelCase")]
    Warmed {
        built: usize,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        build_log: Vec<BuildEntry>,
    },
    Failed {
        message: String,
    },
}

impl ServiceResponse {
    /// A response sent as JSON text (`op_tsq_service_respond_json`). Text
    /// that does not parse is a `failed` response saying why. A lone
    /// surrogate (`JSON.stringify` escapes one, from a string literal's
    /// name), which serde_json refuses, is read as U+FFFD, as serde_v8
    /// reads it.
    pub fn from_json(json: &str) -> ServiceResponse {
        serde_json::from_str(&mend_lone_surrogates(json)).unwrap_or_else(|e| ServiceResponse::Failed {
            message: format!("the engine's response is not valid JSON for its kind ({e}): a tsq bug, please report it"),
        })
    }
}

/// `json` with each `\uXXXX` escape of a lone surrogate replaced by
/// `\ufffd`; borrowed when there is none.
pub fn mend_lone_surrogates(json: &str) -> std::borrow::Cow<'_, str> {
    let b = json.as_bytes();
    let unit = |i: usize| -> Option<u16> {
        let hex = b.get(i..i + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str(&json[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            _ => i += 2,
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(json);
    }
    out.push_str(&json[copied..]);
    std::borrow::Cow::Owned(out)
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceInfo {
    /// Programs built since the last answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_log: Vec<BuildEntry>,
    pub projects: Vec<ProjectInfo>,
    /// Solution-style configs (`"files": []` plus references).
    pub solutions: Vec<String>,
    /// Workspace source files no tsconfig covers (served by the inferred project).
    pub files_outside_projects: Vec<String>,
    pub config_errors: Vec<String>,
}

/// One program build: which project, how big, how many lib files it had
/// to parse (0 when the workspace's shared lib bucket had them), how long.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BuildEntry {
    pub project: String,
    pub files: u32,
    pub root_files: u32,
    pub lib_files_parsed: u32,
    pub ms: u64,
    /// How a narrow program went, when it left augmenters out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
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
    /// The configs its `extends` chain read (TypeScript's
    /// `extendedSourceFiles`): inputs of the index like the config itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extends: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InspectResult {
    pub matches: Vec<SymbolMetadata>,
    pub coverage: Coverage,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_log: Vec<BuildEntry>,
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
    /// How many workspace files no tsconfig covers (the inferred project
    /// serves them; `project-structure` lists them).
    pub files_outside_projects: u32,
    /// Why an answer may be incomplete (an unresolved import, say).
    pub partial: Vec<String>,
    pub config_errors: Vec<String>,
}

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

/// The blueprint's `SymbolMetadata`.
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

/// One `symbol =` query: an exact file (when given) and the names.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LookupTarget {
    pub file: Option<String>,
    pub names: Vec<String>,
    /// As for `inspect`: files that may declare the name.
    #[serde(default)]
    pub candidates: Option<Vec<String>>,
}

/// A lookup's declarations, their files' smart snapshots, or hints.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LookupResult {
    pub matches: Vec<LookupMatch>,
    pub snapshots: Vec<SnapshotParts>,
    /// Why nothing matched: case and path near-misses, missing parents.
    pub hints: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_log: Vec<BuildEntry>,
}

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

/// One file's smart snapshot as parts (`js/protocol.d.ts`); assembled
/// into a `Snapshot` by `tsq::snapshot`, so that parts computed apart merge
/// exactly as one computation would.
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

// ---- the occurrence index (js/occurrences/60_occurrences.js) ----

/// A project's program: the workspace files it holds (relative paths).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ProgramFiles {
    pub project: String,
    pub files: Vec<String>,
    /// Its files' imports it cannot resolve (`file: cannot resolve 'x'`),
    /// in the Language Service's order (`unresolvedImports`).
    #[serde(default)]
    pub unresolved: Vec<String>,
    /// Every file of the root it read that the walk does not index
    /// (relative): inputs of all its files.
    #[serde(default)]
    pub reads: Vec<String>,
}

/// One file's budget in an occurrence request (`js/occurrences/61_occurrence_requests.js`
/// `fileBudget`): `work` units (one per identifier and declaration the
/// pass visits, one per container a declaration's id names, one per type
/// and instantiation the checker creates meanwhile) and `seconds` of wall
/// time, checked between the pass's steps; 0 leaves either unbounded (the
/// default here: the pass's own defaults are `structure::occurrence_sync`'s).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct FileBudget {
    pub work: u64,
    pub seconds: u64,
}

/// What lets an occurrence request check a file in a program of its import
/// closure alone (the file, the project's declaration files and the files
/// that affect the global scope, and everything they import): a file's
/// rows depend on nothing else. Holds for a file whose imports, as the
/// closure resolves them, are those its rows recorded (else the request
/// checks it in the whole program).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Narrow {
    /// Workspace files whose rows say they affect every program that holds
    /// them (scripts, `declare global`, ambient `declare module "x"`),
    /// absolute.
    pub globals: Vec<String>,
    /// Files whose rows say they augment workspace modules and nothing
    /// else: a root only when the closure holds a module they augment. A
    /// program that holds one after all with its augmenter left out (an
    /// edge the rows do not show) is not used.
    #[serde(default)]
    pub augmenters: Vec<NarrowAugmenter>,
    /// Every file's imports by its rows (absolute), followed from the roots.
    #[serde(default)]
    pub imports: BTreeMap<String, Vec<String>>,
    /// Per file (absolute): what its rows recorded.
    pub files: Vec<NarrowFile>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NarrowAugmenter {
    pub file: String,
    /// The workspace files it augments, absolute.
    pub augments: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NarrowFile {
    pub file: String,
    /// The file's place in its owner program (`ord`'s file part), kept so
    /// that answers keep the Language Service's order.
    pub file_index: u32,
    /// The imports and re-exports its rows hold.
    pub imports: Vec<String>,
    pub reexports: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileOccurrences {
    pub relative_path: String,
    pub declarations: Vec<OccurrenceDeclaration>,
    /// Each declaration's own answer parts, for files the indexing
    /// project owns (empty otherwise: no lookup finds them there).
    #[serde(default)]
    pub answers: Vec<DeclarationAnswer>,
    pub occurrences: Vec<Occurrence>,
    /// The file's call-hierarchy items (`itemKey` → how tsq names them).
    pub items: Vec<CallItem>,
    /// TypeScript's outgoing calls of each item, to user code.
    pub calls: Vec<CallEdge>,
    /// Members and the base members they override or implement.
    pub bases: Vec<BaseEdge>,
    /// A script, `declare global` or `declare module "x"`: its API is everyone's.
    pub global: bool,
    /// TypeScript's `isFileAffectingGlobalScope` (its builder's rule): a
    /// script that is not only ambient modules, or a `declare global`. A
    /// change in a module it names reaches every file.
    #[serde(default)]
    pub global_scope: bool,
    /// When `global` only through augmentations of workspace modules: the
    /// files they augment (relative; the file matters to the programs
    /// that hold one). Empty otherwise.
    #[serde(default)]
    pub augments: Vec<String>,
    /// Checked in a program of its import closure (`Narrow`), not its
    /// owner's whole program.
    #[serde(default)]
    pub narrow: bool,
    /// The module specifiers it imports, sorted, each once: what its
    /// module resolution resolves in every program that holds it.
    #[serde(default)]
    pub specifiers: Vec<String>,
    pub imports: Vec<String>,
    pub reexports: Vec<String>,
    /// Workspace paths where a created file would answer an import
    /// (`failedLookupLocations`), and the workspace package.json files
    /// resolution consulted (`affectingLocations`).
    #[serde(default)]
    pub lookups: Vec<String>,
    #[serde(default)]
    pub affecting: Vec<String>,
    /// TypeScript's builder's references, followed through the files the
    /// walk does not index: the walked files reached (`deps`: an API
    /// change there re-indexes this file) and the other files of the root
    /// reached (`reads`: node_modules declarations, JSON modules, ignored
    /// sources; their text is an input of this file).
    #[serde(default)]
    pub deps: Vec<String>,
    #[serde(default)]
    pub reads: Vec<String>,
    /// The program keeps no referenced map (`module: none`, `outFile`):
    /// any change re-checks everything.
    #[serde(default)]
    pub opaque: bool,
    /// The declaration emit, plus what other files see that it leaves
    /// out (triple-slash directives, private members' types); `null` for
    /// scripts and when emit fails.
    pub api_text: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OccurrenceDeclaration {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub containers: Vec<String>,
    pub line: u32,
    pub end_line: u32,
    /// The call-hierarchy item `prepareCallHierarchy` picks at the name,
    /// for the declarations tsq's call trees start from.
    pub item: Option<String>,
    /// The meanings (value 1, type 2, namespace 4) find-references looks
    /// for from this declaration.
    pub meaning: u8,
}

/// What a `symbol =` answer shows of one declaration that its own file
/// decides: the lookup match, its snapshot parts, and `SymbolMetadata`
/// besides references, call trees and subtypes (derived from the rows).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationAnswer {
    pub name: String,
    pub containers: Vec<String>,
    /// The declaration's symbol id (`None`: no symbol, e.g. a binding
    /// pattern), call-hierarchy item and search meaning, as in
    /// `OccurrenceDeclaration`.
    pub id: Option<String>,
    pub item: Option<String>,
    pub meaning: u8,
    /// The Language Service's order: project, file in its program, node.
    pub ord: f64,
    #[serde(rename = "match")]
    pub matched: LookupMatch,
    pub snapshot: SnapshotParts,
    pub signature: String,
    pub modifiers: Vec<String>,
    /// The declaration's key: its id in its file (file, containers, name,
    /// `#k`) and its kind; stable while lines move.
    pub key: String,
    /// The keys of each resolved base class or interface.
    pub supertypes: Vec<String>,
    /// Declarations in other files the type flows and hierarchy name, by
    /// key: their lines are read from the rows when answering.
    #[serde(default)]
    pub links: Vec<DeclarationLink>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_hierarchy: Option<TypeHierarchy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<MemberInfo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_flows: Option<TypeFlow>,
}

/// A declaration in another file an answer names, as stored (`key`:
/// `None` when the pass could not name it).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationLink {
    pub key: Option<String>,
    pub file_path: String,
    pub line: u32,
    pub name: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    pub line: u32,
    pub column: u32,
    pub symbol: String,
    /// definition, reference, call, new, type, heritage, import.
    pub role: String,
    pub enclosing: String,
    /// For call sites (as the call hierarchy counts them): the item the
    /// site is grouped under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// The meanings of the place (value 1, type 2, namespace 4).
    pub meaning: u8,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CallItem {
    pub key: String,
    #[serde(rename = "ref")]
    pub symbol: SymbolRef,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CallEdge {
    pub from: String,
    pub to: String,
    pub sites: Vec<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BaseEdge {
    pub member: String,
    pub base: String,
    /// An object literal's member and its contextual type's property.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contextual: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileFailure {
    pub relative_path: String,
    pub message: String,
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

/// A directory listing for the compiler host: entry names, not paths.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct DirEntries {
    pub files: Vec<String>,
    pub directories: Vec<String>,
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
