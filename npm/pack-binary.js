#!/usr/bin/env node
// Packs a native binary for its npm platform package: brotli at quality
// $TSQ_PACK_QUALITY (default 11, the smallest; the install test may ask for
// less to save time, the format is the same) with a 16 MiB window.
// npm tarballs are gzip, which leaves tsq's binary at about 45% of its size;
// brotli at 11 leaves about 30% (benches/README.md, "The packed binary").
// The launcher (npm/tsq/bin/tsq.js) unpacks it with Node's own zlib.
//
//   node npm/pack-binary.js BINARY OUT.br    (prints "SHA256 BYTES" of BINARY)
"use strict";
const fs = require("node:fs");
const zlib = require("node:zlib");

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error("usage: node npm/pack-binary.js BINARY OUT.br");
  process.exit(2);
}
const quality = Number(process.env.TSQ_PACK_QUALITY || zlib.constants.BROTLI_MAX_QUALITY);
if (!Number.isInteger(quality) || quality < 0 || quality > 11) {
  console.error(`pack-binary: TSQ_PACK_QUALITY must be an integer from 0 to 11, not '${process.env.TSQ_PACK_QUALITY}'`);
  process.exit(2);
}
const input = fs.readFileSync(from);
const start = Date.now();
const packed = zlib.brotliCompressSync(input, {
  params: {
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_GENERIC,
    [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
    [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: input.length,
  },
});
fs.writeFileSync(to, packed);
// For the package.json that npm/build.sh writes (no sha256sum or GNU stat
// needed: the release workflow runs this on macOS too).
process.stdout.write(`${require("node:crypto").createHash("sha256").update(input).digest("hex")} ${input.length}\n`);
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
console.error(`pack-binary: ${mb(input.length)} -> ${mb(packed.length)} (brotli ${quality}) in ${((Date.now() - start) / 1000).toFixed(0)} s`);
