// tsq call sites: a declaration's outgoing calls as TypeScript's call
// hierarchy finds them (services/callHierarchy.ts `getOutgoingCalls`:
// `collectCallSites`, each target resolved by the exported
// `ts.CallHierarchy.resolveCallHierarchyDeclaration`), without building a
// CallHierarchyItem for every target. The occurrence pass keys each target
// by its declaration node (js/occurrences/60_occurrences.js `itemKey`), so the item's
// name, kind, modifiers and spans, and the walk back from its span to the
// node, were work thrown away. The walk below follows TypeScript 6.0.3's
// own, case for case; the differential and engine-parity tests hold it to
// the Language Service's answers.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;

  function isAssignedExpression(node) {
    return (ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isClassExpression(node)) && node.parent &&
      (ts.isPropertyDeclaration(node.parent) || ts.isVariableDeclaration(node.parent)) && node === node.parent.initializer &&
      ts.isIdentifier(node.parent.name) && (!!(ts.getCombinedNodeFlags(node.parent) & ts.NodeFlags.Const) || ts.isPropertyDeclaration(node.parent));
  }

  /** A function or class expression with its own name, assigned to a
   *  const or a property (`const f = function named() {}`): TypeScript's
   *  call hierarchy searches that name (`named`) for the incoming calls
   *  of `f`'s item (getCallHierarchyDeclarationReferenceNode). */
  function isSelfNamedAssignedExpression(node) {
    return !!node && (ts.isFunctionExpression(node) || ts.isClassExpression(node)) && !!node.name && isAssignedExpression(node);
  }

  /** TypeScript's own test (services/callHierarchy.ts). */
  function isValidCallHierarchyDeclaration(node) {
    return ts.isSourceFile(node) || ts.isModuleDeclaration(node) && ts.isIdentifier(node.name) || ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) || ts.isClassStaticBlockDeclaration(node) || ts.isMethodDeclaration(node) || ts.isMethodSignature(node) ||
      ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) ||
      (ts.isFunctionExpression(node) || ts.isClassExpression(node)) && ts.isNamedDeclaration(node) || isAssignedExpression(node);
  }

  /** The declaration whose body is walked (TypeScript's `findImplementation`
   *  for the declarations `getOutgoingCalls` accepts). */
  function implementation(checker, node) {
    if (node.body) return node;
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) {
      const location = ts.isNamedDeclaration(node) ? node.name : (node.modifiers || []).find((m) => m.kind === SK.DefaultKeyword);
      const symbol = location && checker.getSymbolAtLocation(location);
      const value = symbol && symbol.valueDeclaration;
      return value && ts.isFunctionLikeDeclaration(value) && value.body ? value : undefined;
    }
    return node;
  }

  /** `getOutgoingCalls(program, node)` as target declarations and the
   *  positions of their call sites: `[{ declaration, starts }]`, grouped
   *  by declaration in first-seen order, sites in source order, as
   *  TypeScript groups them. */
  function outgoingCallSites(program, node) {
    if (node.flags & ts.NodeFlags.Ambient || ts.isMethodSignature(node)) return [];
    const sf = node.getSourceFile();
    const groups = new Map(); // declaration node -> site starts
    const record = (site) => {
      const target = ts.isTaggedTemplateExpression(site) ? site.tag : ts.isJsxOpeningLikeElement(site) ? site.tagName :
        ts.isAccessExpression(site) ? site : ts.isClassStaticBlockDeclaration(site) ? site : site.expression;
      const declaration = ts.CallHierarchy.resolveCallHierarchyDeclaration(program, target);
      if (!declaration) return;
      const start = target.getStart(sf);
      for (const d of Array.isArray(declaration) ? declaration : [declaration]) {
        if (!groups.has(d)) groups.set(d, []);
        groups.get(d).push(start);
      }
    };
    const collect = (n) => {
      if (!n) return;
      if (n.flags & ts.NodeFlags.Ambient) return;
      if (isValidCallHierarchyDeclaration(n)) {
        if (ts.isClassLike(n)) {
          for (const member of n.members) if (member.name && ts.isComputedPropertyName(member.name)) collect(member.name.expression);
        }
        return;
      }
      switch (n.kind) {
        case SK.Identifier:
        case SK.ImportEqualsDeclaration:
        case SK.ImportDeclaration:
        case SK.ExportDeclaration:
        case SK.InterfaceDeclaration:
        case SK.TypeAliasDeclaration:
          return;
        case SK.ClassStaticBlockDeclaration:
          record(n);
          return;
        case SK.TypeAssertionExpression:
        case SK.AsExpression:
        case SK.SatisfiesExpression:
          collect(n.expression);
          return;
        case SK.VariableDeclaration:
        case SK.Parameter:
          collect(n.name);
          collect(n.initializer);
          return;
        case SK.CallExpression:
        case SK.NewExpression:
          record(n);
          collect(n.expression);
          (n.arguments || []).forEach(collect);
          return;
        case SK.TaggedTemplateExpression:
          record(n);
          collect(n.tag);
          collect(n.template);
          return;
        case SK.JsxOpeningElement:
        case SK.JsxSelfClosingElement:
          record(n);
          collect(n.tagName);
          collect(n.attributes);
          return;
        case SK.Decorator:
          record(n);
          collect(n.expression);
          return;
        case SK.PropertyAccessExpression:
        case SK.ElementAccessExpression:
          record(n);
          ts.forEachChild(n, collect);
          break;
      }
      if (ts.isPartOfTypeNode(n)) return;
      ts.forEachChild(n, collect);
    };
    switch (node.kind) {
      case SK.SourceFile:
        node.statements.forEach(collect);
        break;
      case SK.ModuleDeclaration:
        if (!ts.hasSyntacticModifier(node, ts.ModifierFlags.Ambient) && node.body && ts.isModuleBlock(node.body)) node.body.statements.forEach(collect);
        break;
      case SK.FunctionDeclaration:
      case SK.FunctionExpression:
      case SK.ArrowFunction:
      case SK.MethodDeclaration:
      case SK.GetAccessor:
      case SK.SetAccessor: {
        const impl = implementation(program.getTypeChecker(), node);
        if (impl) {
          impl.parameters.forEach(collect);
          collect(impl.body);
        }
        break;
      }
      case SK.ClassDeclaration:
      case SK.ClassExpression: {
        (node.modifiers || []).forEach(collect);
        const heritage = ts.getClassExtendsHeritageElement(node);
        if (heritage) collect(heritage.expression);
        for (const member of node.members) {
          if (ts.canHaveModifiers(member)) (member.modifiers || []).forEach(collect);
          if (ts.isPropertyDeclaration(member)) collect(member.initializer);
          else if (ts.isConstructorDeclaration(member) && member.body) {
            member.parameters.forEach(collect);
            collect(member.body);
          } else if (ts.isClassStaticBlockDeclaration(member)) collect(member);
        }
        break;
      }
      case SK.ClassStaticBlockDeclaration:
        collect(node.body);
        break;
    }
    return Array.from(groups, ([declaration, starts]) => ({ declaration, starts }));
  }

  globalThis.tsqCallSites = { isAssignedExpression, isSelfNamedAssignedExpression, isValidCallHierarchyDeclaration, outgoingCallSites };
})(globalThis);
