#!/usr/bin/env node
// The occurrence pass of `tsq index` on V8: Node running the same vendored
// typescript.js and the same js/<role>/NN_*.js files tsq embeds, driven through
// the same service requests (`load`, `owners`, then `occurrences` in
// batches of 64 files in owner and path order, `release` and the memory
// bound set, as src/structure/occurrence_sync.rs sends them), with the
// Rust ops replaced by Node's fs. It measures what the pass costs on an
// engine with V8's object layout and compacting collector, which the `v8`
// feature would bring and which cannot be linked on the machines that
// build tsq (benches/README.md, "The occurrence pass on V8").
//
//   node --expose-gc --stack-size=7000 node-occurrences.js TYPESCRIPT_JS JS_DIR ROOT [MEMORY_MB] [--rows]
//     -> JSON on stdout: files, rows, failed, seconds, peak RSS (ru_maxrss),
//        and a digest of every answer (equal digests: the same rows);
//        with --rows, every occurrence row instead, as tsq stores them
//        (tests/it/engine_parity.rs compares them with tsq's on QuickJS)
//
// Not measured here: the Rust side (the LanceDB writes, the file view),
// the binary's mapped code. The walk skips `.git`, `.tsq`, `node_modules`
// and the root `.gitignore`'s plain names, where tsq's walker reads every
// ignore file: the file counts are printed to compare.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const crypto = require("crypto");

const dumpRows = process.argv.includes("--rows");
const [tsPath, jsDir, rootArg, memoryArg] = process.argv.slice(2).filter((a) => a !== "--rows");
if (!tsPath || !jsDir || !rootArg) {
  console.error("usage: node --expose-gc node-occurrences.js TYPESCRIPT_JS JS_DIR ROOT [MEMORY_MB]");
  process.exit(2);
}
if (typeof global.gc !== "function") {
  console.error("run node with --expose-gc: the pass collects garbage past its memory bound, as tsq does");
  process.exit(2);
}
const root = fs.realpathSync(rootArg);
const memoryMb = Number(memoryArg || 1200);
// Each file's budget, as tsq sends it (src/structure/occurrence_sync.rs
// `FILE_WORK`, `FILE_SECONDS`, and the same variables).
const budget = { work: Number(process.env.TSQ_OCCURRENCE_FILE_WORK || 1000000), seconds: Number(process.env.TSQ_OCCURRENCE_FILE_SECONDS || 120) };
const BATCH = 64;
const LIB_DIR = "/__tsq__/lib";
const libDir = path.dirname(path.resolve(tsPath));

// ---- the walk (tsq's: sources and tsconfig/jsconfig files) ----
const SOURCE = /\.(d\.ts|d\.mts|d\.cts|ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const ignored = new Set([".git", ".tsq", "node_modules"]);
try {
  for (const line of fs.readFileSync(path.join(root, ".gitignore"), "utf8").split("\n")) {
    const t = line.trim();
    if (t && !t.startsWith("#") && !/[*/!]/.test(t)) ignored.add(t);
  }
} catch {}
const sources = [];
const configs = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (ignored.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name === "tsconfig.json" || e.name === "jsconfig.json") configs.push(p);
    else if (SOURCE.test(e.name) && !e.name.endsWith(".min.js")) sources.push(p);
  }
})(root);

