// The Rust <-> JS contract. Its twin is src/ts/protocol.rs: change both in one
// commit. Every position is a UTF-16 offset into the text Rust handed over;
// Rust turns them into byte offsets and 1-based lines.

/** What Rust hands JS for one parse (returned by `op_tsq_parse_request`). */
export interface ParseRequest {
  fileName: string;
  text: string;
}

/** What JS hands back through `op_tsq_parse_respond`. */
export interface ParseResponse {
  /** Every node, flattened in pre-order (a parent before its children,
   *  siblings in source order): root items are those with `parent` -1.
   *  Flat, so that deep nesting never meets serde's recursion limit. */
  nodes: RawNode[];
  /** Comments that lead a root statement or end the file: [pos, end]. */
  comments: [number, number][];
  /** tsc's parse diagnostics. */
  diagnostics: RawDiagnostic[];
  /** Bodies that cannot change the file's API (declaration output):
   *  function-likes with an explicit return type, and TypeScript
   *  constructors and set accessors. Outermost only, [pos, end], in source
   *  order. The API hash (structure invalidation) skips them. */
  opaqueBodies: [number, number][];
  /** Set when the parse was abandoned (JS exception, stack overflow). */
  error: string | null;
}

export interface RawNode {
  name: string;
  /** function | method | constructor | getter | setter | property | class |
   *  interface | type | enum | enumMember | namespace | module | component |
   *  variable | const | call | construct | index | import | export |
   *  re-export | expression */
  kind: string;
  /** Range start, JSDoc and decorators included. */
  start: number;
  end: number;
  /** Where the signature text starts (after JSDoc and decorators). */
  sigStart: number;
  /** Where the signature text ends: the body's start, or `end`. */
  sigEnd: number;
  /** Has a body that a parent chunk collapses to a stub. */
  bodyBearing: boolean;
  /** The node sits in expression position (callback, object member):
   *  its parent collapses only the body, keeping the code's shape. */
  inExpression: boolean;
  modifiers: string[];
  exported: boolean;
  /** Attached JSDoc comment: [pos, end], or null. */
  jsdoc: [number, number] | null;
  /** For imports: the local names the import binds. */
  bindings: string[];
  /** Index of the parent in `nodes`, or -1 for a root item. */
  parent: number;
}

export interface RawDiagnostic {
  start: number;
  length: number;
  message: string;
}

// ---- the Language Service (20_service.js, 30_resolvers.js) ----
// Ops JS calls for files (Rust decides what may be read; paths are absolute
// with `/`; `/__tsq__/lib/` holds the vendored lib.*.d.ts):
//   op_tsq_fs_read(path): string | null
//   op_tsq_fs_file_exists(path): boolean
//   op_tsq_fs_dir_exists(path): boolean
//   op_tsq_fs_entries(path): DirEntries
//   op_tsq_fs_version(path): string        (content hash)
//   op_tsq_fs_realpath(path): string
// and op_tsq_service_request(): ServiceRequest,
//     op_tsq_service_respond(r: ServiceResponse),
//     op_tsq_service_respond_json(JSON.stringify(r)) for `occurrences`.

