// tsq analysis "guard-callbacks" (blueprint phase 3): type guard functions
// (`x is T`, `asserts x [is T]`, declared or inferred) passed as callbacks
// (.filter/.find/.forEach, custom higher-order functions), with what the
// site narrows, and the parameters of higher-order functions that accept
// type predicates.
//
// Sites come from the callbacks scan (45_callbacks.js); the predicate, the
// input type (the receiving parameter's type for the guarded argument) and
// the narrowed output (the call's type, or the guard's predicate as the
// checker instantiates it at the site) all come from the checker.
((globalThis) => {
  "use strict";
  const TF = ts.TypeFlags;
  const L = globalThis.tsqLs;
  const { typeText, isLibFile } = globalThis.tsqGuardUtil;
  const CB = globalThis.tsqCallbacks;

  const isAsserts = (p) => p.kind === ts.TypePredicateKind.AssertsThis || p.kind === ts.TypePredicateKind.AssertsIdentifier;
  const isThis = (p) => p.kind === ts.TypePredicateKind.This || p.kind === ts.TypePredicateKind.AssertsThis;

  function predicateOfDecl(checker, fn) {
    const sig = checker.getSignatureFromDeclaration(fn);
    return sig ? checker.getTypePredicateOfSignature(sig) || null : null;
  }

  /** A predicate among a type's call signatures. */
  function predicateOfType(checker, t) {
    for (const sig of CB.callSignaturesOf(checker, t)) {
      const p = checker.getTypePredicateOfSignature(sig);
      if (p) return p;
    }
    return null;
  }

  /** Does a type still mention type parameters? */
  function isGeneric(t, depth = 0) {
    if (!t || depth > 6) return false;
    if (t.flags & (TF.TypeParameter | TF.Conditional | TF.Substitution | TF.Index | TF.IndexedAccess)) return true;
    if (t.flags & (TF.Union | TF.Intersection)) return t.types.some((m) => isGeneric(m, depth + 1));
    if ((t.aliasTypeArguments || []).some((a) => isGeneric(a, depth + 1))) return true;
    if (t.flags & TF.Object && t.objectFlags & ts.ObjectFlags.Reference) return (t.resolvedTypeArguments || []).some((a) => isGeneric(a, depth + 1));
    return false;
  }

  /** A type's text, a lib utility alias (NonNullable<X>) shown resolved. */
  function resolvedText(checker, t) {
    const alias = t.aliasSymbol;
    const lib = alias && (alias.declarations || []).some((d) => isLibFile(d.getSourceFile().fileName));
    return lib ? checker.typeToString(t, undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias) : typeText(checker, t);
  }

  const UNINFORMATIVE = TF.Void | TF.Undefined | TF.Never | TF.Any | TF.Unknown | TF.BooleanLike;

  /** The guard's predicate in the site's own checker (the site may live
   *  in another project than the declaration). */
  function sitePredicate(site) {
    const { checker, target } = site;
    let sym = checker.getSymbolAtLocation(target.kind === ts.SyntaxKind.PropertyAccessExpression ? target.name : target);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    for (const d of (sym && sym.declarations) || []) {
      const fn = globalThis.tsqGuardUtil.functionOf(d);
      const p = fn && predicateOfDecl(checker, fn);
      if (p) return p;
    }
    return null;
  }

  function siteOf(site) {
    const { checker, call, arg } = site;
    const pred = sitePredicate(site);
    if (!pred) return null;
    const out = CB.siteInfo(site, "guardName");
    out.predicateKind = isAsserts(pred) ? "asserts" : "is";
    if (pred.type) out.predicateType = typeText(checker, pred.type);
    // The parameter that receives the guard, as instantiated at this call.
    const ct = checker.getContextualType(arg);
    const expected = ct ? CB.callSignaturesOf(checker, ct) : [];
    if (expected.length && !isThis(pred)) {
      const sig = expected[0];
      const i = pred.parameterIndex;
      if (i < sig.parameters.length || ts.signatureHasRestParameter?.(sig)) out.inputType = typeText(checker, checker.getParameterType(sig, i));
    }
    // What the call hands back once narrowed (.filter -> User[]); for calls
    // whose result says nothing (forEach, an assertion HOF) what each
    // guarded value narrows to, the guard's predicate instantiated here.
    // A generic guard's own predicate (NonNullable<T>) is left out: the
    // checker instantiates it only through a predicate-typed parameter.
    const result = checker.getTypeAtLocation(call);
    const expectedPred = expected.map((s) => checker.getTypePredicateOfSignature(s)).find(Boolean);
    if (result && !(result.flags & UNINFORMATIVE)) {
      out.narrowedOutputType = typeText(checker, result);
    } else if (expectedPred && expectedPred.type && !isGeneric(expectedPred.type)) {
      out.narrowedOutputType = resolvedText(checker, expectedPred.type);
    } else if (pred.type && !isGeneric(pred.type)) {
      out.narrowedOutputType = resolvedText(checker, pred.type);
    }
    out.acceptsPredicate = expected.some((s) => !!checker.getTypePredicateOfSignature(s));
    return out;
  }

  /** Function-typed parameters; over overloads, a parameter counts as
   *  predicate-accepting when one overload declares it so. */
  function hofParameters(checker, fns) {
    const byIndex = new Map();
    for (const fn of fns) {
      for (const e of hofParametersOf(checker, fn)) {
        const had = byIndex.get(e.parameterIndex);
        if (!had || (!had.hasTypePredicate && e.hasTypePredicate)) byIndex.set(e.parameterIndex, e);
      }
    }
    return [...byIndex.values()].sort((a, b) => a.parameterIndex - b.parameterIndex);
  }

  function hofParametersOf(checker, fn) {
    const out = [];
    for (const p of CB.parametersOf(checker, fn)) {
      const t = p.element || p.type;
      if (!CB.isCallable(checker, t)) continue;
      const pred = predicateOfType(checker, t);
      const e = { name: p.name, parameterIndex: p.index, type: typeText(checker, p.type), hasTypePredicate: !!pred };
      if (pred) {
        e.predicateKind = isAsserts(pred) ? "asserts" : "is";
        if (pred.type) e.predicateType = typeText(checker, pred.type);
      }
      if (p.rest) e.isRest = true;
      out.push(e);
    }
    return out;
  }

  globalThis.tsqAnalyses["guard-callbacks"] = (workspace, req) => {
    const sites = CB.scan(workspace);
    const out = [];
    for (const t of CB.targets(workspace, req)) {
      let pred = predicateOfDecl(t.checker, t.fn);
      let predFn = t.fn;
      for (const fn of t.overloads) {
        if (pred) break;
        pred = predicateOfDecl(t.checker, fn);
        predFn = fn;
      }
      const guardHofParameters = hofParameters(t.checker, [t.fn, ...t.overloads.filter((f) => f !== t.fn)]);
      if (!req.names && !pred && !guardHofParameters.some((p) => p.hasTypePredicate)) continue;
      const entry = { symbol: L.symbolRef(t.sf, t.decl) };
      if (pred) {
        entry.predicate = { kind: isAsserts(pred) ? "asserts" : "is", parameterName: isThis(pred) ? "this" : pred.parameterName };
        if (pred.type) entry.predicate.type = typeText(t.checker, pred.type);
        if (!predFn.type) entry.predicate.inferred = true;
      }
      entry.guardCallbackSites = pred ? CB.sortSites((sites.get(t.key) || []).map(siteOf).filter(Boolean)) : [];
      entry.guardHofParameters = guardHofParameters;
      out.push(entry);
    }
    out.sort((a, b) => a.symbol.filePath.localeCompare(b.symbol.filePath) || a.symbol.line - b.symbol.line);
    return out;
  };
})(globalThis);
