// tsq analysis "ambients": ambient declarations and augmentations in the
// workspace's own files (.d.ts included; node_modules and tsq's libs not):
//   globalBlocks         every `declare global { ... }` with its members
//   moduleBlocks         every `declare module 'name' { ... }` (an ambient
//                        module, or an augmentation when the file is a module)
//   ambientDeclarations  top-level declarations of .d.ts files, and top-level
//                        `declare` statements of other files
// Regular (non-declare) namespaces are not ambient and are not reported.
// Members are listed in source order with a kind (function, variable,
// interface, type, class, enum, namespace) and a signature; a namespace
// also lists its own members.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = () => globalThis.tsqLs;

  const fileMatches = (fileName, file) => globalThis.tsqLs.fileMatches(fileName, file);

  function isDeclarationFile(sf) {
    return sf.isDeclarationFile || /\.d\.[cm]?ts$/.test(sf.fileName);
  }

  const isGlobalBlock = (s) => s.kind === SK.ModuleDeclaration && !!(s.flags & ts.NodeFlags.GlobalAugmentation);
  const isModuleBlock = (s) => s.kind === SK.ModuleDeclaration && s.name.kind === SK.StringLiteral;

  /** The declarations a statement makes: one, or one per variable. */
  function declarationsOf(s) {
    switch (s.kind) {
      case SK.FunctionDeclaration: case SK.ClassDeclaration: case SK.InterfaceDeclaration:
      case SK.TypeAliasDeclaration: case SK.EnumDeclaration: case SK.ModuleDeclaration:
        return s.name || s.kind === SK.FunctionDeclaration || s.kind === SK.ClassDeclaration ? [s] : [];
      case SK.VariableStatement:
        return s.declarationList.declarations.slice();
      default:
        return [];
    }
  }

  function describe(checker, sf, node) {
    const ls = L();
    const ref = ls.symbolRef(sf, node);
    let signature;
    try { signature = ls.signature(checker, node); } catch (_) { signature = ls.nameText(node); }
    const out = { name: ref.name, kind: ref.kind, line: ref.line, signature };
    const members = namespaceMembers(checker, sf, node);
    if (members) out.members = members;
    return out;
  }

  /** A namespace's own declarations (nested namespaces recursively), or undefined. */
  function namespaceMembers(checker, sf, node) {
    if (node.kind !== SK.ModuleDeclaration || node.name.kind !== SK.Identifier) return undefined;
    let body = node.body;
    // `namespace A.B {}`: A's body is B's declaration; list what the innermost holds.
    while (body && body.kind === SK.ModuleDeclaration) body = body.body;
    const out = [];
    for (const s of body ? body.statements : []) for (const d of declarationsOf(s)) out.push(describe(checker, sf, d));
    return out;
  }

  function hasDeclare(s) {
    return (ts.getCombinedModifierFlags(s) & ts.ModifierFlags.Ambient) !== 0 ||
      !!(s.modifiers && s.modifiers.some((m) => m.kind === SK.DeclareKeyword));
  }

  globalThis.tsqAnalyses["ambients"] = (workspace, req) => {
    const ls = L();
    const target = req.names && req.names.length ? req.names[req.names.length - 1] : null;
    const globalBlocks = [];
    const moduleBlocks = [];
    const ambientDeclarations = [];

    const scanBlock = (checker, sf, block, into, extra) => {
      const entry = Object.assign({}, extra, { filePath: ls.rel(sf.fileName), line: ls.line(sf, block.getStart(sf)) });
      if (extra.isAugmentation !== undefined) {
        delete entry.isAugmentation;
        entry.isAugmentation = extra.isAugmentation;
      }
      entry.members = [];
      const body = block.body && block.body.kind === SK.ModuleBlock ? block.body.statements : [];
      for (const s of body) {
        if (isGlobalBlock(s)) {
          scanBlock(checker, sf, s, globalBlocks, {});
          continue;
        }
        for (const d of declarationsOf(s)) entry.members.push(describe(checker, sf, d));
      }
      if (target !== null && entry.moduleName !== target) {
        entry.members = entry.members.filter((m) => m.name === target);
        if (entry.members.length === 0) return;
      }
      into.push(entry);
    };

    const scanFile = (checker, sf) => {
      const dts = isDeclarationFile(sf);
      for (const s of sf.statements) {
        if (isGlobalBlock(s)) {
          scanBlock(checker, sf, s, globalBlocks, {});
        } else if (isModuleBlock(s)) {
          scanBlock(checker, sf, s, moduleBlocks, { moduleName: s.name.text, isAugmentation: ts.isExternalModuleAugmentation(s) });
        } else if (dts || hasDeclare(s)) {
          for (const d of declarationsOf(s)) {
            const m = describe(checker, sf, d);
            if (target !== null && m.name !== target) continue;
            const entry = { name: m.name, kind: m.kind, filePath: ls.rel(sf.fileName), line: m.line,
              signature: m.signature, inDeclarationFile: dts };
            if (m.members) entry.members = m.members;
            ambientDeclarations.push(entry);
          }
        }
      }
    };

    // Each file once: by its owning project first, then by any project that pulls it in.
    const seen = new Set();
    const wanted = (sf) => !sf.fileName.includes("/node_modules/") && !sf.fileName.startsWith("/__tsq__/") &&
      (!req.file || fileMatches(sf.fileName, req.file));
    for (const pass of [0, 1]) {
      for (const p of workspace.projects) {
        const program = p.program();
        const checker = program.getTypeChecker();
        for (const sf of program.getSourceFiles()) {
          if (seen.has(sf.fileName) || !wanted(sf)) continue;
          if (pass === 0 && workspace.projectOf(sf.fileName) !== p) continue;
          seen.add(sf.fileName);
          scanFile(checker, sf);
        }
      }
    }

    const byPlace = (a, b) => a.filePath.localeCompare(b.filePath) || a.line - b.line;
    globalBlocks.sort(byPlace);
    moduleBlocks.sort(byPlace);
    ambientDeclarations.sort((a, b) => byPlace(a, b) || a.name.localeCompare(b.name));
    return { globalBlocks, moduleBlocks, ambientDeclarations };
  };
})(globalThis);
