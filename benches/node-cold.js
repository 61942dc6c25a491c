#!/usr/bin/env node
// The Node side of `tsq bench cold`: one fresh process answers one query the
// way an editor's tsserver would. It runs the vendored typescript.js's
// ts.server.Session, opens the file (tsserver loads only the projects that
// file needs), and asks `references`, `prepareCallHierarchy`, and the
// incoming and outgoing calls of the declaration at LINE:OFFSET.
//
// Then it asks the same again in the now warm process (warmMs: the warm
// Language Service's time for the query).
//
//   node benches/node-cold.js TYPESCRIPT_JS FILE LINE OFFSET -> JSON {ms, openMs, warmMs, maxRssKb, references, calls}
"use strict";
const started = process.hrtime.bigint();
const ts = require(process.argv[2]);
const file = process.argv[3];
const line = Number(process.argv[4]);
const offset = Number(process.argv[5]);

const logger = {
  close() {}, hasLevel: () => false, loggingEnabled: () => false, perftrc() {}, info() {},
  startGroup() {}, endGroup() {}, msg() {}, getLogFileName: () => undefined,
};
const host = {
  ...ts.sys,
  write() {},
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
const request = (command, args) => session.executeCommand({ seq: ++seq, type: "request", command, arguments: args }).response;

request("open", { file });
const openMs = Number(process.hrtime.bigint() - started) / 1e6; // start-up, project load, program build
const at = { file, line, offset };
function query() {
  const refs = request("references", at);
  const found = request("prepareCallHierarchy", at);
  const items = Array.isArray(found) ? found : found ? [found] : [];
  let calls = 0;
  for (const item of items) {
    const loc = { file: item.file, line: item.selectionSpan.start.line, offset: item.selectionSpan.start.offset };
    calls += (request("provideCallHierarchyIncomingCalls", loc) || []).length;
    calls += (request("provideCallHierarchyOutgoingCalls", loc) || []).length;
  }
  return { references: refs ? refs.refs.length : 0, calls };
}
const { references, calls } = query();
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const warmStarted = process.hrtime.bigint();
query();
const warmMs = Number(process.hrtime.bigint() - warmStarted) / 1e6;
process.stdout.write(JSON.stringify({ ms, openMs, warmMs, maxRssKb: process.resourceUsage().maxRSS, references, calls }) + "\n");
