// The JS files tsq embeds, in the order it loads them
// (crates/tsq-engine/build.rs): every js/<role>/NN_name.js, by its number.
// For the Node harnesses that load them as tsq does.
"use strict";
const fs = require("fs");
const path = require("path");

/** Paths of js/<role>/NN_name.js under `jsDir`, in load order; with
 *  `names`, only those file names (in load order too). */
function tsqJs(jsDir, names) {
  const out = [];
  for (const folder of fs.readdirSync(jsDir, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const f of fs.readdirSync(path.join(jsDir, folder.name))) {
      if (/^\d\d_.*\.js$/.test(f) && (!names || names.includes(f))) out.push({ f, p: path.join(jsDir, folder.name, f) });
    }
  }
  if (names && out.length !== names.length) throw new Error(`js/: expected ${names.join(", ")}, found ${out.map((x) => x.f).join(", ")}`);
  return out.sort((a, b) => (a.f < b.f ? -1 : a.f > b.f ? 1 : 0)).map((x) => x.p);
}

module.exports = { tsqJs };
