#!/usr/bin/env python3
"""The first answers after an upgrade, inside `tsq serve`, beside a fresh CLI process.

An upgrade changes tsq's engine, so its occurrence rows are recomputed
for every file, which takes minutes on a monorepo. On a workspace that
is already indexed (`tsq index`), this script:
  1. writes another engine's fingerprint into `.tsq/occurrences-layout`,
     which is what an upgrade leaves;
  2. starts `tsq serve` (MCP over stdio) and asks a `symbol =` question
     and a question in natural language. It records the seconds to each
     answer and whether the answer says the index is being refreshed;
  3. asks the symbol question again every --every seconds until it is
     answered from the occurrence index, which the background worker
     rebuilt meanwhile. It reports each answer's seconds and the time
     until the rows were fresh;
  4. as the baseline, in the same run, stales the layout again and asks
     the same symbol question with a fresh `tsq lookup` process. The CLI
     re-indexes every file before it answers, and so did `tsq serve`
     before this change.

Nothing here is a test; figures go to benches/README.md.

  python3 benches/serve_upgrade.py --root DIR --symbol "symbol = FILE > NAME" --question "..." [--tsq PATH]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_edit import Mcp  # noqa: E402

REFRESHING = "being refreshed in the background"


def stale(root):
    with open(os.path.join(root, ".tsq", "occurrences-layout"), "w") as f:
        f.write("another engine\n")


def ask(mcp, query):
    """(seconds, whether the answer says the rows are being refreshed)."""
    secs, text = mcp.answer(query)
    return secs, REFRESHING in text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--symbol", required=True)
    ap.add_argument("--question", required=True)
    ap.add_argument("--every", type=float, default=10.0)
    ap.add_argument("--tsq", default=os.environ.get("TSQ", "tsq"))
    a = ap.parse_args()
    env = dict(os.environ)

    stale(a.root)
    started = time.monotonic()
    mcp = Mcp([a.tsq, "serve", "--root", a.root], env)
    first, r1 = ask(mcp, a.symbol)
    nl, r2 = ask(mcp, a.question)
    print(f"serve: first `symbol =` answer {first:.1f} s (says refreshing: {r1}); natural language {nl:.1f} s (says refreshing: {r2})")
    during = []
    while True:
        time.sleep(a.every)
        secs, refreshing = ask(mcp, a.symbol)
        if not refreshing:
            fresh_at = time.monotonic() - started
            print(f"serve: answered from the rebuilt rows {fresh_at:.0f} s after start ({secs:.2f} s for that answer)")
            break
        during.append(secs)
    if during:
        print(f"serve: {len(during)} answers while the rows were rebuilt: median {statistics.median(during):.1f} s, max {max(during):.1f} s")
    print(f"serve: peak RSS {mcp.peak_rss_mb():.0f} MB")
    mcp.close()

    stale(a.root)
    t = time.monotonic()
    p = subprocess.run([a.tsq, "lookup", "--root", a.root, a.symbol], capture_output=True, text=True, env=env)
    secs = time.monotonic() - t
    print(f"fresh `tsq lookup` process (re-indexes before it answers): {secs:.1f} s, rc={p.returncode}")


if __name__ == "__main__":
    main()
