// tsq analysis "alias-graph": every name a declaration is known by across the
// workspace. Alias sites are import and export syntax (renamed imports,
// renamed and plain re-exports, `export *`, namespace imports and
// re-exports, default imports, `import X = NS.Y`, `export default X`); the
// checker resolves each site to the declaration it finally stands for
// (getAliasedSymbol) and names the hops in between (getImmediateAliasedSymbol),
// so the graph follows what tsc resolves, not matching text.
//
// One entry per aliased declaration: its canonical SymbolRef and its
// aliases, each with the chain of names from the declaration to the alias.
// A query finds declarations by name as usual, and also by alias name (the
// lookup is bidirectional): `Element` finds Widget and all its aliases.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const SF = ts.SymbolFlags;
  const L = () => globalThis.tsqLs;

  const keyOf = (node) => node.getSourceFile().fileName + ":" + node.pos;
  const nodeName = (n) => (ts.isIdentifier(n) ? ts.idText(n) : n.text);

  function resolve(checker, sym) {
    if (!sym) return null;
    if (!(sym.flags & SF.Alias)) return sym;
    try {
      return checker.getAliasedSymbol(sym);
    } catch (_) {
      return null;
    }
  }

  /** Inside `declare module 'm' { }` or `declare global { }`. */
  function inAugmentation(decl) {
    for (let p = decl.parent; p; p = p.parent) {
      if (ts.isModuleDeclaration(p) && (p.name.kind === SK.StringLiteral || ts.isGlobalScopeAugmentation(p))) return true;
    }
    return false;
  }

  /** The declarations of `sym` in user files, the checker's order, with
   *  module augmentations last: the first one is the canonical declaration. */
  function userDeclarations(sym) {
    const isUser = L().isUserFile;
    const decls = (sym.declarations || []).filter((d) => d.kind !== SK.SourceFile && isUser(d.getSourceFile().fileName));
    return decls.filter((d) => !inAugmentation(d)).concat(decls.filter(inAugmentation));
  }

  function canonicalRef(decl) {
    const sf = decl.getSourceFile();
    if (decl.kind === SK.ExportAssignment) {
      // `export default <expression>` / `export = <expression>`: no name of its own.
      const [name, kind] = decl.isExportEquals ? ["export=", "export-assignment"] : ["default", "default-export"];
      return { name, kind, filePath: L().rel(sf.fileName), line: L().line(sf, decl.getStart(sf)) };
    }
    return L().symbolRef(sf, decl);
  }

  /** Names from the declaration to the alias symbol `sym`: one per alias
   *  hop (an `export *` hop keeps the name and does not show), with
   *  consecutive repeats folded. A default export's hop is `default`. */
  function chainOf(checker, sym, declName) {
    const names = [];
    let s = sym;
    for (let i = 0; s && s.flags & SF.Alias; i++) {
      if (i > 64) return null;
      names.unshift(ts.symbolName(s));
      let next;
      try {
        next = checker.getImmediateAliasedSymbol(s);
      } catch (_) {
        next = undefined;
      }
      if (!next || next === s) return null;
      s = next;
    }
    if (!s) return null;
    names.unshift(ts.symbolName(s));
    names.unshift(declName);
    return names.filter((n, i) => i === 0 || n !== names[i - 1]);
  }

  /** Collects alias sites into `graphs` (declaration key -> graph). */
  function collect(workspace, graphs) {
    const ls = L();

    for (const p of workspace.projects) {
      const checker = p.program().getTypeChecker();
      for (const sf of p.userFiles()) {
        if (workspace.projectOf(sf.fileName) !== p) continue;

        /** Records that `target` (a symbol, resolved or not) is known as
         *  `name` at `node`; `via` is the alias symbol the chain starts
         *  from, `suffix` a name appended to it (namespace members). */
        const add = (node, name, kind, originalName, target, via, suffix) => {
          const final = resolve(checker, target);
          if (!final || final.flags & SF.Module && (final.declarations || []).every((d) => d.kind === SK.SourceFile)) return;
          const decls = userDeclarations(final);
          if (!decls.length) return;
          const key = keyOf(decls[0]);
          let g = graphs.get(key);
          if (!g) {
            g = { canonical: canonicalRef(decls[0]), declKeys: new Set(), aliases: new Map() };
            graphs.set(key, g);
          }
          for (const d of decls) g.declKeys.add(keyOf(d));
          let chain = chainOf(checker, via, g.canonical.name);
          if (!chain) return;
          if (suffix && chain[chain.length - 1] !== suffix) chain = chain.concat([suffix]);
          const alias = {
            name,
            filePath: ls.rel(sf.fileName),
            line: ls.line(sf, node.getStart(sf)),
            kind,
            originalName,
            chain,
          };
          const k = `${alias.name}\0${alias.filePath}\0${alias.line}\0${alias.kind}`;
          if (!g.aliases.has(k)) g.aliases.set(k, Object.assign(alias, { absPath: sf.fileName }));
        };

        /** The exports of the module `moduleSym` as `prefix.name`: all of
         *  them, or those in `only` (a set of export names) when given. */
        const addMembers = (node, prefix, kind, moduleSym, only) => {
          if (!moduleSym || (only && !only.size)) return;
          let exports;
          try {
            exports = checker.getExportsOfModule(moduleSym);
          } catch (_) {
            return;
          }
          for (const e of exports) {
            const member = ts.symbolName(e);
            if (only && !only.has(member)) continue;
            add(node, `${prefix}.${member}`, kind, member, e, e, `${prefix}.${member}`);
          }
        };

        // The members each namespace import is used for (`NS.member` in an
        // expression or a type), by the namespace's alias symbol.
        const used = new Map();
        const nsNames = new Set();
        for (const st of sf.statements) {
          const nb = st.kind === SK.ImportDeclaration && st.importClause && st.importClause.namedBindings;
          if (nb && nb.kind === SK.NamespaceImport) nsNames.add(ts.idText(nb.name));
          if (st.kind === SK.ImportEqualsDeclaration && st.moduleReference.kind === SK.ExternalModuleReference) nsNames.add(ts.idText(st.name));
        }
        if (nsNames.size) {
          const note = (left, right) => {
            if (!ts.isIdentifier(left) || !nsNames.has(ts.idText(left))) return;
            const sym = checker.getSymbolAtLocation(left);
            if (!sym) return;
            if (!used.has(sym)) used.set(sym, new Set());
            used.get(sym).add(nodeName(right));
          };
          const walk = (n) => {
            if (n.kind === SK.PropertyAccessExpression) note(n.expression, n.name);
            else if (n.kind === SK.QualifiedName) note(n.left, n.right);
            ts.forEachChild(n, walk);
          };
          walk(sf);
        }
        const usedOf = (sym) => used.get(sym) || new Set();

        const moduleOf = (specifier) => {
          const m = specifier && checker.getSymbolAtLocation(specifier);
          return m ? resolve(checker, m) : null;
        };

        const visit = (st) => {
          switch (st.kind) {
            case SK.ImportDeclaration: {
              const clause = st.importClause;
              if (!clause) break;
              if (clause.name && clause.symbol) {
                add(clause.name, ts.idText(clause.name), ts.isTypeOnlyImportDeclaration(clause) ? "type-only-import" : "default-import",
                  "default", clause.symbol, clause.symbol);
              }
              const nb = clause.namedBindings;
              if (nb && nb.kind === SK.NamespaceImport) {
                addMembers(nb.name, ts.idText(nb.name), "namespace-import", moduleOf(st.moduleSpecifier), usedOf(nb.symbol));
              } else if (nb) {
                for (const spec of nb.elements) {
                  const local = ts.idText(spec.name);
                  const imported = spec.propertyName ? nodeName(spec.propertyName) : local;
                  if (imported === local || !spec.symbol) continue;
                  const kind = imported === "default" ? "default-as-named" : ts.isTypeOnlyImportDeclaration(spec) ? "type-only-import" : "import-rename";
                  add(spec.name, local, kind, imported, spec.symbol, spec.symbol);
                }
              }
              break;
            }
            case SK.ExportDeclaration: {
              const clause = st.exportClause;
              if (!clause) {
                // `export * from`: the target's exports this module really
                // re-exports (its own exports of the same name win).
                const target = moduleOf(st.moduleSpecifier);
                if (!target || !sf.symbol) break;
                const direct = sf.symbol.exports;
                const all = new Map(checker.getExportsOfModule(sf.symbol).map((s) => [s.escapedName, s]));
                for (const e of checker.getExportsOfModule(target)) {
                  const name = ts.symbolName(e);
                  if (name === "default" || (direct && direct.has(e.escapedName))) continue;
                  const mine = all.get(e.escapedName);
                  if (!mine || resolve(checker, mine) !== resolve(checker, e)) continue;
                  add(st, name, "wildcard-re-export", name, e, e);
                }
              } else if (clause.kind === SK.NamespaceExport) {
                addMembers(clause.name, nodeName(clause.name), "namespace-re-export", moduleOf(st.moduleSpecifier));
              } else {
                for (const spec of clause.elements) {
                  const exported = nodeName(spec.name);
                  const local = spec.propertyName ? nodeName(spec.propertyName) : exported;
                  const sym = spec.symbol;
                  if (!sym) continue;
                  const renamed = local !== exported;
                  if (!st.moduleSpecifier && !renamed) {
                    // `export { X }` of a local declaration is that
                    // declaration's own export, not an alias.
                    const localSym = checker.getExportSpecifierLocalTargetSymbol(spec);
                    if (!localSym || !(localSym.flags & SF.Alias)) continue;
                  }
                  const typeOnly = ts.isTypeOnlyExportDeclaration(spec);
                  const kind = local === "default" && renamed ? "default-as-named" : typeOnly ? "type-only-export" :
                    renamed ? "export-rename" : "re-export";
                  add(spec.name, exported, kind, local, sym, sym);
                }
              }
              break;
            }
            case SK.ImportEqualsDeclaration: {
              if (!st.symbol) break;
              const ref = st.moduleReference;
              if (ref.kind === SK.ExternalModuleReference) {
                // `import X = require('m')`: the module's members, or what
                // its `export =` stands for.
                const target = resolve(checker, st.symbol);
                if (target && target.flags & SF.Module && (target.declarations || []).some((d) => d.kind === SK.SourceFile)) {
                  addMembers(st.name, ts.idText(st.name), "namespace-import", target, usedOf(st.symbol));
                } else {
                  add(st.name, ts.idText(st.name), "require-import", "export=", st.symbol, st.symbol);
                }
              } else {
                const right = ref.kind === SK.QualifiedName ? ref.right : ref;
                add(st.name, ts.idText(st.name), "namespace-alias", ts.idText(right), st.symbol, st.symbol);
              }
              break;
            }
            case SK.ExportAssignment: {
              // `export default X` / `export = X` of a name: an alias.
              const sym = st.symbol;
              if (!sym || !(sym.flags & SF.Alias)) break;
              const name = st.isExportEquals ? "export=" : "default";
              const expr = st.expression;
              const original = ts.isIdentifier(expr) ? ts.idText(expr) : ts.isPropertyAccessExpression(expr) ? ts.idText(expr.name) : expr.getText(sf);
              add(st, name, st.isExportEquals ? "export-assignment" : "default-export", original, sym, sym);
              break;
            }
            case SK.ModuleDeclaration: {
              let body = st.body;
              while (body && body.kind === SK.ModuleDeclaration) body = body.body;
              if (body && body.kind === SK.ModuleBlock) body.statements.forEach(visit);
              break;
            }
          }
        };
        sf.statements.forEach(visit);
      }
    }
  }

  function finish(g) {
    const aliases = [...g.aliases.values()]
      .sort((a, b) => a.filePath.localeCompare(b.filePath) || a.line - b.line || a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind))
      .map(({ absPath: _, ...a }) => a);
    return { canonical: g.canonical, aliases };
  }

  const fileMatches = (fileName, file) => globalThis.tsqLs.fileMatches(fileName, file);

  /** Does `alias` answer the query `names` (`[Parent >] name`)? An alias
   *  `Ns.Member` answers `Member`, `Ns` and `Ns > Member`. */
  function aliasMatches(alias, req) {
    if (req.file && !fileMatches(alias.absPath, req.file)) return false;
    const names = req.names;
    if (alias.name === names.join(".")) return true;
    return names.length === 1 && alias.name.split(".").includes(names[0]);
  }

  globalThis.tsqAnalyses["alias-graph"] = (workspace, req) => {
    const ls = L();
    const graphs = new Map();
    collect(workspace, graphs);
    let picked;
    if (req.names && req.names.length) {
      picked = new Map();
      for (const { sf, node } of ls.findDeclarations(workspace, req)) {
        const key = keyOf(node);
        const hit = [...graphs.entries()].find(([, g]) => g.declKeys.has(key));
        if (hit) picked.set(hit[0], hit[1]);
        else if (!picked.has(key)) picked.set(key, { canonical: ls.symbolRef(sf, node), declKeys: new Set([key]), aliases: new Map() });
      }
      for (const [key, g] of graphs) {
        if ([...g.aliases.values()].some((a) => aliasMatches(a, req))) picked.set(key, g);
      }
    } else {
      picked = graphs;
    }
    return [...picked.values()].map(finish).sort((a, b) =>
      a.canonical.filePath.localeCompare(b.canonical.filePath) || a.canonical.line - b.canonical.line ||
      a.canonical.name.localeCompare(b.canonical.name));
  };
})(globalThis);
