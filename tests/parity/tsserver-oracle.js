#!/usr/bin/env node
// tsserver oracle for tests/it/ls_parity.rs. Independent of tsq's JS: it runs
// the vendored typescript.js's own tsserver (ts.server.Session) under Node,
// opens every source file as an editor would, and for every function,
// method and class declaration asks the protocol commands `references`,
// `prepareCallHierarchy`, `provideCallHierarchyOutgoingCalls` and
// `provideCallHierarchyIncomingCalls`. It then applies the blueprint's
// filtering: definitions, .d.ts and node_modules dropped; `new Foo()` edges
// point at Foo's explicit constructor.
//
//   node tests/parity/tsserver-oracle.js ROOT [EVERY_NTH] [LIMIT] -> JSON
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(path.join(__dirname, "../../vendor-typescript/lib/typescript.js"));
const SK = ts.SyntaxKind;

const root = fs.realpathSync(process.argv[2]);
const everyNth = Number(process.argv[3] || 1);
const limit = Number(process.argv[4] || Infinity);

const logger = {
  close() {}, hasLevel: () => false, loggingEnabled: () => false, perftrc() {}, info() {},
  startGroup() {}, endGroup() {}, msg() {}, getLogFileName: () => undefined,
};
const host = {
  ...ts.sys,
  write() {}, // responses are read from executeCommand, not the wire
  setTimeout, clearTimeout, setImmediate, clearImmediate,
  watchFile: () => ({ close() {} }),
  watchDirectory: () => ({ close() {} }),
};
const session = new ts.server.Session({
  host, cancellationToken: ts.server.nullCancellationToken, useSingleInferredProject: true,
  useInferredProjectPerProjectRoot: false, typingsInstaller: ts.server.nullTypingsInstaller,
  byteLength: Buffer.byteLength, hrtime: process.hrtime, logger, canUseEvents: false,
});
let seq = 0;
function request(command, args) {
  const res = session.executeCommand({ seq: ++seq, type: "request", command, arguments: args });
  return res.response;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const isUser = (f) => !/\.d\.[cm]?ts$/.test(f) && !f.includes("/node_modules/");
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (SOURCE.test(e.name) && isUser(p)) files.push(p);
  }
})(root);
for (const file of files) request("open", { file });

const rel = (f) => path.relative(root, f).split(path.sep).join("/");
const parsed = new Map();
function sourceOf(file) {
  if (!parsed.has(file)) parsed.set(file, ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true));
  return parsed.get(file);
}
function posOf(file, loc) {
  return sourceOf(file).getPositionOfLineAndCharacter(loc.line - 1, loc.offset - 1);
}
function lineOf(sf, pos) {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

/** The declaration at a call-hierarchy item, as tsq names it. */
function target(item) {
  const sf = sourceOf(item.file);
  const pos = posOf(item.file, item.selectionSpan.start);
  let node = null;
  (function find(n) {
    if (node) return;
    if (n.name && n.name.getStart(sf) === pos) node = n;
    else if (n.kind === SK.Constructor && n.getStart(sf) === pos) node = n;
    else ts.forEachChild(n, find);
  })(sf);
  // A file's top-level code: tsserver names the item after the file.
  if (!node && (item.kind === "script" || item.kind === "module")) return `${rel(item.file)}@${rel(item.file)}:1`;
  if (node && (node.kind === SK.ClassDeclaration || node.kind === SK.ClassExpression)) {
    const ctor = node.members.find((m) => m.kind === SK.Constructor && m.body);
    if (ctor) return `${item.name}.constructor@${rel(item.file)}:${lineOf(sf, ctor.getStart(sf))}`;
  }
  return `${item.name}@${rel(item.file)}:${item.selectionSpan.start.line}`;
}

function edges(file, loc, direction) {
  let items = request("prepareCallHierarchy", { file, line: loc.line, offset: loc.offset });
  if (!items) return [];
  if (!Array.isArray(items)) items = [items];
  if (!items.length) return [];
  const it = items[0];
  const args = { file: it.file, line: it.selectionSpan.start.line, offset: it.selectionSpan.start.offset };
  const calls = request(direction === "out" ? "provideCallHierarchyOutgoingCalls" : "provideCallHierarchyIncomingCalls", args) || [];
  const out = new Set();
  for (const c of calls) {
    const other = direction === "out" ? c.to : c.from;
    if (isUser(other.file)) out.add(target(other));
  }
  return [...out].sort();
}

const decls = [];
for (const file of files) {
  const sf = sourceOf(file);
  (function visit(n) {
    const callable = n.kind === SK.FunctionDeclaration || n.kind === SK.MethodDeclaration || n.kind === SK.ClassDeclaration;
    if (callable && n.name && (n.kind === SK.ClassDeclaration || n.body)) {
      decls.push({ file, node: n });
    }
    ts.forEachChild(n, visit);
  })(sf);
}

const out = [];
decls.forEach(({ file, node }, i) => {
  if (i % everyNth !== 0 || out.length >= limit) return;
  const sf = sourceOf(file);
  const start = sf.getLineAndCharacterOfPosition(node.name.getStart(sf));
  const loc = { line: start.line + 1, offset: start.character + 1 };
  const refs = request("references", { file, line: loc.line, offset: loc.offset });
  const byFile = {};
  for (const r of (refs && refs.refs) || []) {
    if (r.isDefinition || !isUser(r.file)) continue;
    (byFile[rel(r.file)] = byFile[rel(r.file)] || []).push(r.start.line);
  }
  for (const k of Object.keys(byFile)) byFile[k].sort((a, b) => a - b);
  const parents = [];
  for (let p = node.parent; p && p.kind !== SK.SourceFile; p = p.parent) {
    if ((p.kind === SK.ClassDeclaration || p.kind === SK.ModuleDeclaration || p.kind === SK.InterfaceDeclaration) && p.name) parents.unshift(p.name.text);
  }
  out.push({
    file: rel(file),
    names: parents.concat(node.name.text),
    line: loc.line,
    outgoing: edges(file, loc, "out"),
    incoming: edges(file, loc, "in"),
    references: byFile,
  });
});
process.stdout.write(JSON.stringify(out));
