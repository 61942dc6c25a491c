// tsq occurrence index, symbol identity: a declaration's stable id (its
// file, containers and name as `symbol =` queries spell them, with `@part`
// for the bodies containers do not name and `#k` for repeats), the
// canonical declaration a symbol is named by, the external id of a
// library member, and aliases followed to what they name. Used by
// js/occurrences/60_occurrences.js.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = globalThis.tsqLs;

  /** Per source file object: declaration node -> stable id. */
  const idCache = new WeakMap();

  /** A declaration's base id: its file, then its containers and name as
   *  `symbol =` queries spell them. */
  function baseId(sf, node) {
    const names = L.containers(node);
    names.push(declName(node));
    return [L.rel(sf.fileName)].concat(names).join(" > ");
  }

  function declName(node) {
    if (node.kind === SK.SourceFile) return "";
    if (node.kind === SK.Constructor) return "constructor";
    if (node.kind === SK.ExportAssignment) return "default";
    const n = ts.getNameOfDeclaration(node);
    if (!n) return L.nameText(node) || "<anonymous>";
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) return ts.idText(n);
    if (ts.isStringLiteral(n) || ts.isNumericLiteral(n)) return n.text;
    return n.getText();
  }

  /** Whether `node` is a body an edit can change alone: a function-like
   *  with a body, or a class static block. */
  function isBodyScope(node) {
    return (ts.isFunctionLike(node) && node.body !== undefined) || node.kind === SK.ClassStaticBlockDeclaration;
  }

  /** What names a body scope in the ids of what it declares: its own
   *  name (accessors, constructors, named function expressions), else the
   *  declaration holding it up to the enclosing scope (`const api =
   *  build(() => …)` is `api`), else "". */
  function scopeLabel(node) {
    if (node.kind === SK.Constructor) return "constructor";
    if (node.kind === SK.ClassStaticBlockDeclaration) return "static";
    if (ts.getNameOfDeclaration(node)) return declName(node);
    for (let p = node.parent; p && p.kind !== SK.SourceFile && !isBodyScope(p); p = p.parent) {
      if (p.kind === SK.ExportAssignment) return "default";
      if (p.kind === SK.VariableDeclaration || p.kind === SK.PropertyAssignment || p.kind === SK.PropertyDeclaration || p.kind === SK.BindingElement || p.kind === SK.Parameter) {
        const n = ts.getNameOfDeclaration(p);
        if (n && ts.isIdentifier(n)) return ts.idText(n);
      }
    }
    return "";
  }

  /** Ids of every declaration node with a symbol in `sf`, in source order.
   *  A declaration inside bodies that `symbol =` containers do not name
   *  (arrow functions, function expressions, accessors, constructors,
   *  static blocks) carries one `@part` per such body: its label
   *  (`scopeLabel`, `<fn>` when empty), `:k` when an earlier sibling body
   *  of the same scope has the same containers and label; past
   *  `MAX_CHAIN` parts, the middle ones are one `…N:hash` part, as
   *  containers are (js/answers/30_resolvers.js). A repeated id
   *  then gets `#2`, `#3`… (two `const x` in two blocks of one body).
   *  Each part is counted among the bodies of one enclosing body, so an
   *  edit inside a body changes no id outside it: a body-only edit that
   *  adds a local with a repeated name moves nothing else. Overloads and
   *  merged declarations share their symbol, hence one id (the first
   *  declaration's). */
  function fileIds(sf) {
    let ids = idCache.get(sf);
    if (ids) return ids;
    ids = new Map();
    const seen = new Map(); // qualified base id -> [[symbol, id]]
    const visit = (node, parts, counts) => {
      if (node.symbol && node.kind !== SK.SourceFile && ts.getNameOfDeclaration(node) !== undefined || node.kind === SK.Constructor) {
        const base = baseId(sf, node) + (parts.names.length ? "@" + parts.names.join("@") : "");
        const prior = seen.get(base) || [];
        const same = prior.find(([symbol]) => symbol === node.symbol);
        const id = same ? same[1] : prior.length ? `${base}#${prior.length + 1}` : base;
        if (!same) prior.push([node.symbol, id]);
        seen.set(base, prior);
        ids.set(node, id);
      }
      if (node !== sf && isBodyScope(node)) {
        // Function declarations and methods are named by the containers.
        const named = node.kind === SK.FunctionDeclaration || node.kind === SK.MethodDeclaration;
        const label = named ? declName(node) : scopeLabel(node) || "<fn>";
        const key = `${L.containers(node).join(" > ")}|${named ? "" : "@"}${label}`;
        const k = (counts.get(key) || 0) + 1;
        counts.set(key, k);
        // `:k`, never `#k`: a repeat suffix (`#2`) stays distinguishable.
        const part = named ? (k > 1 ? `${label}:${k}` : null) : k > 1 ? `${label}:${k}` : label;
        const inner = part === null ? parts : L.extendChain(parts, part);
        const innerCounts = new Map();
        ts.forEachChild(node, (c) => visit(c, inner, innerCounts));
        return;
      }
      ts.forEachChild(node, (c) => visit(c, parts, counts));
    };
    visit(sf, L.EMPTY_CHAIN, new Map());
    idCache.set(sf, ids);
    return ids;
  }

  /** The declaration a symbol is named by: its first declaration in a
   *  user or workspace file (by file, then position). */
  function canonicalDeclaration(symbol) {
    const decls = (symbol && symbol.declarations) || [];
    // A module is its file, also when `declare module "./x"` augments it.
    const file = decls.find((d) => d.kind === SK.SourceFile);
    if (file) return file;
    let best = null;
    for (const d of decls) {
      const f = d.getSourceFile().fileName;
      if (f.includes("/node_modules/") || f.startsWith("/__tsq__/")) continue;
      if (!best || f < best.getSourceFile().fileName || (f === best.getSourceFile().fileName && d.pos < best.pos)) best = d;
    }
    return best;
  }

  /** The id of a symbol declared outside the workspace (a lib or a
   *  package's declaration file), for the members that relate to it
   *  only (object literals by their contextual type, class members by
   *  their base types): it has no rows of its own. */
  function externalId(symbol) {
    const d = ((symbol && symbol.declarations) || [])[0];
    if (!d || d.kind === SK.SourceFile) return null;
    const file = d.getSourceFile().fileName;
    return `${file.startsWith("/__tsq__/") ? file : L.rel(file)} > ${L.containers(d).concat([declName(d)]).join(" > ")}`;
  }

  /** The external id of a library class or interface member
   *  (`ProxyHandler.get`), or null. */
  function externalMember(symbol) {
    if (!symbol || !(symbol.flags & (ts.SymbolFlags.Property | ts.SymbolFlags.Method | ts.SymbolFlags.Accessor))) return null;
    const d = (symbol.declarations || [])[0];
    const owner = d && d.parent;
    if (!owner || !(ts.isInterfaceDeclaration(owner) || ts.isClassLike(owner))) return null;
    return externalId(symbol);
  }

  /** Symbol -> its id (or null). A symbol's declarations are settled
   *  once its checker exists, and finding its canonical one asks each
   *  declaration for its file, a walk up to the file's root: every
   *  identifier of a file 1,500 functions deep paid its depth for it. */
  const idBySymbol = new WeakMap();

  /** A symbol's stable id, or null outside the workspace. */
  function symbolId(symbol) {
    if (!symbol) return null;
    let id = idBySymbol.get(symbol);
    if (id !== undefined) return id;
    const d = canonicalDeclaration(symbol);
    if (!d) id = null;
    else if (d.kind === SK.SourceFile) id = L.rel(d.fileName);
    else id = fileIds(d.getSourceFile()).get(d) || baseId(d.getSourceFile(), d);
    idBySymbol.set(symbol, id);
    return id;
  }

  /** Follows aliases (imports, re-exports) to the symbol they name. */
  function resolveAlias(checker, symbol) {
    // `import x = N.y` names a namespace member: find-references does not
    // follow it (only ES imports and exports are tracked).
    const entityAlias = (d) => ts.isImportEqualsDeclaration(d) && !ts.isExternalModuleReference(d.moduleReference);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias && !(symbol.declarations || []).some(entityAlias)) {
      const target = checker.getAliasedSymbol(symbol);
      if (target && target !== checker.getUnknownSymbol && !(target.flags & ts.SymbolFlags.Alias && target === symbol)) return target;
    }
    return symbol;
  }

  globalThis.tsqSymbolIds = { baseId, declName, fileIds, externalId, externalMember, symbolId, resolveAlias };
})(globalThis);
