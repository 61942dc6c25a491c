// The parse entry point Rust calls (`tsqParse`): one file's text in through
// an op, tsc's `createSourceFile` (JSDoc parsing off), the symbol walk of
// 10_parser.js, and the flat node list of js/protocol.d.ts out.
"use strict";

((globalThis) => {
  const Walker = globalThis.tsqWalker;

  const SCRIPT_KINDS = {
    ".ts": ts.ScriptKind.TS, ".mts": ts.ScriptKind.TS, ".cts": ts.ScriptKind.TS,
    ".tsx": ts.ScriptKind.TSX, ".jsx": ts.ScriptKind.JSX,
    ".js": ts.ScriptKind.JS, ".mjs": ts.ScriptKind.JS, ".cjs": ts.ScriptKind.JS,
  };

  // ---- entry point ------------------------------------------------------------

  function extensionOf(fileName) {
    const m = /\.[cm]?[jt]sx?$/.exec(fileName);
    return m ? m[0] : ".ts";
  }

  /** Parses one file. Never throws: failures become `error`. */
  function parseFile(fileName, text) {
    let sf;
    try {
      sf = ts.createSourceFile(fileName, text, {
        languageVersion: ts.ScriptTarget.Latest,
        jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
      }, false, SCRIPT_KINDS[extensionOf(fileName)] ?? ts.ScriptKind.TS);
    } catch (e) {
      return { nodes: [], comments: [], diagnostics: [], error: describeError(e, "tsc parser") };
    }
    const diagnostics = sf.parseDiagnostics.map((d) => ({
      start: d.start ?? 0,
      length: d.length ?? 0,
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    }));
    try {
      const w = new Walker(sf);
      const nodes = flatten(w.roots(sf));
      return { nodes, comments: w.comments, diagnostics, error: null };
    } catch (e) {
      return { nodes: [], comments: [], diagnostics, error: describeError(e, "tsq symbol walk") };
    }
  }

  /** Pre-order, iteratively: each node gets its parent's index and loses
   *  its `children` array. */
  function flatten(roots) {
    const out = [];
    const stack = [];
    for (let i = roots.length - 1; i >= 0; i--) stack.push([roots[i], -1]);
    while (stack.length) {
      const [node, parent] = stack.pop();
      const index = out.length;
      const children = node.children;
      delete node.children;
      node.parent = parent;
      out.push(node);
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], index]);
    }
    return out;
  }

  function describeError(e, stage) {
    if (e instanceof RangeError) return `${stage}: JS stack overflow (nesting too deep): ${e.message}`;
    return `${stage}: ${e && e.stack ? e.stack : String(e)}`;
  }

  globalThis.tsqParseFile = parseFile;
  /** Entry point Rust calls: one request in, one response out, via ops. */
  globalThis.tsqParse = () => {
    const ops = Deno.core.ops;
    const req = ops.op_tsq_parse_request();
    ops.op_tsq_parse_respond(parseFile(req.fileName, req.text));
  };
})(globalThis);
