// tsq service, the document registry: every project's parsed files. Lib
// files are parsed once per isolate without JSDoc; user files are keyed as
// tsc keys them. A user file too deeply nested to parse (the parser's
// recursion overflows the JS stack: a 100,000-deep array literal) becomes
// an empty file for every program, recorded with the reason, so that one
// file never stops the programs holding it from building (before, every
// `symbol =` lookup of the workspace then failed). Used by
// js/service/20_service.js.
"use strict";

((globalThis) => {
  const LIB_DIR = "/__tsq__/lib";
  const LIB_KEY = "tsq-lib";
  let libRegistry = null;

  /** Whether `e` is the engine's stack overflow (QuickJS and V8 both
   *  throw a `RangeError`; QuickJS may throw an `InternalError` named
   *  "stack overflow"). */
  function isStackOverflow(e) {
    return e instanceof RangeError || (!!e && /stack overflow|call stack/i.test(String(e.message)));
  }

  /** A document registry whose lib files live in one bucket for the whole
   *  workspace and are parsed once, without JSDoc: a lib .d.ts tree does
   *  not depend on a project's options (tsserver keys them by every
   *  source-file-affecting option, so each differing project re-parses
   *  lib.dom.d.ts). User files are keyed as tsc keys them, with
   *  `userJsDoc`. `unparsable` maps each user file that overflowed the
   *  stack when parsed to the reason; the registry holds it as empty
   *  until a new version parses. */
  function sharedLibRegistry(root, userJsDoc) {
    const user = ts.createDocumentRegistry(true, root, userJsDoc);
    // The lib files outlive a workspace: a second `load` in this isolate
    // (a fresh Language Service after an edit) reuses them, since no edit
    // of a workspace changes them.
    libRegistry ??= ts.createDocumentRegistry(true, root, ts.JSDocParsingMode.ParseNone);
    const libs = libRegistry;
    const LIB_SETTINGS = { target: ts.ScriptTarget.ESNext };
    const libOptions = (o) => ({
      languageVersion: ts.ScriptTarget.ESNext,
      setExternalModuleIndicator: typeof o === "object" ? o.setExternalModuleIndicator : undefined,
      jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
    });
    const isLib = (p) => typeof p === "string" && p.startsWith(LIB_DIR);
    const stats = { libParses: 0 };
    const unparsable = new Map(); // fileName -> why it is empty
    /** `parse(snapshot)`, or on a stack overflow the same with an empty
     *  text (the registry's entry is set only once a parse returns, so
     *  the retry starts clean). */
    const guarded = (fileName, snapshot, parse) => {
      try {
        const sf = parse(snapshot);
        unparsable.delete(fileName);
        return sf;
      } catch (e) {
        if (!isStackOverflow(e)) throw e;
        unparsable.set(fileName, `nested too deeply to parse (JS stack overflow: ${e.message}); the Language Service sees it as empty`);
        return parse(ts.ScriptSnapshot.fromString(""));
      }
    };
    return {
      ...user,
      acquireDocumentWithKey(fileName, path, settings, key, snapshot, version, kind, opts) {
        if (!isLib(fileName)) return guarded(fileName, snapshot, (s) => user.acquireDocumentWithKey(fileName, path, settings, key, s, version, kind, opts));
        const before = libs.getBuckets().get(LIB_KEY);
        if (!before || !before.has(path)) stats.libParses++;
        return libs.acquireDocumentWithKey(fileName, path, LIB_SETTINGS, LIB_KEY, snapshot, version, kind, libOptions(opts));
      },
      updateDocumentWithKey(fileName, path, settings, key, snapshot, version, kind, opts) {
        if (!isLib(fileName)) return guarded(fileName, snapshot, (s) => user.updateDocumentWithKey(fileName, path, settings, key, s, version, kind, opts));
        return libs.updateDocumentWithKey(fileName, path, LIB_SETTINGS, LIB_KEY, snapshot, version, kind, libOptions(opts));
      },
      releaseDocumentWithKey(path, key, kind, format) {
        // Libs stay for the workspace's life (parsed once), even when a
        // released program was their last holder.
        if (isLib(path)) return;
        return user.releaseDocumentWithKey(path, key, kind, format);
      },
      stats,
      unparsable,
    };
  }

  globalThis.tsqDocuments = { sharedLibRegistry, isStackOverflow };
})(globalThis);
