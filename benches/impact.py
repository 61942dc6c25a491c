#!/usr/bin/env python3
"""`tsq impact` on real corpora, beside what an agent does now: `git diff`
then a grep of the changed names.

For each corpus (../shared/corpus.sh), on a fresh copy committed to a new
git repository and indexed (`tsq index --embedder none`), for each of
--targets exported functions (one per file, referenced from another file):
  1. an API edit (an optional parameter added), `tsq impact --json`
     timed (the sync included), then the edit undone;
  2. a body-only edit (`void 0;` at the top of the body), the same (the
     index is brought back to the base, untimed, before each edit);
  3. the baseline: `git diff --name-only` plus `grep -rnw NAME` over the
     sources, timed; its hits are compared with the compiler's references
     to the function (`tsq relations`, from the occurrence rows): hits
     that are not references (false), and references grep misses.
Medians are printed beside the baseline; nothing here is a test.

  python3 benches/impact.py [--targets N] [--tsq PATH] CORPUS...
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from occurrences import fresh_copies, timed  # noqa: E402

SKIP_DIRS = ("node_modules", ".tsq", ".git", "__tests__", "test", "tests", "examples", "dist")
EXTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def git(root, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x.invalid", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x.invalid")
    return subprocess.run(["git", "-C", root, *args], check=True, capture_output=True, text=True, env=env).stdout


def targets(root, n):
    """Up to n (relative path, name, params end offset, body offset, has
    parameters) of
    exported functions with simple parameter lists, one per file."""
    pat = re.compile(r"^export function (\w+)\(([^)]*)\)[^{\n]*\{\n", re.M)
    out = []
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(files):
            if not f.endswith(".ts") or f.endswith(".d.ts") or ".test." in f or ".spec." in f:
                continue
            p = os.path.join(dirpath, f)
            text = open(p, encoding="utf-8", errors="replace").read()
            for m in pat.finditer(text):
                out.append((os.path.relpath(p, root), m.group(1), m.start(2) + len(m.group(2)), m.end(), bool(m.group(2).strip())))
                break
    # Spread over the corpus: every k-th file.
    step = max(1, len(out) // max(1, n * 3))
    return out[::step]


def grep(root, name):
    """(seconds, {(file, line)}) of `git diff --name-only` + `grep -rnw name`."""
    t = time.monotonic()
    git(root, "diff", "--name-only")
    cmd = ["grep", "-rnw", "--exclude-dir=node_modules", "--exclude-dir=.tsq", "--exclude-dir=.git"]
    cmd += [f"--include=*{e}" for e in EXTS]
    p = subprocess.run(cmd + [name, "."], cwd=root, capture_output=True, text=True)
    secs = time.monotonic() - t
    hits = set()
    for line in p.stdout.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2 and parts[1].isdigit():
            hits.add((parts[0][2:] if parts[0].startswith("./") else parts[0], int(parts[1])))
    return secs, hits


def references(tsq, root, env, rel, name):
    """{(file, line)} of the compiler's references to rel > name, and its
    definition lines."""
    p = subprocess.run([tsq, "relations", f"symbol = {rel} > {name}", "--root", root, "--json"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return None, set()
    v = json.loads(p.stdout)
    refs, defs = set(), set()
    for m in v.get("matches", []):
        for f in m["references"]["files"]:
            for line in f["lines"]:
                refs.add((f["filePath"], line))
        defs.add((m["symbol"].get("filePath"), m["symbol"].get("line")))
    return refs, defs


def edit(root, rel, offset, insert):
    p = os.path.join(root, rel)
    text = open(p, encoding="utf-8").read()
    open(p, "w", encoding="utf-8").write(text[:offset] + insert + text[offset:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--targets", type=int, default=5)
    ap.add_argument("--tsq", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "/var/tmp/tsq-target"), "release/tsq"))
    args = ap.parse_args()
    env = dict(os.environ, TSQ_EMBEDDER="none")
    for name, work, root in fresh_copies(args.corpora, "tsq-impact"):
        try:
            git(root, "init", "-q")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "base")
            secs, rss, _, rc = timed([args.tsq, "index", "--root", root, "--embedder", "none", "--json"], env=env)
            print(f"{name}: index {secs:.1f} s, peak {rss:.0f} MB")
            api_s, body_s, grep_s, affected, hits, false, missed, refs_n = [], [], [], [], [], [], [], []
            done = 0
            for rel, fn, close, body, has_params in targets(root, args.targets):
                if done == args.targets:
                    break
                refs, defs = references(args.tsq, root, env, rel, fn)
                if not refs or not any(f != rel for f, _ in refs):
                    continue
                done += 1
                edit(root, rel, close, (", " if has_params else "") + "tsqImpactProbe?: unknown")
                s, _, out, rc = timed([args.tsq, "impact", "--root", root, "--json"], env=env)
                if rc == 0:
                    api_s.append(s)
                    affected.append(len(json.loads(out)["affected"]))
                g, h = grep(root, fn)
                grep_s.append(g)
                git(root, "checkout", "--", rel)
                # Back in sync with the base before the next edit (not timed).
                subprocess.run([args.tsq, "impact", "--root", root, "--json"], capture_output=True, env=env)
                edit(root, rel, body, "  void 0;\n")
                s, _, out, rc = timed([args.tsq, "impact", "--root", root, "--json"], env=env)
                if rc == 0:
                    body_s.append(s)
                git(root, "checkout", "--", rel)
                subprocess.run([args.tsq, "impact", "--root", root, "--json"], capture_output=True, env=env)
                h = {x for x in h if x not in defs}
                hits.append(len(h))
                false.append(len(h - refs))
                missed.append(len(refs - h))
                refs_n.append(len(refs))
                print(f"  {rel} > {fn}: impact api {api_s[-1] if api_s else float('nan'):.2f} s, body {body_s[-1] if body_s else float('nan'):.2f} s; "
                      f"grep {g * 1000:.0f} ms, {len(h)} hits ({len(h - refs)} not references), {len(refs - h)} of {len(refs)} references missed")
            med = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
            print(f"{name}: {done} targets; tsq impact median {med(api_s):.2f} s (API edit), {med(body_s):.2f} s (body edit), "
                  f"{med(affected):.0f} affected; git diff + grep median {med(grep_s) * 1000:.0f} ms, {med(hits):.0f} hits, "
                  f"{med(false):.0f} false, {med(missed):.0f} of {med(refs_n):.0f} references missed")
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
