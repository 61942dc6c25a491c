// tsq lookup (blueprint phases 4 and 6): resolves a `symbol =` query to
// its declarations, with hints when nothing matches, and builds the smart
// structural snapshot of each file: the targets expanded, plus only the
// same-file declarations they reference as the checker resolves them
// (imports, root constants and types, class properties, the class line).
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = globalThis.tsqLs;

  /** Every declaration name in the workspace, for hints. */
  function allDeclarations(workspace) {
    const out = [];
    L.eachUserFile(workspace, (sf) => {
      const visit = (n) => {
        if (L.DECLARATION_KINDS.has(n.kind) && n.name) out.push({ sf, node: n, name: L.nameText(n) });
        ts.forEachChild(n, visit);
      };
      visit(sf);
    });
    return out;
  }

  function userFileNames(workspace) {
    const out = [];
    L.eachUserFile(workspace, (sf) => out.push(L.rel(sf.fileName)));
    return out.sort();
  }

  /** Why a query matched nothing, as the blueprint's hints. */
  function hints(workspace, req) {
    const out = [];
    const files = userFileNames(workspace);
    const name = req.names[req.names.length - 1];
    if (req.file && !files.some((f) => f === req.file.replace(/^\.?\//, ""))) {
      const base = req.file.split("/").pop().toLowerCase();
      const similar = files.filter((f) => f.toLowerCase().endsWith(req.file.toLowerCase()) || f.split("/").pop().toLowerCase() === base);
      out.push(similar.length
        ? `No file "${req.file}" found. Similar paths: ${similar.slice(0, 5).join(", ")}`
        : `No file "${req.file}" found.`);
      return out;
    }
    // A file too deep to parse is empty to every program (js/service/18_documents.js).
    const unparsable = req.file && workspace.registry.unparsable.get(ts.getNormalizedAbsolutePath(req.file.replace(/^\.?\//, ""), workspace.root));
    if (unparsable) out.push(`"${req.file}": ${unparsable}.`);
    const decls = allDeclarations(workspace);
    const parents = req.names.slice(0, -1);
    if (parents.length) {
      const parent = parents[parents.length - 1];
      const parentDecls = decls.filter((d) => d.name === parent);
      if (!parentDecls.length) out.push(`No symbol "${parent}" found (the parent of "${name}").`);
      else {
        const loc = parentDecls.map((d) => `${L.rel(d.sf.fileName)}:${L.line(d.sf, d.node.name.getStart(d.sf))}`).slice(0, 3).join(", ");
        out.push(`"${parent}" (${loc}) has no member "${name}".`);
      }
    }
    const lower = name.toLowerCase();
    const near = decls.filter((d) => d.name !== name && d.name.toLowerCase() === lower);
    if (near.length) {
      const d = near[0];
      out.push(`No symbol "${name}" found. Did you mean "${d.name}" (${L.rel(d.sf.fileName)}:${L.line(d.sf, d.node.name.getStart(d.sf))})?`);
    } else if (!parents.length) {
      out.push(`No symbol "${name}" found.`);
    }
    return out;
  }

  /** The node whose text a snapshot shows for a declaration: a variable's
   *  whole statement, an import's whole declaration. */
  function unitOf(decl) {
    let n = decl;
    if (n.kind === SK.VariableDeclaration) n = n.parent.parent;
    for (let p = n; p; p = p.parent) {
      if (p.kind === SK.ImportDeclaration || p.kind === SK.ImportEqualsDeclaration) return p;
    }
    if (n.kind === SK.BindingElement) {
      let p = n;
      while (p && p.kind !== SK.VariableStatement) p = p.parent;
      return p || null;
    }
    return n;
  }

  /** Whether `unit` is a context unit of `sf`. Its kind is asked first:
   *  its file is a walk up to the root, which a nested declaration's
   *  every reference paid in a deep file. */
  function isContext(unit, sf) {
    if (!unit) return false;
    switch (unit.kind) {
      case SK.ImportDeclaration:
      case SK.ImportEqualsDeclaration:
      case SK.PropertyDeclaration:
        break;
      case SK.VariableStatement:
      case SK.TypeAliasDeclaration:
      case SK.InterfaceDeclaration:
      case SK.EnumDeclaration:
        if (!unit.parent || (unit.parent.kind !== SK.SourceFile && unit.parent.kind !== SK.ModuleBlock)) return false;
        break;
      default:
        return false;
    }
    return unit.getSourceFile() === sf;
  }

  /** Start of the node's first line (so indentation is kept), JSDoc
   *  included. Kept per node: the comment scan of a node at the file's
   *  start runs TypeScript's shebang regex over the whole text, which
   *  QuickJS's regex engine tries at every position (no anchor
   *  shortcut), and every member's snapshot asks again for its class's
   *  frame: a class of 4,000 methods at the top of its file cost the
   *  square of the file. */
  const lineStarts = new WeakMap();
  function lineStart(sf, node) {
    let start = lineStarts.get(node);
    if (start !== undefined) return start;
    const jsDoc = ts.getJSDocCommentRanges ? ts.getJSDocCommentRanges(node, sf.text) : null;
    let pos = node.getStart(sf);
    if (jsDoc && jsDoc.length) pos = Math.min(pos, jsDoc[jsDoc.length - 1].pos);
    start = sf.getLineStarts()[sf.getLineAndCharacterOfPosition(pos).line];
    lineStarts.set(node, start);
    return start;
  }

  /** The class or interface a member sits in, when it is one. */
  function frameOf(n) {
    const p = n.parent;
    return p && (p.kind === SK.ClassDeclaration || p.kind === SK.InterfaceDeclaration) ? p : null;
  }

  /** Nodes whose context units the stored answers' pass keeps apart
   *  (`snapshot`'s `memo`): every declaration, and the statements a
   *  variable's snapshot starts at. */
  const MEMO_KINDS = new Set([...L.DECLARATION_KINDS, SK.VariableStatement, SK.ForStatement, SK.ForInStatement, SK.ForOfStatement]);

  /** The smart snapshot of one file for its target declarations, as parts
   *  (the pieces' text and positions): the targets, the same-file
   *  declarations they reference, and the frames of their classes. Rust
   *  assembles the text (src/snapshot.rs), so that parts computed apart
   *  (stored answers) merge exactly as one computation would. With
   *  `positionsOnly`, the parts hold ranges and no text (the occurrence
   *  pass keeps ranges: a declaration's text sliced per nested
   *  declaration cost the square of a deep file's size). */
  function snapshot(project, sf, targets, memo, symbols, positionsOnly) {
    const checker = project.program().getTypeChecker();
    const text = sf.text;
    const inTarget = (n) => targets.some((t) => n.pos >= t.pos && n.end <= t.end);
    // The same-file context units a node's subtree references, in the
    // order of their first reference. The stored answers' pass asks this
    // for every declaration of a file, nested ones included: `memo` is
    // its per-file cache, and a declaration's refs are those of its
    // nested declarations, merged where the walk meets them (the same
    // order as one walk), so each identifier is resolved once per file,
    // not once per declaration around it. `symbols` holds what the
    // file's occurrence rows already resolved (`getSymbolAtLocation` of
    // each identifier).
    const refsOf = (t) => {
      let refs = memo && memo.get(t);
      if (refs) return refs;
      const found = new Set();
      const visit = (n) => {
        if (memo && n !== t && MEMO_KINDS.has(n.kind)) {
          for (const unit of refsOf(n)) found.add(unit);
          return;
        }
        if (n.kind === SK.Identifier || n.kind === SK.PrivateIdentifier) {
          const sym = symbols && symbols.has(n) ? symbols.get(n) : checker.getSymbolAtLocation(n);
          for (const d of (sym && sym.declarations) || []) {
            const unit = unitOf(d);
            if (unit && isContext(unit, sf)) found.add(unit);
          }
        }
        ts.forEachChild(n, visit);
      };
      visit(t);
      refs = [...found];
      if (memo) memo.set(t, refs);
      return refs;
    };
    const context = new Set();
    // Declarations the targets reference, and what those reference in
    // turn (a property's type, a constant's initializer): a worklist.
    const work = targets.slice();
    while (work.length) {
      for (const unit of refsOf(work.pop())) {
        if (!inTarget(unit) && !context.has(unit)) {
          context.add(unit);
          work.push(unit);
        }
      }
    }
    const frames = new Map();
    const piece = (n) => {
      const cls = frameOf(n);
      if (cls && !frames.has(cls)) {
        const open = text.lastIndexOf("{", cls.members.pos);
        const start = lineStart(sf, cls);
        const closeStart = sf.getLineStarts()[sf.getLineAndCharacterOfPosition(cls.end - 1).line];
        // The ranges (UTF-16 offsets) are what a stored answer keeps: Rust
        // slices the text from the checkout at answer time.
        const frame = { pos: cls.pos, start, open: open + 1, closeStart, end: cls.end };
        if (!positionsOnly) {
          frame.header = text.slice(start, open + 1);
          frame.close = text.slice(closeStart, cls.end);
        }
        frames.set(cls, frame);
      }
      const start = lineStart(sf, n);
      const part = { pos: n.pos, end: n.end, start };
      if (!positionsOnly) part.text = text.slice(start, n.end);
      part.frame = cls ? cls.pos : null;
      return part;
    };
    return {
      filePath: L.rel(sf.fileName),
      targets: targets.map(piece),
      context: [...context].map(piece),
      frames: [...frames.values()],
    };
  }

  /** Root statements of the query's file whose text (without a final
   *  `;`) is the query's name: root expressions are lookup targets too. */
  function rootStatements(workspace, req) {
    if (!req.file || req.names.length !== 1) return [];
    const out = [];
    for (const project of L.projectsFor(workspace, req)) {
      for (const sf of project.userFiles()) {
        if (workspace.projectOf(sf.fileName) !== project || !L.fileMatches(sf.fileName, req.file)) continue;
        for (const st of sf.statements) {
          if (st.getText(sf).replace(/;\s*$/, "") === req.names[0]) out.push({ project, sf, node: st });
        }
      }
    }
    return out;
  }

  /** Exact matches of one query: a file, when given, is an exact
   *  workspace-relative path (partial paths only produce hints). */
  function resolve(workspace, q) {
    let found = L.findDeclarations(workspace, q);
    if (!found.length) found = rootStatements(workspace, q);
    if (q.file) {
      const want = q.file.replace(/^\.?\//, "");
      found = found.filter((f) => L.rel(f.sf.fileName) === want);
    }
    return found;
  }

  /** A lookup match: the declaration (or root statement) and its lines. */
  function lookupMatch(project, sf, node) {
    const start = lineStart(sf, node);
    const isStatement = !L.DECLARATION_KINDS.has(node.kind);
    // Only a root statement is named by its text: a declaration's text
    // is the whole declaration (each of 3,000 nested functions copied the
    // rest of the file).
    const label = isStatement ? node.getText(sf).replace(/;\s*$/, "") : null;
    const symbol = isStatement
      ? { name: label, kind: "expression", filePath: L.rel(sf.fileName), line: L.line(sf, node.getStart(sf)) }
      : L.symbolRef(sf, node);
    return {
      symbol,
      qualifiedName: isStatement ? label : L.containers(node).concat(L.nameText(node)).join("."),
      startLine: L.line(sf, start),
      endLine: L.line(sf, node.end - 1),
      project: L.rel(project.name),
    };
  }

  globalThis.tsqAnswers.lookup = (workspace, req) => {
    const found = [];
    const hintList = [];
    for (const q of req.targets) {
      const r = resolve(workspace, q);
      if (!r.length) hintList.push(...hints(workspace, q));
      for (const f of r) if (!found.some((x) => x.node === f.node)) found.push(f);
    }
    if (!found.length) return { matches: [], snapshots: [], hints: hintList, buildLog: workspace.buildLog.splice(0) };
    const matches = found.map(({ project, sf, node }) => lookupMatch(project, sf, node));
    const byFile = new Map();
    for (const f of found) {
      if (!byFile.has(f.sf.fileName)) byFile.set(f.sf.fileName, { project: f.project, sf: f.sf, targets: [] });
      byFile.get(f.sf.fileName).targets.push(f.node.kind === SK.VariableDeclaration ? f.node.parent.parent : f.node);
    }
    const snapshots = [...byFile.values()].map((g) => snapshot(g.project, g.sf, g.targets));
    return { matches, snapshots, hints: hintList, buildLog: workspace.buildLog.splice(0) };
  };

  // The occurrence pass stores each declaration's lookup parts (js/occurrences/60_occurrences.js).
  globalThis.tsqLookupParts = { lookupMatch, snapshot };
})(globalThis);
