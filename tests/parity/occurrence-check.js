#!/usr/bin/env node
// Development check for js/occurrences/60_occurrences.js under Node: indexes every
// user file of ROOT with one program, derives references and call edges
// from the rows exactly as src/structure/ does, and prints them in
// tsserver-oracle.js's shape, so the two outputs can be diffed.
//
//   node tests/parity/occurrence-check.js ROOT -> JSON
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const ts = require(path.join(__dirname, "../../vendor-typescript/lib/typescript.js"));
const root = fs.realpathSync(process.argv[2]);
const rel = (f) => path.relative(root, f).split(path.sep).join("/");
const isUser = (f) => !/\.d\.[cm]?ts$/.test(f) && !f.includes("/node_modules/") && !f.startsWith("/__tsq__/");
globalThis.ts = ts;
globalThis.tsqRel = rel;
globalThis.tsqIsUserFile = isUser;
globalThis.tsqAnalyses = {};
const load = ["19_resolution_inputs.js", "30_resolvers.js", "31_calls.js", "56_symbol_ids.js", "57_file_inputs.js", "59_call_sites.js", "60_occurrences.js"];
for (const p of require("./tsq-js.js").tsqJs(path.join(__dirname, "../../js"), load)) vm.runInThisContext(fs.readFileSync(p, "utf8"), { filename: path.basename(p) });

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (SOURCE.test(e.name)) files.push(p);
  }
})(root);
const program = ts.createProgram(files, { allowJs: true, checkJs: false, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, strict: true });
const rows = files.filter(isUser).map((f) => globalThis.tsqOccurrences.indexFile(program, program.getSourceFile(f)));
process.stdout.write(JSON.stringify(rows, null, process.argv[3] === "--pretty" ? 1 : 0));
