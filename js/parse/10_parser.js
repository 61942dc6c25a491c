// tsq parser: turns tsc's AST into the RawNode tree of js/protocol.d.ts.
//
// Loaded as a classic script after typescript.js (which defines the global
// `ts`). It reads no files: Rust hands it text through ops. It reports
// positions only (UTF-16 offsets); Rust slices text and counts lines.
"use strict";

((globalThis) => {
  const SK = ts.SyntaxKind;


  const MODIFIER_NAMES = {
    [SK.ExportKeyword]: "export", [SK.DefaultKeyword]: "default",
    [SK.DeclareKeyword]: "declare", [SK.AsyncKeyword]: "async",
    [SK.StaticKeyword]: "static", [SK.AbstractKeyword]: "abstract",
    [SK.PublicKeyword]: "public", [SK.PrivateKeyword]: "private",
    [SK.ProtectedKeyword]: "protected", [SK.ReadonlyKeyword]: "readonly",
    [SK.OverrideKeyword]: "override", [SK.AccessorKeyword]: "accessor",
    [SK.ConstKeyword]: "const",
  };

  const REACT_CLASS_BASES = new Set(["Component", "PureComponent", "React.Component", "React.PureComponent"]);
  const { skipParens, unwrapFunction, isReactWrapper, hasReactFcType, requireOf, importBindings, bindingNames, isPascal, calleeLabel } =
    globalThis.tsqAst;

  /** State for one file. */
  class Walker {
    constructor(sf) {
      this.sf = sf;
      this.text = sf.text;
      this.comments = [];
      this.exportedNames = new Set();
    }

    // ---- small helpers -------------------------------------------------

    textOf(node) {
      return this.text.slice(node.getStart(this.sf), node.end);
    }

    isMultiLine(start, end) {
      const nl = this.text.indexOf("\n", start);
      return nl !== -1 && nl < end;
    }

    /** A short one-line label for a statement: its text up to the first
     *  line break or `{`, capped. */
    label(node) {
      const start = node.getStart(this.sf);
      let end = Math.min(node.end, start + 200);
      const nl = this.text.indexOf("\n", start);
      if (nl !== -1 && nl < end) end = nl;
      let s = this.text.slice(start, end).trim();
      if (nl !== -1 && nl < node.end) s = s.replace(/\s*(\{|=>|\()?\s*$/, "");
      s = s.replace(/\s*;$/, "");
      if (s.length > 80) s = s.slice(0, 79) + "…";
      return s;
    }

    modifiers(node) {
      const out = [];
      const mods = node.modifiers;
      if (mods) {
        for (const m of mods) {
          const name = MODIFIER_NAMES[m.kind];
          if (name) out.push(name);
        }
      }
      if (node.asteriskToken) out.push("generator");
      if (node.questionToken) out.push("optional");
      return out;
    }

    /** The last JSDoc block in the node's leading comments. */
    jsdoc(node) {
      const ranges = ts.getLeadingCommentRanges(this.text, node.pos);
      if (!ranges) return null;
      for (let i = ranges.length - 1; i >= 0; i--) {
        const r = ranges[i];
        if (r.kind === SK.MultiLineCommentTrivia && this.text.startsWith("/**", r.pos) && !this.text.startsWith("/**/", r.pos)) {
          return [r.pos, r.end];
        }
      }
      return null;
    }

    /** Start of the signature: after decorators. */
    sigStart(node) {
      let start = node.getStart(this.sf);
      const mods = node.modifiers;
      if (mods) {
        for (const m of mods) {
          if (m.kind === SK.Decorator) start = ts.skipTrivia(this.text, m.end);
        }
      }
      return start;
    }

    make(node, name, kind, opts) {
      const jsdoc = opts && opts.noJsdoc ? null : this.jsdoc(node);
      const declStart = node.getStart(this.sf);
      const start = opts && opts.start !== undefined ? opts.start : (jsdoc ? Math.min(jsdoc[0], declStart) : declStart);
      const end = opts && opts.end !== undefined ? opts.end : node.end;
      const sigStart = opts && opts.sigStart !== undefined ? opts.sigStart : this.sigStart(node);
      const sigEnd = opts && opts.sigEnd !== undefined ? opts.sigEnd : end;
      const modifiers = opts && opts.modifiers ? opts.modifiers : this.modifiers(node);
      return {
        name,
        kind,
        start,
        end,
        sigStart,
        sigEnd: Math.max(sigStart, sigEnd),
        bodyBearing: !!(opts && opts.bodyBearing),
        inExpression: !!(opts && opts.inExpression),
        modifiers,
        exported: modifiers.includes("export") || !!(opts && opts.exported),
        jsdoc,
        bindings: (opts && opts.bindings) || [],
        children: (opts && opts.children) || [],
      };
    }

    nameOf(nameNode) {
      if (!nameNode) return "default";
      switch (nameNode.kind) {
        case SK.Identifier:
        case SK.PrivateIdentifier:
          return nameNode.escapedText !== undefined ? ts.idText(nameNode) : nameNode.text;
        case SK.StringLiteral:
        case SK.NumericLiteral:
        case SK.NoSubstitutionTemplateLiteral:
          return nameNode.text;
        default:
          return nameNode.getText(this.sf);
      }
    }

    // ---- root statements -----------------------------------------------

    collectExportNames(statements) {
      for (const st of statements) {
        if (st.kind === SK.ExportDeclaration && !st.moduleSpecifier && st.exportClause && st.exportClause.kind === SK.NamedExports) {
          for (const el of st.exportClause.elements) this.exportedNames.add(this.nameOf(el.propertyName || el.name));
        } else if (st.kind === SK.ExportAssignment && st.expression.kind === SK.Identifier) {
          this.exportedNames.add(ts.idText(st.expression));
        }
      }
    }

    roots(sf) {
      this.collectExportNames(sf.statements);
      const out = [];
      for (const st of sf.statements) {
        this.leadingComments(st.pos);
        this.rootStatement(st, out);
      }
      this.leadingComments(sf.endOfFileToken.pos);
      return out;
    }

    leadingComments(pos) {
      const ranges = ts.getLeadingCommentRanges(this.text, pos);
      if (ranges) for (const r of ranges) this.comments.push([r.pos, r.end]);
    }

    rootStatement(st, out) {
      switch (st.kind) {
        case SK.ImportDeclaration:
          out.push(this.make(st, "import:" + (st.moduleSpecifier.text ?? this.textOf(st.moduleSpecifier)), "import", { noJsdoc: true, bindings: importBindings(st.importClause) }));
          return;
        case SK.ImportEqualsDeclaration: {
          const ref = st.moduleReference;
          const spec = ref.kind === SK.ExternalModuleReference && ref.expression.text !== undefined ? ref.expression.text : ref.getText(this.sf);
          out.push(this.make(st, "import:" + spec, "import", { noJsdoc: true, bindings: [ts.idText(st.name)] }));
          return;
        }
        case SK.ExportDeclaration:
          if (st.moduleSpecifier) {
            out.push(this.make(st, "re-export:" + (st.moduleSpecifier.text ?? this.textOf(st.moduleSpecifier)), "re-export", { noJsdoc: true, exported: true }));
          } else {
            out.push(this.make(st, this.label(st), "export", { noJsdoc: true, exported: true }));
          }
          return;
        case SK.ExportAssignment: {
          const node = this.make(st, this.label(st), "export", { exported: true, bodyBearing: false });
          node.children = this.nested(st.expression, []);
          out.push(node);
          return;
        }
        case SK.VariableStatement:
          this.variableStatement(st, out, true);
          return;
        case SK.ExpressionStatement:
          out.push(this.expressionStatement(st));
          return;
        default: {
          const decl = this.declaration(st);
          if (decl) {
            out.push(decl);
            return;
          }
          const node = this.make(st, this.label(st), "expression", { noJsdoc: true });
          node.children = this.nested(st, []);
          out.push(node);
        }
      }
    }

    /** Assignment declarations as TypeScript's binder classifies them
     *  (`ts.getAssignmentDeclarationKind`: CommonJS exports, `a.b =`
     *  expandos, prototype members, `Object.defineProperty`), else a plain
     *  expression statement. A declaration keeps its JSDoc and is named by
     *  its access path (`router.dispatch`); an export by its export name. */
    expressionStatement(st) {
      const e = st.expression;
      const decl = ts.isBinaryExpression(e) || ts.isCallExpression(e) ? this.assignmentDeclaration(st, e) : null;
      if (decl) return decl;
      const node = this.make(st, this.label(st), "expression", { noJsdoc: true });
      node.children = this.nested(e, []);
      return node;
    }

    assignmentDeclaration(st, e) {
      const K = ts.AssignmentDeclarationKind;
      const kind = ts.getAssignmentDeclarationKind(e);
      const path = (n) => n.getText(this.sf).replace(/\s+/g, "");
      switch (kind) {
        case K.ModuleExports: {
          // `module.exports = function handler() {}` is found by its own name.
          const right = skipParens(ts.getRightMostAssignedExpression(e));
          const ownName = (right.kind === SK.FunctionExpression || right.kind === SK.ClassExpression) && right.name ? ts.idText(right.name) : null;
          return this.valueSymbol(st, ownName || "module.exports", right, { exported: true, kind: "variable", sigStartNode: st });
        }
        case K.ExportsProperty:
          return this.valueSymbol(st, ts.unescapeLeadingUnderscores(ts.getElementOrPropertyAccessName(e.left)), ts.getRightMostAssignedExpression(e), { exported: true, kind: "variable", sigStartNode: st });
        case K.Property:
        case K.PrototypeProperty:
          return this.valueSymbol(st, path(e.left), ts.getRightMostAssignedExpression(e), {
            kind: "property", fnKind: kind === K.PrototypeProperty ? "method" : "function", sigStartNode: st,
          });
        case K.Prototype:
          return this.valueSymbol(st, path(e.left), e.right, { kind: "property", sigStartNode: st });
        case K.ObjectDefinePropertyValue:
        case K.ObjectDefinePropertyExports:
        case K.ObjectDefinePrototypeProperty: {
          const [target, key, descriptor] = e.arguments;
          const name = kind === K.ObjectDefinePropertyExports ? key.text : path(target) + "." + key.text;
          return this.valueSymbol(st, name, descriptor, { exported: kind === K.ObjectDefinePropertyExports, kind: "property", sigStartNode: st });
        }
        default:
          return null;
      }
    }

    /** A declaration statement (function, class, ...), or null. */
    declaration(st) {
      switch (st.kind) {
        case SK.FunctionDeclaration:
          return this.functionLike(st, this.nameOf(st.name), this.isComponentFunction(st) ? "component" : "function");
        case SK.ClassDeclaration:
          return this.classLike(st, this.nameOf(st.name));
        case SK.InterfaceDeclaration:
          return this.make(st, this.nameOf(st.name), "interface", {
            bodyBearing: true, sigEnd: this.membersOpen(st), children: this.typeMembers(st.members),
            exported: this.exportedNames.has(this.nameOf(st.name)),
          });
        case SK.TypeAliasDeclaration: {
          const children = st.type.kind === SK.TypeLiteral ? this.typeMembers(st.type.members) : [];
          return this.make(st, this.nameOf(st.name), "type", { children, exported: this.exportedNames.has(this.nameOf(st.name)) });
        }
        case SK.EnumDeclaration:
          return this.make(st, this.nameOf(st.name), "enum", {
            bodyBearing: true, sigEnd: this.membersOpen(st),
            exported: this.exportedNames.has(this.nameOf(st.name)),
            children: st.members.map((m) => this.make(m, this.nameOf(m.name), "enumMember", { modifiers: [] })),
          });
        case SK.ModuleDeclaration:
          return this.moduleDeclaration(st);
        default:
          return null;
      }
    }

    moduleDeclaration(st) {
      let name = this.nameOf(st.name);
      let body = st.body;
      // `namespace A.B.C {}` nests ModuleDeclarations without blocks.
      while (body && body.kind === SK.ModuleDeclaration) {
        name += "." + this.nameOf(body.name);
        body = body.body;
      }
      const kind = st.name.kind === SK.StringLiteral || (st.flags & ts.NodeFlags.GlobalAugmentation) ? "module" : "namespace";
      const children = [];
      if (body && body.kind === SK.ModuleBlock) {
        for (const s of body.statements) this.rootStatement(s, children);
      }
      return this.make(st, name, kind, {
        bodyBearing: !!body, sigEnd: body ? body.getStart(this.sf) : st.end, children,
        exported: this.exportedNames.has(name),
      });
    }

    // ---- variables -----------------------------------------------------

    variableStatement(st, out, isRoot) {
      const list = st.declarationList;
      const flags = list.flags;
      const kind = flags & ts.NodeFlags.Const ? "const" : "variable";
      const decls = list.declarations;
      const stMods = this.modifiers(st);
      const stStart = st.getStart(this.sf);
      const jsdoc = this.jsdoc(st);
      decls.forEach((d, i) => {
        const first = i === 0;
        const last = i === decls.length - 1;
        const name = this.nameOf(d.name);
        const opts = {
          kind,
          start: first ? (jsdoc ? Math.min(jsdoc[0], stStart) : stStart) : d.getStart(this.sf),
          end: last ? st.end : d.end,
          sigStart: first ? this.sigStart(st) : d.getStart(this.sf),
          modifiers: stMods.slice(),
          exported: this.exportedNames.has(name),
          jsdoc: first ? jsdoc : null,
        };
        const required = d.initializer && isRoot ? requireOf(d.initializer) : null;
        if (required) {
          const spec = required.arguments[0].text;
          opts.bindings = bindingNames(d.name, []);
          const node = this.make(d, "import:" + spec, "import", opts);
          node.jsdoc = opts.jsdoc;
          out.push(node);
          return;
        }
        const node = this.valueSymbol(d, name, d.initializer, opts);
        node.jsdoc = opts.jsdoc;
        out.push(node);
      });
    }

    /** A named value: a function/class/object initializer or a plain value. */
    valueSymbol(node, name, init, opts) {
      const base = Object.assign({}, opts);
      delete base.fnKind;
      if (opts.sigStartNode) base.sigStart = this.sigStart(opts.sigStartNode);
      if (!base.modifiers) base.modifiers = this.modifiers(node);
      const fn = init && unwrapFunction(init);
      if (fn) {
        const wrapped = fn !== skipParens(init);
        const component = isPascal(name) && (wrapped ? isReactWrapper(skipParens(init)) || this.containsJsx(fn) : this.containsJsx(fn) || hasReactFcType(node));
        base.bodyBearing = true;
        base.sigEnd = this.functionSigEnd(fn);
        base.children = this.nested(fn.body, []);
        if (fn.modifiers) for (const m of this.modifiers(fn)) if (!base.modifiers || !base.modifiers.includes(m)) (base.modifiers = base.modifiers || []).push(m);
        if (fn.asteriskToken && base.modifiers && !base.modifiers.includes("generator")) base.modifiers.push("generator");
        return this.make(node, name, component ? "component" : opts.fnKind || "function", base);
      }
      const cls = init && skipParens(init).kind === SK.ClassExpression ? skipParens(init) : null;
      if (cls) {
        base.bodyBearing = true;
        base.sigEnd = this.membersOpen(cls);
        base.children = this.heritageSymbols(cls).concat(this.classMembers(cls));
        return this.make(node, name, this.isReactClass(cls) ? "component" : "class", base);
      }
      const obj = init && skipParens(init).kind === SK.ObjectLiteralExpression ? skipParens(init) : null;
      if (obj && this.isMultiLine(obj.getStart(this.sf), obj.end)) {
        base.sigEnd = obj.getStart(this.sf);
        base.children = this.objectMembers(obj);
        return this.make(node, name, opts.kind, base);
      }
      if (init && this.isMultiLine(init.getStart(this.sf), init.end)) {
        base.sigEnd = init.getStart(this.sf);
        base.children = this.nested(init, [], name);
      }
      return this.make(node, name, opts.kind, base);
    }

    // ---- functions and classes -----------------------------------------

    functionSigEnd(fn) {
      if (!fn.body) return fn.end;
      return fn.body.getStart(this.sf);
    }

    functionLike(node, name, kind, extra) {
      const opts = Object.assign({
        bodyBearing: !!node.body,
        sigEnd: this.functionSigEnd(node),
        children: node.body ? this.nested(node.body, []) : [],
        exported: this.exportedNames.has(name),
      }, extra || {});
      return this.make(node, name, kind, opts);
    }

    membersOpen(node) {
      // The `{` that opens a class/interface/enum body.
      // A members NodeArray starts right after its `{`, even when empty.
      const members = node.members;
      const searchFrom = node.name ? node.name.end : node.getStart(this.sf);
      if (!members) return node.end;
      const brace = this.text.lastIndexOf("{", members.pos);
      return brace >= searchFrom ? brace : node.end;
    }

    classLike(node, name) {
      return this.make(node, name, this.isReactClass(node) ? "component" : "class", {
        bodyBearing: true,
        sigEnd: this.membersOpen(node),
        children: this.heritageSymbols(node).concat(this.classMembers(node)),
        exported: this.exportedNames.has(name),
      });
    }

    /** Functions inside `extends` expressions (mixins, class factories). */
    heritageSymbols(cls) {
      const out = [];
      for (const h of cls.heritageClauses || []) for (const t of h.types) this.nested(t.expression, out);
      return out;
    }

    indexName(sig) {
      return "[" + sig.parameters.map((p) => p.getText(this.sf)).join(", ") + "]";
    }

    classMembers(cls) {
      const out = [];
      for (const m of cls.members) {
        switch (m.kind) {
          case SK.Constructor:
            out.push(this.functionLike(m, "constructor", "constructor"));
            break;
          case SK.MethodDeclaration:
            out.push(this.functionLike(m, this.nameOf(m.name), "method"));
            break;
          case SK.GetAccessor:
            out.push(this.functionLike(m, this.nameOf(m.name), "getter"));
            break;
          case SK.SetAccessor:
            out.push(this.functionLike(m, this.nameOf(m.name), "setter"));
            break;
          case SK.PropertyDeclaration: {
            const name = this.nameOf(m.name);
            out.push(this.valueSymbol(m, name, m.initializer, { kind: "property", fnKind: "method" }));
            break;
          }
          case SK.IndexSignature:
            out.push(this.make(m, this.indexName(m), "index", {}));
            break;
          case SK.ClassStaticBlockDeclaration:
            out.push(this.make(m, "static", "static-block", {
              bodyBearing: true, sigEnd: m.body.getStart(this.sf), children: this.nested(m.body, []),
            }));
            break;
          default:
            break;
        }
      }
      return out;
    }

    typeMembers(members) {
      const out = [];
      for (const m of members) {
        switch (m.kind) {
          case SK.PropertySignature:
            out.push(this.make(m, this.nameOf(m.name), "property", {}));
            break;
          case SK.MethodSignature:
            out.push(this.make(m, this.nameOf(m.name), "method", {}));
            break;
          case SK.CallSignature:
            out.push(this.make(m, "()", "call", {}));
            break;
          case SK.ConstructSignature:
            out.push(this.make(m, "new()", "construct", {}));
            break;
          case SK.IndexSignature:
            out.push(this.make(m, this.indexName(m), "index", {}));
            break;
          case SK.GetAccessor:
            out.push(this.make(m, this.nameOf(m.name), "getter", {}));
            break;
          case SK.SetAccessor:
            out.push(this.make(m, this.nameOf(m.name), "setter", {}));
            break;
          default:
            break;
        }
      }
      return out;
    }

    objectMembers(obj) {
      const out = [];
      for (const p of obj.properties) {
        switch (p.kind) {
          case SK.MethodDeclaration:
            out.push(this.functionLike(p, this.nameOf(p.name), "method", { inExpression: true }));
            break;
          case SK.GetAccessor:
            out.push(this.functionLike(p, this.nameOf(p.name), "getter", { inExpression: true }));
            break;
          case SK.SetAccessor:
            out.push(this.functionLike(p, this.nameOf(p.name), "setter", { inExpression: true }));
            break;
          case SK.PropertyAssignment: {
            const fn = unwrapFunction(p.initializer);
            if (fn) {
              out.push(this.make(p, this.nameOf(p.name), "method", {
                bodyBearing: true, inExpression: true, sigEnd: this.functionSigEnd(fn), children: this.nested(fn.body, []),
              }));
            } else {
              this.nested(p.initializer, out);
            }
            break;
          }
          default:
            this.nested(p, out);
        }
      }
      return out;
    }

    // ---- nested symbols inside bodies and expressions ---------------------

    /** Collects the symbols found in `node` (itself included) into `out`:
     *  nested declarations, and multi-line function expressions (callbacks,
     *  IIFEs). Plain local variables are not symbols. */
    nested(node, out, hint) {
      if (!node) return out;
      const visit = (n, hint) => {
        switch (n.kind) {
          case SK.FunctionDeclaration:
            out.push(this.functionLike(n, this.nameOf(n.name), this.isComponentFunction(n) ? "component" : "function"));
            return;
          case SK.ClassDeclaration:
            out.push(this.classLike(n, this.nameOf(n.name)));
            return;
          case SK.InterfaceDeclaration:
          case SK.TypeAliasDeclaration:
          case SK.EnumDeclaration:
          case SK.ModuleDeclaration:
            out.push(this.declaration(n));
            return;
          case SK.VariableStatement: {
            const before = out.length;
            const tmp = [];
            this.variableStatement(n, tmp, false);
            for (const s of tmp) {
              if (s.bodyBearing || s.kind === "class" || s.kind === "component") out.push(s);
              else for (const c of s.children) out.push(c);
            }
            void before;
            return;
          }
          case SK.ArrowFunction:
          case SK.FunctionExpression:
            if (this.isMultiLine(n.getStart(this.sf), n.end)) {
              const name = n.name ? this.nameOf(n.name) : hint || "<anonymous>";
              out.push(this.functionLike(n, name, "function", { inExpression: true }));
              return;
            }
            break;
          case SK.ClassExpression:
            out.push(this.make(n, n.name ? this.nameOf(n.name) : hint || "<anonymous>", "class", {
              bodyBearing: true, inExpression: true, sigEnd: this.membersOpen(n),
              children: this.heritageSymbols(n).concat(this.classMembers(n)),
            }));
            return;
          case SK.CallExpression:
          case SK.NewExpression: {
            visit(n.expression, undefined);
            const callee = skipParens(n.expression);
            const isIife = callee.kind === SK.FunctionExpression || callee.kind === SK.ArrowFunction;
            void isIife;
            const label = calleeLabel(n.expression, this.sf) + " callback";
            if (n.arguments) for (const a of n.arguments) visit(a, label);
            return;
          }
          case SK.PropertyAssignment:
            visit(n.initializer, this.nameOf(n.name));
            return;
          case SK.MethodDeclaration:
          case SK.GetAccessor:
          case SK.SetAccessor:
            if (this.isMultiLine(n.getStart(this.sf), n.end)) {
              const k = n.kind === SK.MethodDeclaration ? "method" : n.kind === SK.GetAccessor ? "getter" : "setter";
              out.push(this.functionLike(n, this.nameOf(n.name), k, { inExpression: true }));
              return;
            }
            break;
          case SK.JsxAttribute:
            if (n.initializer) visit(n.initializer, this.nameOf(n.name) + " handler");
            return;
          case SK.ParenthesizedExpression:
            if (skipParens(n).kind === SK.FunctionExpression || skipParens(n).kind === SK.ArrowFunction) {
              visit(n.expression, hint === undefined ? "IIFE" : hint);
              return;
            }
            break;
          default:
            break;
        }
        ts.forEachChild(n, (c) => visit(c, undefined));
      };
      visit(node, hint);
      return out;
    }

    // ---- React -----------------------------------------------------------

    containsJsx(node) {
      if (!node) return false;
      let found = false;
      const visit = (n) => {
        if (found) return;
        switch (n.kind) {
          case SK.JsxElement:
          case SK.JsxSelfClosingElement:
          case SK.JsxFragment:
            found = true;
            return;
          case SK.CallExpression: {
            const t = n.expression.getText(this.sf);
            if (t === "React.createElement" || t === "createElement") {
              found = true;
              return;
            }
            break;
          }
          default:
            break;
        }
        ts.forEachChild(n, visit);
      };
      visit(node);
      return found;
    }

    isComponentFunction(fn) {
      return !!fn.name && isPascal(ts.idText(fn.name)) && this.containsJsx(fn.body);
    }

    isReactClass(cls) {
      for (const h of cls.heritageClauses || []) {
        if (h.token !== SK.ExtendsKeyword) continue;
        for (const t of h.types) if (REACT_CLASS_BASES.has(t.expression.getText(this.sf))) return true;
      }
      return false;
    }
  }

  globalThis.tsqWalker = Walker;
})(globalThis);
