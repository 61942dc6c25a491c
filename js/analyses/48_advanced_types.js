// tsq analysis "advanced-types": the internal structure of every type alias
// declaration. The alias's type node is classified (conditional, mapped,
// template-literal, utility, union, intersection, indexed-access, keyof,
// typeof, infer, simple) and broken down; nested type nodes are expanded as
// `children`, each with its `role` in the parent, down to `req.typeDepth`
// levels (1, the default: the top level only; -1: no limit). A simple type
// can have children too (type arguments, array and tuple elements, function
// parameter and return types). Texts are source text, as written.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = () => globalThis.tsqLs;
  const LIB_DIR = "/__tsq__/lib/";

  /** TypeScript's built-in utility types (every one lib.*.d.ts declares). */
  const UTILITY_TYPES = new Set([
    "Partial", "Required", "Readonly", "Record", "Pick", "Omit", "Exclude", "Extract", "NonNullable",
    "ReturnType", "Parameters", "ConstructorParameters", "InstanceType", "ThisParameterType",
    "OmitThisParameter", "ThisType", "Awaited", "NoInfer", "Uppercase", "Lowercase", "Capitalize", "Uncapitalize",
  ]);

  function text(sf, node) {
    return node.getText(sf).trim();
  }

  function unparen(node) {
    while (node && node.kind === SK.ParenthesizedType) node = node.type;
    return node;
  }

  /** A reference to one of the utility types above, as the checker resolves
   *  it: a user type that happens to be called `Partial` is not one. */
  function utilityName(checker, node) {
    const name = ts.isIdentifier(node.typeName) ? ts.idText(node.typeName) : node.typeName.right && ts.idText(node.typeName.right);
    if (!name || !UTILITY_TYPES.has(name)) return null;
    let sym = checker.getSymbolAtLocation(node.typeName);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    if (!sym || !sym.declarations || !sym.declarations.length) return name;
    return sym.declarations.some((d) => d.getSourceFile().fileName.startsWith(LIB_DIR)) ? name : null;
  }

  /** `infer X` declarations of a conditional's extends clause (not those of
   *  conditional types nested in it, which belong to them). */
  function inferTypes(sf, extendsType) {
    const out = [];
    const visit = (n) => {
      if (n.kind === SK.InferType) out.push(text(sf, n));
      if (n.kind === SK.ConditionalType) return;
      ts.forEachChild(n, visit);
    };
    visit(extendsType);
    return out;
  }

  function modifierOf(token, plusName, minusName) {
    if (!token) return undefined;
    return token.kind === SK.MinusToken ? minusName : plusName;
  }

  /** One type node's entry, with children while `depth < maxDepth`. */
  function analyze(checker, sf, node, depth, maxDepth) {
    node = unparen(node);
    const entry = { kind: "simple", text: text(sf, node) };
    const kids = [];
    switch (node.kind) {
      case SK.ConditionalType:
        entry.kind = "conditional";
        entry.conditional = {
          checkType: text(sf, node.checkType),
          extendsType: text(sf, node.extendsType),
          trueType: text(sf, node.trueType),
          falseType: text(sf, node.falseType),
          inferTypes: inferTypes(sf, node.extendsType),
        };
        kids.push(["check", node.checkType], ["extends", node.extendsType], ["true", node.trueType], ["false", node.falseType]);
        break;
      case SK.MappedType: {
        entry.kind = "mapped";
        const tp = node.typeParameter;
        const mapped = {
          keyName: ts.idText(tp.name),
          constraint: tp.constraint ? text(sf, tp.constraint) : "",
          valueType: node.type ? text(sf, node.type) : "",
        };
        const ro = modifierOf(node.readonlyToken, "+readonly", "-readonly");
        if (ro) mapped.readonlyModifier = ro;
        const opt = modifierOf(node.questionToken, "+?", "-?");
        if (opt) mapped.optionalModifier = opt;
        if (node.nameType) mapped.nameType = text(sf, node.nameType);
        entry.mapped = mapped;
        if (tp.constraint) kids.push(["constraint", tp.constraint]);
        if (node.nameType) kids.push(["nameType", node.nameType]);
        if (node.type) kids.push(["value", node.type]);
        break;
      }
      case SK.TemplateLiteralType:
        entry.kind = "template-literal";
        entry.templateLiteral = {
          templateText: entry.text,
          head: node.head.text,
          spans: node.templateSpans.map((s) => ({ type: text(sf, s.type), literal: s.literal.text })),
        };
        for (const s of node.templateSpans) kids.push(["span", s.type]);
        break;
      case SK.TypeReference: {
        // A utility, or a simple reference whose type arguments still nest
        // (`Promise<infer U>`).
        const args = node.typeArguments || [];
        for (const a of args) kids.push(["typeArgument", a]);
        const name = utilityName(checker, node);
        if (!name) break;
        entry.kind = "utility";
        entry.utility = { name, typeArguments: args.map((a) => text(sf, a)) };
        break;
      }
      // Simple, with nested types: arrays, tuples, function types.
      case SK.ArrayType:
        kids.push(["element", node.elementType]);
        break;
      case SK.TupleType:
        for (const e of node.elements) kids.push(["element", e.kind === SK.NamedTupleMember ? e.type : e]);
        break;
      case SK.FunctionType:
      case SK.ConstructorType:
        for (const p of node.parameters) if (p.type) kids.push(["parameter", p.type]);
        kids.push(["return", node.type]);
        break;
      case SK.UnionType:
      case SK.IntersectionType:
        entry.kind = node.kind === SK.UnionType ? "union" : "intersection";
        for (const t of node.types) kids.push(["member", t]);
        break;
      case SK.IndexedAccessType:
        entry.kind = "indexed-access";
        entry.indexedAccess = { objectType: text(sf, node.objectType), indexType: text(sf, node.indexType) };
        kids.push(["object", node.objectType], ["index", node.indexType]);
        break;
      case SK.TypeOperator:
        if (node.operator !== SK.KeyOfKeyword) break;
        entry.kind = "keyof";
        kids.push(["operand", node.type]);
        break;
      case SK.TypeQuery:
        entry.kind = "typeof";
        break;
      case SK.InferType:
        entry.kind = "infer";
        break;
    }
    if (depth < maxDepth && kids.length) {
      entry.children = kids.map(([role, n]) => Object.assign({ role }, analyze(checker, sf, n, depth + 1, maxDepth)));
    }
    return entry;
  }

  function typeParameter(sf, tp) {
    const out = { name: ts.idText(tp.name) };
    if (tp.constraint) out.constraint = text(sf, tp.constraint);
    if (tp.default) out.default = text(sf, tp.default);
    return out;
  }

  function aliasInfo(checker, sf, node, maxDepth) {
    return {
      symbol: L().symbolRef(sf, node),
      typeText: text(sf, node.type),
      typeParameters: (node.typeParameters || []).map((tp) => typeParameter(sf, tp)),
      structure: analyze(checker, sf, node.type, 1, maxDepth),
    };
  }

  globalThis.tsqAnalyses["advanced-types"] = (workspace, req) => {
    const ls = L();
    const depth = req.typeDepth === -1 ? Infinity : Math.max(1, req.typeDepth || 1);
    const out = [];
    if (req.names && req.names.length) {
      for (const { project, sf, node } of ls.findDeclarations(workspace, req)) {
        if (node.kind !== SK.TypeAliasDeclaration) continue;
        out.push(aliasInfo(project.program().getTypeChecker(), sf, node, depth));
      }
    } else {
      ls.eachUserFile(workspace, (sf, p) => {
        const checker = p.program().getTypeChecker();
        const visit = (node) => {
          if (node.kind === SK.TypeAliasDeclaration) out.push(aliasInfo(checker, sf, node, depth));
          // Type nodes hold no declarations: no need to walk them.
          if (!ts.isTypeNode(node)) ts.forEachChild(node, visit);
        };
        visit(sf);
      });
    }
    out.sort((a, b) => a.symbol.filePath.localeCompare(b.symbol.filePath) || a.symbol.line - b.symbol.line ||
      a.symbol.name.localeCompare(b.symbol.name));
    return out;
  };
})(globalThis);
