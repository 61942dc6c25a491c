// tsq occurrence index, what a file's rows depend on besides its text:
// TypeScript's builder's references (its `BuilderState` referenced map),
// followed through every file the walk does not index (node_modules
// declarations, JSON modules, ignored sources) to the walked files and
// the other files they reach; the modules it augments; the failed lookup
// locations and package.json files its module resolution read; and its
// declaration emit (the builder's signature). Rust stores them beside the
// rows (src/structure/) and re-indexes by them (ARCHITECTURE.md, the
// invalidation rule).
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

  /** `sf`'s module resolution inputs (js/service/19_resolution_inputs.js),
   *  its paths relative to the workspace root. */
  const resolutionInputs = (program, sf) => globalThis.tsqResolutionInputs(program, sf, L.rel);

  /** TypeScript's builder's referenced map of `program` (`BuilderState`:
   *  an import by the files declaring the module symbol it binds to, so
   *  an ambient `declare module "x"` and a re-export chain count;
   *  `/// <reference path>`, type reference directives, module
   *  augmentations, ambient modules declared in several files), computed
   *  once per program. `null` where the builder keeps none (`module:
   *  none`, `outFile`): it then re-checks every file on any change. */
  const builderMaps = new WeakMap();
  function referencedMap(program) {
    if (!builderMaps.has(program)) {
      let map = null;
      try {
        map = ts.BuilderState.create(program, undefined, true).referencedMap || null;
      } catch (e) {
        map = null;
      }
      builderMaps.set(program, { map, reach: new Map() });
    }
    return builderMaps.get(program);
  }

  /** A file's name relative to the root when the host serves it (inside
   *  the root, not a vendored lib), else null. */
  function served(name) {
    if (name.startsWith("/__tsq__/")) return null;
    const r = L.rel(name);
    return r.startsWith("../") || r.startsWith("/") ? null : r;
  }

  /** What `sf`'s rows depend on besides its own text, by the builder's
   *  references followed through every file the walk does not index
   *  (`walked`: relative paths): `deps`, the walked files reached (an API
   *  change there re-indexes `sf`, as the builder re-checks the files
   *  referencing a changed signature), and `reads`, the other files the
   *  root holds that are reached (node_modules declarations, JSON
   *  modules, ignored or generated sources): their text is an input of
   *  `sf`, hashed by Rust. `opaque`: the program keeps no referenced map,
   *  so any change re-checks everything. */
  function dependencies(program, sf, walked) {
    const state = referencedMap(program);
    if (!state.map) return { deps: [], reads: [], opaque: true };
    const name = (path) => {
      const f = program.getSourceFileByPath(path);
      return f ? f.fileName : path;
    };
    // What an unwalked file reaches, through unwalked files: shared by
    // every file of the program that references it (a package's
    // declarations are reached from most files).
    const reach = (start) => {
      let known = state.reach.get(start);
      if (known) return known;
      known = { deps: new Set(), reads: new Set() };
      const seen = new Set();
      const stack = [start];
      while (stack.length) {
        const path = stack.pop();
        if (seen.has(path)) continue;
        seen.add(path);
        const r = served(name(path));
        if (r === null) continue;
        if (walked.has(r)) {
          known.deps.add(r);
          continue;
        }
        known.reads.add(r);
        const next = state.map.getValues(path);
        if (next) for (const p of next.keys()) stack.push(p);
      }
      state.reach.set(start, known);
      return known;
    };
    const deps = new Set();
    const reads = new Set();
    const own = served(sf.fileName);
    for (const path of (state.map.getValues(sf.resolvedPath) || new Map()).keys()) {
      const r = served(name(path));
      if (r === null || r === own) continue;
      if (walked.has(r)) {
        deps.add(r);
        continue;
      }
      const k = reach(path);
      for (const d of k.deps) if (d !== own) deps.add(d);
      for (const x of k.reads) reads.add(x);
    }
    return { deps: [...deps].sort(), reads: [...reads].sort(), opaque: false };
  }

  /** Every file the root holds that `program` read and the walk does not
   *  index (node_modules declarations, JSON modules, ignored sources,
   *  declaration files of automatic type packages): each is an input of
   *  every file the program holds, for what no file's `reads` names. */
  function programReads(program, walked) {
    const out = [];
    for (const sf of program.getSourceFiles()) {
      const r = served(sf.fileName);
      if (r !== null && !walked.has(r)) out.push(r);
    }
    return out.sort();
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
    return text + beyondEmit(program, sf);
  }

  /** What other files can see of `sf` that its declaration emit leaves
   *  out, so that a change to it changes the API hash (the builder's
   *  signature misses both): its triple-slash directives (`/// <reference
   *  path|types|lib>`: the emit drops those of a .ts file, yet they change
   *  what every program holding it declares), and the types of its
   *  `private` members (the emit prints `private x;`, yet `obj["x"]`
   *  reaches them from any file). */
  function beyondEmit(program, sf) {
    const parts = [];
    for (const r of sf.referencedFiles) parts.push(`/// path ${r.fileName}`);
    for (const r of sf.typeReferenceDirectives) parts.push(`/// types ${r.fileName}`);
    for (const r of sf.libReferenceDirectives) parts.push(`/// lib ${r.fileName}`);
    let checker = null;
    const visit = (node) => {
      if (ts.isClassLike(node)) {
        for (const m of node.members) {
          if (!m.name || !(ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Private)) continue;
          checker = checker || program.getTypeChecker();
          const symbol = checker.getSymbolAtLocation(m.name);
          const type = symbol ? checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, m), undefined, ts.TypeFormatFlags.NoTruncation) : "?";
          parts.push(`private ${m.name.getText(sf)}: ${type}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return parts.length ? `\n//tsq beyond emit\n${parts.join("\n")}\n` : "";
  }

  /** `f` parsed alone from the disk, without JSDoc: what it declares
   *  before any program holds it. Null when it cannot be read, or is too
   *  deeply nested to parse (the programs hold it empty). */
  function parseAlone(f) {
    const text = Deno.core.ops.op_tsq_fs_read(f);
    if (text === null || text === undefined) return null;
    try {
      return ts.createSourceFile(f, text, { languageVersion: ts.ScriptTarget.ESNext, jsDocParsingMode: ts.JSDocParsingMode.ParseNone });
    } catch (e) {
      if (globalThis.tsqDocuments.isStackOverflow(e)) return null;
      throw e;
    }
  }

  globalThis.tsqFileInputs = { moduleEdges, augmentedFiles, resolutionInputs, apiText, dependencies, programReads, parseAlone };
})(globalThis);
