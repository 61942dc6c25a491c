#!/usr/bin/env python3
"""The occurrence index on real monorepos, beside its peer in the same run.

For each corpus (../shared/corpus.sh), on a fresh copy:
  1. full index: `tsq index --embedder none` (chunks, then the occurrence
     index with every declaration's answer parts; QuickJS) and
     scip-typescript (Node) over the same projects: wall time, peak RSS;
     and the same occurrence pass on V8 (`benches/node-occurrences.js`:
     Node running tsq's own typescript.js and js/ over the same requests),
     whose rows must number tsq's;
     then bare-name lookups (`tsq lookup 'symbol = NAME'`, a fresh process
     on the fresh index: the first answer a user gets) of --names;
  2. the edit workflow, RUNS times each: a body-only edit (`void 0;` at the
     top of a function body), sync (`tsq index`), ask again (`tsq lookup`
     of the edited function, full answer, from the rows); then an exported
     signature edit and its sync. Reports files re-indexed, sync seconds and
     the relations answer's seconds (medians).

  python3 benches/occurrences.py [--runs N] [--tsq PATH] [--scip PATH] CORPUS...

scip-typescript: `npm install @sourcegraph/scip-typescript` somewhere and
pass --scip node_modules/.bin/scip-typescript (skipped, with a note, when
absent). Nothing here is a test: figures go to benches/README.md.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus_dirs(names):
    """NAME -> directory: ../shared/corpus.sh's corpora, `desktop` from
    benches/app-corpus.sh (the large React app), and NAME=DIR as given."""
    given = dict(n.split("=", 1) for n in names if "=" in n)
    listed = [n for n in names if "=" not in n]
    out = subprocess.run(["bash", os.path.join(REPO, "../shared/corpus.sh"), *[n for n in listed if n != "desktop"]], capture_output=True, text=True, check=True).stdout
    if "desktop" in listed:
        out += subprocess.run(["bash", os.path.join(REPO, "benches/app-corpus.sh")], capture_output=True, text=True, check=True).stdout
    return {**dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line), **given}


def fresh_copies(names, prefix):
    """(name, work dir, root) of a fresh copy of each available corpus,
    without its index; the caller removes the work dir."""
    dirs = corpus_dirs(names)
    for name in (n.split("=", 1)[0] for n in names):
        if name not in dirs:
            print(f"{name}: not available (fetch its snapshot first)", file=sys.stderr)
            continue
        work = tempfile.mkdtemp(prefix=f"{prefix}-{name}-")
        root = os.path.join(work, name)
        shutil.copytree(dirs[name], root, ignore=shutil.ignore_patterns(".tsq"))
        yield name, work, root


def timed(cmd, cwd=None, env=None):
    """Runs cmd under GNU time: (seconds, peak RSS MB, stdout, returncode)."""
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "TSQRSS %M", *cmd], cwd=cwd, env=env, capture_output=True, text=True)
    secs = time.monotonic() - t
    rss = re.findall(r"TSQRSS (\d+)", p.stderr)
    if p.returncode != 0:
        sys.stderr.write(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-3000:]}\n")
    return secs, int(rss[-1]) / 1024 if rss else 0.0, p.stdout, p.returncode


def body_edit_target(root):
    """The first non-test .ts file with an exported function whose body can
    take a statement: (relative path, function name, insert offset)."""
    pat = re.compile(r"^export function (\w+)\([^)]*\)[^{\n]*\{\n", re.M)
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", ".tsq", "__tests__", "test", "tests", "examples") and not d.startswith("."))
        for f in sorted(files):
            if not f.endswith(".ts") or f.endswith(".d.ts") or ".test." in f or ".spec." in f:
                continue
            p = os.path.join(dirpath, f)
            text = open(p, encoding="utf-8", errors="replace").read()
            m = pat.search(text)
            if m:
                return os.path.relpath(p, root), m.group(1), m.end()
    raise SystemExit(f"no function to edit under {root}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tsq", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "/var/tmp/tsq-target"), "release/tsq"))
    ap.add_argument("--scip", default="/var/tmp/scip/node_modules/.bin/scip-typescript")
    ap.add_argument("--names", default="sleep,MyComponent,createRouter,ref,useQuery", help="bare names to look up after the full index")
    args = ap.parse_args()
    env = dict(os.environ, TSQ_EMBEDDER="none")
    dirs = corpus_dirs(args.corpora)
    rows = []
    for name, work, root in fresh_copies(args.corpora, "tsq-occ"):
        row = {"corpus": name}
        secs, rss, out, rc = timed([args.tsq, "index", "--root", root, "--embedder", "none", "--json"], env=env)
        rep = json.loads(out)["occurrences"] if rc == 0 else {}
        row.update(full_s=secs, full_rss=rss, files=rep.get("indexed"), rows=rep.get("occurrences"), failed=len(rep.get("failed", [])))
        if os.path.exists(args.scip):
            scip_root = os.path.join(work, "scip-copy")
            shutil.copytree(dirs[name], scip_root, ignore=shutil.ignore_patterns(".tsq"))
            # The projects tsq loads: every tsconfig.json (scip-typescript
            # follows their references; its pnpm mode needs pnpm and a
            # pnpm-workspace.yaml, which the corpus copies lack).
            projects = sorted(
                os.path.relpath(d, scip_root)
                for d, dirnames, files in os.walk(scip_root)
                if "tsconfig.json" in files and not dirnames.__setitem__(slice(None), [x for x in dirnames if x not in ("node_modules", ".tsq") and not x.startswith(".")])
            )
            s, r, _, src = timed(["node", "--max-old-space-size=4096", args.scip, "index", "--no-progress-bar", "--output", os.path.join(work, "index.scip"), *projects], cwd=scip_root)
            row.update(scip_s=s if src == 0 else None, scip_rss=r)
        # The same pass on V8, on the copy tsq indexed (its .tsq is skipped).
        s, r, out, nrc = timed(["node", "--expose-gc", "--stack-size=7000", os.path.join(REPO, "benches/node-occurrences.js"), os.path.join(REPO, "vendor-typescript/lib/typescript.js"), os.path.join(REPO, "js"), root])
        node = json.loads(out) if nrc == 0 else {}
        row.update(node_s=node.get("passSeconds"), node_rss=r if nrc == 0 else None, node_rows=node.get("rows"))
        if nrc == 0 and node.get("rows") != row["rows"]:
            print(f"{name}: the pass on V8 wrote {node.get('rows')} rows, tsq {row['rows']}", file=sys.stderr)
        looks = []
        for n in args.names.split(","):
            s, _, out, rc = timed([args.tsq, "lookup", f"symbol = {n}", "--root", root, "--json"], env=env)
            if rc == 0:
                header = json.loads(out).get("text", "").split("\n", 1)[0]
                looks.append(f"{n} {s:.2f} s{' (rows)' if 'from the occurrence index' in header else ' (live)'}")
        row.update(lookups="; ".join(looks) or "none found")
        rel, fn, at = body_edit_target(root)
        path = os.path.join(root, rel)
        original = open(path, encoding="utf-8").read()
        body, sig, ask = [], [], []
        for i in range(args.runs):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(original[:at] + "  void 0;\n" * (i + 1) + original[at:])
            s, _, out, _ = timed([args.tsq, "index", "--root", root, "--embedder", "none", "--json"], env=env)
            o = json.loads(out)["occurrences"]
            body.append((s, o["indexed"], o["cascaded"]))
            s, _, out, rc = timed([args.tsq, "lookup", f"symbol = {rel} > {fn}", "--root", root, "--json"], env=env)
            header = json.loads(out).get("text", "").split("\n", 1)[0] if rc == 0 else ""
            if "occurrence index" not in header:
                print(f"{name}: the lookup after the edit was not answered from the rows: {header}", file=sys.stderr)
            ask.append(s)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(original.replace(f"export function {fn}(", f"export function {fn}(this: void, ", 1))
        s, _, out, _ = timed([args.tsq, "index", "--root", root, "--embedder", "none", "--json"], env=env)
        o = json.loads(out)["occurrences"]
        sig.append((s, o["indexed"], o["cascaded"]))
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(original)
        row.update(
            edited=f"{rel} > {fn}",
            body_files=statistics.median(b[1] for b in body),
            body_s=statistics.median(b[0] for b in body),
            ask_s=statistics.median(ask),
            sig_files=sig[0][1],
            sig_cascaded=sig[0][2],
            sig_s=sig[0][0],
        )
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
    print("| corpus | files | rows | full index (QuickJS) | peak RSS | the same pass on V8 (Node) | scip-typescript (Node) | ratio | body-only edit: files, sync | lookup after it | exported-signature edit: files, sync |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        scip = f"{r['scip_s']:.0f} s, {r['scip_rss']:.0f} MB" if r.get("scip_s") else "n/a"
        ratio = f"{r['full_s'] / r['scip_s']:.1f}×" if r.get("scip_s") else "n/a"
        v8 = f"{r['node_s']:.0f} s, {r['node_rss']:.0f} MB, {r['node_rows']:,} rows" if r.get("node_s") else "n/a"
        print(
            f"| {r['corpus']} | {r['files']} | {r['rows']:,} | {r['full_s']:.0f} s | {r['full_rss']:.0f} MB | {v8} | {scip} | {ratio} | "
            f"{r['body_files']:.0f}, {r['body_s']:.1f} s | {r['ask_s']:.2f} s | {r['sig_files']} ({r['sig_cascaded']} importers), {r['sig_s']:.1f} s |"
        )
    print()
    for r in rows:
        print(f"{r['corpus']}: first bare-name lookups: {r['lookups']}")


if __name__ == "__main__":
    main()
