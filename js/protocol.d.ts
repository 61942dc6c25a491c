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
