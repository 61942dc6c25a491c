#!/usr/bin/env python3
"""tools/call latency of `tsq serve` over real stdio.

    benches/mcp_latency.py TSQ_BINARY ROOT QUERY [QUERY ...]

Starts the server, initializes, times the first tools/call (which loads the
workspace: the cold figure) and then every query again in the warm engine,
and prints the first-call time and the warm p50/p95 (milliseconds).
"""
import json
import statistics
import subprocess
import sys
import time


def main():
    binary, root, queries = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = subprocess.Popen([binary, "serve", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ids = iter(range(1, 10_000))

    def call(method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if notify:
            p.stdin.write(json.dumps(msg) + "\n")
            p.stdin.flush()
            return None
        msg["id"] = next(ids)
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()
        while True:
            reply = json.loads(p.stdout.readline())
            if reply.get("id") == msg["id"]:
                return reply

    call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    call("notifications/initialized", notify=True)
    tool = lambda q: call("tools/call", {"name": "codebase_search", "arguments": {"query": q}})
    t = time.perf_counter()
    tool(queries[0])
    first = (time.perf_counter() - t) * 1000
    warm = []
    for q in queries:
        t = time.perf_counter()
        r = tool(q)
        warm.append((time.perf_counter() - t) * 1000)
        if r.get("result", {}).get("isError"):
            print(f"  tool error for {q!r}", file=sys.stderr)
    p.stdin.close()
    p.wait()
    warm.sort()
    p95 = warm[min(len(warm) - 1, round(0.95 * (len(warm) - 1)))]
    print(f"tools/call first (loads the workspace): {first:.0f} ms")
    print(f"tools/call warm: p50 {statistics.median(warm):.1f} ms, p95 {p95:.1f} ms over {len(warm)} calls")


if __name__ == "__main__":
    main()