export type ServiceRequest =
  | { method: "load"; root: string; configs: string[]; sourceFiles: string[] }
  | { method: "refresh"; configs: string[]; sourceFiles: string[] }
  | { method: "inspect"; file: string | null; names: string[]; callDepth: number; resolvers: string[] | null; candidates: string[] | null; importers: string[] | null }
  | { method: "lookup"; targets: { file: string | null; names: string[]; candidates: string[] | null }[] }
  | { method: "analyze"; analysis: string; file: string | null; names: string[] | null; typeDepth: number }
  /** `release`: a full pass, in owner order; each request is a slice
   *  (programs of other projects dropped, a fresh checker after it). */
  /** `narrow`: each file may be checked in a program of its import
   *  closure (the file, the project's declaration files, `globals`, and
   *  what they import) when its owner program is not built and its
   *  imports there are those `files` records (else the whole program). */
  /** `budget`: each file's (work units, seconds; 0: unbounded); a file
   *  past it stops and is one of `failed`, with the reason. */
  | { method: "occurrences"; files: string[]; release: boolean; memoryMb: number; narrow?: { globals: string[]; files: { file: string; fileIndex: number; imports: string[]; reexports: string[] }[] }; budget: { work: number; seconds: number } }
  /** Each file's owner project index (-1: none), without building programs. */
  | { method: "owners"; files: string[] }
  /** Builds and binds the programs of the files' owner projects, so that
   *  the next occurrence pass over them is incremental (`tsq serve`). */
  | { method: "warm"; files: string[] }
  /** Parses the lib files of the files' owner projects, building no program. */
  | { method: "libs"; files: string[] }
  /** Every project resolves the files' imports again at its next program. */
  | { method: "invalidate"; files: string[] }
  /** A fresh checker for every built program (files stay parsed and
   *  bound); Rust collects after it. */
  | { method: "settle" }
  | { method: "collect" };

/** Sent through `op_tsq_service_respond`, except `occurrences`, sent as
 *  `JSON.stringify` text through `op_tsq_service_respond_json` (read with
 *  serde_v8 on QuickJS, every string of a batch was copied twice). */
export type ServiceResponse =
  | { kind: "loaded"; workspace: WorkspaceInfo }
  | { kind: "inspected"; result: InspectResult }
  | { kind: "lookedUp"; result: LookupResult }
  | { kind: "analyzed"; result: unknown /* per analysis, see Analyses below */ }
  /** `programs`: the workspace files of every program the request built
   *  or used (the scope of live answers from their files). */
  | { kind: "occurrences"; files: FileOccurrences[]; failed: { relativePath: string; message: string }[]; programs: { project: string; files: string[]; unresolved: string[]; reads: string[] }[]; buildLog: BuildEntry[]; freshCheckers: number; collectedInside: number }
  | { kind: "owners"; projects: number[] }
  /** `warmed`: how many programs this request built (already built ones
   *  are not counted). */
  | { kind: "warmed"; built: number; buildLog: BuildEntry[] }
  | { kind: "failed"; message: string };

export interface WorkspaceInfo {
  /** Programs built since the last answer. */
  buildLog: BuildEntry[];
  projects: ProjectInfo[];
  solutions: string[];
  filesOutsideProjects: string[];
  configErrors: string[];
}

export interface BuildEntry {
  project: string;
  files: number;
  rootFiles: number;
  /** Lib files this build parsed (0 when the shared lib bucket had them). */
  libFilesParsed: number;
  ms: number;
  /** How a narrow program went, when it left augmenters out. */
  note?: string;
}

export interface ProjectInfo {
  name: string;
  configPath: string | null;
  fileCount: number;
  references: string[];
  composite: boolean;
}

export interface InspectResult {
  matches: SymbolMetadata[];
  coverage: Coverage;
  buildLog: BuildEntry[];
}

export interface Coverage {
  /** Projects whose programs are built. */
  projectsLoaded: string[];
  /** Projects the answer did not need, never built. */
  projectsNotLoaded: string[];
  projectsUsed: string[];
  /** How many workspace files no tsconfig covers. */
  filesOutsideProjects: number;
  partial: string[];
  configErrors: string[];
}

export interface SymbolRef {
  name: string;
  kind: string;
  filePath: string | null;
  line: number | null;
  isAbstract?: boolean;
}

export interface SymbolMetadata {
  symbol: SymbolRef;
  project: string;
  signature: string;
  modifiers: string[];
  outgoingCalls: CallEntry[];
  incomingCallers: CallEntry[];
  references: References;
  typeHierarchy?: TypeHierarchy;
  members?: MemberInfo[];
  typeFlows?: TypeFlow;
}

export interface LookupResult {
  matches: LookupMatch[];
  snapshots: SnapshotParts[];
  hints: string[];
  buildLog: BuildEntry[];
}

