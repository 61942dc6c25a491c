#!/usr/bin/env node
// Baseline for `tsq bench parse`: Node (V8) running the same vendored
// typescript.js's createSourceFile over the same files, single-threaded,
// with the options tsq uses (latest target, JSDoc parsing off).
//
//   node node-parse.js TYPESCRIPT_JS RUNS FILE_LIST   -> JSON on stdout
"use strict";
const fs = require("fs");
const [tsPath, runsArg, listPath] = process.argv.slice(2);
const t0 = process.hrtime.bigint();
const ts = require(tsPath);
const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
const files = fs.readFileSync(listPath, "utf8").split("\n").filter(Boolean);
const texts = files.map((f) => fs.readFileSync(f, "utf8").replace(/^\uFEFF/, ""));
const kind = (f) =>
  /\.tsx$/.test(f) ? ts.ScriptKind.TSX : /\.jsx$/.test(f) ? ts.ScriptKind.JSX : /\.[cm]?js$/.test(f) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
const runs = [];
for (let r = 0; r < Number(runsArg); r++) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < files.length; i++) {
    ts.createSourceFile(files[i], texts[i], { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, kind(files[i]));
  }
  runs.push(Number(process.hrtime.bigint() - start) / 1e6);
}
// Peak RSS of this process. Not resourceUsage().maxRSS: on Linux that
// carries over the parent's (tsq's) peak across fork and exec.
let maxRssKb = process.resourceUsage().maxRSS;
try {
  const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"));
  if (m) maxRssKb = Number(m[1]);
} catch {}
process.stdout.write(JSON.stringify({ loadMs, runsMs: runs, maxRssKb, version: ts.version, node: process.version }));
