// tsq resolvers, part 2: call trees (outgoing and incoming, with cycles and
// depth limits, `new Foo()` resolved to Foo's constructor) and references,
// from the Language Service, merged across the projects holding a file.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = globalThis.tsqLs;
  const { line, symbolRef, nameText, isUserFile, rel, DECLARATION_KINDS } = L;

  // ---- call hierarchy ----------------------------------------------------------------

  function callTargetKey(item) {
    return `${item.file}:${item.name}:${item.selectionSpan.start}`;
  }

  /** Maps a call-hierarchy item to a SymbolRef; `new Foo()` (a class item)
   *  becomes Foo's explicit constructor when it has one. `from`, when the
   *  caller has it, is a node the token at the item's name lies in (the
   *  occurrence pass passes the declaration's name): the walk up starts
   *  there instead of at a token found from the file's root, which cost a
   *  descent per item (quadratic in a file's nesting). */
  function itemRef(sf, item, from) {
    let node = sf ? findNodeAt(sf, item.selectionSpan.start, from) : null;
    if (node && (node.kind === SK.ClassDeclaration || node.kind === SK.ClassExpression)) {
      const ctor = node.members.find((m) => m.kind === SK.Constructor && m.body);
      if (ctor) node = ctor;
    }
    if (node) {
      const ref = symbolRef(sf, node);
      if (node.kind === SK.Constructor) ref.name = `${nameText(node.parent)}.constructor`;
      return ref;
    }
    // A file's top level calls too: tsc names that item after the file.
    const topLevel = item.kind === ts.ScriptElementKind.scriptElement || item.kind === ts.ScriptElementKind.moduleElement;
    return {
      name: topLevel ? rel(item.file) : item.name,
      kind: topLevel ? "module" : item.kind,
      filePath: rel(item.file),
      line: sf ? line(sf, item.selectionSpan.start) : null,
    };
  }

  /** The declaration whose name (or `constructor` keyword) starts at `pos`:
   *  the token there (or `from`, a node holding it), then up through its
   *  parents. */
  function findNodeAt(sf, pos, from) {
    let n = from || ts.getTokenAtPosition(sf, pos);
    for (; n && n.kind !== SK.SourceFile; n = n.parent) {
      const isDecl = DECLARATION_KINDS.has(n.kind) || n.kind === SK.ClassExpression || n.kind === SK.ArrowFunction || n.kind === SK.FunctionExpression;
      if (!isDecl) continue;
      if (n.kind === SK.Constructor ? n.getStart(sf) === pos : n.name && n.name.getStart(sf) === pos) return n;
    }
    return null;
  }

  /** Raw call-hierarchy edges of `item`. Outgoing calls come from the
   *  owning project; incoming callers from every project that holds the
   *  file (a caller may live in a project that references this one). */
  function rawCalls(scope, item, direction) {
    const memoKey = direction + ":" + callTargetKey(item);
    if (scope.calls.has(memoKey)) return scope.calls.get(memoKey);
    const result = rawCallsUncached(scope, item, direction);
    scope.calls.set(memoKey, result);
    return result;
  }

  function rawCallsUncached(scope, item, direction) {
    if (direction === "out") {
      const owner = scope.owner(item.file);
      return owner ? owner.service.provideCallHierarchyOutgoingCalls(item.file, item.selectionSpan.start) : [];
    }
    const out = [];
    const seen = new Set();
    for (const p of scope.holders(item.file)) {
      for (const c of p.service.provideCallHierarchyIncomingCalls(item.file, item.selectionSpan.start)) {
        const key = callTargetKey(c.from) + ":" + c.fromSpans.map((r) => r.start).join(",");
        if (!seen.has(key)) {
          seen.add(key);
          out.push(c);
        }
      }
    }
    return out;
  }

  function calls(scope, item, direction, depth, maxDepth, path) {
    const raw = rawCalls(scope, item, direction);
    const groups = new Map();
    for (const c of raw) {
      const other = direction === "out" ? c.to : c.from;
      if (!isUserFile(other.file)) continue;
      const key = callTargetKey(other);
      if (!groups.has(key)) groups.set(key, { item: other, sites: [] });
      // Call sites: in the caller's file (the item for outgoing, `from` for incoming).
      const siteFile = direction === "out" ? item.file : other.file;
      const sf = scope.sourceFile(siteFile);
      for (const r of c.fromSpans) groups.get(key).sites.push(sf ? line(sf, r.start) : 0);
    }
    const out = [];
    for (const { item: other, sites } of groups.values()) {
      const entry = itemRef(scope.sourceFile(other.file), other);
      entry.callSites = [...new Set(sites)].sort((a, b) => a - b);
      const key = callTargetKey(other);
      const childKey = direction === "out" ? "outgoingCalls" : "incomingCallers";
      if (path.includes(key)) {
        entry.cyclic = true;
        entry[childKey] = [];
      } else if (maxDepth !== -1 && depth >= maxDepth) {
        entry[childKey] = [];
        // More calls past the limit: user code not already on this path
        // (a call back into the path would only show as a cycle).
        const onPath = path.concat(key);
        const more = rawCalls(scope, other, direction).some((c) => {
          const next = direction === "out" ? c.to : c.from;
          return isUserFile(next.file) && !onPath.includes(callTargetKey(next));
        });
        if (more) entry.depthLimited = true;
      } else {
        entry[childKey] = calls(scope, other, direction, depth + 1, maxDepth, path.concat(key));
      }
      out.push(entry);
    }
    // Outgoing calls in call order (first call site); callers by location.
    if (direction === "out") out.sort((a, b) => a.callSites[0] - b.callSites[0] || a.name.localeCompare(b.name));
    else out.sort((a, b) => a.filePath.localeCompare(b.filePath) || a.line - b.line || a.name.localeCompare(b.name));
    return out;
  }

  /** The call tree of one direction ("out" or "in") from a declaration. */
  function callHierarchy(scope, sf, node, maxDepth, direction) {
    const callable = node.kind === SK.FunctionDeclaration || node.kind === SK.MethodDeclaration || node.kind === SK.Constructor ||
      node.kind === SK.GetAccessor || node.kind === SK.SetAccessor ||
      (node.kind === SK.VariableDeclaration && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))) ||
      node.kind === SK.ClassDeclaration;
    if (!callable) return [];
    const pos = node.kind === SK.Constructor ? node.getStart(sf) : node.name.getStart(sf);
    const owner = scope.owner(sf.fileName);
    let items = owner && owner.service.prepareCallHierarchy(sf.fileName, pos);
    if (!items) return [];
    if (!Array.isArray(items)) items = [items];
    if (!items.length) return [];
    return calls(scope, items[0], direction, 1, maxDepth, [callTargetKey(items[0])]);
  }

  // ---- references ------------------------------------------------------------------

  /** References from every project that holds the file, merged. */
  function references(scope, sf, node) {
    const nameNode = node.kind === SK.Constructor ? node.parent.name : node.name;
    if (!nameNode) return { totalCount: 0, fileCount: 0, files: [] };
    const pos = nameNode.getStart(sf);
    const byFile = new Map();
    const seen = new Set();
    for (const project of scope.holders(sf.fileName)) {
      for (const symbol of project.service.findReferences(sf.fileName, pos) || []) {
        for (const r of symbol.references) {
          if (r.isDefinition || !isUserFile(r.fileName)) continue;
          const key = r.fileName + ":" + r.textSpan.start;
          if (seen.has(key)) continue;
          seen.add(key);
          const rsf = scope.sourceFile(r.fileName);
          if (!byFile.has(r.fileName)) byFile.set(r.fileName, []);
          byFile.get(r.fileName).push(rsf ? line(rsf, r.textSpan.start) : 0);
        }
      }
    }
    const files = [...byFile.entries()]
      .map(([filePath, lines]) => ({ filePath: rel(filePath), lines: lines.sort((a, b) => a - b) }))
      .sort((a, b) => a.filePath.localeCompare(b.filePath));
    const totalCount = files.reduce((n, f) => n + f.lines.length, 0);
    return { totalCount, fileCount: files.length, files };
  }

  globalThis.tsqCalls = { callHierarchy, references, itemRef };
})(globalThis);