/** One file's smart snapshot as parts; Rust assembles the text
 *  (src/snapshot.rs). Positions are tsc's (UTF-16, leading trivia
 *  included): they order pieces and test containment, nothing more. */
export interface LookupMatch {
  symbol: SymbolRef;
  /** `Class.method`: containers and name. */
  qualifiedName: string;
  startLine: number;
  endLine: number;
  project: string;
}

export interface SnapshotParts {
  filePath: string;
  targets: SnapshotPiece[];
  context: SnapshotPiece[];
  /** `header` is `start..open`, `close` is `closeStart..end`; a stored
   *  answer keeps the ranges only (no `header`, `close`). */
  frames: { pos: number; start: number; open: number; closeStart: number; end: number; header?: string; close?: string }[];
}

/** A declaration's text from the start of its first line (JSDoc included)
 *  to its end; `frame`: the position of the class or interface it is a
 *  member of. */
export interface SnapshotPiece {
  pos: number;
  end: number;
  /** Where `text` starts; a stored answer keeps `start..end` only. */
  start: number;
  text?: string;
  frame: number | null;
}

export interface TypeFlow {
  symbol: SymbolRef;
  parameters: TypeFlowEntry[];
  returnType?: TypeFlowEntry;
  referencedTypes: SymbolRef[];
}

export interface TypeFlowEntry {
  name: string;
  type?: string;
  resolvedTypes: SymbolRef[];
}

export interface CallEntry extends SymbolRef {
  callSites: number[];
  cyclic?: boolean;
  depthLimited?: boolean;
  outgoingCalls?: CallEntry[];
  incomingCallers?: CallEntry[];
}

/** The occurrence index (js/occurrences/60_occurrences.js): one checker pass per file. */
export interface FileOccurrences {
  relativePath: string;
  declarations: { id: string; name: string; kind: string; containers: string[]; line: number; endLine: number; item: string | null; meaning: number }[];
  /** Each declaration's own answer parts (owned files only), in the
   *  lookup's declaration order. */
  answers: DeclarationAnswer[];
  /** Every identifier that resolves (through ES aliases) to a workspace
   *  symbol; `caller` on call sites, as the call hierarchy groups them. */
  occurrences: { line: number; column: number; symbol: string; role: string; enclosing: string; caller?: string; meaning: number }[];
  items: { key: string; ref: SymbolRef }[];
  calls: { from: string; to: string; sites: number[] }[];
  /** `contextual`: an object literal's member and its contextual type's property. */
  bases: { member: string; base: string; contextual?: boolean }[];
  global: boolean;
  /** TypeScript's `isFileAffectingGlobalScope`: a script that is not only ambient modules, or a `declare global`. */
  globalScope: boolean;
  /** Checked in a program of its import closure (`narrow` requests). */
  narrow?: boolean;
  /** The workspace files a module augmentation of it augments (when that is all it adds). */
  augments: string[];
  /** The module specifiers it imports, sorted, each once. */
  specifiers: string[];
  imports: string[];
  reexports: string[];
  /** Failed lookup locations and package.json files its resolution read. */
  lookups: string[];
  affecting: string[];
  /** TypeScript's builder's references, followed through the files the walk does not index: the walked files reached, and the other files of the root reached (inputs of this file). */
  deps: string[];
  reads: string[];
  /** The program keeps no referenced map (`module: none`, `outFile`). */
  opaque: boolean;
  apiText: string | null;
}

export interface DeclarationAnswer {
  name: string;
  containers: string[];
  id: string | null;
  item: string | null;
  meaning: number;
  ord: number;
  match: LookupMatch;
  snapshot: SnapshotParts;
  signature: string;
  modifiers: string[];
  /** Its id in its file (file, containers, name, `#k`) and its kind. */
  key: string;
  /** The keys of each resolved base class or interface. */
  supertypes: string[];
  /** Declarations in other files the type flows and hierarchy name. */
  links: { key: string | null; filePath: string; line: number; name: string }[];
  typeHierarchy?: TypeHierarchy;
  members?: MemberInfo[];
  typeFlows?: TypeFlow;
}

