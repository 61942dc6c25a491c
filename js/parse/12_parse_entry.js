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
      return { nodes: [], comments: [], diagnostics: [], opaqueBodies: [], error: describeError(e, "tsc parser") };
    }
    const diagnostics = sf.parseDiagnostics.map((d) => ({
      start: d.start ?? 0,
      length: d.length ?? 0,
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    }));
    try {
      const w = new Walker(sf);
      const nodes = flatten(w.roots(sf));
      return { nodes, comments: w.comments, diagnostics, opaqueBodies: opaqueBodies(sf), error: null };
    } catch (e) {
      return { nodes: [], comments: [], diagnostics, opaqueBodies: [], error: describeError(e, "tsq symbol walk") };
    }
  }

  /** The bodies that cannot change the file's API (its declaration
   *  output), outermost only, as [pos, end]: those of function-likes with
   *  an explicit return type (the checker never infers from them), and in
   *  TypeScript files those of constructors and set accessors. Everything
   *  else counts, conservatively: a body without a return type may be
   *  inferred from, and in JavaScript files `this.x =` in any body may
   *  declare a member. Iterative, so that deep nesting cannot overflow. */
  function opaqueBodies(sf) {
    const out = [];
    const isTs = sf.scriptKind === ts.ScriptKind.TS || sf.scriptKind === ts.ScriptKind.TSX;
    const stack = [sf];
    while (stack.length) {
      const node = stack.pop();
      if (node !== sf && ts.isFunctionLike(node) && node.body) {
        const k = node.kind;
        if (node.type || (isTs && (k === ts.SyntaxKind.Constructor || k === ts.SyntaxKind.SetAccessor))) {
          out.push([node.body.pos, node.body.end]);
          continue;
        }
      }
      const children = [];
      ts.forEachChild(node, (c) => { children.push(c); });
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
    return out;
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
