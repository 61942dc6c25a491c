// tsq occurrence index, what a narrow program's checker reads of the
// modules that augmenters it left out would change. A module augmentation
// (`declare module "@vue/reactivity" { interface RefUnwrapBailTypes {…} }`)
// changes its target only by merging into the target module's symbols:
// its declarations, members and exports, or by adding export names. A
// checker that never reads those symbols, never looks those names up in
// the target's exports and never lists them computes the same answers
// with the augmenter or without it. The watch records the first such
// read; js/occurrences/61_occurrence_requests.js then checks the files
// again with the augmenters. Vue's `ast.ts` reaches `@vue/reactivity`
// through `@vue/shared`, whose two augmenters bring 98 files into its
// narrow program; its checker reads nothing they augment.
"use strict";

((globalThis) => {
  /** The symbol fields a merge writes and every use of the symbol reads
   *  (its meaning, its declarations, its members or exports). */
  const FIELDS = ["flags", "declarations", "valueDeclaration", "members", "exports", "exportSymbol"];
  /** The export table's reads by name, and the ones that list it. */
  const LOOKUPS = ["get", "has"];
  const LISTINGS = ["forEach", "keys", "values", "entries", Symbol.iterator];

  /** The names `augmenter`'s `declare module "…"` blocks declare, or null
   *  when one holds what the watch does not follow (an export list, an
   *  `export =`, a destructured variable): those files are checked with
   *  their augmenters. */
  function augmentedNames(fileName) {
    const sf = globalThis.tsqFileInputs.parseAlone(fileName);
    if (!sf) return null;
    const names = new Set();
    for (const st of sf.statements) {
      if (!ts.isModuleDeclaration(st) || !ts.isStringLiteral(st.name)) continue;
      if (!st.body || !ts.isModuleBlock(st.body)) return null;
      for (const d of st.body.statements) {
        if (ts.isImportDeclaration(d) || ts.isImportEqualsDeclaration(d)) continue;
        if (ts.isVariableStatement(d)) {
          for (const v of d.declarationList.declarations) {
            if (!ts.isIdentifier(v.name)) return null;
            names.add(v.name.text);
          }
          continue;
        }
        const named = ts.isInterfaceDeclaration(d) || ts.isClassDeclaration(d) || ts.isFunctionDeclaration(d) || ts.isEnumDeclaration(d) ||
          ts.isTypeAliasDeclaration(d) || (ts.isModuleDeclaration(d) && ts.isIdentifier(d.name));
        if (!named || !d.name) return null;
        names.add(d.name.text);
      }
    }
    return names;
  }

  /** A watch over `program`: for each left-out augmenter whose targets
   *  the program holds, the target modules' export tables (lookups of
   *  the augmented names, and any listing) and every module-level symbol
   *  of the program's files with an augmented name (the re-exported
   *  declaration a merge reaches through aliases is one of them). Null
   *  when an augmenter's names cannot be read, or a target is an
   *  `export =` module. `on()` installs it,
   *  `off()` restores every field and method as it was (the symbols are
   *  the bound files', which every program sharing the document registry
   *  holds); `fired` says what was read first, or null. */
  function watch(program, leftOut) {
    const names = new Set();
    const targets = [];
    for (const [augmenter, to] of leftOut) {
      // An augmenter the closure imports is merged already.
      if (program.getSourceFile(augmenter)) continue;
      const held = to.map((t) => program.getSourceFile(t)).filter(Boolean);
      if (!held.length) continue;
      const declared = augmentedNames(augmenter);
      if (!declared) return null;
      for (const n of declared) names.add(n);
      targets.push(...held);
    }
    // A target whose module is `export =` merges the augmentation into
    // the symbol it exports, which its importers may reach without the
    // target: not watched.
    if (targets.some((sf) => sf.symbol && sf.symbol.exports && sf.symbol.exports.has("export="))) return null;
    const state = { fired: null, undo: [] };
    if (!targets.length) return { state, on() {}, off() {} };
    const symbols = new Set();
    // Every module's symbols with an augmented name, declaration files
    // under node_modules included (a target's `export *` merges into the
    // symbol it re-exports); a module augmentation never merges into the
    // lib files' globals.
    for (const sf of program.getSourceFiles()) {
      if (program.isSourceFileDefaultLibrary(sf)) continue;
      for (const table of [sf.locals, sf.symbol && sf.symbol.exports]) {
        if (!table) continue;
        for (const n of names) {
          const s = table.get(n);
          if (s) symbols.add(s);
        }
      }
    }
    const fire = (what) => {
      state.fired ||= what;
    };
    return {
      state,
      on() {
        for (const sf of targets) {
          const table = sf.symbol && sf.symbol.exports;
          // A script has no export table: what it declares is global,
          // and the narrow program holds every global file.
          if (!table) continue;
          const label = ts.getBaseFileName(sf.fileName);
          for (const m of LOOKUPS) {
            table[m] = function (k) {
              if (names.has(k)) fire(`${label}: ${k}`);
              return Map.prototype[m].call(this, k);
            };
          }
          for (const m of LISTINGS) {
            table[m] = function (...a) {
              fire(`${label}: its exports listed`);
              return Map.prototype[m].apply(this, a);
            };
          }
          state.undo.push(() => {
            for (const m of [...LOOKUPS, ...LISTINGS]) delete table[m];
          });
        }
        for (const s of symbols) {
          for (const k of FIELDS) {
            const own = Object.prototype.hasOwnProperty.call(s, k);
            let value = s[k];
            Object.defineProperty(s, k, {
              configurable: true,
              enumerable: true,
              get() {
                fire(`${s.escapedName}: ${k}`);
                return value;
              },
              set(v) {
                value = v;
              },
            });
            state.undo.push(() => {
              if (own || value !== undefined) Object.defineProperty(s, k, { value, writable: true, configurable: true, enumerable: true });
              else delete s[k];
            });
          }
        }
      },
      off() {
        while (state.undo.length) state.undo.pop()();
      },
    };
  }

  globalThis.tsqAugmentationWatch = { watch, augmentedNames };
})(globalThis);
