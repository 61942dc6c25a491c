// tsq analysis "side-effects": what a module does when it is first
// evaluated. Per user file, the module-level statements that run code:
//   sideEffectImport  `import './x'` (no bindings), or a bare
//                     `import('./x')` / `require('./x')` statement
//   topLevelCall      a call or `new` evaluated at module level
//   iife              an immediately invoked function or arrow
//   globalAssignment  an assignment to global state (globalThis.x,
//                     process.env.X, an undeclared name, a global declared
//                     elsewhere) or to a property of an imported binding
//   topLevelAwait     `await x;`, `const v = await x;`, `for await (...)`
// Declarations (functions, classes, types, enums, plain variable
// initializers) and module-local assignments are not effects. Statements in
// if/else, try/catch/finally, loop and switch bodies at module level are
// `isConditional`, as are the right operands of `&&`, `||`, `??` and the
// branches of `?:`. Function and class bodies are not entered.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = () => globalThis.tsqLs;
  const MAX_TEXT = 200;
  const GLOBAL_OBJECTS = new Set(["globalThis", "window", "global", "self"]);

  const fileMatches = (fileName, file) => globalThis.tsqLs.fileMatches(fileName, file);

  function clip(text) {
    text = text.replace(/;\s*$/, "");
    return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) + "…" : text;
  }

  /** Parentheses, type assertions, `!`, `void`, unary operators. */
  function unwrap(e) {
    for (;;) {
      if (!e) return e;
      if (e.kind === SK.ParenthesizedExpression || e.kind === SK.AsExpression || e.kind === SK.SatisfiesExpression ||
          e.kind === SK.TypeAssertionExpression || e.kind === SK.NonNullExpression) e = e.expression;
      else if (e.kind === SK.VoidExpression) e = e.expression;
      else if (e.kind === SK.PrefixUnaryExpression && e.operator !== SK.PlusPlusToken && e.operator !== SK.MinusMinusToken) e = e.operand;
      else return e;
    }
  }

  function isFunctionExpr(e) {
    e = unwrap(e);
    return !!e && (e.kind === SK.FunctionExpression || e.kind === SK.ArrowFunction);
  }

  /** `(function () {})()`, `(() => {})()`, `(function () {}).call(this)`. */
  function iifeFunction(call) {
    const callee = unwrap(call.expression);
    if (isFunctionExpr(callee)) return unwrap(callee);
    if (callee && callee.kind === SK.PropertyAccessExpression && ["call", "apply"].includes(callee.name.text) &&
        isFunctionExpr(callee.expression)) return unwrap(callee.expression);
    return null;
  }

  /** The innermost object of `a.b[c].d`: an Identifier, `this`, or another expression. */
  function rootOf(e) {
    for (;;) {
      e = unwrap(e);
      if (e && (e.kind === SK.PropertyAccessExpression || e.kind === SK.ElementAccessExpression)) e = e.expression;
      else return e;
    }
  }

  function isInGlobalAugmentation(node) {
    for (let p = node.parent; p; p = p.parent) {
      if (p.kind === SK.ModuleDeclaration && p.flags & ts.NodeFlags.GlobalAugmentation) return true;
    }
    return false;
  }

  /** Does assigning to `target` write state outside this module? */
  function isGlobalTarget(checker, sf, target) {
    const root = rootOf(target);
    if (!root || root.kind !== SK.Identifier) return false;
    const name = root.text;
    if (GLOBAL_OBJECTS.has(name)) return true;
    const sym = checker.getSymbolAtLocation(root);
    const decls = (sym && sym.declarations) || [];
    if (decls.length === 0) {
      // CommonJS exports are the module's own, not global state.
      return name !== "module" && name !== "exports";
    }
    const wholeTarget = unwrap(target) === root;
    for (const d of decls) {
      if (d.getSourceFile() !== sf) return true;
      if (isInGlobalAugmentation(d)) return true;
      // A property of an imported binding (assigning the binding itself is an error).
      if (!wholeTarget && (d.kind === SK.ImportSpecifier || d.kind === SK.ImportClause ||
          d.kind === SK.NamespaceImport || d.kind === SK.ImportEqualsDeclaration)) return true;
    }
    return false;
  }

  /** Is this identifier a binding this module declares itself? */
  function isLocal(checker, sf, id) {
    const sym = checker.getSymbolAtLocation(id);
    return !!sym && (sym.declarations || []).some((d) => d.getSourceFile() === sf);
  }

  function isAssignment(e) {
    return e.kind === SK.BinaryExpression && e.operatorToken.kind >= SK.FirstAssignment && e.operatorToken.kind <= SK.LastAssignment;
  }

  /** The first `await` an initializer evaluates (not inside a nested function or class). */
  function firstAwait(node) {
    if (!node) return null;
    if (node.kind === SK.AwaitExpression) return node;
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return null;
    return ts.forEachChild(node, firstAwait) || null;
  }

  function calleeText(sf, e) {
    e = unwrap(e);
    if (!e) return undefined;
    if (e.kind === SK.CallExpression || e.kind === SK.NewExpression) {
      const fn = e.kind === SK.CallExpression ? iifeFunction(e) : null;
      if (fn) return fn.name ? fn.name.text : undefined;
      return clip(unwrap(e.expression).getText(sf));
    }
    return undefined;
  }

  function fileEffects(checker, sf) {
    const effects = [];
    const add = (kind, node, textNode, isConditional, targetName) => {
      const entry = { kind, text: clip(textNode.getText(sf)), line: L().line(sf, node.getStart(sf)) };
      if (targetName !== undefined) entry.targetName = targetName;
      entry.isConditional = isConditional;
      entry.pos = node.getStart(sf);
      effects.push(entry);
    };

    /** An expression evaluated at module level; `node` is what `text` shows. */
    const expression = (expr, cond, shown) => {
      const e = unwrap(expr);
      if (!e) return;
      shown = shown || expr;
      switch (e.kind) {
        case SK.AwaitExpression:
          add("topLevelAwait", shown, shown, cond, calleeText(sf, e.expression));
          return;
        case SK.CallExpression: {
          const fn = iifeFunction(e);
          if (fn) {
            add("iife", shown, shown, cond, fn.name ? fn.name.text : undefined);
            return;
          }
          const callee = unwrap(e.expression);
          const arg = e.arguments[0];
          const isImport = callee.kind === SK.ImportKeyword || (callee.kind === SK.Identifier && callee.text === "require" &&
            !isLocal(checker, sf, callee));
          if (isImport && arg && ts.isStringLiteralLike(arg)) {
            add("sideEffectImport", shown, shown, cond, arg.text);
            return;
          }
          add("topLevelCall", shown, shown, cond, clip(callee.getText(sf)));
          return;
        }
        case SK.NewExpression:
          add("topLevelCall", shown, shown, cond, clip(unwrap(e.expression).getText(sf)));
          return;
        case SK.BinaryExpression: {
          const op = e.operatorToken.kind;
          if (isAssignment(e)) {
            if (isGlobalTarget(checker, sf, e.left)) {
              add("globalAssignment", shown, shown, cond, clip(unwrap(e.left).getText(sf)));
              return;
            }
            // `x = f()`: the right side still runs.
            expression(e.right, cond);
            return;
          }
          if (op === SK.AmpersandAmpersandToken || op === SK.BarBarToken || op === SK.QuestionQuestionToken) {
            expression(e.left, cond);
            expression(e.right, true);
            return;
          }
          if (op === SK.CommaToken) {
            expression(e.left, cond);
            expression(e.right, cond);
          }
          return;
        }
        case SK.ConditionalExpression:
          expression(e.whenTrue, true);
          expression(e.whenFalse, true);
          return;
        default:
          return;
      }
    };

    const statement = (s, cond) => {
      if (!s) return;
      switch (s.kind) {
        case SK.ImportDeclaration:
          if (!s.importClause && ts.isStringLiteralLike(s.moduleSpecifier)) {
            add("sideEffectImport", s, s, cond, s.moduleSpecifier.text);
          }
          return;
        case SK.ExpressionStatement:
          expression(s.expression, cond);
          return;
        case SK.ExportAssignment:
          expression(s.expression, cond);
          return;
        case SK.VariableStatement:
          for (const d of s.declarationList.declarations) {
            const awaited = firstAwait(d.initializer);
            if (awaited) {
              add("topLevelAwait", s, s.declarationList.declarations.length === 1 ? s : d, cond, calleeText(sf, awaited.expression));
            }
          }
          return;
        case SK.IfStatement:
          statement(s.thenStatement, true);
          statement(s.elseStatement, true);
          return;
        case SK.TryStatement:
          statement(s.tryBlock, true);
          if (s.catchClause) statement(s.catchClause.block, true);
          statement(s.finallyBlock, true);
          return;
        case SK.ForOfStatement:
          if (s.awaitModifier) {
            const head = { getText: () => `for await (${s.initializer.getText(sf)} of ${s.expression.getText(sf)})` };
            add("topLevelAwait", s, head, cond, calleeText(sf, s.expression));
          }
          statement(s.statement, true);
          return;
        case SK.ForStatement:
        case SK.ForInStatement:
        case SK.WhileStatement:
        case SK.DoStatement:
          statement(s.statement, true);
          return;
        case SK.SwitchStatement:
          for (const c of s.caseBlock.clauses) for (const st of c.statements) statement(st, true);
          return;
        case SK.Block:
          for (const st of s.statements) statement(st, cond);
          return;
        case SK.LabeledStatement:
          statement(s.statement, cond);
          return;
        default:
          return;
      }
    };

    for (const s of sf.statements) statement(s, false);
    effects.sort((a, b) => a.pos - b.pos);
    for (const e of effects) delete e.pos;
    return effects;
  }

  globalThis.tsqAnalyses["side-effects"] = (workspace, req) => {
    const ls = L();
    const out = [];
    for (const p of workspace.projects) {
      const checker = p.program().getTypeChecker();
      for (const sf of p.userFiles()) {
        if (workspace.projectOf(sf.fileName) !== p) continue;
        if (req.file && !fileMatches(sf.fileName, req.file)) continue;
        const effects = fileEffects(checker, sf);
        if (effects.length || req.file) out.push({ filePath: ls.rel(sf.fileName), effects });
      }
    }
    out.sort((a, b) => a.filePath.localeCompare(b.filePath));
    return out;
  };
})(globalThis);