// ---- the ops tsq's Rust side serves (crates/tsq-engine/src/host.rs) ----
const inside = (p) => {
  const n = path.resolve(p);
  return n === root || n.startsWith(root + "/") ? n : null;
};
const libName = (p) => (p.startsWith(LIB_DIR + "/") ? p.slice(LIB_DIR.length + 1) : null);
const texts = new Map();
function read(p) {
  const lib = libName(p);
  const f = lib ? path.join(libDir, lib) : inside(p);
  if (!f) return null;
  if (texts.has(f)) return texts.get(f);
  let t = null;
  try {
    t = fs.readFileSync(f, "utf8");
  } catch {}
  texts.set(f, t);
  return t;
}
let pending = null;
let response = null;
const ops = {
  op_tsq_fs_read: read,
  op_tsq_fs_file_exists: (p) => read(p) !== null,
  op_tsq_fs_dir_exists: (p) => {
    if (p === LIB_DIR) return true;
    const d = inside(p);
    try {
      return !!d && fs.statSync(d).isDirectory();
    } catch {
      return false;
    }
  },
  op_tsq_fs_entries: (p) => {
    const out = { files: [], directories: [] };
    if (p === LIB_DIR) {
      out.files = fs.readdirSync(libDir).filter((f) => f.startsWith("lib.") && f.endsWith(".d.ts")).sort();
      return out;
    }
    const d = inside(p);
    if (!d) return out;
    let names = [];
    try {
      names = fs.readdirSync(d);
    } catch {
      return out;
    }
    for (const name of names.sort()) {
      try {
        const s = fs.statSync(path.join(d, name));
        if (s.isDirectory() && name !== ".git" && name !== ".tsq") out.directories.push(name);
        else if (s.isFile()) out.files.push(name);
      } catch {}
    }
    return out;
  },
  // Files do not change during the pass: one version each.
  op_tsq_fs_version: (p) => (libName(p) ? "lib" : read(p) === null ? "missing" : "1"),
  op_tsq_fs_generation: () => 0,
  op_tsq_fs_realpath: (p) => {
    const d = inside(p);
    try {
      const real = d && fs.realpathSync(d);
      return real && inside(real) ? real : p;
    } catch {
      return p;
    }
  },
  op_tsq_rss_mb: () => process.memoryUsage.rss() / (1 << 20),
  op_tsq_collect_garbage: () => global.gc(),
  op_tsq_pace_collections: () => {},
  op_tsq_service_request: () => pending,
  op_tsq_service_respond: (res) => {
    response = res;
  },
  op_tsq_service_respond_json: (json) => {
    response = JSON.parse(json);
  },
  op_tsq_parse_request: () => {
    throw new Error("no parse requests in this harness");
  },
  op_tsq_parse_respond: () => {},
};
globalThis.Deno = { core: { ops } };

// ---- the compiler and tsq's JS, loaded as tsq loads them ----
let t0 = process.hrtime.bigint();
const secs = (t) => Number(process.hrtime.bigint() - t) / 1e9;
vm.runInThisContext(fs.readFileSync(tsPath, "utf8"), { filename: "typescript.js" });
for (const p of require("../tests/parity/tsq-js.js").tsqJs(jsDir)) {
  vm.runInThisContext(fs.readFileSync(p, "utf8"), { filename: path.basename(p) });
}
const startup = secs(t0);

function call(req) {
  pending = req;
  response = null;
  globalThis.tsqService();
  if (!response || response.kind === "failed") throw new Error(`${req.method}: ${response ? response.message : "no response"}`);
  return response;
}

t0 = process.hrtime.bigint();
call({ method: "load", root, configs, sourceFiles: sources });
// Every source has rows, declaration files included (tsq's sync_plan).
const indexable = sources;
const owners = call({ method: "owners", files: indexable }).projects;
const rel = (f) => path.relative(root, f);
const order = indexable
  .map((f, i) => ({ f, owner: owners[i] < 0 ? Infinity : owners[i] }))
  .sort((a, b) => a.owner - b.owner || (rel(a.f) < rel(b.f) ? -1 : rel(a.f) > rel(b.f) ? 1 : 0))
  .map((x) => x.f);
// A digest of every answer: a change to tsq's JS that should not change
// the rows (a memo, a faster walk) must keep it.
const digest = crypto.createHash("sha256");
let rows = 0;
let indexed = 0;
const all = [];
const failed = [];
for (let i = 0; i < order.length; i += BATCH) {
  const res = call({ method: "occurrences", files: order.slice(i, i + BATCH), release: true, memoryMb, budget });
  for (const f of res.files) rows += f.occurrences.length;
  if (dumpRows) {
    for (const f of res.files) {
      for (const o of f.occurrences) all.push({ relativePath: f.relativePath, line: o.line, column: o.column, symbol: o.symbol, role: o.role, enclosing: o.enclosing, caller: o.caller ?? null, meaning: o.meaning });
    }
  }
  digest.update(JSON.stringify([res.files, res.failed, res.programs]));
  indexed += res.files.length;
  failed.push(...res.failed);
  // tsq collects after every full-pass request (Engine::service).
  global.gc();
  process.stderr.write(`\rnode occurrences ${Math.min(i + BATCH, order.length)}/${order.length}`);
}
process.stderr.write("\n");
const pass = secs(t0);
if (dumpRows) {
  // process.exit() right after a write to a pipe drops what the pipe has
  // not taken yet (the output was cut at 64 KiB): exit once it is flushed.
  process.stdout.write(JSON.stringify({ rows: all, failed }) + "\n", () => process.exit(0));
} else {
  console.log(JSON.stringify({
    engine: `node ${process.version} (V8 ${process.versions.v8})`,
    sources: sources.length,
    configs: configs.length,
    files: indexed,
    rows,
    failed: failed.length,
    failures: failed.slice(0, 5),
    digest: digest.digest("hex").slice(0, 16),
    startupSeconds: +startup.toFixed(2),
    passSeconds: +pass.toFixed(1),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    memoryMb,
  }, null, 2));
}
