#!/usr/bin/env node
// The `tsq` command of the npm package: finds the native binary in the
// platform package npm installed (optionalDependencies with os, cpu and
// libc), and runs it with this process's arguments, stdio and exit code.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

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
let dir;
try {
  dir = path.dirname(require.resolve(`${name}/package.json`));
} catch {
  console.error(
    `tsq: no binary for ${process.platform}-${process.arch} (package ${name} is not installed).\n` +
      "Reinstall without --no-optional, or build from source: https://github.com/tsq-dev/tsq#build-from-source",
  );
  process.exit(2);
}
const exe = path.join(dir, "bin", process.platform === "win32" ? "tsq.exe" : "tsq");
const result = spawnSync(exe, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`tsq: could not run ${exe}: ${result.error.message}`);
  process.exit(2);
}
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status === null ? 2 : result.status);
