#!/usr/bin/env node
// tsq's outgoing call sites (js/occurrences/59_call_sites.js) against TypeScript's own
// `ts.CallHierarchy.getOutgoingCalls`, on every call-hierarchy declaration
// of every workspace file of each ROOT, in every program a tsconfig there
// builds (one program over all sources where there is none). Both answers
// are compared whole: each target's file, span and selection span (the
// item TypeScript builds for it), and the call sites' starts, in order,
// library and node_modules targets included.
//
//   node tests/parity/call-sites-check.js TYPESCRIPT_JS JS_DIR ROOT... -> JSON
//     { declarations, calls, sites, kinds: {call site kind: count}, mismatches: [first 20] }
//
// tests/it/call_sites.rs runs it on the fixtures; benches/README.md reports
// it on the corpora.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const [tsPath, jsDir, ...roots] = process.argv.slice(2);
if (!tsPath || !jsDir || !roots.length) {
  console.error("usage: node call-sites-check.js TYPESCRIPT_JS JS_DIR ROOT...");
  process.exit(2);
}
globalThis.ts = require(path.resolve(tsPath));
globalThis.tsqLs = {};
for (const p of require("./tsq-js.js").tsqJs(jsDir, ["59_call_sites.js"])) vm.runInThisContext(fs.readFileSync(p, "utf8"), { filename: path.basename(p) });
const L = globalThis.tsqCallSites;
const ts = globalThis.ts;

/** What a call site at `start` is: the call, `new`, tagged template,
 *  JSX element or decorator whose target starts there, else the property
 *  or element access (a getter), else the static block. */
function siteKind(sf, start) {
  let kind = null;
  for (let n = ts.getTokenAtPosition(sf, start); n && n.parent && n.getStart(sf) === start; n = n.parent) {
    const p = n.parent;
    const target = ts.isTaggedTemplateExpression(p) ? p.tag : ts.isJsxOpeningLikeElement(p) ? p.tagName :
      ts.isCallExpression(p) || ts.isNewExpression(p) || ts.isDecorator(p) ? p.expression : null;
    if (target === n) return ts.SyntaxKind[p.kind];
    if (!kind && (ts.isAccessExpression(n) || ts.isClassStaticBlockDeclaration(n))) kind = ts.SyntaxKind[n.kind];
    if (!kind && ts.isClassStaticBlockDeclaration(p)) kind = ts.SyntaxKind[p.kind];
  }
  return kind || "other";
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const out = { declarations: 0, calls: 0, sites: 0, kinds: {}, mismatches: [] };

for (const rootArg of roots) {
  const root = fs.realpathSync(rootArg);
  const inRoot = (f) => f.startsWith(root + "/") && !f.includes("/node_modules/") && !/\.d\.[cm]?ts$/.test(f);
  const sources = [];
  const configs = [];
  (function walk(d) {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name === "node_modules" || e.name.startsWith(".")) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "tsconfig.json") configs.push(p);
      else if (SOURCE.test(e.name) && !e.name.endsWith(".min.js")) sources.push(p);
    }
  })(root);
  const programs = [];
  for (const config of configs) {
    const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    if (parsed && parsed.fileNames.length) programs.push(ts.createProgram(parsed.fileNames, parsed.options));
  }
  if (!programs.length) {
    programs.push(ts.createProgram(sources, { allowJs: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, strict: true }));
  }
  const itemOf = (item) => [path.relative(root, item.file), item.span.start, item.selectionSpan.start];
  for (const program of programs) {
    for (const sf of program.getSourceFiles()) {
      if (!inRoot(sf.fileName)) continue;
      const visit = (node) => {
        if (L.isValidCallHierarchyDeclaration(node)) {
          out.declarations++;
          const theirs = ts.CallHierarchy.getOutgoingCalls(program, node).map((c) => [...itemOf(c.to), c.fromSpans.map((s) => s.start)]);
          const ours = L.outgoingCallSites(program, node).map(({ declaration, starts }) => [...itemOf(ts.CallHierarchy.createCallHierarchyItem(program, declaration)), starts]);
          out.calls += ours.length;
          for (const c of ours) out.sites += c[3].length;
          for (const c of theirs) {
            for (const s of c[3]) {
              const kind = siteKind(sf, s);
              out.kinds[kind] = (out.kinds[kind] || 0) + 1;
            }
          }
          if (JSON.stringify(ours) !== JSON.stringify(theirs) && out.mismatches.length < 20) {
            const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
            out.mismatches.push({ file: path.relative(root, sf.fileName), line: line + 1, column: character, ours, theirs });
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
}
console.log(JSON.stringify(out, null, 1));
