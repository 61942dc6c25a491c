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
     that are not references (false), and references grep misses;
  4. with --serve: the same edits asked of a warm `tsq serve` over MCP
     (`change_impact`), after --idle seconds idle following its first
     answer: the agent's path, whose programs stay warm.
Medians are printed beside the baseline; nothing here is a test.

  python3 benches/impact.py [--targets N] [--serve] [--idle S] [--tsq PATH] CORPUS...
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
from serve_edit import Mcp  # noqa: E402

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
    ap.add_argument("--serve", action="store_true", help="also ask a warm `tsq serve` (change_impact)")
    ap.add_argument("--idle", type=float, default=30.0, help="seconds the server is left idle after its first answer")
    ap.add_argument("--log", help="with --serve: the server's stderr to this file (set TSQ_LOG=debug for the phases)")
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
            edited = []
            for rel, fn, close, body, has_params in targets(root, args.targets):
                if done == args.targets:
                    break
                refs, defs = references(args.tsq, root, env, rel, fn)
                if not refs or not any(f != rel for f, _ in refs):
                    continue
                done += 1
                edited.append((rel, fn, close, body, has_params))
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
            if args.serve and edited:
                serve(args, env, name, root, edited)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def serve(args, env, name, root, edited):
    """The same edits through a warm `tsq serve`: seconds per change_impact."""
    log = open(args.log, "w") if args.log else subprocess.DEVNULL
    server = Mcp([args.tsq, "serve", "--root", root], env, stderr=log)
    try:
        rel0, fn0 = edited[0][0], edited[0][1]
        first, _ = server.answer(f"symbol = {rel0} > {fn0}")
        time.sleep(args.idle)
        api_s, body_s, api_n = [], [], []
        for rel, fn, close, body, has_params in edited:
            for kind, offset, insert, out in (
                ("api", close, (", " if has_params else "") + "tsqImpactProbe?: unknown", api_s),
                ("body", body, "  void 0;\n", body_s),
            ):
                edit(root, rel, offset, insert)
                s, r = server.tool("change_impact", {})
                if r.get("isError"):
                    print(f"  serve {rel} > {fn} ({kind}): error {str(r)[:300]}")
                else:
                    out.append(s)
                    if kind == "api":
                        sc = r.get("structuredContent") or {}
                        api_n.append(len(sc.get("affected", [])))
                git(root, "checkout", "--", rel)
                # Back in sync with the base before the next edit (not timed).
                server.tool("change_impact", {})
                print(f"  serve {rel} > {fn}: change_impact ({kind}) {s:.2f} s")
        med = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
        print(f"{name}: warm tsq serve (first answer {first:.2f} s, then {args.idle:.0f} s idle): change_impact median "
              f"{med(api_s):.2f} s (API edit, {med(api_n):.0f} affected), {med(body_s):.2f} s (body edit); peak {server.peak_rss_mb():.0f} MB")
    finally:
        server.close()
        if args.log:
            log.close()


if __name__ == "__main__":
    main()
