#!/usr/bin/env python3
"""Fidelity on a corpus: for N random exported functions (seeded), the
occurrence index (`tsq relations`) against the live Language Service
(`tsq inspect`), compared exactly: references, incoming and outgoing calls.
The workspace must be indexed first (`tsq index --no-structure --occurrences`).

  python3 benches/occurrences_fidelity.py ROOT N [TSQ]
"""
import json, os, random, re, subprocess, sys
root, n = sys.argv[1], int(sys.argv[2])
T = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.environ.get("CARGO_TARGET_DIR", "/var/tmp/tsq-target"), "release/tsq")
random.seed(23)
cands = []
for d, dirs, files in os.walk(root):
    dirs[:] = [x for x in dirs if x not in ("node_modules", ".tsq") and not x.startswith(".")]
    for f in files:
        if f.endswith((".ts", ".tsx")) and not f.endswith(".d.ts"):
            p = os.path.join(d, f)
            for m in re.finditer(r"^export (?:async )?function (\w+)", open(p, errors="replace").read(), re.M):
                cands.append((os.path.relpath(p, root), m.group(1)))
sample = random.sample(cands, min(n, len(cands)))
same = diff = 0
for rel, name in sample:
    q = f"symbol = {rel} > {name}"
    live = subprocess.run([T, "inspect", q, "--root", root, "--json"], capture_output=True, text=True)
    rows = subprocess.run([T, "relations", q, "--root", root, "--json"], capture_output=True, text=True)
    if live.returncode != 0 or rows.returncode != 0:
        print("error", q, live.stderr[-200:], rows.stderr[-200:]); diff += 1; continue
    L = json.loads(live.stdout)["matches"]; R = json.loads(rows.stdout)["matches"]
    ok = True
    for m in L:
        r = next((r for r in R if r["symbol"]["filePath"] == m["symbol"]["filePath"] and r["symbol"]["line"] == m["symbol"]["line"]), None)
        if r is None: ok = False; print("no row", q); continue
        for k in ("references", "incomingCallers", "outgoingCalls"):
            if m[k] != r[k]:
                ok = False; print("DIFF", q, k, "\n  live", json.dumps(m[k])[:400], "\n  rows", json.dumps(r[k])[:400])
    same += ok; diff += (not ok)
print(f"{len(sample)} sampled exported functions: {same} equal, {diff} differ")