export interface References {
  totalCount: number;
  fileCount: number;
  files: { filePath: string; lines: number[] }[];
}

export interface TypeHierarchy {
  extends?: SymbolRef;
  implements: SymbolRef[];
  subtypes: SymbolRef[];
  isAbstract?: boolean;
  typeParameters: { name: string; constraint?: string; default?: string }[];
}

export interface MemberInfo {
  name: string;
  kind: string;
  line: number;
  type?: string;
  modifiers: string[];
}

export interface DirEntries {
  files: string[];
  directories: string[];
}

// ---- Analyses: the `analyzed` result of each extended analysis ----
// (`tsq analyze <name>`; js/4N_*.js). "project-structure" answers a
// WorkspaceInfo; "program-build" and "symbol-sample" are internal.

// ---- "ambients" ----
export interface AmbientMember {
  name: string;
  /** function | variable | interface | type | class | enum | namespace */
  kind: string;
  line: number;
  signature: string;
  /** only for namespaces: their own declarations, recursively */
  members?: AmbientMember[];
}
export interface AmbientBlock { filePath: string; line: number; members: AmbientMember[] }
export interface AmbientModuleBlock {
  moduleName: string; filePath: string; line: number;
  /** `declare module` inside a module file (augmentation), vs an ambient module in a script */
  isAugmentation: boolean;
  members: AmbientMember[];
}
export interface AmbientDeclaration extends AmbientMember { filePath: string; inDeclarationFile: boolean }
export interface AmbientsResult {
  globalBlocks: AmbientBlock[];
  moduleBlocks: AmbientModuleBlock[];
  ambientDeclarations: AmbientDeclaration[];
}

// ---- "side-effects": SideEffectAnalysis[], sorted by filePath ----
export interface SideEffect {
  kind: "sideEffectImport" | "topLevelCall" | "iife" | "globalAssignment" | "topLevelAwait";
  text: string;
  line: number;
  targetName?: string;
  isConditional: boolean;
}
export interface SideEffectAnalysis { filePath: string; effects: SideEffect[] }

// ---- "enum-members": EnumInfo[], sorted by filePath, line ----
export interface EnumMemberInfo {
  name: string;
  /** initializer source text, or the auto-increment number as text; null if unknown */
  value: string | null;
  isComputed: boolean;
  line: number;
}
export interface EnumInfo { symbol: SymbolRef; isConst: boolean; isDeclare: boolean; members: EnumMemberInfo[] }

// ---- "unicode-identifiers": UnicodeFileReport[], sorted by filePath ----
export interface UnicodeIdentifier {
  name: string;
  kind: string;
  line: number;
  /** file | function:X | class:X | interface:X | enum:X | namespace:X | type:X | global */
  scope: string;
  scripts: string[];
  isMixedScript: boolean;
  hasZeroWidth: boolean;
  hasBidiOverride: boolean;
  normalized: string;
  isNormalized: boolean;
  codePoints: string[];
  confusableWith: string[];
  severity: "info" | "warning" | "critical";
  reasons: string[];
}
export interface ConfusablePair {
  first: { name: string; line: number; scope: string };
  second: { name: string; line: number; scope: string };
  skeleton: string;
  reason: string;
}
export interface UnicodeFileReport {
  filePath: string;
  identifiers: UnicodeIdentifier[];
  confusablePairs: ConfusablePair[];
  bidiControls: { line: number; column: number; codePoint: string }[];
}

// ---- "alias-graph": AliasGraph[] ----
export interface AliasGraph {
  /** The declaration every alias finally resolves to. */
  canonical: SymbolRef;
  aliases: AliasEntry[];
}
export type AliasKind =
  | "import-rename" | "type-only-import" | "default-import" | "default-as-named" | "export-rename"
  | "type-only-export" | "re-export" | "wildcard-re-export" | "namespace-import" | "namespace-re-export"
  | "namespace-alias" | "default-export" | "export-assignment" | "require-import";
