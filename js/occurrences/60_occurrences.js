// tsq occurrence index: one checker pass per file (as scip-typescript's
// FileIndexer). Every identifier is resolved once, through aliases, to its
// symbol's stable id; call edges are TypeScript's outgoing calls of every
// call-hierarchy declaration in the file (js/occurrences/59_call_sites.js); the file's
// declaration-emit text is its API signature (TypeScript's builder rule).
// Symbol ids are js/occurrences/56_symbol_ids.js's; what the rows depend on besides
// the file's text (imports, lookups, the API text) is
// js/occurrences/57_file_inputs.js's. Rust stores the rows (src/structure/) and derives references, callers,
// callees and deeper call trees from them by query. The service request
// (which files, which program, other holders, checker slices) is
// js/occurrences/61_occurrence_requests.js.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = globalThis.tsqLs;
  const { lookupMatch, snapshot } = globalThis.tsqLookupParts;
  const { baseId, declName, fileIds, externalId, externalMember, symbolId, resolveAlias } = globalThis.tsqSymbolIds;
  const { moduleEdges, augmentedFiles, resolutionInputs, apiText, dependencies } = globalThis.tsqFileInputs;

  // The request's check (`pacedBy`; js/occurrences/61_occurrence_requests.js
  // sets it per file), called at every identifier and declaration and
  // between a file's stages with the work done since the last call: the
  // memory bound (one type-heavy file's garbage, vue's cascade: 250 MB in
  // one file, is collected while the file is indexed, not only once it is
  // done) and the file's budget (past it, the check throws).
  let pace = null;
  const tick = (units) => {
    if (pace) pace(units || 1);
  };
  /** Runs `body` with `check` as the check, then none. */
  function pacedBy(check, body) {
    pace = check;
    try {
      return body();
    } finally {
      pace = null;
    }
  }

  /** The workspace symbols find-references relates to an identifier
   *  (its `forEachRelatedSymbol`, base types aside: those are `bases`
   *  rows): the symbol's roots (a union's property is each member's),
   *  the contextual type's properties for an object literal's property,
   *  the property a binding element names, the value of `{ x }`.
   *  `contextualTypes` (object literal -> its contextual type) keeps one
   *  file's: every member of a literal asks for the same type, which the
   *  checker computes again at each call (down from the outermost
   *  literal, for nested ones). */
  function relatedAt(checker, node, symbol, contextualTypes) {
    const out = [];
    const add = (sym) => {
      if (!sym) return;
      const roots = checker.getRootSymbols(sym);
      const ids = [];
      for (const r of roots.length ? roots : [sym]) {
        const id = symbolId(resolveAlias(checker, r));
        if (id && !ids.includes(id)) ids.push(id);
      }
      for (const id of ids) if (!out.includes(id)) out.push(id);
    };
    add(symbol);
    const element = ts.getContainingObjectLiteralElement(node);
    if (element) {
      let contextual;
      if (contextualTypes && contextualTypes.has(element.parent)) contextual = contextualTypes.get(element.parent);
      else {
        contextual = checker.getContextualType(element.parent);
        if (contextualTypes) contextualTypes.set(element.parent, contextual);
      }
      if (contextual) {
        for (const p of ts.getPropertySymbolsFromContextualType(element, checker, contextual, true)) {
          add(p);
          // A property of a library's type (`ProxyHandler.get`): relates
          // the literals implementing it, which find-references finds
          // through it; its other occurrences are no rows.
          for (const r of checker.getRootSymbols(p)) {
            const id = !symbolId(r) && externalId(r);
            if (id && !out.includes(id)) out.push(id);
          }
        }
      }
      if (ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node) add(resolveAlias(checker, checker.getShorthandAssignmentValueSymbol(node.parent)));
    }
    // `const { x } = o` (TypeScript asks only without a property name).
    if (ts.isBindingElement(node.parent) && ts.isObjectBindingPattern(node.parent.parent) && !node.parent.propertyName && node.parent.name === node) {
      add(ts.getPropertySymbolFromBindingElement(checker, node.parent));
    }
    return out;
  }

  // ---- roles -------------------------------------------------------------------------

  function role(node, symbol) {
    const p = node.parent;
    if (symbol.declarations && symbol.declarations.some((d) => ts.getNameOfDeclaration(d) === node)) {
      // An import's or export's own name declares an alias.
      if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isImportEqualsDeclaration(p) || ts.isNamespaceExport(p)) return "import";
      return "definition";
    }
    if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isExportAssignment(p) || ts.isImportEqualsDeclaration(p)) return "import";
    let top = node;
    while (top.parent && (ts.isPropertyAccessExpression(top.parent) && top.parent.name === top)) top = top.parent;
    const tp = top.parent;
    if (tp && ts.isCallExpression(tp) && tp.expression === top) return "call";
    if (tp && ts.isNewExpression(tp) && tp.expression === top) return "new";
    if (tp && (ts.isTaggedTemplateExpression(tp) && tp.tag === top || ts.isDecorator(tp) || ts.isJsxOpeningLikeElement(tp) && tp.tagName === top)) return "call";
    for (let a = node.parent; a; a = a.parent) {
      if (ts.isHeritageClause(a)) return "heritage";
      if (!ts.isExpressionWithTypeArguments(a) && !ts.isPropertyAccessExpression(a) && !ts.isQualifiedName(a)) break;
    }
    if (ts.isPartOfTypeNode(node)) return "type";
    return "reference";
  }

  /** `exports.y = …`, `module.exports.y = …` or a binding element of
   *  `const { y } = require(…)`, in a JS file. */
  function isCommonJsAliasDeclaration(d) {
    if (!ts.isInJSFile(d)) return false;
    if (ts.isAccessExpression(d)) return ts.isBinaryExpression(d.parent) && d.parent.left === d;
    return ts.isBindingElement(d) && ts.isVariableDeclaration(d.parent.parent) && ts.isVariableDeclarationInitializedToBareOrAccessedRequire(d.parent.parent);
  }

  function isCallSite(node) {
    return ts.isCallOrNewExpressionTarget(node, true, true) || ts.isTaggedTemplateTag(node, true, true) || ts.isDecoratorTarget(node, true, true) ||
      ts.isJsxOpeningLikeElementTagName(node, true, true) || ts.isRightSideOfPropertyAccess(node) || ts.isArgumentExpressionOfElementAccess(node);
  }

  /** The nearest enclosing named declaration's id (the file's for top-level code). */
  function enclosing(sf, node) {
    const ids = fileIds(sf);
    for (let a = node.parent; a && a.kind !== SK.SourceFile; a = a.parent) {
      if (a === node.parent && ts.getNameOfDeclaration(a) === node) continue;
      if (ids.has(a) && L.DECLARATION_KINDS.has(a.kind)) return ids.get(a);
    }
    return L.rel(sf.fileName);
  }

  /** The meanings find-references searches for from a declaration's name
   *  (its getIntersectingMeaningFromDeclarations): an interface and a
   *  namespace merged into one symbol are found apart. */
  function searchMeaning(nameNode, symbol) {
    if (!nameNode) return 7;
    let meaning = ts.getMeaningFromLocation(nameNode);
    const decls = (symbol && symbol.declarations) || [];
    for (let last = -1; last !== meaning;) {
      last = meaning;
      for (const d of decls) {
        const m = ts.getMeaningFromDeclaration(d);
        if (m & meaning) meaning |= m;
      }
    }
    return meaning;
  }

  // ---- call hierarchy items ----------------------------------------------------------

  const { isAssignedExpression, isSelfNamedAssignedExpression, isValidCallHierarchyDeclaration, outgoingCallSites } = globalThis.tsqCallSites;

  /** A call-hierarchy declaration's key: its symbol's id (the file's for
   *  a file), plus `@k` for the k-th of several declarations of one
   *  symbol (overloads without a body, merged namespaces). */
  function itemKey(checker, node) {
    if (ts.isSourceFile(node)) return L.rel(node.fileName);
    if (ts.isClassStaticBlockDeclaration(node)) return `${itemKey(checker, node.parent)} static {}@${node.parent.members.indexOf(node)}`;
    const ref = isAssignedExpression(node) ? node.parent.name : ts.getNameOfDeclaration(node) || (node.modifiers || []).find((m) => m.kind === SK.DefaultKeyword);
    const symbol = ref && checker.getSymbolAtLocation(ref);
    const id = symbol ? symbolId(symbol) : null;
    if (!id) return `${L.rel(node.getSourceFile().fileName)}:${node.pos}`;
    const decls = (symbol.declarations || []).filter((d) => d === node || isValidCallHierarchyDeclaration(d));
    const k = decls.indexOf(isAssignedExpression(node) ? node.parent : node);
    return k > 0 ? `${id}@${k}` : id;
  }

  /** The item as tsq names it (js/answers/31_calls.js `itemRef`): `new Foo()`
   *  points at Foo's explicit constructor; a file's top level is named
   *  after the file. */
  function itemRef(program, node) {
    const item = ts.CallHierarchy.createCallHierarchyItem(program, node);
    // Where the item's name starts (TypeScript's `getCallHierarchyItemName`):
    // an assigned expression's variable, else the declaration's own name,
    // else (a default export, a static block) the declaration itself.
    const from = ts.isSourceFile(node) ? undefined : isAssignedExpression(node) ? node.parent.name : ts.getNameOfDeclaration(node) || node;
    return globalThis.tsqCalls.itemRef(node.getSourceFile(), item, from);
  }

  /** Every identifier's occurrence rows in `sf`, resolved with
   *  `checker` (through aliases to its declarations). With `symbols`, a
   *  map, each identifier's `getSymbolAtLocation` goes there too (the
   *  file's snapshots read it). */
  function identifierRows(checker, sf, symbols) {
    const occurrences = [];
    const contextualTypes = new Map();
    // The walk's depth: TypeScript's `getSymbolAtLocation` and
    // `getMeaningFromLocation` each walk from an identifier to the file's
    // root (looking for a JSDoc host), so an identifier costs its depth.
    // One unit per 32 levels beyond the first: a file 3,000 functions deep
    // is stopped by the budget, real files (a few dozen levels) pay
    // nothing more.
    let depth = 0;
    const walk = (node) => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
        addOccurrence(node);
        return;
      }
      // `T['name']` and `o['name']` name a property.
      if (ts.isStringLiteral(node) && (ts.isLiteralTypeNode(node.parent) || ts.isElementAccessExpression(node.parent) && node.parent.argumentExpression === node)) {
        addOccurrence(node);
        return;
      }
      if (node.kind === SK.JSDoc || ts.isJSDocCommentContainingNode && ts.isJSDocCommentContainingNode(node)) return;
      // JSDoc names (`{@link x}`, `@param x`, `@type {T}`): find-references reports them.
      for (const doc of node.jsDoc || []) walkDoc(doc);
      depth++;
      ts.forEachChild(node, walk);
      depth--;
    };
    const walkDoc = (node) => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
        addOccurrence(node);
        return;
      }
      ts.forEachChild(node, walkDoc);
    };
    const addOccurrence = (node) => {
      tick(1 + (depth >> 5));
      // CommonJS's `module` and `exports` in `module.exports = x` and
      // `exports.y = …` name the module, not the value exported: no row
      // (find-references reports `x` and `y` alone).
      if (ts.isIdentifier(node) && ts.isInJSFile(node) && ts.isPropertyAccessExpression(node.parent) &&
        (ts.isModuleExportsAccessExpression(node.parent) || node.parent.expression === node && node.escapedText === "exports" && ts.isExportsIdentifier(node))) return;
      let symbol = checker.getSymbolAtLocation(node);
      if (symbols) symbols.set(node, symbol);
      if (!symbol) return;
      const own = symbol;
      symbol = resolveAlias(checker, symbol);
      // Two CommonJS aliases find-references does not follow from the
      // value they name (its import tracker follows `require` only for an
      // `export =` module): the name of `exports.y = x` (find-references
      // from `x` reports `x` there, not `y`) and a destructured
      // `const { y } = require("./m")`. Their places are occurrences of
      // the alias alone.
      // An alias of a whole module (`import * as ns`, `import m =
      // require(…)`, `export * as ns`) is no reference of the module:
      // find-references from a module reports its specifiers alone, and
      // from `ns` the alias's own uses. Its places are occurrences of the
      // alias nearest the module.
      const moduleAlias = own !== symbol && isFileModule(symbol) ? nearestModuleAlias(checker, own, symbol) : null;
      if (moduleAlias) {
        const id = symbolId(moduleAlias);
        if (!id) return;
        const at = L.line(sf, node.getStart(sf));
        occurrences.push({ line: at, column: node.getStart(sf) - sf.getLineStarts()[at - 1], symbol: id, role: role(node, own), enclosing: enclosing(sf, node), meaning: ts.getMeaningFromLocation(node) });
        return;
      }
      const ids = own !== symbol && (own.declarations || []).some(isCommonJsAliasDeclaration) ? [symbolId(own)].filter(Boolean) : relatedAt(checker, node, symbol, contextualTypes);
      // `const x = require('./m')` is an alias TypeScript resolves to the
      // module's export, but find-references from `x` reports its own uses:
      // they are occurrences of both.
      if (own !== symbol && (own.declarations || []).some((d) => ts.isVariableDeclarationInitializedToBareOrAccessedRequire(d))) {
        const id = symbolId(own);
        if (id && !ids.includes(id)) ids.unshift(id);
      }
      if (!ids.length) {
        // A library member's own occurrences (`handler.get(…)`): rows
        // under its external id, which only the workspace members that
        // implement it (`bases`, `contextual`) relate to.
        const ext = externalMember(symbol);
        if (!ext) return;
        ids.push(ext);
      }
      const r = role(node, own);
      const at = L.line(sf, node.getStart(sf));
      const row = { line: at, column: node.getStart(sf) - sf.getLineStarts()[at - 1], symbol: ids[0], role: r, enclosing: enclosing(sf, node), meaning: ts.getMeaningFromLocation(node) };
      // A call site as the call hierarchy counts one (TypeScript's
      // convertEntryToCallSite), with the item it is grouped under.
      // Not through `f` of `const f = function named() {}` (TypeScript
      // searches `named`): a reference of `f`, no call site of its item.
      if (isCallSite(node) && !isSelfNamedAssignedExpression(symbol.valueDeclaration && symbol.valueDeclaration.initializer)) row.caller = itemKey(checker, ts.findAncestor(node, isValidCallHierarchyDeclaration) || sf);
      occurrences.push(row);
      // A call of `named` in `const f = function named() {}` is a call
      // site of `f`'s item and no reference of `f`: a row of no meaning.
      const named = row.caller && symbol.valueDeclaration;
      if (isSelfNamedAssignedExpression(named)) {
        const item = symbolId(checker.getSymbolAtLocation(named.parent.name));
        if (item) occurrences.push({ ...row, symbol: item, role: "call", meaning: 0 });
      }
      // The same place also refers to each other related symbol.
      for (const id of ids.slice(1)) occurrences.push({ ...row, symbol: id, role: row.role === "definition" ? "reference" : row.role });
    };
    ts.forEachChild(sf, walk);
    contextualTypes.clear();
    return occurrences;
  }

  /** Every occurrence row of `sf` in `program`: identifiers and the
   *  places that name a module. */
  function occurrenceRows(program, sf, symbols) {
    const checker = program.getTypeChecker();
    return identifierRows(checker, sf, symbols).concat(moduleRows(program, checker, sf));
  }

  /** Whether a symbol is a module declared by a file (not only by
   *  `declare module "x"`). */
  function isFileModule(symbol) {
    return !!(symbol.flags & ts.SymbolFlags.Module) && (symbol.declarations || []).some(ts.isSourceFile);
  }

  /** The alias nearest `module` on the chain from `own` (`import { ns }`
   *  of an `export * as ns` is the export's). */
  function nearestModuleAlias(checker, own, module) {
    let alias = own;
    for (let i = 0; i < 64; i++) {
      let next;
      try { next = checker.getImmediateAliasedSymbol(alias); } catch (e) { break; }
      if (!next || next === module || !(next.flags & ts.SymbolFlags.Alias)) break;
      alias = next;
    }
    return alias;
  }

  /** The rows of the places that name a module, as find-references from
   *  a module reports them (its getReferencedSymbolsForModule): every
   *  module specifier resolving to it (imports, exports, `require`,
   *  `import()` and import types; an import type without a qualifier of
   *  an `export =` module left out), `/// <reference path|types>`
   *  naming its file, and the names of `declare module "x"`, which
   *  declare it. Under the module's id (its file's path); the `export =`
   *  of a module is not among them. */
  function moduleRows(program, checker, sf) {
    const rows = [];
    const add = (pos, id, role) => {
      const at = L.line(sf, pos);
      rows.push({ line: at, column: pos - sf.getLineStarts()[at - 1], symbol: id, role, enclosing: L.rel(sf.fileName), meaning: 7 });
    };
    for (const spec of sf.imports || []) {
      if (ts.nodeIsSynthesized(spec)) continue;
      const module = checker.getSymbolAtLocation(spec);
      if (!module || !isFileModule(module)) continue;
      if (ts.isLiteralTypeNode(spec.parent) && ts.isImportTypeNode(spec.parent.parent) && !spec.parent.parent.qualifier && module.exports && module.exports.has("export=")) continue;
      const id = symbolId(module);
      if (id) add(spec.getStart(sf) + 1, id, ts.isImportDeclaration(spec.parent) || ts.isExportDeclaration(spec.parent) || ts.isExternalModuleReference(spec.parent) ? "import" : "reference");
    }
    const byFile = (target, pos) => {
      if (!target || !target.symbol || !isFileModule(target.symbol)) return;
      const id = symbolId(target.symbol);
      if (id) add(pos, id, "reference");
    };
    for (const ref of sf.referencedFiles) byFile(program.getSourceFileFromReference(sf, ref), ref.pos);
    for (const ref of sf.typeReferenceDirectives) {
      const resolved = program.getResolvedTypeReferenceDirectiveFromTypeReferenceDirective(ref, sf);
      const file = resolved && resolved.resolvedTypeReferenceDirective && resolved.resolvedTypeReferenceDirective.resolvedFileName;
      byFile(file && program.getSourceFile(file), ref.pos);
    }
    for (const st of sf.statements) {
      if (!ts.isModuleDeclaration(st) || !ts.isStringLiteral(st.name)) continue;
      const module = checker.getSymbolAtLocation(st.name);
      const id = module && isFileModule(module) && symbolId(module);
      if (id) add(st.name.getStart(sf) + 1, id, "definition");
    }
    return rows;
  }

  // ---- one file ----------------------------------------------------------------------

  /** Every row of one file, computed with `program`'s checker (the
   *  program of `project`, the file's owner, `workspace.projects[pi]`, or
   *  of its import closure: then `fileIndex` is the file's place in the
   *  owner's whole program). */
  function indexFile(program, sf, ws, project, pi, fileIndex) {
    const checker = program.getTypeChecker();
    const file = L.rel(sf.fileName);
    const ids = fileIds(sf);
    const declarations = [];
    const items = [];
    const calls = [];
    const bases = [];
    const declared = new Map(); // node -> its entry in `declarations`
    const contextual = []; // object literal members: [name, symbol, id]

    // Declarations, with their items and call edges.
    const visit = (node) => {
      if (ids.has(node) && L.DECLARATION_KINDS.has(node.kind)) {
        // A declaration's id and containers grow with its depth.
        const containers = L.containers(node);
        tick(1 + containers.length);
        const ref = L.symbolRef(sf, node);
        const nameNode = node.kind === SK.Constructor ? node : ts.getNameOfDeclaration(node);
        // A constructor is referenced through its class's name (as tsq's
        // live references ask find-references at the class name).
        const symbol = node.kind === SK.Constructor ? node.parent.symbol : nameNode ? checker.getSymbolAtLocation(nameNode) || node.symbol : node.symbol;
        const id = (symbol && symbolId(symbol)) || ids.get(node);
        // The call-hierarchy item prepareCallHierarchy picks at the name.
        let item = null;
        try {
          const d = ts.CallHierarchy.resolveCallHierarchyDeclaration(program, node.kind === SK.Constructor ? node : nameNode);
          const first = Array.isArray(d) ? d[0] : d;
          if (first) item = itemKey(checker, first);
          // A declaration merged with a lib's (a `.d.ts` that declares
          // `setTimeout` again): the item is the lib's, which no file's
          // rows hold; its incoming calls are the symbol's.
          if (first && !L.isUserFile(first.getSourceFile().fileName) && first.getSourceFile() !== sf && isValidCallHierarchyDeclaration(first)) {
            items.push({ key: item, ref: itemRef(program, first) });
          }
        } catch (e) { /* no item */ }
        // Whether tsq's call trees start here (js/answers/31_calls.js `callHierarchy`).
        const callable = node.kind === SK.FunctionDeclaration || node.kind === SK.MethodDeclaration || node.kind === SK.Constructor ||
          node.kind === SK.GetAccessor || node.kind === SK.SetAccessor || node.kind === SK.ClassDeclaration ||
          (node.kind === SK.VariableDeclaration && !!node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer)));
        const decl = { id, name: ref.name, kind: ref.kind, containers, line: ref.line, endLine: L.line(sf, node.end), item: callable ? item : null, meaning: searchMeaning(node.kind === SK.Constructor ? node.parent.name : nameNode, symbol) };
        declarations.push(decl);
        declared.set(node, decl);
        baseMembers(checker, node, id, bases);
        // After the answers: contextual types create types, and the
        // checker prints a union's members in creation order.
        contextual.push([nameNode, symbol, id]);
      }
      if (ts.isParameterPropertyDeclaration(node, node.parent)) {
        const property = checker.getSymbolsOfParameterPropertyDeclaration(node, ts.idText(node.name))[1];
        const id = property && symbolId(property);
        if (id) baseMembers(checker, node, id, bases, node.parent.parent);
      }
      if (isValidCallHierarchyDeclaration(node)) addItem(node);
      ts.forEachChild(node, visit);
    };
    const addItem = (node) => {
      const key = itemKey(checker, node);
      items.push({ key, ref: itemRef(program, node) });
      const byTarget = new Map();
      for (const { declaration, starts } of outgoingCallSites(program, node)) {
        if (!L.isUserFile(declaration.getSourceFile().fileName)) continue;
        const to = itemKey(checker, declaration);
        if (!byTarget.has(to)) byTarget.set(to, []);
        for (const s of starts) byTarget.get(to).push(L.line(sf, s));
      }
      for (const [to, sites] of byTarget) calls.push({ from: key, to, sites });
    };
    visit(sf);
    tick();

    // Each identifier's symbol, which the answers' snapshots read again.
    const symbols = new Map();
    const occurrences = occurrenceRows(program, sf, symbols);
    tick();

    // A script, `declare global` or `declare module "x"` changes what
    // every file sees, not only its importers' view.
    // So does a `/// <reference path|types|lib>`: what it names joins
    // every program holding the file.
    const global = !ts.isExternalOrCommonJsModule(sf) || (sf.moduleAugmentations || []).length > 0 ||
      sf.statements.some((s) => ts.isModuleDeclaration(s) && (s.flags & ts.NodeFlags.GlobalAugmentation || ts.isStringLiteral(s.name))) ||
      sf.referencedFiles.length > 0 || sf.typeReferenceDirectives.length > 0 || sf.libReferenceDirectives.length > 0;
    // TypeScript's builder's narrower rule (`isFileAffectingGlobalScope`):
    // a `declare global`, or a script that is not only ambient modules. A
    // change in a module such a file names reaches every file.
    const globalScope = (sf.moduleAugmentations || []).some((a) => !!(a.parent && a.parent.flags & ts.NodeFlags.GlobalAugmentation)) ||
      (!ts.isExternalOrCommonJsModule(sf) && sf.scriptKind !== ts.ScriptKind.JSON && !sf.statements.every((s) => ts.isModuleDeclaration(s) && ts.isStringLiteral(s.name)));
    // A module whose only effect beyond its importers is augmenting
    // workspace modules (vue's `declare module '@vue/reactivity'`) matters
    // only to programs holding one of them (a narrow program,
    // js/occurrences/61_occurrence_requests.js, leaves it out otherwise).
    const augments = global ? augmentedFiles(program, sf) : [];
    const { imports, reexports, specifiers } = moduleEdges(program, sf);
    const { lookups, affecting } = resolutionInputs(program, sf);
    const { deps, reads, opaque } = dependencies(program, sf, ws.walked);
    tick();
    const answers = project ? declarationAnswers(ws, project, pi, program, sf, declared, fileIndex, symbols) : [];
    symbols.clear();
    for (const [nameNode, symbol, id] of contextual) {
      tick();
      contextualMembers(checker, nameNode, symbol, id, bases);
    }
    return { relativePath: file, declarations, answers, occurrences, items, calls, bases, global, globalScope, augments, specifiers, imports, reexports, lookups, affecting, deps, reads, opaque, apiText: apiText(program, sf) };
  }

  /** What a `symbol =` answer shows of each declaration of the file
   *  (js/answers/50_lookup.js, js/answers/39_inspect.js) that does not depend on other
   *  files' rows: the match, its snapshot parts, and the metadata besides
   *  references, call trees and subtypes (derived from the rows; each
   *  class or interface keeps its resolved supertypes for the latter).
   *  In the lookup's declaration order (`fileDeclarations`), with its
   *  `ord` (project, file, node). */
  /** A declaration's key, stable while its file's lines move: its id in
   *  its file (file, containers, name, `#k`) and its kind. */
  function declKey(sf, node) {
    return `${fileIds(sf).get(node) || baseId(sf, node)}|${L.kindOf(node)}`;
  }

  /** `filePath|line|name|kind` -> key, for one file's declarations. */
  const keysByRef = new WeakMap();
  function keyOfRef(ws, program, ref) {
    const tsf = ref.filePath && program.getSourceFile(ts.getNormalizedAbsolutePath(ref.filePath, ws.root));
    if (!tsf) return null;
    let keys = keysByRef.get(tsf);
    if (!keys) {
      keys = new Map();
      const visit = (n) => {
        if (L.DECLARATION_KINDS.has(n.kind)) {
          const r = L.symbolRef(tsf, n);
          const k = `${r.line}|${r.name}|${r.kind}`;
          if (!keys.has(k)) keys.set(k, declKey(tsf, n));
        }
        ts.forEachChild(n, visit);
      };
      visit(tsf);
      keysByRef.set(tsf, keys);
    }
    return keys.get(`${ref.line}|${ref.name}|${ref.kind}`) || null;
  }

  /** The declarations in other workspace files an answer names (type
   *  flows, heritage): Rust replaces their lines with the current ones. */
  function linksOf(ws, program, sf, value) {
    const own = L.rel(sf.fileName);
    const out = [];
    const visit = (v) => {
      if (Array.isArray(v)) return v.forEach(visit);
      if (!v || typeof v !== "object") return;
      if (typeof v.filePath === "string" && typeof v.line === "number" && typeof v.name === "string" && v.filePath !== own &&
          L.isUserFile(ts.getNormalizedAbsolutePath(v.filePath, ws.root))) {
        const key = keyOfRef(ws, program, v);
        if (!out.some((l) => l.filePath === v.filePath && l.line === v.line && l.name === v.name)) {
          out.push({ key, filePath: v.filePath, line: v.line, name: v.name });
        }
      }
      for (const k of Object.keys(v)) visit(v[k]);
    };
    visit(value);
    return out;
  }

  function declarationAnswers(ws, project, pi, program, sf, declared, fileIndex, symbols) {
    const checker = program.getTypeChecker();
    const fi = fileIndex === undefined ? program.getSourceFiles().indexOf(sf) : fileIndex;
    const out = [];
    const units = new Map(); // snapshot's cache for this file
    const visit = (node) => {
      if (L.DECLARATION_KINDS.has(node.kind)) {
        const containers = L.containers(node);
        tick(1 + containers.length);
        const d = declared.get(node);
        const answer = {
          name: L.nameText(node),
          containers,
          id: d ? d.id : null,
          item: d ? d.item : null,
          meaning: d ? d.meaning : 7,
          ord: pi * 2 ** 40 + fi * 2 ** 20 + out.length,
          match: lookupMatch(project, sf, node),
          // Ranges, never text: the index is a cache of positions
          // (`src/structure/checkout.rs` slices the code from the
          // checkout's file when an answer shows it).
          snapshot: snapshot(project, sf, [node.kind === SK.VariableDeclaration ? node.parent.parent : node], units, symbols, true),
          signature: L.signature(checker, node),
          modifiers: L.modifiers(node),
          supertypes: [],
        };
        answer.key = declKey(sf, node);
        const th = L.typeHierarchy(ws, project, node, false);
        if (th) {
          answer.typeHierarchy = th;
          const { ext, impl } = L.heritage(checker, node);
          for (const x of ext.concat(impl)) if (x.decl) answer.supertypes.push(declKey(x.decl.getSourceFile(), x.decl));
        }
        const m = L.members(checker, node);
        if (m) answer.members = m;
        const tf = globalThis.tsqTypeFlows.typeFlows(checker, sf, node);
        if (tf) answer.typeFlows = tf;
        answer.links = linksOf(ws, program, sf, [answer.typeHierarchy, answer.typeFlows]);
        out.push(answer);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return out;
  }

  /** Members of base classes and implemented interfaces a class or
   *  interface member overrides or implements, transitively
   *  (find-references relates them, as tsserver does). */
  function baseMembers(checker, node, id, out, ownerNode) {
    const owner = ownerNode || node.parent;
    if (!owner || !(ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner)) || !node.name) return;
    const name = declName(node);
    const seen = new Set();
    const push = (symbol) => {
      const target = symbol && resolveAlias(checker, symbol);
      // A library's member (`ProxyHandler.get`) by its external id, as
      // object literals relate to it (`relatedAt`).
      const tid = target && (symbolId(target) || externalId(target));
      if (tid && tid !== id && !seen.has(tid)) {
        seen.add(tid);
        out.push({ member: id, base: tid });
      }
    };
    // Every base type further up, as find-references searches them
    // (TypeScript's `getPropertySymbolsFromBaseTypes`): through every
    // declaration of each class or interface, `implements` included, past
    // the bases that do not declare the member (`class B extends A`, `A
    // implements ProxyHandler<T>` without a `set`: `B.set` relates to
    // `ProxyHandler.set`).
    const visited = new Set();
    const visitDeclaration = (d) => {
      for (const typeNode of ts.getAllSuperTypeNodes(d)) {
        const type = checker.getTypeAtLocation(typeNode);
        const prop = type.symbol && checker.getPropertyOfType(type, name);
        if (prop) for (const r of checker.getRootSymbols(prop)) push(r);
        recur(type.symbol);
      }
    };
    const recur = (symbol) => {
      if (!symbol || !(symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) || visited.has(symbol)) return;
      visited.add(symbol);
      for (const d of symbol.declarations || []) visitDeclaration(d);
    };
    const ownerSymbol = owner.name ? checker.getSymbolAtLocation(owner.name) : owner.symbol;
    if (ownerSymbol) visited.add(ownerSymbol);
    for (const clause of owner.heritageClauses || []) {
      for (const typeNode of clause.types) {
        const t = checker.getTypeAtLocation(typeNode);
        for (const type of t.isUnionOrIntersection && t.isUnionOrIntersection() ? t.types : [t]) push(type.getProperty && type.getProperty(name));
        recur(t.symbol);
      }
    }
    // The owner's other declarations (a merged interface's).
    for (const d of (ownerSymbol && ownerSymbol.declarations) || []) if (d !== owner) visitDeclaration(d);
  }

  /** An object literal's member: find-references from it searches its
   *  contextual type's properties too (forEachRelatedSymbol), which the
   *  rows at its name hold beside its own. */
  function contextualMembers(checker, nameNode, symbol, id, out) {
    if (!nameNode || !ts.getContainingObjectLiteralElement(nameNode)) return;
    for (const cid of relatedAt(checker, nameNode, symbol ? resolveAlias(checker, symbol) : symbol)) {
      if (cid !== id && !out.some((b) => b.member === id && b.base === cid)) out.push({ member: id, base: cid, contextual: true });
    }
  }

  /** `contextualMembers` of every object literal member of `sf`. */
  function contextualEdges(checker, sf, out) {
    const ids = fileIds(sf);
    const visit = (node) => {
      if (ids.has(node) && L.DECLARATION_KINDS.has(node.kind) && ts.isObjectLiteralExpression(node.parent)) {
        const nameNode = ts.getNameOfDeclaration(node);
        const symbol = nameNode ? checker.getSymbolAtLocation(nameNode) || node.symbol : node.symbol;
        contextualMembers(checker, nameNode, symbol, (symbol && symbolId(symbol)) || ids.get(node), out);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  globalThis.tsqOccurrences = { indexFile, occurrenceRows, contextualEdges, pacedBy };
})(globalThis);
