#!/usr/bin/env node
// tsc oracle for tests/it/parity.rs. Independent of tsq's own JS (js/): it uses
// the vendored typescript.js under Node with tsc's default options, full
// JSDoc parsing and parent pointers, and reports the declarations tsc's AST
// holds, as tsc sees them.
//
//   node tests/parity/tsc-oracle.js ROOT FILE...   -> JSON on stdout
//
// For each declaration: its SyntaxKind name, name, 1-based line range
// (starting at the JSDoc tsc attached, else at node.getStart()), and its
// header text (from after the decorators to the body), whitespace-collapsed.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(path.join(__dirname, "../../vendor-typescript/lib/typescript.js"));
const SK = ts.SyntaxKind;

const [root, ...files] = process.argv.slice(2);
const out = {};
for (const rel of files) {
  const text = fs.readFileSync(path.join(root, rel), "utf8").replace(/^\uFEFF/, "");
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, scriptKind(rel));
  const decls = [];
  const visit = (node) => {
    const d = describe(sf, node);
    if (d) decls.push(d);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  out[rel] = decls;
}
process.stdout.write(JSON.stringify(out));

function scriptKind(f) {
  if (/\.tsx$/.test(f)) return ts.ScriptKind.TSX;
  if (/\.jsx$/.test(f)) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(f)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

function line(sf, pos) {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

function collapse(s) {
  s = s.split(/\s+/).filter(Boolean).join(" ");
  for (;;) {
    const t = s.trimEnd();
    const m = ["=>", "{", "=", ";", ","].find((x) => t.endsWith(x));
    if (!m) return t;
    s = t.slice(0, t.length - m.length).trimEnd();
  }
}

function describe(sf, node) {
  const p = node.parent;
  switch (node.kind) {
    case SK.FunctionDeclaration:
    case SK.ClassDeclaration:
    case SK.InterfaceDeclaration:
    case SK.EnumDeclaration:
    case SK.TypeAliasDeclaration:
    case SK.EnumMember:
      break;
    case SK.ModuleDeclaration:
      if (p.kind === SK.ModuleDeclaration) return null; // inner part of `A.B`
      break;
    case SK.MethodDeclaration:
    case SK.Constructor:
    case SK.GetAccessor:
    case SK.SetAccessor:
    case SK.PropertyDeclaration:
      if (!ts.isClassLike(p)) return null;
      break;
    case SK.PropertySignature:
    case SK.MethodSignature:
      if (p.kind !== SK.InterfaceDeclaration) return null;
      break;
    default:
      return null;
  }
  const text = sf.text;
  const jsDoc = node.jsDoc && node.jsDoc.length ? node.jsDoc[node.jsDoc.length - 1] : null;
  const start = node.getStart(sf);
  const rangeStart = jsDoc ? Math.min(jsDoc.getStart(sf), start) : start;
  let sigStart = start;
  for (const m of node.modifiers || []) if (m.kind === SK.Decorator) sigStart = ts.skipTrivia(text, m.end);
  let sigEnd = node.end;
  let body = node.body;
  while (body && body.kind === SK.ModuleDeclaration) body = body.body;
  const init = node.initializer;
  if (body) sigEnd = body.getStart(sf);
  else if (node.members) sigEnd = text.lastIndexOf("{", node.members.pos);
  else if (init && init.kind === SK.ClassExpression) sigEnd = text.lastIndexOf("{", init.members.pos);
  else if (init && text.slice(init.getStart(sf), init.end).includes("\n")) sigEnd = init.getStart(sf);
  let name;
  if (node.kind === SK.Constructor) name = "constructor";
  else if (node.kind === SK.ModuleDeclaration) {
    name = node.name.text;
    for (let b = node.body; b && b.kind === SK.ModuleDeclaration; b = b.body) name += "." + b.name.text;
  } else if (!node.name) name = "default";
  else name = ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name) ? ts.idText(node.name) : node.name.text ?? node.name.getText(sf);
  return {
    syntaxKind: SK[node.kind],
    name,
    lineRange: [line(sf, rangeStart), line(sf, node.end)],
    header: collapse(text.slice(sigStart, sigEnd)),
  };
}
