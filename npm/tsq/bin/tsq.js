#!/usr/bin/env node
// The `tsq` command of the npm package: finds the native binary in the
// platform package npm installed (optionalDependencies with os, cpu and
// libc), and runs it with this process's arguments, stdio and exit code.
//
// The platform package ships the binary brotli-packed (bin/tsq.br, about
// 31% of the binary where gzip alone leaves 44%; npm/pack-binary.js). The first run unpacks it
// once, checked against the sha256 in the package's package.json, next to
// the package if that folder is writable, else under the user's cache
// folder; later runs start the unpacked binary directly. Messages go to
// stderr only: `tsq serve`'s stdout carries MCP.
"use strict";

const { spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const zlib = require("node:zlib");

function fail(message) {
  console.error(`tsq: ${message}`);
  process.exit(2);
}

function libc() {
  if (process.platform !== "linux") return "";
  try {
    const report = process.report && process.report.getReport();
    return report && report.header && report.header.glibcVersionRuntime ? "-gnu" : "-musl";
  } catch {
    return "-gnu";
  }
}

const suffix = { win32: "msvc" }[process.platform];
const name = `@tsq/cli-${process.platform}-${process.arch}${suffix ? `-${suffix}` : libc()}`;
let manifest;
try {
  manifest = require.resolve(`${name}/package.json`);
} catch {
  fail(
    `no binary for ${process.platform}-${process.arch} (package ${name} is not installed).\n` +
      "Reinstall without --no-optional, or build from source: https://github.com/tsq-dev/tsq#build-from-source",
  );
}
const dir = path.dirname(manifest);
const exeName = process.platform === "win32" ? "tsq.exe" : "tsq";

/** The binary to run: shipped as is, already unpacked, or unpacked now. */
function binary() {
  const plain = path.join(dir, "bin", exeName);
  if (fs.existsSync(plain)) return plain;
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
  const packed = pkg.tsqPacked;
  if (!packed || !packed.file || !/^[0-9a-f]{64}$/.test(packed.sha256 || "")) {
    fail(`${name} has neither bin/${exeName} nor a packed binary in its package.json; reinstall it (npm install ${name})`);
  }
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  const cached = path.join(cacheRoot, "tsq", `${pkg.version}-${packed.sha256.slice(0, 16)}`, exeName);
  if (fs.existsSync(cached)) return cached;
  // Beside the package when npm's folder is writable (a project install, the
  // npx cache), else in the user's cache (a global install owned by root).
  for (const target of [plain, cached]) {
    try {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.accessSync(path.dirname(target), fs.constants.W_OK);
    } catch {
      continue;
    }
    unpack(path.join(dir, packed.file), packed.sha256, target);
    return target;
  }
  fail(`cannot unpack the binary: neither ${path.dirname(plain)} nor ${path.dirname(cached)} is writable; set XDG_CACHE_HOME to a writable folder`);
}

/** Decompresses `from` into `to` through a temporary file, checks the
 * sha256, and renames it into place, so `to` exists only when whole. */
function unpack(from, sha256, to) {
  console.error(`tsq: unpacking the native binary on first use into ${to}`);
  let bytes;
  try {
    bytes = zlib.brotliDecompressSync(fs.readFileSync(from));
  } catch (e) {
    fail(`the packed binary ${from} cannot be read (${e.message}); reinstall the package (npm install ${name})`);
  }
  const got = crypto.createHash("sha256").update(bytes).digest("hex");
  if (got !== sha256) {
    fail(`the packed binary ${from} is damaged (sha256 ${got}, expected ${sha256}); reinstall the package (npm install ${name})`);
  }
  const tmp = `${to}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, bytes, { mode: 0o755 });
    fs.renameSync(tmp, to);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    // Another process may have unpacked the same bytes first.
    if (!fs.existsSync(to)) fail(`cannot write ${to}: ${e.message}`);
  }
}

const exe = binary();
const result = spawnSync(exe, process.argv.slice(2), { stdio: "inherit" });
if (result.error) fail(`could not run ${exe}: ${result.error.message}`);
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status === null ? 2 : result.status);