export interface AliasEntry {
  name: string;
  filePath: string;
  line: number;
  kind: AliasKind;
  originalName: string;
  /** Names from the declaration to this alias, one per hop. */
  chain: string[];
}

// ---- "advanced-types": AdvancedTypeAnalysis[] ----
export interface AdvancedTypeAnalysis {
  symbol: SymbolRef;
  typeText: string;
  typeParameters: { name: string; constraint?: string; default?: string }[];
  structure: AdvancedTypeEntry;
}
export type AdvancedTypeKind = "conditional" | "mapped" | "template-literal" | "utility" | "union" |
  "intersection" | "indexed-access" | "keyof" | "typeof" | "infer" | "simple";
export interface AdvancedTypeEntry {
  role?: string;
  kind: AdvancedTypeKind;
  text: string;
  conditional?: { checkType: string; extendsType: string; trueType: string; falseType: string; inferTypes: string[] };
  mapped?: { keyName: string; constraint: string; valueType: string;
    readonlyModifier?: "+readonly" | "-readonly"; optionalModifier?: "+?" | "-?"; nameType?: string };
  templateLiteral?: { templateText: string; head: string; spans: { type: string; literal: string }[] };
  utility?: { name: string; typeArguments: string[] };
  indexedAccess?: { objectType: string; indexType: string };
  /** Present only when depth < typeDepth and the node has nested types. */
  children?: AdvancedTypeEntry[];
}

// ---- "type-guards": TypeGuardAnalysis[] ----
export type TypeGuardKind = "user-defined" | "assertion" | "typeof" | "instanceof" | "in-operator" |
  "discriminant" | "nullish" | "equality" | "array-isarray" | "early-return" | "exhaustive" | "compound";
export interface TypeGuardAnalysis { symbol: SymbolRef; guards: TypeGuardEntry[] }
export interface TypeGuardEntry {
  kind: TypeGuardKind;
  line: number;
  guardText: string;
  narrowedName: string;
  narrowedTo?: string;
  property?: string;
  components?: TypeGuardKind[];
  isReturnTypeGuard?: true;
  inferred?: true;
}

// ---- "callbacks": CallbackAnalysis[] ----
export type CalleeKind = "array-method" | "promise" | "user" | "library" | "unknown";
export interface CallbackAnalysis {
  symbol: SymbolRef;
  usedAsCallbackIn: CallbackUsage[];
  callbackParameters: CallbackParameter[];
  returnsFunction: boolean;
  returnFunctionType?: string;
}
export interface CallbackUsage {
  callbackName: string;
  calledBy: string;
  calleeKind: CalleeKind;
  filePath: string; line: number;
  parameterIndex: number;
  boundWithBind?: true;
}
export interface CallbackParameter { name: string; parameterIndex: number; type: string; isRest?: true }

// ---- "guard-callbacks": GuardCallbackAnalysis[] ----
export interface GuardCallbackAnalysis {
  symbol: SymbolRef;
  predicate?: { kind: "is" | "asserts"; parameterName: string; type?: string; inferred?: true };
  guardCallbackSites: GuardCallbackSite[];
  guardHofParameters: GuardHofParameter[];
}
export interface GuardCallbackSite {
  guardName: string; calledBy: string; calleeKind: CalleeKind;
  filePath: string; line: number; parameterIndex: number; boundWithBind?: true;
  predicateKind: "is" | "asserts";
  predicateType?: string;
  inputType?: string;
  narrowedOutputType?: string;
  acceptsPredicate: boolean;
}
export interface GuardHofParameter {
  name: string; parameterIndex: number; type: string;
  hasTypePredicate: boolean; predicateKind?: "is" | "asserts"; predicateType?: string; isRest?: true;
}
