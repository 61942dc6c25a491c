// Small AST helpers for tsq's parser (10_parser.js): unwrapping
// parentheses and React wrappers, CommonJS `require`, import bindings,
// callback labels. Pure functions over tsc's nodes.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const REACT_WRAPPERS = new Set(["forwardRef", "memo", "React.forwardRef", "React.memo"]);


  function skipParens(e) {
    while (e && (e.kind === SK.ParenthesizedExpression || e.kind === SK.AsExpression || e.kind === SK.SatisfiesExpression || e.kind === SK.TypeAssertionExpression)) e = e.expression;
    return e;
  }

  /** The function an initializer stands for: `() => {}`, `function () {}`,
   *  or one wrapped in forwardRef/memo. */
  function unwrapFunction(init) {
    const e = skipParens(init);
    if (!e) return null;
    if (e.kind === SK.ArrowFunction || e.kind === SK.FunctionExpression) return e;
    if (e.kind === SK.CallExpression && isReactWrapper(e) && e.arguments.length) {
      const inner = unwrapFunction(e.arguments[0]);
      if (inner) return inner;
    }
    return null;
  }

  function isReactWrapper(call) {
    if (call.kind !== SK.CallExpression) return false;
    const callee = call.expression;
    const t = callee.kind === SK.Identifier ? ts.idText(callee)
      : callee.kind === SK.PropertyAccessExpression && callee.expression.kind === SK.Identifier ? ts.idText(callee.expression) + "." + ts.idText(callee.name) : "";
    return REACT_WRAPPERS.has(t);
  }

  function hasReactFcType(decl) {
    const t = decl.type;
    if (!t || t.kind !== SK.TypeReference) return false;
    const n = t.typeName;
    const s = n.kind === SK.Identifier ? ts.idText(n) : ts.idText(n.right);
    return s === "FC" || s === "FunctionComponent" || s === "SFC" || s === "VFC";
  }

  function isRequireCall(e) {
    e = skipParens(e);
    return e.kind === SK.CallExpression && e.expression.kind === SK.Identifier && ts.idText(e.expression) === "require" &&
      e.arguments.length === 1 && ts.isStringLiteralLike(e.arguments[0]);
  }

  /** The `require("m")` call an initializer reads through, as in
   *  `require("m").y` or `require("debug")("app")`, or null. */
  function requireOf(e) {
    e = skipParens(e);
    while (e && !isRequireCall(e) && (e.kind === SK.PropertyAccessExpression || e.kind === SK.CallExpression)) e = skipParens(e.expression);
    return e && isRequireCall(e) ? skipParens(e) : null;
  }

  function importBindings(clause) {
    const out = [];
    if (!clause) return out;
    if (clause.name) out.push(ts.idText(clause.name));
    const nb = clause.namedBindings;
    if (nb) {
      if (nb.kind === SK.NamespaceImport) out.push(ts.idText(nb.name));
      else for (const el of nb.elements) out.push(ts.idText(el.name));
    }
    return out;
  }

  function bindingNames(name, out) {
    if (name.kind === SK.Identifier) out.push(ts.idText(name));
    else for (const el of name.elements) if (el.kind !== SK.OmittedExpression) bindingNames(el.name, out);
    return out;
  }

  function isPascal(name) {
    const c = name.charCodeAt(0);
    return c >= 65 && c <= 90;
  }

  function calleeLabel(expr, sf) {
    const e = skipParens(expr);
    if (e.kind === SK.FunctionExpression || e.kind === SK.ArrowFunction) return "IIFE";
    let t = e.getText(sf).replace(/\s+/g, "");
    if (t.length > 40) t = "…" + t.slice(-39);
    return t;
  }

  globalThis.tsqAst = {
    skipParens, unwrapFunction, isReactWrapper, hasReactFcType, isRequireCall, requireOf, importBindings, bindingNames, isPascal, calleeLabel,
  };
})(globalThis);
