#!/usr/bin/env node
// Baseline for `tsq bench ls`: Node (V8) running the same vendored
// TypeScript's Language Service calls over the same workspace copy, in one
// script: program build, then for each symbol (given as file + offset)
// findReferences, prepareCallHierarchy + provideCallHierarchyOutgoingCalls,
// and prepareCallHierarchy + provideCallHierarchyIncomingCalls; then a
// one-file edit and the incremental program update.
//
//   node node-ls.js TYPESCRIPT_JS REQUEST_JSON -> JSON on stdout
// REQUEST_JSON: { root, files: [abs], symbols: [{file, pos}], editFile }
"use strict";
const fs = require("fs");
const path = require("path");
const [tsPath, reqPath] = process.argv.slice(2);
const ts = require(tsPath);
const req = JSON.parse(fs.readFileSync(reqPath, "utf8"));

const versions = new Map();
const texts = new Map();
const options = {
  allowJs: true, allowNonTsExtensions: true, checkJs: false, jsx: ts.JsxEmit.Preserve,
  target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, resolveJsonModule: true,
  skipLibCheck: true, strict: true, noEmit: true,
};
const libDir = path.dirname(tsPath);
const host = {
  getCompilationSettings: () => options,
  getScriptFileNames: () => req.files,
  getScriptVersion: (f) => String(versions.get(f) || 0),
  getScriptSnapshot: (f) => {
    let t = texts.get(f);
    if (t === undefined) {
      if (!fs.existsSync(f)) return undefined;
      t = fs.readFileSync(f, "utf8");
      texts.set(f, t);
    }
    return ts.ScriptSnapshot.fromString(t);
  },
  getCurrentDirectory: () => req.root,
  getDefaultLibFileName: (o) => path.join(libDir, ts.getDefaultLibFileName(o)),
  fileExists: (f) => fs.existsSync(f),
  readFile: (f) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : undefined),
  directoryExists: (d) => fs.existsSync(d) && fs.statSync(d).isDirectory(),
  getDirectories: (d) => fs.readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name),
  useCaseSensitiveFileNames: () => true,
};
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
let t0 = process.hrtime.bigint();
ls.getProgram().getTypeChecker();
const buildMs = ms(t0);

const lat = { references: [], outgoingCalls: [], incomingCallers: [] };
for (const s of req.symbols) {
  t0 = process.hrtime.bigint();
  ls.findReferences(s.file, s.pos);
  lat.references.push(ms(t0));
  t0 = process.hrtime.bigint();
  let items = ls.prepareCallHierarchy(s.file, s.pos);
  items = items ? (Array.isArray(items) ? items : [items]) : [];
  if (items[0]) ls.provideCallHierarchyOutgoingCalls(items[0].file, items[0].selectionSpan.start);
  lat.outgoingCalls.push(ms(t0));
  t0 = process.hrtime.bigint();
  items = ls.prepareCallHierarchy(s.file, s.pos);
  items = items ? (Array.isArray(items) ? items : [items]) : [];
  if (items[0]) ls.provideCallHierarchyIncomingCalls(items[0].file, items[0].selectionSpan.start);
  lat.incomingCallers.push(ms(t0));
}

// One-file edit: append a comment, bump the version, update the program.
const text = fs.readFileSync(req.editFile, "utf8");
texts.set(req.editFile, text + "\n// edited\n");
versions.set(req.editFile, 1);
t0 = process.hrtime.bigint();
ls.getProgram().getTypeChecker();
const incrementalMs = ms(t0);

let maxRssKb = process.resourceUsage().maxRSS;
try {
  const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"));
  if (m) maxRssKb = Number(m[1]);
} catch {}
process.stdout.write(JSON.stringify({ buildMs, latencies: lat, incrementalMs, maxRssKb }));
