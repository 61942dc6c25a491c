// tsq analysis "type-guards" (blueprint phase 3): the type-narrowing
// constructs of each function body, one entry per guard, with the narrowed
// reference and, where the checker can tell, the type it narrows to.
//
// Kinds: user-defined (`x is T`, declared, inferred or called), assertion
// (`asserts x [is T]`, declared or called as a statement), typeof,
// instanceof, in-operator, discriminant (switch and if, boolean literals
// included), nullish (== / != null|undefined, truthiness of a nullable
// reference), equality (a reference against a literal), array-isarray,
// early-return (an exiting `if` whose condition is a negative guard),
// exhaustive (`const _: never = x`, `f(x)` into a `never` parameter,
// `x satisfies never`), compound (&& / || of guards on one reference).
//
// What a construct is comes from the checker (resolved signatures, type
// predicates, literal types, symbols); `narrowedTo` is the checker's type of
// the reference where the guard holds (its first read there), else the
// declared type filtered by the guard.
((globalThis) => {
  "use strict";
  const SK = ts.SyntaxKind;
  const TF = ts.TypeFlags;
  const L = globalThis.tsqLs;
  const FMT = ts.TypeFormatFlags.NoTruncation;
  const LIB_DIR = "/__tsq__/lib/";

  // ---- helpers shared with 45/46 ----------------------------------------------

  const skipParens = (n) => {
    while (n && (n.kind === SK.ParenthesizedExpression)) n = n.expression;
    return n;
  };

  /** A function-like node reported as its own entry, and the declaration
   *  that names it (for the SymbolRef). */
  function namedFunction(node) {
    switch (node.kind) {
      case SK.FunctionDeclaration:
      case SK.MethodDeclaration:
      case SK.Constructor:
      case SK.GetAccessor:
      case SK.SetAccessor:
        return node.body ? node : null;
      case SK.ArrowFunction:
      case SK.FunctionExpression: {
        const p = node.parent;
        if (p && (p.kind === SK.VariableDeclaration || p.kind === SK.PropertyDeclaration) && p.initializer === node && ts.isIdentifier(p.name)) return p;
        return null;
      }
      default:
        return null;
    }
  }

  /** The function-like node of a declaration a query found (a variable or
   *  property initialised with a function counts). */
  function functionOf(decl) {
    if ((decl.kind === SK.VariableDeclaration || decl.kind === SK.PropertyDeclaration) && decl.initializer) {
      const init = skipParens(decl.initializer);
      if (init.kind === SK.ArrowFunction || init.kind === SK.FunctionExpression) return init;
      return null;
    }
    if (ts.isFunctionLike(decl) && decl.kind !== SK.ClassDeclaration) return decl;
    return null;
  }

  function typeText(checker, type) {
    return checker.typeToString(type, undefined, FMT);
  }

  function isLibFile(fileName) {
    return fileName.startsWith(LIB_DIR);
  }

  globalThis.tsqGuardUtil = { skipParens, namedFunction, functionOf, typeText, isLibFile };

  // ---- references -----------------------------------------------------------------

  /** A narrowable reference: x, this, x.y, x["y"], (x). */
  function isRef(n) {
    n = skipParens(n);
    if (!n) return false;
    switch (n.kind) {
      case SK.Identifier: return true;
      case SK.ThisKeyword: return true;
      case SK.PropertyAccessExpression: return ts.isIdentifier(n.name) && isRef(n.expression);
      case SK.ElementAccessExpression:
        return (ts.isStringLiteral(n.argumentExpression) || ts.isNumericLiteral(n.argumentExpression)) && isRef(n.expression);
      default: return false;
    }
  }

  function sameRef(checker, a, b) {
    a = skipParens(a);
    b = skipParens(b);
    if (a.kind !== b.kind) return false;
    switch (a.kind) {
      case SK.Identifier: {
        if (a.escapedText !== b.escapedText) return false;
        const sa = checker.getSymbolAtLocation(a);
        return !!sa && sa === checker.getSymbolAtLocation(b);
      }
      case SK.ThisKeyword: return true;
      case SK.PropertyAccessExpression: return a.name.escapedText === b.name.escapedText && sameRef(checker, a.expression, b.expression);
      case SK.ElementAccessExpression: return a.argumentExpression.text === b.argumentExpression.text && sameRef(checker, a.expression, b.expression);
      default: return false;
    }
  }

  /** Is `n` written here rather than read? */
  function isWrite(n) {
    const p = n.parent;
    if (!p) return false;
    if (ts.isBinaryExpression(p) && p.left === n && ts.isAssignmentOperator(p.operatorToken.kind)) return true;
    if ((p.kind === SK.PrefixUnaryExpression || p.kind === SK.PostfixUnaryExpression) &&
        (p.operator === SK.PlusPlusToken || p.operator === SK.MinusMinusToken)) return true;
    if (ts.isDeclarationName && ts.isDeclarationName(n)) return true;
    if (p.kind === SK.PropertyAccessExpression && p.name === n) return true;
    if (p.kind === SK.ShorthandPropertyAssignment) return true;
    return false;
  }

  /** The checker's type of `ref` at its first read within `nodes` (nested
   *  functions skipped: narrowing does not follow a reference into them). */
  function typeInRegion(checker, nodes, ref) {
    let found = null;
    const visit = (n) => {
      if (found) return;
      if (ts.isFunctionLike(n) || ts.isClassLike(n)) return;
      if (n.kind === ref.kind && !isWrite(n) && sameRef(checker, n, ref)) {
        found = n;
        return;
      }
      ts.forEachChild(n, visit);
    };
    for (const n of nodes) {
      visit(n);
      if (found) break;
    }
    return found ? checker.getTypeAtLocation(found) : null;
  }

  // ---- guard atoms ---------------------------------------------------------------

  const isUnit = (t) => !!(t.flags & (TF.StringLiteral | TF.NumberLiteral | TF.BigIntLiteral | TF.BooleanLiteral | TF.EnumLiteral | TF.Null | TF.Undefined));
  const isOpen = (t) => !!(t.flags & (TF.Unknown | TF.Any | TF.TypeParameter | TF.Index | TF.IndexedAccess | TF.Conditional | TF.Substitution));
  const constituents = (t) => (t.flags & TF.Union ? t.types : [t]);

  /** `ref.prop` whose object is a union discriminated by `prop`. */
  function discriminantOf(checker, n) {
    n = skipParens(n);
    if (!(n.kind === SK.PropertyAccessExpression || n.kind === SK.ElementAccessExpression) || !isRef(n)) return null;
    const obj = skipParens(n.expression);
    const prop = n.kind === SK.PropertyAccessExpression ? n.name.text : n.argumentExpression.text;
    // The declared type: an earlier guard may have narrowed the union away.
    let t = checker.getNonNullableType(checker.getTypeAtLocation(obj));
    if (!(t.flags & TF.Union)) {
      const sym = checker.getSymbolAtLocation(obj.kind === SK.PropertyAccessExpression ? obj.name : obj);
      if (sym && sym.flags & (ts.SymbolFlags.Variable | ts.SymbolFlags.Property)) t = checker.getNonNullableType(checker.getTypeOfSymbol(sym));
    }
    if (!(t.flags & TF.Union)) return null;
    const withUnit = t.types.filter((c) => {
      const pt = checker.getTypeOfPropertyOfType(c, prop);
      return pt && constituents(pt).every(isUnit);
    });
    return withUnit.length ? { obj, prop } : null;
  }

  const TYPEOF_TAGS = new Set(["string", "number", "bigint", "boolean", "symbol", "undefined", "object", "function"]);

  /** Classifies an expression in a condition: a tree of and/or nodes over
   *  atoms, negations pushed down to the atoms (`positive` false). */
  function condTree(checker, expr, positive) {
    expr = skipParens(expr);
    if (!expr) return null;
    if (expr.kind === SK.PrefixUnaryExpression && expr.operator === SK.ExclamationToken) {
      return condTree(checker, expr.operand, !positive);
    }
    if (ts.isBinaryExpression(expr)) {
      const op = expr.operatorToken.kind;
      if (op === SK.AmpersandAmpersandToken || op === SK.BarBarToken) {
        const left = condTree(checker, expr.left, positive);
        const right = condTree(checker, expr.right, positive);
        if (!left && !right) return null;
        // De Morgan: under a negation && becomes || and back.
        const isAnd = (op === SK.AmpersandAmpersandToken) === positive;
        return { op: isAnd ? "and" : "or", node: expr, children: [left, right].filter(Boolean), partial: !left || !right };
      }
    }
    const atom = atomOf(checker, expr);
    if (!atom) return null;
    atom.positive = atom.positive === positive;
    atom.node = expr;
    return atom;
  }

  /** One guard, `positive` true when the expression's truth is the guard's
   *  passing sense (x !== null, typeof x === "string"). */
  function atomOf(checker, e) {
    if (ts.isBinaryExpression(e)) {
      const op = e.operatorToken.kind;
      const eq = op === SK.EqualsEqualsEqualsToken || op === SK.EqualsEqualsToken;
      const ne = op === SK.ExclamationEqualsEqualsToken || op === SK.ExclamationEqualsToken;
      const strict = op === SK.EqualsEqualsEqualsToken || op === SK.ExclamationEqualsEqualsToken;
      if (eq || ne) {
        for (const [a, b] of [[e.left, e.right], [e.right, e.left]]) {
          const sa = skipParens(a);
          const bt = checker.getTypeAtLocation(b);
          // typeof x === "tag"
          if (sa.kind === SK.TypeOfExpression && isRef(sa.expression) && bt.flags & TF.StringLiteral && TYPEOF_TAGS.has(bt.value)) {
            return { kind: "typeof", ref: skipParens(sa.expression), tag: bt.value, positive: eq };
          }
        }
        for (const [a, b] of [[e.left, e.right], [e.right, e.left]]) {
          if (!isRef(a)) continue;
          const bt = checker.getTypeAtLocation(b);
          // x == null, x !== undefined
          if (bt.flags & (TF.Null | TF.Undefined) && !(bt.flags & TF.Union)) {
            const which = !strict ? "both" : bt.flags & TF.Null ? "null" : "undefined";
            return { kind: "nullish", ref: skipParens(a), which, positive: ne };
          }
        }
        for (const [a, b] of [[e.left, e.right], [e.right, e.left]]) {
          if (!isRef(a)) continue;
          const bt = checker.getTypeAtLocation(b);
          if (!isUnit(bt)) continue;
          const d = discriminantOf(checker, a);
          if (d) return { kind: "discriminant", ref: d.obj, property: d.prop, literal: bt, positive: eq };
          return { kind: "equality", ref: skipParens(a), literal: bt, positive: eq };
        }
        return null;
      }
      if (op === SK.InstanceOfKeyword && isRef(e.left)) {
        return { kind: "instanceof", ref: skipParens(e.left), instance: instanceTypeOf(checker, e.right), positive: true };
      }
      if (op === SK.InKeyword && isRef(e.right)) {
        const kt = checker.getTypeAtLocation(e.left);
        if (kt.flags & (TF.StringLiteral | TF.NumberLiteral)) {
          return { kind: "in-operator", ref: skipParens(e.right), key: String(kt.value), positive: true };
        }
        return null;
      }
      return null;
    }
    if (ts.isCallExpression(e)) {
      const sig = checker.getResolvedSignature(e);
      const pred = sig && checker.getTypePredicateOfSignature(sig);
      if (!pred || pred.kind === ts.TypePredicateKind.AssertsThis || pred.kind === ts.TypePredicateKind.AssertsIdentifier) return null;
      const ref = predicateSubject(e, pred);
      if (!ref || !isRef(ref)) return null;
      const kind = isArrayIsArray(sig) ? "array-isarray" : "user-defined";
      return { kind, ref: skipParens(ref), predType: pred.type, positive: true };
    }
    if (isRef(e)) {
      // Truthiness of a reference that may be null or undefined.
      const t = checker.getTypeAtLocation(e);
      const nullable = t.flags & TF.Unknown || constituents(t).some((c) => c.flags & (TF.Null | TF.Undefined | TF.Void));
      if (nullable) return { kind: "nullish", ref: skipParens(e), which: "both", truthy: true, positive: true };
    }
    return null;
  }

  function predicateSubject(call, pred) {
    if (pred.kind === ts.TypePredicateKind.This || pred.kind === ts.TypePredicateKind.AssertsThis) {
      const callee = skipParens(call.expression);
      return callee.kind === SK.PropertyAccessExpression || callee.kind === SK.ElementAccessExpression ? callee.expression : null;
    }
    return call.arguments[pred.parameterIndex] || null;
  }

  /** Is the resolved signature the lib's `ArrayConstructor.isArray`? */
  function isArrayIsArray(sig) {
    const d = sig.declaration;
    return !!d && d.name && ts.isIdentifier(d.name) && d.name.text === "isArray" && d.parent &&
      d.parent.kind === SK.InterfaceDeclaration && d.parent.name.text === "ArrayConstructor" && isLibFile(d.getSourceFile().fileName);
  }

  function instanceTypeOf(checker, ctorExpr) {
    const ct = checker.getTypeAtLocation(ctorExpr);
    const sigs = checker.getSignaturesOfType(ct, ts.SignatureKind.Construct);
    if (sigs.length) return checker.getReturnTypeOfSignature(sigs[0]);
    const proto = checker.getTypeOfPropertyOfType(ct, "prototype");
    return proto && !(proto.flags & TF.Any) ? proto : null;
  }

  /** How a constituent fares under an atom: "yes" (passes), "no", or
   *  "maybe" (then `replace` is what it narrows to when passing). */
  function judge(checker, atom, c) {
    switch (atom.kind) {
      case "typeof": {
        if (isOpen(c) || checker.isEmptyAnonymousObjectType?.(c)) return { v: "maybe", replace: typeofType(checker, atom.tag) };
        const f = c.flags;
        const callable = f & TF.Object && checker.getSignaturesOfType(c, ts.SignatureKind.Call).length > 0;
        const tag = f & TF.StringLike ? "string" : f & TF.NumberLike ? "number" : f & TF.BigIntLike ? "bigint" :
          f & TF.BooleanLike ? "boolean" : f & TF.ESSymbolLike ? "symbol" : f & (TF.Undefined | TF.Void) ? "undefined" :
          f & TF.Null ? "object" : callable ? "function" : f & (TF.Object | TF.NonPrimitive | TF.Intersection) ? "object" : null;
        if (!tag) return { v: "maybe", replace: typeofType(checker, atom.tag) };
        return { v: tag === atom.tag ? "yes" : "no" };
      }
      case "instanceof": {
        const inst = atom.instance;
        if (!inst) return { v: "maybe" };
        if (isOpen(c)) return { v: "maybe", replace: inst };
        if (c.flags & TF.Primitive) return { v: "no" };
        if (checker.isTypeAssignableTo(c, inst)) return { v: "yes" };
        return { v: "maybe", replace: inst };
      }
      case "in-operator": {
        if (isOpen(c)) return { v: "maybe" };
        if (c.flags & TF.Primitive) return { v: "no" };
        return { v: checker.getPropertyOfType(c, atom.key) ? "yes" : "no" };
      }
      case "discriminant": {
        if (isOpen(c)) return { v: "maybe" };
        const pt = checker.getTypeOfPropertyOfType(c, atom.property);
        if (!pt) return { v: "no" };
        if (checker.isTypeAssignableTo(pt, atom.literal)) return { v: "yes" };
        if (checker.isTypeAssignableTo(atom.literal, pt)) return { v: "maybe" };
        return { v: "no" };
      }
      case "equality": {
        if (isOpen(c)) return { v: "maybe", replace: atom.literal };
        if (checker.isTypeAssignableTo(c, atom.literal)) return { v: "yes" };
        if (checker.isTypeAssignableTo(atom.literal, c)) return { v: "maybe", replace: atom.literal };
        return { v: "no" };
      }
      case "nullish": {
        const isNull = c.flags & TF.Null;
        const isUndef = c.flags & (TF.Undefined | TF.Void);
        if ((isNull && atom.which !== "undefined") || (isUndef && atom.which !== "null")) return { v: "no" };
        // An open type loses null and undefined only to a loose (== null) or truthiness test.
        if (c.flags & (TF.Unknown | TF.Any | TF.TypeParameter)) return atom.which === "both" ? { v: "maybe", replace: checker.getNonNullableType(c) } : { v: "maybe" };
        return { v: "yes" };
      }
      case "array-isarray": {
        if (isOpen(c)) return { v: "maybe", replace: atom.predType };
        if (checker.isArrayType(c) || checker.isTupleType(c)) return { v: "yes" };
        return { v: "no" };
      }
      case "user-defined":
      case "assertion": {
        const p = atom.predType;
        if (!p) return { v: "maybe", replace: checker.getNonNullableType(c) };
        if (isOpen(c)) return { v: "maybe", replace: p };
        if (checker.isTypeAssignableTo(c, p)) return { v: "yes" };
        if (checker.isTypeAssignableTo(p, c)) return { v: "maybe", replace: p };
        return { v: "no" };
      }
      default:
        return { v: "maybe" };
    }
  }

  function typeofType(checker, tag) {
    switch (tag) {
      case "string": return checker.getStringType();
      case "number": return checker.getNumberType();
      case "bigint": return checker.getBigIntType();
      case "boolean": return checker.getBooleanType();
      case "symbol": return checker.getESSymbolType();
      case "undefined": return checker.getUndefinedType();
      case "object": return checker.getUnionType([checker.getNonPrimitiveType(), checker.getNullType()]);
      default: return undefined;
    }
  }

  /** The constituents of `types` that pass (or, `positive` false, fail)
   *  the atom; null when the checker cannot tell. */
  function filterTypes(checker, atom, types, positive) {
    const out = [];
    // For null checks `unknown` is `{} | null | undefined`, as in tsc.
    if (atom.kind === "nullish" && types.some((c) => c.flags & TF.Unknown)) {
      types = types.flatMap((c) => (c.flags & TF.Unknown ? [checker.getNonNullableType(c), checker.getNullType(), checker.getUndefinedType()] : [c]));
    }
    for (const c of types) {
      const j = judge(checker, atom, c);
      if (positive) {
        if (j.v === "yes") out.push(c);
        else if (j.v === "maybe") out.push(j.replace || c);
      } else if (j.v !== "yes") {
        out.push(c);
      } else if (atom.kind === "nullish" && atom.truthy && mayBeFalsy(c)) {
        // A truthiness test also fails on a falsy non-nullable value.
        out.push(c);
      }
    }
    return out;
  }

  function mayBeFalsy(t) {
    if (t.flags & (TF.String | TF.Number | TF.BigInt | TF.Boolean | TF.Unknown | TF.Any | TF.TypeParameter)) return true;
    if (t.flags & TF.StringLiteral) return t.value === "";
    if (t.flags & TF.NumberLiteral) return t.value === 0;
    if (t.flags & TF.BooleanLiteral) return t.intrinsicName === "false";
    return false;
  }

  /** Narrowing of `ref`'s type (taken at the guard) by a tree whose atoms
   *  all concern `ref`; `positive` false computes the tree's failing side. */
  function narrowByTree(checker, tree, types, positive) {
    if (tree.op) {
      const isAnd = (tree.op === "and") === positive;
      if (isAnd) {
        let cur = types;
        for (const c of tree.children) cur = narrowByTree(checker, c, cur, positive);
        return cur;
      }
      const seen = new Set();
      const out = [];
      for (const c of tree.children) {
        for (const t of narrowByTree(checker, c, types, positive)) if (!seen.has(t)) { seen.add(t); out.push(t); }
      }
      return out;
    }
    return filterTypes(checker, tree, types, tree.positive === positive);
  }

  function atomsOf(tree) {
    return tree.op ? tree.children.flatMap(atomsOf) : [tree];
  }

  // ---- per-function analysis ------------------------------------------------------

  function returnsBoolean(checker, fn) {
    if (!fn || !ts.isFunctionLike(fn)) return false;
    const sig = checker.getSignatureFromDeclaration(fn);
    if (!sig) return false;
    if (checker.getTypePredicateOfSignature(sig)) return true;
    const rt = checker.getReturnTypeOfSignature(sig);
    return !!(rt.flags & TF.BooleanLike) && !(rt.flags & TF.Any);
  }

  /** Statements after `stmt` in its list: where an exiting `if` narrows. */
  function followingStatements(stmt) {
    const p = stmt.parent;
    const list = p && (p.statements || null);
    if (!list) return [];
    const i = list.indexOf(stmt);
    return i < 0 ? [] : list.slice(i + 1);
  }

  function exits(stmt) {
    if (!stmt) return false;
    if (stmt.kind === SK.Block) return stmt.statements.length > 0 && exits(stmt.statements[stmt.statements.length - 1]);
    return stmt.kind === SK.ReturnStatement || stmt.kind === SK.ThrowStatement || stmt.kind === SK.ContinueStatement || stmt.kind === SK.BreakStatement;
  }

  function analyzeFunction(checker, sf, fn) {
    const guards = [];
    const ty = (t) => (t ? typeText(checker, t) : undefined);
    const union = (types) => (types ? (types.length ? ty(checker.getUnionType(types)) : "never") : undefined);
    const push = (node, entry) => {
      const e = { kind: entry.kind, line: L.line(sf, node.getStart(sf)), guardText: entry.guardText ?? node.getText(sf), narrowedName: entry.narrowedName };
      if (entry.narrowedTo !== undefined) e.narrowedTo = entry.narrowedTo;
      if (entry.property !== undefined) e.property = entry.property;
      if (entry.components) e.components = entry.components;
      if (entry.isReturnTypeGuard) e.isReturnTypeGuard = true;
      if (entry.inferred) e.inferred = true;
      e._pos = node.getStart(sf);
      guards.push(e);
    };

    // The function's own predicate: `x is T` / `asserts x [is T]`, declared or inferred.
    const sig = checker.getSignatureFromDeclaration(fn);
    const pred = sig && checker.getTypePredicateOfSignature(sig);
    if (pred) {
      const asserts = pred.kind === ts.TypePredicateKind.AssertsThis || pred.kind === ts.TypePredicateKind.AssertsIdentifier;
      const at = fn.type || fn.name || fn;
      push(at, {
        kind: asserts ? "assertion" : "user-defined",
        guardText: fn.type ? fn.type.getText(sf) : checker.typePredicateToString(pred, undefined, FMT),
        narrowedName: pred.parameterName || "this",
        narrowedTo: ty(pred.type),
        isReturnTypeGuard: true,
        inferred: !fn.type,
      });
    }

    /** Emits the entries of a condition tree. `region`: where the whole
     *  condition holds (null: nowhere a read can show it). */
    const emitTree = (tree, region, regionValid) => {
      const atoms = atomsOf(tree);
      const ref0 = atoms[0].ref;
      const oneRef = atoms.every((a) => sameRef(checker, a.ref, ref0));
      if (tree.op && oneRef && atoms.length > 1 && !tree.partial) {
        let to = regionValid && region ? typeInRegion(checker, region, ref0) : null;
        const declared = checker.getTypeAtLocation(ref0);
        push(tree.node, {
          kind: "compound",
          narrowedName: ref0.getText(sf),
          narrowedTo: to ? ty(to) : union(narrowByTree(checker, tree, constituents(declared), true)),
          components: atoms.map((a) => a.kind),
        });
        return;
      }
      if (tree.op) {
        const and = tree.op === "and";
        for (const c of tree.children) emitTree(c, region, regionValid && and);
        return;
      }
      const to = regionValid && region ? typeInRegion(checker, region, tree.ref) : null;
      const declared = checker.getTypeAtLocation(tree.ref);
      push(tree.node, {
        kind: tree.kind,
        narrowedName: tree.ref.getText(sf),
        narrowedTo: to ? ty(to) : union(filterTypes(checker, tree, constituents(declared), tree.positive)),
        property: tree.property,
      });
    };

    const condition = (expr, region) => {
      const tree = condTree(checker, expr, true);
      if (tree) emitTree(tree, region, true);
    };

    /** `if (!x) return;` and kin: every atom negative, joined by ||. */
    const negativeClause = (tree) => (tree.op ? tree.op === "or" && !tree.partial && tree.children.every(negativeClause) : !tree.positive);

    const handleIf = (node) => {
      const tree = condTree(checker, node.expression, true);
      if (!tree) return;
      if (!node.elseStatement && exits(node.thenStatement) && negativeClause(tree)) {
        const after = followingStatements(node);
        const atoms = atomsOf(tree);
        const refs = [];
        for (const a of atoms) if (!refs.some((r) => sameRef(checker, r, a.ref))) refs.push(a.ref);
        for (const ref of refs) {
          const mine = atoms.filter((a) => sameRef(checker, a.ref, ref));
          const to = typeInRegion(checker, after, ref);
          let types = constituents(checker.getTypeAtLocation(ref));
          // Past the clause every atom failed: each one's passing side, in turn.
          for (const a of mine) types = filterTypes(checker, a, types, !a.positive);
          push(node, {
            kind: "early-return",
            guardText: node.expression.getText(sf),
            narrowedName: ref.getText(sf),
            narrowedTo: to ? ty(to) : union(types),
            components: mine.map((a) => a.kind),
          });
        }
        return;
      }
      emitTree(tree, [node.thenStatement], true);
    };

    const handleSwitch = (node) => {
      const subject = skipParens(node.expression);
      const clauses = node.caseBlock.clauses.filter((c) => c.kind === SK.CaseClause);
      if (subject.kind === SK.TrueKeyword) {
        for (const c of clauses) condition(c.expression, c.statements.length ? c.statements : null);
        return;
      }
      let make = null;
      if (subject.kind === SK.TypeOfExpression && isRef(subject.expression)) {
        make = (lit) => (lit.flags & TF.StringLiteral && TYPEOF_TAGS.has(lit.value) ? { kind: "typeof", ref: skipParens(subject.expression), tag: lit.value, positive: true } : null);
      } else if (isRef(subject)) {
        const d = discriminantOf(checker, subject);
        make = (lit) => (!isUnit(lit) ? null : d ? { kind: "discriminant", ref: d.obj, property: d.prop, literal: lit, positive: true }
          : lit.flags & (TF.Null | TF.Undefined) ? { kind: "nullish", ref: subject, which: lit.flags & TF.Null ? "null" : "undefined", positive: false }
            : { kind: "equality", ref: subject, literal: lit, positive: true });
      }
      if (!make) return;
      for (const c of clauses) {
        const atom = make(checker.getTypeAtLocation(c.expression));
        if (!atom) continue;
        const to = c.statements.length ? typeInRegion(checker, c.statements, atom.ref) : null;
        push(c, {
          kind: atom.kind,
          guardText: `${node.expression.getText(sf)} === ${c.expression.getText(sf)}`,
          narrowedName: atom.ref.getText(sf),
          narrowedTo: to ? ty(to) : union(filterTypes(checker, atom, constituents(checker.getTypeAtLocation(atom.ref)), atom.positive)),
          property: atom.property,
        });
      }
    };

    const isNever = (t) => !!(t && t.flags & TF.Never);

    const handleCall = (node) => {
      const sig = checker.getResolvedSignature(node);
      if (!sig) return;
      const pred = checker.getTypePredicateOfSignature(sig);
      const stmt = node.parent && node.parent.kind === SK.ExpressionStatement ? node.parent
        : node.parent && node.parent.kind === SK.AwaitExpression && node.parent.parent.kind === SK.ExpressionStatement ? node.parent.parent : null;
      if (pred && stmt && (pred.kind === ts.TypePredicateKind.AssertsIdentifier || pred.kind === ts.TypePredicateKind.AssertsThis)) {
        const ref = predicateSubject(node, pred);
        if (ref && isRef(ref)) {
          const r = skipParens(ref);
          const to = typeInRegion(checker, followingStatements(stmt), r);
          const atom = { kind: "assertion", ref: r, predType: pred.type, positive: true };
          push(node, {
            kind: "assertion",
            narrowedName: r.getText(sf),
            narrowedTo: to ? ty(to) : union(filterTypes(checker, atom, constituents(checker.getTypeAtLocation(r)), true)),
          });
        }
        return;
      }
      // f(x) where f's parameter is `never`: an exhaustiveness check.
      node.arguments.forEach((arg, i) => {
        if (!isRef(arg) || i >= sig.parameters.length) return;
        if (isNever(checker.getParameterType(sig, i))) {
          push(node, { kind: "exhaustive", narrowedName: skipParens(arg).getText(sf), narrowedTo: ty(checker.getTypeAtLocation(arg)) });
        }
      });
    };

    const body = fn.body;
    const visit = (node) => {
      if (node !== fn && namedFunction(node)) return; // reported on its own
      switch (node.kind) {
        case SK.IfStatement: handleIf(node); break;
        case SK.WhileStatement: condition(node.expression, [node.statement]); break;
        case SK.DoStatement: condition(node.expression, null); break;
        case SK.ForStatement: if (node.condition) condition(node.condition, [node.statement]); break;
        case SK.ConditionalExpression: condition(node.condition, [node.whenTrue]); break;
        case SK.SwitchStatement: handleSwitch(node); break;
        case SK.ReturnStatement:
          if (node.expression && returnsBoolean(checker, ts.getContainingFunction(node))) condition(node.expression, null);
          break;
        case SK.ArrowFunction:
          if (node.body.kind !== SK.Block && returnsBoolean(checker, node)) condition(node.body, null);
          break;
        case SK.VariableDeclaration:
          if (node.type && node.initializer && isRef(node.initializer) && isNever(checker.getTypeFromTypeNode(node.type))) {
            push(node, { kind: "exhaustive", narrowedName: skipParens(node.initializer).getText(sf), narrowedTo: ty(checker.getTypeAtLocation(node.initializer)) });
          }
          break;
        case SK.SatisfiesExpression:
          if (isRef(node.expression) && isNever(checker.getTypeFromTypeNode(node.type))) {
            push(node, { kind: "exhaustive", narrowedName: skipParens(node.expression).getText(sf), narrowedTo: ty(checker.getTypeAtLocation(node.expression)) });
          }
          break;
        case SK.CallExpression: handleCall(node); break;
      }
      ts.forEachChild(node, visit);
    };
    if (body) visit(fn);

    guards.sort((a, b) => a._pos - b._pos);
    for (const g of guards) delete g._pos;
    return guards;
  }

  function analysisOf(checker, sf, decl, fn) {
    return { symbol: L.symbolRef(sf, decl), guards: analyzeFunction(checker, sf, fn) };
  }

  globalThis.tsqAnalyses["type-guards"] = (workspace, req) => {
    const out = [];
    if (req.names) {
      for (const { project, sf, node } of L.findDeclarations(workspace, req)) {
        const fn = functionOf(node);
        if (!fn || !fn.body) continue;
        out.push(analysisOf(project.program().getTypeChecker(), sf, node, fn));
      }
    } else {
      L.eachUserFile(workspace, (sf, p) => {
        const checker = p.program().getTypeChecker();
        const visit = (node) => {
          const decl = namedFunction(node);
          if (decl) {
            const a = analysisOf(checker, sf, decl, node);
            if (a.guards.length) out.push(a);
          }
          ts.forEachChild(node, visit);
        };
        visit(sf);
      });
    }
    out.sort((a, b) => a.symbol.filePath.localeCompare(b.symbol.filePath) || a.symbol.line - b.symbol.line);
    return out;
  };
})(globalThis);
