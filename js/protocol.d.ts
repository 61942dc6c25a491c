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
//     op_tsq_service_respond(r: ServiceResponse).

export type ServiceRequest =
  | { method: "load"; root: string; configs: string[]; sourceFiles: string[] }
  | { method: "inspect"; file: string | null; names: string[]; callDepth: number; resolvers: string[] | null }
  | { method: "analyze"; analysis: string; file: string | null; names: string[] | null; typeDepth: number };

export type ServiceResponse =
  | { kind: "loaded"; workspace: WorkspaceInfo }
  | { kind: "inspected"; result: InspectResult }
  | { kind: "analyzed"; result: unknown /* per analysis, see Analyses below */ }
  | { kind: "failed"; message: string };

export interface WorkspaceInfo {
  projects: ProjectInfo[];
  solutions: string[];
  filesOutsideProjects: string[];
  configErrors: string[];
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
}

export interface Coverage {
  projectsLoaded: string[];
  projectsUsed: string[];
  filesOutsideProjects: string[];
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
