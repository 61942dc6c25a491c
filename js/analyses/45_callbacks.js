// tsq analysis "callbacks" (blueprint phase 3): where a function is passed
// as a callback (array methods, promise chains, custom higher-order
// functions, event-style APIs; through `as`, `!`, parentheses and
// `.bind(...)`), which of its parameters take functions, and whether it
// returns one.
//
// The checker decides everything: which declaration an argument stands for
// (aliases followed), that the argument sits where a function is expected
// (its contextual type has call signatures), which `bind` is
// Function.prototype.bind, what kind of callee receives it (its resolved
// signature's declaration), and which types are callable.
((globalThis) => {
  "use strict";
  const SK = ts.SyntaxKind;
  const TF = ts.TypeFlags;
  const L = globalThis.tsqLs;
  const U = globalThis.tsqGuardUtil;
  const { skipParens, namedFunction, functionOf, typeText, isLibFile } = U;

  // ---- declarations -------------------------------------------------------------

  /** Kinds of declaration a callback argument can name. */
  function isFunctionDecl(d) {
    if (d.kind === SK.FunctionDeclaration || d.kind === SK.MethodDeclaration) return true;
    return (d.kind === SK.VariableDeclaration || d.kind === SK.PropertyDeclaration) && !!functionOf(d);
  }

  const declKey = (d) => d.getSourceFile().fileName + ":" + d.pos;

  /** The function declarations a symbol stands for (aliases followed). */
  function functionDeclsOf(checker, sym) {
    if (!sym) return [];
    if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    return (sym && sym.declarations ? sym.declarations : []).filter(isFunctionDecl);
  }

  /** One key per function, whatever declaration (overload) names it. */
  function keyOfDecls(decls) {
    return decls.length ? declKey(decls[0]) : null;
  }

  /** The declaration to report for a symbol: its implementation if any. */
  function canonical(decls) {
    return decls.find((d) => { const f = functionOf(d); return f && f.body; }) || decls[0];
  }

  function symbolOfDecl(checker, decl) {
    return decl.name ? checker.getSymbolAtLocation(decl.name) : null;
  }

  // ---- types --------------------------------------------------------------------------

  const constituents = (t) => (t.flags & TF.Union ? t.types : [t]);

  /** The lib's global `Function` interface (callable, yet without signatures). */
  function isGlobalFunction(t) {
    const s = t.symbol;
    return !!s && s.escapedName === "Function" && (s.declarations || []).some((d) => isLibFile(d.getSourceFile().fileName));
  }

  function callSignaturesOf(checker, t) {
    const out = [];
    for (const c of constituents(checker.getNonNullableType(t))) out.push(...checker.getSignaturesOfType(c, ts.SignatureKind.Call));
    return out;
  }

  function isCallable(checker, t) {
    if (!t || t.flags & (TF.Any | TF.Unknown)) return false;
    return constituents(checker.getNonNullableType(t)).some((c) => checker.getSignaturesOfType(c, ts.SignatureKind.Call).length > 0 || isGlobalFunction(c));
  }

  // ---- call sites ------------------------------------------------------------------

  /** Peels `(x)`, `x as T`, `<T>x`, `x!`, `x satisfies T`. */
  function unwrap(n) {
    for (;;) {
      n = skipParens(n);
      if (n.kind === SK.AsExpression || n.kind === SK.TypeAssertionExpression || n.kind === SK.NonNullExpression || n.kind === SK.SatisfiesExpression) n = n.expression;
      else return n;
    }
  }

  function libInterfaceOf(decl) {
    const p = decl && decl.parent;
    if (!p || p.kind !== SK.InterfaceDeclaration || !isLibFile(decl.getSourceFile().fileName)) return null;
    return p.name.text;
  }

  const BIND_OWNERS = new Set(["Function", "CallableFunction", "NewableFunction"]);

  /** `f.bind(...)` where `bind` is Function.prototype.bind: returns `f`. */
  function boundTarget(checker, n) {
    if (n.kind !== SK.CallExpression) return null;
    const callee = skipParens(n.expression);
    if (callee.kind !== SK.PropertyAccessExpression || callee.name.text !== "bind") return null;
    const sig = checker.getResolvedSignature(n);
    return sig && BIND_OWNERS.has(libInterfaceOf(sig.declaration)) ? unwrap(callee.expression) : null;
  }

  const ARRAY_OWNERS = /^(ReadonlyArray|Array|(Int8|Uint8|Uint8Clamped|Int16|Uint16|Int32|Uint32|Float16|Float32|Float64|BigInt64|BigUint64)Array)$/;
  const PROMISE_OWNERS = new Set(["Promise", "PromiseLike", "PromiseConstructor"]);

  /** What receives the callback: an array method, a promise method, a
   *  function of the workspace ("user"), or a library's ("library"). */
  function calleeKind(sig) {
    const d = sig && sig.declaration;
    if (!d) return "unknown";
    const owner = libInterfaceOf(d);
    if (owner && ARRAY_OWNERS.test(owner)) return "array-method";
    if (owner && PROMISE_OWNERS.has(owner)) return "promise";
    return L.isUserFile(d.getSourceFile().fileName) ? "user" : "library";
  }

  function calleeName(call) {
    const e = unwrap(call.expression);
    switch (e.kind) {
      case SK.Identifier: return e.text;
      case SK.PropertyAccessExpression: return e.name.text;
      case SK.ElementAccessExpression:
        return ts.isStringLiteralLike(e.argumentExpression) || ts.isNumericLiteral(e.argumentExpression) ? e.argumentExpression.text : e.getText();
      case SK.SuperKeyword: return "super";
      default: return e.getText();
    }
  }

  /** Is `arg` where a function is expected? No contextual type (an untyped
   *  callee) counts; `unknown`, objects and primitives do not. */
  function inCallbackPosition(checker, arg) {
    const ct = checker.getContextualType(arg);
    if (!ct || ct.flags & TF.Any) return true;
    return isCallable(checker, ct);
  }

  /** Every site in the workspace where a named function is passed as an
   *  argument in a callback position: key of the function -> raw sites. */
  function scan(workspace) {
    const byKey = new Map();
    for (const p of workspace.projects) {
      const checker = p.program().getTypeChecker();
      for (const sf of p.userFiles()) {
        if (workspace.projectOf(sf.fileName) !== p) continue;
        const visit = (node) => {
          if ((node.kind === SK.CallExpression || node.kind === SK.NewExpression) && node.arguments && node.arguments.length) {
            node.arguments.forEach((arg, index) => {
              let target = unwrap(arg);
              let bound = false;
              const b = boundTarget(checker, target);
              if (b) { target = b; bound = true; }
              if (target.kind !== SK.Identifier && target.kind !== SK.PropertyAccessExpression) return;
              const decls = functionDeclsOf(checker, checker.getSymbolAtLocation(target.kind === SK.PropertyAccessExpression ? target.name : target));
              if (!decls.length || !inCallbackPosition(checker, arg)) return;
              const key = keyOfDecls(decls);
              if (!byKey.has(key)) byKey.set(key, []);
              byKey.get(key).push({ project: p, checker, sf, call: node, arg, target, index, bound });
            });
          }
          ts.forEachChild(node, visit);
        };
        visit(sf);
      }
    }
    return byKey;
  }

  /** The plain fields of a site. */
  function siteInfo(site, nameKey) {
    const { checker, sf, call, arg, target, index, bound } = site;
    const sig = checker.getResolvedSignature(call);
    const out = {};
    out[nameKey] = target.getText(sf);
    out.calledBy = calleeName(call) || "";
    out.calleeKind = calleeKind(sig);
    out.filePath = L.rel(sf.fileName);
    out.line = L.line(sf, arg.getStart(sf));
    out.parameterIndex = index;
    if (bound) out.boundWithBind = true;
    return out;
  }

  function sortSites(sites) {
    return sites.sort((a, b) => a.filePath.localeCompare(b.filePath) || a.line - b.line || a.parameterIndex - b.parameterIndex);
  }

  // ---- the function itself --------------------------------------------------------

  /** Parameters (by call-site position, `this` skipped) and their types. */
  function parametersOf(checker, fn) {
    const out = [];
    let index = 0;
    for (const p of fn.parameters) {
      if (ts.isIdentifier(p.name) && p.name.text === "this") continue;
      let t = checker.getTypeAtLocation(p);
      let elem = null;
      if (p.dotDotDotToken && (checker.isArrayType(t))) elem = checker.getElementTypeOfArrayType(t);
      out.push({ node: p, name: p.name.getText(), index: index++, type: t, element: elem, rest: !!p.dotDotDotToken });
    }
    return out;
  }

  function callbackParameters(checker, fn) {
    const out = [];
    for (const p of parametersOf(checker, fn)) {
      if (!isCallable(checker, p.element || p.type)) continue;
      const e = { name: p.name, parameterIndex: p.index, type: typeText(checker, p.type) };
      if (p.rest) e.isRest = true;
      out.push(e);
    }
    return out;
  }

  function returnInfo(checker, fn) {
    if (fn.kind === SK.Constructor || fn.kind === SK.SetAccessor) return { returnsFunction: false };
    const sig = checker.getSignatureFromDeclaration(fn);
    const rt = sig && checker.getReturnTypeOfSignature(sig);
    if (!rt || !isCallable(checker, rt)) return { returnsFunction: false };
    return { returnsFunction: true, returnFunctionType: typeText(checker, rt) };
  }

  /** The functions to analyze: the query's, or every named function. */
  function targets(workspace, req) {
    const out = [];
    const seen = new Set();
    const add = (project, decl) => {
      const checker = project.program().getTypeChecker();
      const sym = symbolOfDecl(checker, decl);
      const decls = sym ? functionDeclsOf(checker, sym) : [decl];
      const key = keyOfDecls(decls.length ? decls : [decl]);
      if (seen.has(key)) return;
      seen.add(key);
      const d = canonical(decls.length ? decls : [decl]);
      const fn = functionOf(d);
      const overloads = (decls.length ? decls : [decl]).map(functionOf).filter(Boolean);
      if (fn) out.push({ project, checker, sf: d.getSourceFile(), decl: d, fn, key, overloads });
    };
    if (req.names) {
      for (const { project, node } of L.findDeclarations(workspace, req)) if (functionOf(node) || node.kind === SK.Constructor) add(project, node);
    } else {
      for (const p of workspace.projects) {
        for (const sf of p.userFiles()) {
          if (workspace.projectOf(sf.fileName) !== p) continue;
          const visit = (node) => {
            const d = namedFunction(node);
            if (d && d.kind !== SK.Constructor && d.kind !== SK.GetAccessor && d.kind !== SK.SetAccessor) add(p, d);
            ts.forEachChild(node, visit);
          };
          visit(sf);
        }
      }
    }
    return out;
  }

  globalThis.tsqCallbacks = { scan, siteInfo, sortSites, targets, parametersOf, callSignaturesOf, isCallable, constituents };

  globalThis.tsqAnalyses["callbacks"] = (workspace, req) => {
    const sites = scan(workspace);
    const out = [];
    for (const t of targets(workspace, req)) {
      const usedAsCallbackIn = sortSites((sites.get(t.key) || []).map((s) => siteInfo(s, "callbackName")));
      const callbackParams = callbackParameters(t.checker, t.fn);
      const ret = returnInfo(t.checker, t.fn);
      if (!req.names && !usedAsCallbackIn.length && !callbackParams.length && !ret.returnsFunction) continue;
      const entry = { symbol: L.symbolRef(t.sf, t.decl), usedAsCallbackIn, callbackParameters: callbackParams, returnsFunction: ret.returnsFunction };
      if (ret.returnFunctionType !== undefined) entry.returnFunctionType = ret.returnFunctionType;
      out.push(entry);
    }
    out.sort((a, b) => a.symbol.filePath.localeCompare(b.symbol.filePath) || a.symbol.line - b.symbol.line);
    return out;
  };
})(globalThis);
