// tsq resolvers (blueprint phase 3): finds the declarations a symbol query
// names and answers signature, members, type hierarchy, call hierarchy and
// references from the Language Service and the checker. Every edge is what
// tsc reports; tsq only filters (definition, .d.ts, node_modules) and shapes.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const isUserFile = (f) => globalThis.tsqIsUserFile(f);
  const rel = (f) => globalThis.tsqRel(f);

  function line(sf, pos) {
    return sf.getLineAndCharacterOfPosition(pos).line + 1;
  }

  function nameText(node) {
    if (node.kind === SK.Constructor) return "constructor";
    const n = node.name;
    if (!n) return node.kind === SK.ClassDeclaration || node.kind === SK.FunctionDeclaration ? "default" : "";
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) return ts.idText(n);
    if (ts.isStringLiteral(n) || ts.isNumericLiteral(n)) return n.text;
    return n.getText();
  }

  const DECLARATION_KINDS = new Set([
    SK.FunctionDeclaration, SK.ClassDeclaration, SK.InterfaceDeclaration, SK.TypeAliasDeclaration,
    SK.EnumDeclaration, SK.ModuleDeclaration, SK.VariableDeclaration, SK.MethodDeclaration,
    SK.MethodSignature, SK.PropertyDeclaration, SK.PropertySignature, SK.GetAccessor, SK.SetAccessor,
    SK.Constructor, SK.EnumMember,
  ]);

  /** Named containers of a declaration, outermost first. */
  function containers(node) {
    const out = [];
    for (let p = node.parent; p && p.kind !== SK.SourceFile; p = p.parent) {
      if (p.kind === SK.ClassDeclaration || p.kind === SK.InterfaceDeclaration || p.kind === SK.EnumDeclaration ||
          p.kind === SK.ModuleDeclaration || p.kind === SK.FunctionDeclaration || p.kind === SK.MethodDeclaration ||
          (p.kind === SK.ClassExpression && p.parent && p.parent.kind === SK.VariableDeclaration)) {
        out.unshift(p.kind === SK.ClassExpression ? nameText(p.parent) : nameText(p));
      }
    }
    return out;
  }

  function kindOf(node) {
    switch (node.kind) {
      case SK.FunctionDeclaration: return "function";
      case SK.ClassDeclaration: return "class";
      case SK.InterfaceDeclaration: return "interface";
      case SK.TypeAliasDeclaration: return "type";
      case SK.EnumDeclaration: return "enum";
      case SK.ModuleDeclaration: return "namespace";
      case SK.VariableDeclaration: return "variable";
      case SK.MethodDeclaration: case SK.MethodSignature: return "method";
      case SK.PropertyDeclaration: case SK.PropertySignature: return "property";
      case SK.GetAccessor: return "getter";
      case SK.SetAccessor: return "setter";
      case SK.Constructor: return "constructor";
      case SK.EnumMember: return "enumMember";
      default: return SK[node.kind];
    }
  }

  /** Declarations matching `names` (last one is the symbol, earlier ones
   *  its containers) in files whose path ends with `file` (if given). */
  /** Name -> declarations of one project's own workspace files
   *  (declaration files included; libs and node_modules not). Built once
   *  per program, so a warm query does not walk every file. */
  function declarationIndex(workspace, project) {
    const program = project.program();
    if (project.declIndexFor === program) return project.declIndex;
    const index = new Map();
    for (const sf of program.getSourceFiles()) {
      if (sf.fileName.includes("/node_modules/") || sf.fileName.startsWith("/__tsq__/")) continue;
      if (workspace.projectOf(sf.fileName) !== project) continue;
      const visit = (node) => {
        if (DECLARATION_KINDS.has(node.kind)) {
          const name = nameText(node);
          if (!index.has(name)) index.set(name, []);
          index.get(name).push({ sf, node });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    project.declIndexFor = program;
    project.declIndex = index;
    return index;
  }

  function findDeclarations(workspace, req) {
    const want = req.names;
    const target = want[want.length - 1];
    const parents = want.slice(0, -1);
    const file = req.file && req.file.replace(/^\.?\//, "");
    const out = [];
    for (const project of workspace.projects) {
      for (const { sf, node } of declarationIndex(workspace, project).get(target) || []) {
        if (file && !(sf.fileName === req.file || sf.fileName.endsWith("/" + file))) continue;
        // `Parent > name` finds name anywhere within Parent: the given
        // parents are a subsequence of the declaration's containers.
        const chain = containers(node);
        let at = 0;
        for (const c of chain) if (at < parents.length && c === parents[at]) at++;
        if (at === parents.length) out.push({ project, sf, node });
      }
    }
    return out;
  }

  /** Every `everyNth` function, method and class with a body, in file
   *  order: the benchmark's deterministic sample. */
  function symbolSample(workspace, everyNth, limit) {
    const out = [];
    let i = 0;
    const files = [];
    for (const p of workspace.projects) for (const sf of p.userFiles()) if (workspace.projectOf(sf.fileName) === p) files.push(sf);
    files.sort((a, b) => a.fileName.localeCompare(b.fileName));
    for (const sf of files) {
      const visit = (n) => {
        const callable = (n.kind === SK.FunctionDeclaration || n.kind === SK.MethodDeclaration || n.kind === SK.ClassDeclaration) && n.name &&
          (n.kind === SK.ClassDeclaration || n.body);
        if (callable && out.length < limit && i++ % everyNth === 0) {
          out.push({ file: sf.fileName, relFile: rel(sf.fileName), pos: n.name.getStart(sf), line: line(sf, n.name.getStart(sf)), names: containers(n).concat(nameText(n)) });
        }
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    return out;
  }

  function symbolRef(sf, node, extra) {
    // The line of the declaration's name (past JSDoc, decorators, modifiers).
    const at = node.name && node.kind !== SK.Constructor ? node.name.getStart(sf) : node.getStart(sf);
    const ref = { name: nameText(node), kind: kindOf(node), filePath: rel(sf.fileName), line: line(sf, at) };
    if (isAbstractClass(node)) ref.isAbstract = true;
    return Object.assign(ref, extra || {});
  }

  function isAbstractClass(node) {
    return (node.kind === SK.ClassDeclaration || node.kind === SK.ClassExpression) &&
      !!(ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Abstract);
  }

  // ---- signature and modifiers ----------------------------------------------

  const MODIFIER_NAMES = [
    [ts.ModifierFlags.Public, "public"], [ts.ModifierFlags.Private, "private"], [ts.ModifierFlags.Protected, "protected"],
    [ts.ModifierFlags.Static, "static"], [ts.ModifierFlags.Abstract, "abstract"], [ts.ModifierFlags.Readonly, "readonly"],
    [ts.ModifierFlags.Async, "async"], [ts.ModifierFlags.Override, "override"], [ts.ModifierFlags.Ambient, "declare"],
    [ts.ModifierFlags.Default, "default"],
  ];

  function modifiers(node) {
    const target = node.kind === SK.VariableDeclaration ? node.parent.parent : node;
    const flags = ts.getCombinedModifierFlags(node.kind === SK.VariableDeclaration ? node : target);
    const out = [];
    for (const [f, name] of MODIFIER_NAMES) if (flags & f) out.push(name);
    if (isExported(node)) out.push("exported");
    return out;
  }

  function isExported(node) {
    if (node.kind === SK.VariableDeclaration) {
      return !!(ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export);
    }
    if (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) return true;
    const sf = node.getSourceFile();
    const sym = node.name && sf.symbol && sf.symbol.exports;
    if (!sym) return false;
    let exported = false;
    sym.forEach((s) => {
      if ((s.declarations || []).includes(node)) exported = true;
    });
    return exported;
  }

  function typeParamsText(node) {
    return node.typeParameters ? "<" + node.typeParameters.map((t) => t.getText()).join(", ") + ">" : "";
  }

  function heritageText(node) {
    return (node.heritageClauses || []).map((h) => h.getText()).join(" ");
  }

  function signature(checker, node) {
    const name = nameText(node);
    const typeText = (n) => checker.typeToString(checker.getTypeAtLocation(n), undefined, ts.TypeFormatFlags.NoTruncation);
    switch (node.kind) {
      case SK.FunctionDeclaration:
      case SK.MethodDeclaration:
      case SK.MethodSignature:
      case SK.Constructor: {
        const sig = checker.getSignatureFromDeclaration(node);
        return (node.kind === SK.Constructor ? "constructor" : name) +
          (sig ? checker.signatureToString(sig, undefined, ts.TypeFormatFlags.NoTruncation) : "()");
      }
      case SK.ClassDeclaration:
        return [(isAbstractClass(node) ? "abstract class " : "class ") + name + typeParamsText(node), heritageText(node)].filter(Boolean).join(" ");
      case SK.InterfaceDeclaration:
        return ["interface " + name + typeParamsText(node), heritageText(node)].filter(Boolean).join(" ");
      case SK.TypeAliasDeclaration:
        return "type " + name + typeParamsText(node) + " = " + node.type.getText();
      case SK.EnumDeclaration:
        return (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Const ? "const enum " : "enum ") + name;
      case SK.VariableDeclaration: {
        const list = node.parent;
        const keyword = list.flags & ts.NodeFlags.Const ? "const" : list.flags & ts.NodeFlags.Let ? "let" : "var";
        return `${keyword} ${name}: ${typeText(node)}`;
      }
      case SK.PropertyDeclaration:
      case SK.PropertySignature:
        return `${name}${node.questionToken ? "?" : ""}: ${typeText(node)}`;
      case SK.GetAccessor:
        return `get ${name}(): ${getterType(checker, node)}`;
      case SK.SetAccessor: {
        const p = node.parameters[0];
        return `set ${name}(${p ? p.name.getText() + ": " + typeText(p) : ""})`;
      }
      case SK.EnumMember:
        return node.initializer ? `${name} = ${node.initializer.getText()}` : name;
      case SK.ModuleDeclaration:
        return (node.name.kind === SK.StringLiteral ? "module " : "namespace ") + node.name.getText();
      default:
        return name;
    }
  }

  function getterType(checker, node) {
    const sig = checker.getSignatureFromDeclaration(node);
    return sig ? checker.typeToString(checker.getReturnTypeOfSignature(sig), undefined, ts.TypeFormatFlags.NoTruncation) : "any";
  }

  // ---- members -----------------------------------------------------------------

  function members(checker, node) {
    if (!node.members || (node.kind !== SK.ClassDeclaration && node.kind !== SK.InterfaceDeclaration)) return undefined;
    const sf = node.getSourceFile();
    const out = [];
    for (const m of node.members) {
      let kind;
      let type;
      switch (m.kind) {
        case SK.MethodDeclaration: case SK.MethodSignature:
          kind = "method";
          type = m.type ? m.type.getText() : undefined;
          break;
        case SK.PropertyDeclaration: case SK.PropertySignature:
          kind = "property";
          type = m.type ? m.type.getText() : undefined;
          break;
        case SK.GetAccessor:
          kind = "getter";
          type = m.type ? m.type.getText() : undefined;
          break;
        case SK.SetAccessor:
          kind = "setter";
          type = m.parameters[0] && m.parameters[0].type ? m.parameters[0].type.getText() : undefined;
          break;
        case SK.Constructor:
          kind = "constructor";
          type = "(" + m.parameters.map((p) => p.getText()).join(", ") + ")";
          break;
        case SK.IndexSignature:
          kind = "indexSignature";
          type = m.getText().replace(/;$/, "");
          break;
        case SK.CallSignature:
          kind = "callSignature";
          type = m.getText().replace(/;$/, "");
          break;
        case SK.ConstructSignature:
          kind = "constructSignature";
          type = m.getText().replace(/;$/, "");
          break;
        default:
          continue;
      }
      const mods = [];
      const flags = ts.getCombinedModifierFlags(m);
      for (const [f, name] of MODIFIER_NAMES) if (flags & f && name !== "declare" && name !== "default") mods.push(name);
      const entry = { name: kind.endsWith("Signature") ? "" : nameText(m), kind, line: line(sf, m.getStart(sf)), modifiers: mods };
      if (type !== undefined) entry.type = type;
      out.push(entry);
    }
    return out;
  }

  // ---- type hierarchy ------------------------------------------------------------

  function declarationOf(checker, expr) {
    let sym = checker.getSymbolAtLocation(expr.kind === SK.ExpressionWithTypeArguments ? expr.expression : expr);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    const decls = (sym && sym.declarations) || [];
    return decls.find((d) => d.kind === SK.ClassDeclaration || d.kind === SK.InterfaceDeclaration) || decls[0] || null;
  }

  function heritage(checker, node) {
    const ext = [];
    const impl = [];
    for (const h of node.heritageClauses || []) {
      for (const t of h.types) {
        const d = declarationOf(checker, t);
        const ref = d ? symbolRef(d.getSourceFile(), d) : { name: t.expression.getText(), kind: "unresolved", filePath: null, line: null };
        const isImpl = h.token === SK.ImplementsKeyword || node.kind === SK.InterfaceDeclaration;
        (isImpl ? impl : ext).push({ ref, decl: d });
      }
    }
    return { ext, impl };
  }

  function typeHierarchy(workspace, project, node) {
    if (node.kind !== SK.ClassDeclaration && node.kind !== SK.InterfaceDeclaration) return undefined;
    const checker = project.program().getTypeChecker();
    const { ext, impl } = heritage(checker, node);
    const subtypes = [];
    const seen = new Set();
    for (const p of workspace.projects) {
      const c = p.program().getTypeChecker();
      for (const sf of p.userFiles()) {
        if (workspace.projectOf(sf.fileName) !== p) continue;
        const visit = (n) => {
          if ((n.kind === SK.ClassDeclaration || n.kind === SK.InterfaceDeclaration) && n.heritageClauses) {
            const h = heritage(c, n);
            const hit = h.ext.concat(h.impl).some((x) => x.decl && x.decl.getSourceFile().fileName === node.getSourceFile().fileName && x.decl.pos === node.pos);
            const key = sf.fileName + ":" + n.pos;
            if (hit && !seen.has(key)) {
              seen.add(key);
              subtypes.push(symbolRef(sf, n));
            }
          }
          ts.forEachChild(n, visit);
        };
        visit(sf);
      }
    }
    subtypes.sort((a, b) => a.filePath.localeCompare(b.filePath) || a.line - b.line);
    const out = {
      implements: impl.map((x) => x.ref),
      subtypes,
      typeParameters: (node.typeParameters || []).map((t) => {
        const tp = { name: t.name.text };
        if (t.constraint) tp.constraint = t.constraint.getText();
        if (t.default) tp.default = t.default.getText();
        return tp;
      }),
    };
    if (node.kind === SK.ClassDeclaration && ext.length) out.extends = ext[0].ref;
    if (node.kind === SK.InterfaceDeclaration) out.implements = ext.concat(impl).map((x) => x.ref);
    if (isAbstractClass(node)) out.isAbstract = true;
    return out;
  }

  // ---- call hierarchy ----------------------------------------------------------------

  function callTargetKey(item) {
    return `${item.file}:${item.name}:${item.selectionSpan.start}`;
  }

  /** Maps a call-hierarchy item to a SymbolRef; `new Foo()` (a class item)
   *  becomes Foo's explicit constructor when it has one. */
  function itemRef(sf, item) {
    let node = sf ? findNodeAt(sf, item.selectionSpan.start) : null;
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
   *  the token there, then up through its parents. */
  function findNodeAt(sf, pos) {
    let n = ts.getTokenAtPosition(sf, pos);
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

  // ---- type flows ------------------------------------------------------------------------

  const TYPE_DECLS = new Set([SK.InterfaceDeclaration, SK.ClassDeclaration, SK.TypeAliasDeclaration, SK.EnumDeclaration]);

  /** The user-defined declaration a symbol stands for, through imports,
   *  re-exports and barrels; null for built-ins and anonymous types. */
  function userTypeDeclaration(checker, sym) {
    if (!sym) return null;
    if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    if (!sym || sym.escapedName === "__type" || sym.escapedName === "__object") return null;
    const decl = (sym.declarations || []).find((d) => TYPE_DECLS.has(d.kind));
    return decl && isUserFile(decl.getSourceFile().fileName) ? decl : null;
  }

  /** Hybrid traversal: the annotation's TypeNodes (which keep aliases and
   *  enums the checker expands), then the checker's Type (unions,
   *  intersections, generics, tuples, arrays, function types). `seen.local`
   *  dedupes within one entry, `seen.all` across the callable. */
  function resolvedTypes(checker, typeNode, declNode, seen) {
    const out = [];
    const add = addTo(out, seen);
    const visitNode = (n) => {
      if (n.kind === SK.TypeReference) add(userTypeDeclaration(checker, checker.getSymbolAtLocation(n.typeName)));
      else if (n.kind === SK.ExpressionWithTypeArguments) add(userTypeDeclaration(checker, checker.getSymbolAtLocation(n.expression)));
      else if (n.kind === SK.TypeQuery) return;
      ts.forEachChild(n, visitNode);
    };
    if (typeNode) visitNode(typeNode);
    if (declNode) out.push(...resolvedTypesOfType(checker, checker.getTypeAtLocation(declNode), seen));
    return out;
  }

  function addTo(out, seen) {
    return (decl) => {
      if (!decl) return;
      const ref = symbolRef(decl.getSourceFile(), decl);
      const key = ref.filePath + ":" + ref.line;
      if (seen.local.has(key)) return;
      seen.local.add(key);
      out.push(ref);
      if (!seen.all.has(key)) seen.all.set(key, ref);
    };
  }

  function typeFlows(checker, sf, node) {
    let fn = node;
    if (node.kind === SK.ClassDeclaration) fn = node.members.find((m) => m.kind === SK.Constructor && m.body) || null;
    if (node.kind === SK.VariableDeclaration && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))) fn = node.initializer;
    if (!fn || !ts.isFunctionLike(fn)) return undefined;
    const all = new Map();
    const parameters = fn.parameters.map((p) => {
      const seen = { local: new Set(), all };
      const entry = { name: p.name.getText(), resolvedTypes: resolvedTypes(checker, p.type, p, seen) };
      if (p.type) entry.type = p.type.getText();
      return entry;
    });
    const flow = { symbol: symbolRef(sf, node), parameters, referencedTypes: [] };
    if (fn.kind !== SK.Constructor && fn.type && fn.type.kind !== SK.VoidKeyword) {
      const sig = checker.getSignatureFromDeclaration(fn);
      const seen = { local: new Set(), all };
      const types = resolvedTypes(checker, fn.type, null, seen);
      // The checker's view of the return type, for what the annotation hides.
      if (sig) types.push(...resolvedTypesOfType(checker, checker.getReturnTypeOfSignature(sig), seen));
      flow.returnType = { name: "return", type: fn.type.getText(), resolvedTypes: types };
    }
    flow.referencedTypes = [...all.values()].sort((a, b) => a.filePath.localeCompare(b.filePath) || a.line - b.line);
    return flow;
  }

  /** The Type half of the traversal. */
  function resolvedTypesOfType(checker, type, seen) {
    const out = [];
    const add = addTo(out, seen);
    const visited = new Set();
    const visit = (t, depth) => {
      if (!t || visited.has(t) || depth > 8) return;
      visited.add(t);
      if (t.aliasSymbol) {
        add(userTypeDeclaration(checker, t.aliasSymbol));
        for (const a of t.aliasTypeArguments || []) visit(a, depth + 1);
      }
      if (t.flags & (ts.TypeFlags.Union | ts.TypeFlags.Intersection)) {
        for (const m of t.types) visit(m, depth + 1);
        return;
      }
      if (t.flags & ts.TypeFlags.EnumLiteral && t.symbol) add(userTypeDeclaration(checker, t.symbol.parent || t.symbol));
      if (t.flags & ts.TypeFlags.Object) {
        add(userTypeDeclaration(checker, t.symbol));
        if (t.objectFlags & ts.ObjectFlags.Reference) for (const a of checker.getTypeArguments(t)) visit(a, depth + 1);
        for (const sig of checker.getSignaturesOfType(t, ts.SignatureKind.Call)) {
          for (const p of sig.parameters) visit(checker.getTypeOfSymbol(p), depth + 1);
          visit(checker.getReturnTypeOfSignature(sig), depth + 1);
        }
      }
    };
    visit(type, 0);
    return out;
  }

  // ---- entry --------------------------------------------------------------------------

  /** Which projects hold which files, for cross-project answers. */
  function scopeOf(workspace) {
    // Call-hierarchy answers are memoized while every program stays the same.
    const programs = workspace.projects.map((p) => p.program());
    const memo = workspace.callMemo;
    if (!memo || memo.programs.length !== programs.length || memo.programs.some((p, i) => p !== programs[i])) {
      workspace.callMemo = { programs, calls: new Map() };
    }
    return {
      calls: workspace.callMemo.calls,
      owner: (file) => workspace.projectOf(file) || workspace.projects.find((p) => p.program().getSourceFile(file)) || null,
      holders: (file) => workspace.projects.filter((p) => p.program().getSourceFile(file)),
      sourceFile(file) {
        const owner = this.owner(file);
        return owner ? owner.program().getSourceFile(file) : undefined;
      },
    };
  }

  /** Helpers the extended analyses (js/40_*.js) share. */
  globalThis.tsqAnalyses["symbol-sample"] = (ws, req) => symbolSample(ws, Math.max(1, req.typeDepth), 1000);
  globalThis.tsqLs = { line, nameText, kindOf, symbolRef, findDeclarations, scopeOf, isUserFile, rel, modifiers, signature };

  globalThis.tsqInspect = (workspace, req) => {
    const scope = scopeOf(workspace);
    const matches = [];
    const projectsUsed = new Set();
    const partial = [];
    const decls = findDeclarations(workspace, req);
    for (const { project, sf, node } of decls) {
      const checker = project.program().getTypeChecker();
      projectsUsed.add(rel(project.name));
      const want = (r) => !req.resolvers || req.resolvers.includes(r);
      const depth = req.callDepth;
      const meta = {
        symbol: symbolRef(sf, node),
        project: rel(project.name),
        signature: want("signature") ? signature(checker, node) : "",
        modifiers: modifiers(node),
        outgoingCalls: want("outgoingCalls") ? callHierarchy(scope, sf, node, depth, "out") : [],
        incomingCallers: want("incomingCallers") ? callHierarchy(scope, sf, node, depth, "in") : [],
        references: want("references") ? references(scope, sf, node) : { totalCount: 0, fileCount: 0, files: [] },
      };
      const th = want("typeHierarchy") && typeHierarchy(workspace, project, node);
      if (th) meta.typeHierarchy = th;
      const m = want("members") && members(checker, node);
      if (m) meta.members = m;
      const tf = want("typeFlows") && typeFlows(checker, sf, node);
      if (tf) meta.typeFlows = tf;
      matches.push(meta);
      for (const p of scope.holders(sf.fileName)) {
        for (const u of p.unresolvedImports()) if (!partial.includes(u)) partial.push(u);
      }
    }
    return {
      matches,
      coverage: {
        projectsLoaded: workspace.projects.map((p) => rel(p.name)),
        projectsUsed: [...projectsUsed],
        filesOutsideProjects: workspace.outside.length,
        partial,
        configErrors: workspace.configErrors.map((e) => e.split(workspace.root + "/").join("")),
      },
    };
  };
})(globalThis);
