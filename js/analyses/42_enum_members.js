// tsq analysis "enum-members": every enum declaration with its members and
// their values. A value is the initializer's source text (string literals
// keep their quotes), or, for a member without one, the auto-increment
// number as text (0 for the first member, previous numeric value + 1 after,
// including after an explicit reset such as `C = 100`).
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;
  const L = () => globalThis.tsqLs;

  /** The numeric value a literal initializer stands for, or undefined. */
  function literalNumber(expr) {
    while (expr && expr.kind === SK.ParenthesizedExpression) expr = expr.expression;
    if (!expr) return undefined;
    if (expr.kind === SK.NumericLiteral) return Number(expr.text);
    if (expr.kind === SK.PrefixUnaryExpression && expr.operand.kind === SK.NumericLiteral) {
      const n = Number(expr.operand.text);
      if (expr.operator === SK.MinusToken) return -n;
      if (expr.operator === SK.PlusToken) return n;
    }
    return undefined;
  }

  /** A literal initializer: a number (signed or not) or a plain string. */
  function isLiteral(expr) {
    if (literalNumber(expr) !== undefined) return true;
    return expr.kind === SK.StringLiteral || expr.kind === SK.NoSubstitutionTemplateLiteral;
  }

  function numberText(n) {
    return Object.is(n, -0) ? "0" : String(n);
  }

  function enumInfo(checker, sf, node) {
    const ls = L();
    const flags = ts.getCombinedModifierFlags(node);
    const members = [];
    // The value the next initializer-less member gets; undefined when the
    // previous member is a string or an expression tsc cannot fold.
    let next = 0;
    for (const m of node.members) {
      const entry = { name: ls.nameText(m), value: null, isComputed: false, line: ls.line(sf, m.getStart(sf)) };
      let numeric;
      if (m.initializer) {
        entry.value = m.initializer.getText(sf);
        entry.isComputed = !isLiteral(m.initializer);
        numeric = literalNumber(m.initializer);
        if (numeric === undefined) {
          // `1 + 2`, `'x'.length`, references to other members: what tsc folded.
          let c;
          try { c = checker.getConstantValue(m); } catch (_) { c = undefined; }
          if (typeof c === "number") numeric = c;
        }
      } else if (next !== undefined) {
        numeric = next;
        entry.value = numberText(next);
      } else {
        let c;
        try { c = checker.getConstantValue(m); } catch (_) { c = undefined; }
        if (typeof c === "number") {
          numeric = c;
          entry.value = numberText(c);
        }
      }
      next = numeric === undefined ? undefined : numeric + 1;
      members.push(entry);
    }
    return {
      symbol: ls.symbolRef(sf, node),
      isConst: !!(flags & ts.ModifierFlags.Const),
      isDeclare: !!(flags & ts.ModifierFlags.Ambient) || !!(node.flags & ts.NodeFlags.Ambient),
      members,
    };
  }

  globalThis.tsqAnalyses["enum-members"] = (workspace, req) => {
    const ls = L();
    const out = [];
    if (req.names && req.names.length) {
      for (const { project, sf, node } of ls.findDeclarations(workspace, req)) {
        if (node.kind !== SK.EnumDeclaration) continue;
        out.push(enumInfo(project.program().getTypeChecker(), sf, node));
      }
    } else {
      for (const p of workspace.projects) {
        const checker = p.program().getTypeChecker();
        // The workspace's own files, declaration files included (as symbol queries see them).
        for (const sf of p.program().getSourceFiles()) {
          if (sf.fileName.includes("/node_modules/") || sf.fileName.startsWith("/__tsq__/")) continue;
          if (workspace.projectOf(sf.fileName) !== p) continue;
          const visit = (node) => {
            if (node.kind === SK.EnumDeclaration) out.push(enumInfo(checker, sf, node));
            ts.forEachChild(node, visit);
          };
          visit(sf);
        }
      }
    }
    out.sort((a, b) => a.symbol.filePath.localeCompare(b.symbol.filePath) || a.symbol.line - b.symbol.line ||
      a.symbol.name.localeCompare(b.symbol.name));
    return out;
  };
})(globalThis);
