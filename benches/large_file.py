#!/usr/bin/env python3
"""The large-file probe (issue 75, item 4): how a whole `tsq index` grows
with one large file, so that growth is seen at a glance.

    python3 benches/large_file.py [--tsq PATH] [--embedder none|local]
                                  [--shape class|nested]... [--sizes N,N,...]

Two generated shapes, each alone in a fresh workspace with a strict
tsconfig:

- `class`: one exported class of N methods, each with a JSDoc comment,
  writing a field and calling the next method (5 lines each);
- `nested`: N functions, each declared inside the one before and calling
  the next (the shape of a deep component closure).

For each size: the wall time of `tsq index --json` (one run; the machine
should be idle), its peak resident memory (wait4's ru_maxrss, the whole
process), the peak of each phase and the occurrence pass's outcome from
the JSON, and the time per 1,000 units with its ratio to the smallest
size's: a cost linear in the file keeps the ratio near 1.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def class_file(n):
    out = ["export class Big {", "  private v = 0;"]
    for i in range(n):
        nxt = f"this.m{i + 1}()" if i + 1 < n else "0"
        out.append(f"  /** Method {i}: adds {i} and asks the next one. */\n  m{i}(): number {{\n    this.v += {i};\n    return this.v + {nxt};\n  }}")
    out.append("}")
    return "\n".join(out) + "\n"


def nested_file(n):
    out = []
    for i in range(n):
        out.append(f"export function f{i}(x: number): number {{" if i == 0 else f"function f{i}(x: number): number {{")
    for i in reversed(range(n)):
        call = f"f{i + 1}(x + 1)" if i + 1 < n else "x"
        out.append(f"return {call};\n}}")
    return "\n".join(out) + "\n"


SHAPES = {"class": class_file, "nested": nested_file}


def run(tsq, shape, n, embedder):
    ws = tempfile.mkdtemp(prefix=f"tsq-large-{shape}{n}-")
    try:
        os.makedirs(os.path.join(ws, "src"))
        with open(os.path.join(ws, "tsconfig.json"), "w") as f:
            f.write('{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext" }, "include": ["src"] }\n')
        text = SHAPES[shape](n)
        with open(os.path.join(ws, "src", "big.ts"), "w") as f:
            f.write(text)
        env = dict(os.environ, TSQ_EMBEDDER=embedder)
        started = time.monotonic()
        p = subprocess.Popen([tsq, "index", "--json", "--root", ws], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        out, _ = p.communicate()
        seconds = time.monotonic() - started
        try:
            report = json.loads(out)
        except ValueError:
            report = {}
        return {"shape": shape, "n": n, "lines": text.count("\n"), "seconds": seconds, "exit": p.returncode, "report": report}
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def peak_of(tsq, shape, n, embedder):
    """One run in a child Python so that RUSAGE_CHILDREN is this run's alone."""
    code = (
        "import json,sys,resource;sys.path.insert(0,%r);import large_file as m;"
        "r=m.run(%r,%r,%d,%r);r['peak_mb']=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss//1024;print(json.dumps(r))"
    ) % (HERE, tsq, shape, n, embedder)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tsq", default=os.environ.get("TSQ", "/var/tmp/tsq-target/release/tsq"))
    ap.add_argument("--embedder", default="none")
    ap.add_argument("--shape", action="append", choices=sorted(SHAPES))
    ap.add_argument("--sizes", default="")
    args = ap.parse_args()
    shapes = args.shape or ["class", "nested"]
    default_sizes = {"class": [1000, 2000, 4000], "nested": [500, 1000, 1500]}
    print("| shape | N | lines | `tsq index` | per 1,000 | ratio | peak RSS | phase peaks (chunks/embed/occurrences) | occurrence pass |")
    print("|---|---|---|---|---|---|---|---|---|")
    for shape in shapes:
        sizes = [int(s) for s in args.sizes.split(",") if s] or default_sizes[shape]
        base = None
        for n in sizes:
            r = peak_of(args.tsq, shape, n, args.embedder)
            per = r["seconds"] / n * 1000
            base = base or per
            rep = r["report"]
            peaks = rep.get("peakMb") or {}
            occ = rep.get("occurrences") or {}
            failed = occ.get("failed") or []
            outcome = f"{occ.get('indexed', '?')} indexed" + (f", {len(failed)} stopped: {failed[0][1][:60]}" if failed else "")
            print(
                f"| {shape} | {n:,} | {r['lines']:,} | {r['seconds']:.1f} s | {per:.2f} s | {per / base:.2f} | {r['peak_mb']:,} MB "
                f"| {peaks.get('chunks', '?')}/{peaks.get('embed', '?')}/{peaks.get('occurrences', '?')} MB | {outcome}{'' if r['exit'] == 0 else ' (exit %d)' % r['exit']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
