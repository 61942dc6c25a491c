#!/usr/bin/env python3
"""The first answer on a fresh clone (issue 75): `tsq serve` on a copy with
no index, one `codebase_search` sent as soon as the server is initialized.

    python3 benches/first_answer.py [--tsq PATH] [--scip PATH] [--query Q]
                                    [--limit SECONDS] CORPUS...

CORPUS is a name `../shared/corpus.sh` or `benches/app-corpus.sh` knows, or
a directory. For each, on a fresh copy (no `.tsq`):

- the time to the first answer and the answer's first lines (its header:
  what the index held when it answered);
- the time at which the index is complete (every walked file parsed, every
  chunk that gets a vector has one, the occurrence index covers every
  file), polled with `tsq status --json` from a second process;
- the server's peak resident memory (VmHWM, read before it exits);
- beside it, scip-typescript's wall time on the same copy (the projects tsq
  loads), when `--scip` exists.

Figures go to benches/README.md ("The first answer on a fresh clone").
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_edit import Mcp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
QUERY = "where is a request retried or cancelled?"


def corpus_dir(name):
    if os.path.isdir(name):
        return os.path.abspath(name)
    for script in (os.path.join(HERE, "..", "..", "shared", "corpus.sh"), os.path.join(HERE, "app-corpus.sh"), os.path.join(HERE, "js-corpus.sh")):
        if not os.path.exists(script):
            continue
        out = subprocess.run([script, name], capture_output=True, text=True).stdout
        for line in out.splitlines():
            n, _, d = line.partition("\t")
            if n == name and d:
                return d
    sys.exit(f"first_answer: no corpus {name!r} (not a directory, and no corpus script knows it)")


class Server(Mcp):
    """`tsq serve --root ROOT` over real stdio (serve_edit.py's client),
    with its peak resident memory sampled meanwhile."""

    def __init__(self, tsq, root, log):
        self.peak_kb = 0
        self.done = False
        super().__init__([tsq, "serve", "--root", root], dict(os.environ), stderr=log)
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self):
        # VmHWM is the kernel's own high-water mark; sampled so that it is
        # known even if the process dies before the end.
        while not self.done:
            self.peak_kb = max(self.peak_kb, hwm_kb(self.p.pid))
            time.sleep(0.5)

    def close(self):
        self.peak_kb = max(self.peak_kb, hwm_kb(self.p.pid))
        self.done = True
        super().close()


def hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def status(tsq, root):
    out = subprocess.run([tsq, "status", "--json", "--root", root], capture_output=True, text=True)
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return None


def complete(s, walked):
    if not s or not isinstance(s, dict) or s.get("files", 0) < walked:
        return False
    cur, total = s.get("structure", [0, 1])
    vectors_done = s.get("embedder") == "none" or s.get("vectors", 0) >= s.get("embeddable", 1)
    return vectors_done and total > 0 and cur >= total


def walked_files(tsq, root):
    """Files `tsq index` would walk: `tsq files --json` when it exists,
    else the TypeScript and JavaScript sources outside node_modules."""
    exts = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
    n = 0
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in ("node_modules", ".git", ".tsq")]
        n += sum(1 for f in files if f.endswith(exts))
    return n


def scip_seconds(scip, root):
    if not os.path.exists(scip):
        return None
    copy = root + "-scip"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".tsq"))
    projects = [os.path.relpath(d, copy) for d, dirs, files in os.walk(copy) if "tsconfig.json" in files and "node_modules" not in d]
    t = time.perf_counter()
    subprocess.run([scip, "index", "--output", os.path.join(copy, "index.scip"), *projects], cwd=copy, capture_output=True)
    return time.perf_counter() - t


def run(args, name):
    src = corpus_dir(name)
    work = tempfile.mkdtemp(prefix=f"tsq-first-{os.path.basename(name)}-")
    root = os.path.join(work, "copy")
    shutil.copytree(src, root, ignore=shutil.ignore_patterns(".tsq"), symlinks=True)
    walked = walked_files(args.tsq, root)
    log = open(os.path.join(work, "serve.log"), "w")
    t0 = time.perf_counter()
    server = Server(args.tsq, root, log)
    first, text = server.answer(args.query)
    head = [l for l in text.splitlines() if l.strip()][: args.header_lines]
    # A second answer once the first is in: what the next question sees.
    second, _ = server.answer(args.query)
    done_at = None
    while time.perf_counter() - t0 < args.limit:
        if complete(status(args.tsq, root), walked):
            done_at = time.perf_counter() - t0
            break
        time.sleep(2)
    server.close()
    log.close()
    scip = scip_seconds(args.scip, root)
    print(f"== {name}: {walked} source files")
    print(f"  first answer: {first:.1f} s; the second: {second:.1f} s")
    for line in head:
        print(f"    | {line[:160]}")
    print(f"  index complete: {'%.0f s' % done_at if done_at else 'not within %d s' % args.limit} after start")
    print(f"  peak RSS (tsq serve): {server.peak_kb / 1024:.0f} MB")
    print(f"  scip-typescript on the same copy: {'%.0f s' % scip if scip is not None else 'not run (no --scip)'}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tsq", default="/var/tmp/tsq-target/release/tsq")
    ap.add_argument("--scip", default="/var/tmp/scip/node_modules/.bin/scip-typescript")
    ap.add_argument("--query", default=QUERY)
    ap.add_argument("--limit", type=float, default=1800, help="seconds to wait for a complete index")
    ap.add_argument("--header-lines", type=int, default=6)
    ap.add_argument("--keep", action="store_true", help="keep the copies and the server logs")
    ap.add_argument("corpora", nargs="+")
    args = ap.parse_args()
    for name in args.corpora:
        run(args, name)


if __name__ == "__main__":
    main()
