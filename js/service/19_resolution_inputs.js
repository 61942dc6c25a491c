// tsq's module resolution inputs: what a file's module resolution read
// besides its result, as TypeScript's watch mode tracks it. The project
// model (20_service.js) re-resolves a file when a package.json it read
// changes; the occurrence pass (js/occurrences/) stores them beside the
// rows. Loaded before both, it reads no other file's global.
"use strict";

((globalThis) => {
  /** A failed lookup inside a `node_modules` folder, as the package
   *  directory it looked in (`node_modules/x/`, `node_modules/@s/x/`,
   *  with the trailing slash): a bare specifier's lookups are dozens of
   *  paths per ancestor directory, and what an install changes is whether
   *  that directory exists and what it holds. Other lookups are kept as
   *  they are. */
  function packageDirectory(x) {
    const at = x.lastIndexOf("node_modules/");
    if (at < 0) return x;
    const base = x.slice(0, at + "node_modules/".length);
    const parts = x.slice(base.length).split("/");
    const n = parts[0].startsWith("@") && parts.length > 1 ? 2 : 1;
    const name = parts.slice(0, n).join("/").replace(/(\.d)?\.[cm]?[jt]sx?$|\.json$/, "");
    return `${base}${name}/`;
  }

  /** What `sf`'s module resolution read besides its result, as
   *  TypeScript's watch mode tracks it (`failedLookupLocations`,
   *  `affectingLocations`): `lookups`, the workspace paths where a file
   *  would have answered an import (or a `/// <reference path>` target):
   *  a file created there re-indexes `sf`; `affecting`, the package.json
   *  files inside the workspace that resolution (and `sf`'s module
   *  format) consulted: a change to one re-indexes `sf`. */
  const resolutionPaths = new WeakMap();
  function resolutionInputs(program, sf, rel) {
    const inRoot = (f) => {
      if (!f || f.startsWith("/__tsq__/")) return null;
      const r = rel(f);
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
          if (x) paths.lookups.push(packageDirectory(x));
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
    // A module augmentation's name is resolved like an import (a target
    // created later must re-index the augmenter).
    for (const name of sf.moduleAugmentations || []) {
      if (ts.isStringLiteral(name)) record(program.getResolvedModule(sf, name.text, program.getModeForUsageLocation(sf, name)));
    }
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

  globalThis.tsqResolutionInputs = resolutionInputs;
})(globalThis);
