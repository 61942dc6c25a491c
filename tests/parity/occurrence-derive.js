#!/usr/bin/env node
// Development check: derives tsserver-oracle.js's answers from
// occurrence-check.js's rows (the rule src/structure/ implements), for
// ORACLE's declarations.   node occurrence-derive.js ROWS.json ORACLE.json
"use strict";
const fs = require("fs");
const rows = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const oracle = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const items = new Map(), decls = [], occ = [], calls = [], bases = new Map();
for (const f of rows) {
  for (const i of f.items) items.set(i.key, i.ref);
  for (const d of f.declarations) decls.push({ ...d, file: f.relativePath });
  for (const o of f.occurrences) occ.push({ ...o, file: f.relativePath });
  for (const c of f.calls) calls.push({ ...c, file: f.relativePath });
  for (const b of f.bases) { if (!bases.has(b.member)) bases.set(b.member, new Set()); bases.get(b.member).add(b.base); }
}
const baseStar = (id) => { const out = new Set(); const st = [id]; while (st.length) { const x = st.pop(); for (const b of bases.get(x) || []) if (!out.has(b)) { out.add(b); st.push(b); } } return out; };
const related = (id) => {
  const search = new Set([id, ...baseStar(id)]);
  const out = new Set(search);
  for (const m of bases.keys()) if ([...baseStar(m)].some((b) => search.has(b))) out.add(m);
  return out;
};
const name = (k) => { const r = items.get(k); return r ? `${r.name}@${r.filePath}:${r.line}` : `?${k}`; };
let diffs = 0;
for (const q of oracle) {
  const d = decls.find((x) => x.file === q.file && x.containers.concat(x.name).join(">") === q.names.join(">") && x.line === q.line)
    || decls.find((x) => x.file === q.file && x.name === q.names[q.names.length - 1] && x.line === q.line);
  if (!d) { console.log("NO DECL", q.file, q.names.join(">"), q.line); diffs++; continue; }
  const rel = related(d.id);
  const refs = {};
  for (const o of occ) if (rel.has(o.symbol) && !(o.role === "definition" && o.symbol === d.id)) (refs[o.file] = refs[o.file] || []).push(o.line);
  for (const k of Object.keys(refs)) refs[k].sort((a, b) => a - b);
  const out = [...new Set(calls.filter((c) => c.from === d.item).map((c) => name(c.to)))].sort();
  const inc = d.item && d.item.includes(" > ") || d.item ? [...new Set(occ.filter((o) => o.caller && rel.has(o.symbol)).map((o) => name(o.caller)))].sort() : [];
  const got = { outgoing: out, incoming: inc, references: refs };
  for (const k of ["outgoing", "incoming", "references"]) {
    const a = JSON.stringify(k === "references" ? Object.fromEntries(Object.entries(q[k]).sort()) : q[k]);
    const b = JSON.stringify(k === "references" ? Object.fromEntries(Object.entries(got[k]).sort()) : got[k]);
    if (a !== b) { diffs++; console.log(`${q.file} ${q.names.join(">")} ${k}\n  ls:  ${a}\n  occ: ${b}`); }
  }
}
console.log(`${oracle.length} declarations, ${diffs} differences`);
process.exitCode = diffs ? 1 : 0;
