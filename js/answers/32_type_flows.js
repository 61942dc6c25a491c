// tsq resolvers, part 3: type flows, where a callable's parameter and
// return types come from (a hybrid TypeNode and Type traversal).
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = globalThis.tsqLs;
  const { symbolRef, isUserFile } = L;

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

  globalThis.tsqTypeFlows = { typeFlows };
})(globalThis);
