// tsq resolvers (blueprint phase 3), part 1: finds the declarations a
// symbol query names and answers signature, modifiers, members and type
// hierarchy from the checker. Call trees and references are in 31_calls.js,
// type flows in 32_type_flows.js, the inspect entry point in 39_inspect.js.
// Every edge is what tsc reports; tsq only filters and shapes.
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

  /** Whether `p` names what it holds in ids and qualified names (a class
   *  expression by the variable it initializes). */
  function isContainer(p) {
    return p.kind === SK.ClassDeclaration || p.kind === SK.InterfaceDeclaration || p.kind === SK.EnumDeclaration ||
      p.kind === SK.ModuleDeclaration || p.kind === SK.FunctionDeclaration || p.kind === SK.MethodDeclaration ||
      (p.kind === SK.ClassExpression && p.parent && p.parent.kind === SK.VariableDeclaration);
  }

  /** A chain of names (containers, or the `@part`s of unnamed bodies)
   *  holds at most `MAX_CHAIN` names: past it, the first `CHAIN_HEAD`,
   *  one `…N:hash` part for the N between, then the last ones. Ids named
   *  every container, so each row of a file 1,500 functions deep held
   *  about 1,500 names (157 MB of JSON for an 86 KB file, the square of
   *  its depth). The hash folds the hidden names in order, so an id
   *  stays unique and stable: it changes only when a name of its chain
   *  does. A query still names the first and the last containers. */
  const MAX_CHAIN = 24;
  const CHAIN_HEAD = 8;
  const EMPTY_CHAIN = Object.freeze({ names: Object.freeze([]), hidden: 0, hash: 0 });

  /** FNV-1a over a name's UTF-16 units, then a separator. */
  function foldName(hash, name) {
    let h = hash;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0;
    return Math.imul(h ^ 0x3e, 16777619) >>> 0;
  }

  /** `chain` with `name` appended (a new chain; O(MAX_CHAIN)). */
  function extendChain(chain, name) {
    const names = chain.names;
    if (names.length < MAX_CHAIN) return { names: names.concat([name]), hidden: 0, hash: 0 };
    // The name after the head (the first after the `…` part, once there
    // is one) is hidden; the first time, two are, to make room for it.
    let hidden = chain.hidden;
    let hash = chain.hash;
    if (hidden === 0) {
      hash = foldName(foldName(2166136261, names[CHAIN_HEAD]), names[CHAIN_HEAD + 1]);
      hidden = 2;
    } else {
      hash = foldName(hash, names[CHAIN_HEAD + 1]);
      hidden += 1;
    }
    const part = `…${hidden}:${hash.toString(16).padStart(8, "0")}`;
    return { names: names.slice(0, CHAIN_HEAD).concat([part], names.slice(CHAIN_HEAD + 2), [name]), hidden, hash };
  }

  /** Container node -> the chain of its own containers and name,
   *  outermost first. */
  const chains = new WeakMap();
  function chainOf(p) {
    let chain = chains.get(p);
    if (!chain) {
      chain = extendChain(containerChain(p), p.kind === SK.ClassExpression ? nameText(p.parent) : nameText(p));
      chains.set(p, chain);
    }
    return chain;
  }

  /** The chain of a declaration's named containers. The nearest
   *  container's chain is kept per node, so a declaration 1,500
   *  functions deep costs one chain of at most `MAX_CHAIN` names, not a
   *  walk to the root that names every container again. */
  function containerChain(node) {
    let p = node.parent;
    while (p && p.kind !== SK.SourceFile && !isContainer(p)) p = p.parent;
    return p && p.kind !== SK.SourceFile ? chainOf(p) : EMPTY_CHAIN;
  }

  /** Named containers of a declaration, outermost first, as ids and
   *  queries spell them (`extendChain`): a fresh array (callers extend
   *  it). */
  function containers(node) {
    return containerChain(node).names.slice();
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

  /** A file's declarations as `declarationIndex` holds them: name,
   *  containers and the line `symbolRef` gives. */
  function fileDeclarations(sf) {
    const out = [];
    const visit = (node) => {
      if (DECLARATION_KINDS.has(node.kind)) out.push({ name: nameText(node), containers: containers(node), line: symbolRef(sf, node).line });
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return out;
  }

  /** Whether `fileName` is the query's file: the same path or a tail of it. */
  function fileMatches(fileName, file) {
    return fileName === file || fileName.endsWith("/" + file.replace(/^\.?\//, ""));
  }

  /** The projects a query's declarations can live in, without building
   *  any program: the owner of the query's file when it names a file that
   *  exists; else the owners of the candidate files Rust found (files that
   *  mention the name); else every project. */
  function projectsFor(workspace, req) {
    if (req.file) {
      const abs = ts.getNormalizedAbsolutePath(req.file.replace(/^\.?\//, ""), workspace.root);
      const owner = workspace.projectOf(abs);
      if (owner) return [owner];
    }
    if (Array.isArray(req.candidates)) {
      const out = new Set();
      for (const f of req.candidates) {
        if (req.file && !fileMatches(f, req.file)) continue;
        const owner = workspace.projectOf(f);
        if (owner) out.add(owner);
      }
      return workspace.projects.filter((p) => out.has(p));
    }
    return workspace.projects;
  }

  function findDeclarations(workspace, req) {
    const want = req.names;
    const target = want[want.length - 1];
    const parents = want.slice(0, -1);
    const out = [];
    for (const project of projectsFor(workspace, req)) {
      for (const { sf, node } of declarationIndex(workspace, project).get(target) || []) {
        if (req.file && !fileMatches(sf.fileName, req.file)) continue;
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

  /** Calls `fn(sf, project)` for each workspace user file once, with the
   *  project that owns it. */
  function eachUserFile(workspace, fn) {
    for (const p of workspace.projects) for (const sf of p.userFiles()) if (workspace.projectOf(sf.fileName) === p) fn(sf, p);
  }

  /** Every `everyNth` function, method and class with a body, in file
   *  order: the benchmark's deterministic sample. */
  function symbolSample(workspace, everyNth, limit) {
    const out = [];
    let i = 0;
    const files = [];
    eachUserFile(workspace, (sf) => files.push(sf));
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
    if (!node.name) return false;
    return exportedDeclarations(node.getSourceFile()).has(node);
  }

  /** The declarations of a file's exports, once per file: asked per
   *  declaration, a walk of every export made a file of many exports and
   *  locals cost their product. */
  const exportsOf = new WeakMap();
  function exportedDeclarations(sf) {
    let out = exportsOf.get(sf);
    if (out) return out;
    out = new Set();
    if (sf.symbol && sf.symbol.exports) {
      sf.symbol.exports.forEach((s) => {
        for (const d of s.declarations || []) out.add(d);
      });
    }
    exportsOf.set(sf, out);
    return out;
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

  /** `withSubtypes === false`: no subtypes (the occurrence index derives
   *  them from the supertypes it stores per declaration). */
  function typeHierarchy(workspace, project, node, withSubtypes) {
    if (node.kind !== SK.ClassDeclaration && node.kind !== SK.InterfaceDeclaration) return undefined;
    const checker = project.program().getTypeChecker();
    const { ext, impl } = heritage(checker, node);
    const subtypes = [];
    const seen = new Set();
    for (const p of withSubtypes === false ? [] : workspace.visibleFrom(node.getSourceFile().fileName)) {
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

  // ---- scope ------------------------------------------------------------------------

  /** Which projects hold which files, for cross-project answers. */
  function scopeOf(workspace) {
    // Call-hierarchy answers are memoized while every built program stays
    // the same (building one more also starts a new memo).
    const programs = workspace.projects.filter((p) => p.built).map((p) => p.program());
    const memo = workspace.callMemo;
    if (!memo || memo.programs.length !== programs.length || memo.programs.some((p, i) => p !== programs[i])) {
      workspace.callMemo = { programs, calls: new Map() };
    }
    return {
      calls: workspace.callMemo.calls,
      owner: (file) => workspace.projectOf(file) || workspace.visibleFrom(file).find((p) => p.program().getSourceFile(file)) || null,
      // Only projects that can see the file are built and asked.
      holders: (file) => workspace.visibleFrom(file).filter((p) => p.program().getSourceFile(file)),
      sourceFile(file) {
        const owner = this.owner(file);
        return owner ? owner.program().getSourceFile(file) : undefined;
      },
    };
  }

  /** Helpers the extended analyses (js/analyses/) share. */
  globalThis.tsqAnalyses["symbol-sample"] = (ws, req) => symbolSample(ws, Math.max(1, req.typeDepth), 1000);
  /** Helpers the other resolver files and the extended analyses share. */
  globalThis.tsqLs = {
    line, nameText, kindOf, symbolRef, findDeclarations, fileDeclarations, projectsFor, fileMatches, eachUserFile, scopeOf, isUserFile, rel, modifiers, signature, containers, EMPTY_CHAIN, extendChain,
    members, typeHierarchy, heritage, DECLARATION_KINDS,
  };
})(globalThis);
