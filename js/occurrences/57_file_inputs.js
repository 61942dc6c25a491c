// tsq occurrence index, what a file's rows depend on besides its text:
// the workspace files it imports and re-exports from, the modules it
// augments, the failed lookup locations and package.json files its module
// resolution read, and its declaration emit (TypeScript's builder
// signature). Rust stores them beside the rows (src/structure/) and
// re-indexes by them (ARCHITECTURE.md, the invalidation rule).
"use strict";

((globalThis) => {
  const L = globalThis.tsqLs;

  /** The workspace files `sf` imports, and those it re-exports from
   *  (`export * from`, `export { x } from`): an API change of the latter
   *  is an API change of `sf` for its importers, as in TypeScript's
   *  builder. And the module specifiers it imports (`specifiers`): while
   *  they stay the same, so does what every program holding `sf`
   *  resolves and fails to resolve from it (`Scope::check_unresolved`). */
  function moduleEdges(program, sf) {
    const inWorkspace = (f) => f && !f.includes("/node_modules/") && !f.startsWith("/__tsq__/");
    const resolve = (spec) => {
      const r = program.getResolvedModule(sf, spec.text, program.getModeForUsageLocation(sf, spec));
      const f = r && r.resolvedModule && r.resolvedModule.resolvedFileName;
      return inWorkspace(f) ? L.rel(f) : null;
    };
    const imports = new Set();
    for (const spec of sf.imports || []) {
      const f = resolve(spec);
      if (f) imports.add(f);
    }
    for (const ref of sf.referencedFiles || []) imports.add(L.rel(ts.resolveTripleslashReference(ref.fileName, sf.fileName)));
    const reexports = new Set();
    for (const st of sf.statements) {
      if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteralLike(st.moduleSpecifier)) {
        const f = resolve(st.moduleSpecifier);
        if (f) reexports.add(f);
      }
    }
    const specifiers = [...new Set((sf.imports || []).map((s) => s.text))].sort();
    return { imports: [...imports].sort(), reexports: [...reexports].sort(), specifiers };
  }

  /** The workspace files `sf`'s module augmentations augment, when they
   *  are all it adds beyond its own exports: a module with no `declare
   *  global` (nested ones included) and no `/// <reference>`, whose
   *  augmented modules all resolve to workspace files. Empty otherwise:
   *  the file affects every program. */
  function augmentedFiles(program, sf) {
    if (!ts.isExternalOrCommonJsModule(sf)) return [];
    if (sf.referencedFiles.length || sf.typeReferenceDirectives.length || sf.libReferenceDirectives.length) return [];
    let globalScope = false;
    const visit = (n) => {
      if (globalScope) return;
      if (ts.isModuleDeclaration(n) && n.flags & ts.NodeFlags.GlobalAugmentation) globalScope = true;
      else if (ts.isModuleDeclaration(n) || ts.isModuleBlock(n)) ts.forEachChild(n, visit);
    };
    for (const st of sf.statements) visit(st);
    if (globalScope) return [];
    const out = new Set();
    for (const name of sf.moduleAugmentations || []) {
      if (!ts.isStringLiteral(name)) return [];
      const r = program.getResolvedModule(sf, name.text, program.getModeForUsageLocation(sf, name));
      const f = r && r.resolvedModule && r.resolvedModule.resolvedFileName;
      const rel = f && !f.includes("/node_modules/") && !f.startsWith("/__tsq__/") ? L.rel(f) : null;
      if (!rel || rel.startsWith("../") || rel.startsWith("/")) return [];
      out.add(rel);
    }
    return [...out].sort();
  }

  /** What `sf`'s module resolution read besides its result, as
   *  TypeScript's watch mode tracks it (`failedLookupLocations`,
   *  `affectingLocations`): `lookups`, the workspace paths where a file
   *  would have answered an import (or a `/// <reference path>` target):
   *  a file created there re-indexes `sf`; `affecting`, the package.json
   *  files inside the workspace that resolution (and `sf`'s module
   *  format) consulted: a change to one re-indexes `sf`. */
  const resolutionPaths = new WeakMap();
  function resolutionInputs(program, sf) {
    const inRoot = (f) => {
      if (!f || f.startsWith("/__tsq__/")) return null;
      const r = L.rel(f);
      return r.startsWith("../") || r.startsWith("/") ? null : r;
    };
    const lookups = new Set();
    const affecting = new Set();
    const record = (r) => {
      if (!r) return;
      // Resolutions are shared through TypeScript's per-directory cache:
      // each one's workspace paths are worked out once.
      let paths = resolutionPaths.get(r);
      if (!paths) {
        paths = { lookups: [], affecting: [] };
        for (const f of r.failedLookupLocations || []) {
          const x = inRoot(f);
          if (x && !x.includes("node_modules/")) paths.lookups.push(x);
        }
        for (const f of r.affectingLocations || []) {
          const x = inRoot(f);
          if (x) paths.affecting.push(x);
        }
        resolutionPaths.set(r, paths);
      }
      for (const x of paths.lookups) lookups.add(x);
      for (const x of paths.affecting) affecting.add(x);
    };
    for (const spec of sf.imports || []) record(program.getResolvedModule(sf, spec.text, program.getModeForUsageLocation(sf, spec)));
    for (const ref of sf.typeReferenceDirectives || []) record(program.getResolvedTypeReferenceDirectiveFromTypeReferenceDirective(ref, sf));
    for (const ref of sf.referencedFiles || []) {
      const x = inRoot(ts.resolveTripleslashReference(ref.fileName, sf.fileName));
      if (x) lookups.add(x);
    }
    for (const f of sf.packageJsonLocations || []) {
      const x = inRoot(f);
      if (x) affecting.add(x);
    }
    return { lookups: [...lookups].sort(), affecting: [...affecting].sort() };
  }

  /** The file's declaration emit (TypeScript's builder signature input:
   *  `forceDtsEmit`, as its `computeDtsSignature`): importers need
   *  re-indexing only when this text changes. A declaration file's
   *  signature is its text (the builder's `updateShapeSignature` takes
   *  its version). */
  function apiText(program, sf) {
    if (sf.isDeclarationFile) return sf.text;
    let text = "";
    try {
      const r = program.emit(sf, (name, data) => { if (/\.d\.[cm]?ts$/.test(name)) text += data; }, undefined, true, undefined, true);
      if (r.emitSkipped && !text) return null;
    } catch (e) {
      return null;
    }
    return text;
  }

  globalThis.tsqFileInputs = { moduleEdges, augmentedFiles, resolutionInputs, apiText };
})(globalThis);
