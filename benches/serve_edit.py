#!/usr/bin/env python3
"""The edit workflow inside a warm `tsq serve`, beside fresh processes.

An agent edits a file and asks again through the MCP server it already
runs. For each corpus (../shared/corpus.sh), on a fresh copy with a full
index (`tsq index --embedder none`):
  1. start `tsq serve` (MCP over stdio, newline-delimited JSON-RPC, as any
     MCP client speaks it), ask `symbol = FILE > FN` (the first answer);
  2. wait --idle seconds (the server's background work when idle);
  3. RUNS times: a body-only edit of FN (`void 0;` at the top of its body),
     then the same question at once: seconds until the fresh answer, and
     the files the answer says were re-indexed first;
  4. the same edits, each followed by a `tsq lookup` process while the
     server runs: the command is handed to the warm server (src/handoff.rs);
  5. the same edits, each followed by a fresh `tsq lookup --local` process
     once the server is gone (the CLI path, no warm program): the
     baseline, in the same run.
Peak RSS of the server is read from /proc at the end. Nothing here is a
test; figures go to benches/README.md.

  python3 benches/serve_edit.py [--runs N] [--idle S] [--tsq PATH] CORPUS...
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
from occurrences import body_edit_target, fresh_copies, timed  # noqa: E402


class Mcp:
    """A minimal MCP client over a child's stdio (protocol only on stdout)."""

    def __init__(self, cmd, env, stderr=subprocess.DEVNULL):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env, text=True, bufsize=1)
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "serve_edit.py", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"tsq serve ended during {method}")
            msg = json.loads(line)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise SystemExit(f"{method}: {msg['error']}")
                return msg["result"]

    def tool(self, name, arguments):
        """(seconds, the call's result) of one tools/call."""
        t = time.monotonic()
        r = self.call("tools/call", {"name": name, "arguments": arguments})
        return time.monotonic() - t, r

    def answer(self, query):
        """(seconds, the answer's text)."""
        secs, r = self.tool("codebase_search", {"query": query})
        text = "".join(c.get("text", "") for c in r.get("content", []) if c.get("type") == "text")
        if r.get("isError"):
            raise SystemExit(f"{query}: {text[:500]}")
        return secs, text

    def ask(self, query):
        """(seconds, the answer's structure line)."""
        secs, text = self.answer(query)
        return secs, header_of(text)

    def peak_rss_mb(self):
        try:
            status = open(f"/proc/{self.p.pid}/status").read()
            return int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024
        except (OSError, AttributeError):
            return 0.0

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()


def header_of(text):
    """The answer's structure line (where its structure came from)."""
    return next((l for l in text.splitlines() if "structure:" in l), text.split("\n", 1)[0])


def reindexed(header):
    m = re.search(r"\((\d+) files re-indexed first\)", header)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--idle", type=float, default=60.0, help="seconds the server is left idle after its first answer")
    ap.add_argument("--tsq", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "/var/tmp/tsq-target"), "release/tsq"))
    args = ap.parse_args()
    env = dict(os.environ, TSQ_EMBEDDER="none")
    rows = []
    for name, work, root in fresh_copies(args.corpora, "tsq-serve"):
        full_s, full_rss, _, rc = timed([args.tsq, "index", "--root", root, "--embedder", "none", "--json"], env=env)
        if rc != 0:
            raise SystemExit(f"{name}: tsq index failed")
        rel, fn, at = body_edit_target(root)
        query = f"symbol = {rel} > {fn}"
        path = os.path.join(root, rel)
        original = open(path, encoding="utf-8").read()

        def edit(i):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(original[:at] + "  void 0;\n" * (i + 1) + original[at:])

        server = Mcp([args.tsq, "serve", "--root", root], env)
        first_s, first_header = server.ask(query)
        time.sleep(args.idle)
        warm, files, headers = [], [], []
        for i in range(args.runs):
            edit(i)
            s, h = server.ask(query)
            warm.append(s)
            files.append(reindexed(h))
            headers.append(h)
        handed = []
        for i in range(args.runs):
            edit(args.runs + i)
            t0 = time.time()
            p = subprocess.run([args.tsq, "lookup", query, "--root", root, "--json"], env=dict(env, TSQ_LOG="debug"), capture_output=True, text=True)
            s = time.time() - t0
            if p.returncode == 0 and "answered by the tsq serve" in p.stderr:
                handed.append(s)
            else:
                print(f"{name}: a lookup beside the server was not handed to it (exit {p.returncode})", file=sys.stderr)
        rss = server.peak_rss_mb()
        server.close()
        cold = []
        for i in range(args.runs):
            edit(2 * args.runs + i)
            s, _, out, rc = timed([args.tsq, "--local", "lookup", query, "--root", root, "--json"], env=env)
            if rc == 0:
                cold.append(s)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(original)
        if any("occurrence index" not in h for h in headers):
            print(f"{name}: an answer after an edit was not served from the rows: {headers}", file=sys.stderr)
        row = dict(
            corpus=name,
            edited=f"{rel} > {fn}",
            full_s=full_s,
            full_rss=full_rss,
            first_s=first_s,
            first=first_header,
            warm_s=statistics.median(warm),
            warm_max=max(warm),
            files=statistics.median(files),
            cold_s=statistics.median(cold) if cold else None,
            handed_s=statistics.median(handed) if handed else None,
            handed_max=max(handed) if handed else None,
            serve_rss=rss,
        )
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
    print("| corpus | edited | first answer (serve) | edit → fresh answer, warm `tsq serve` (median, max) | files re-indexed | edit → fresh answer, `tsq lookup` handed to the server (median, max) | edit → fresh answer, fresh `tsq lookup --local` process (median) | serve peak RSS |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cold = f"{r['cold_s']:.2f} s" if r["cold_s"] is not None else "n/a"
        handed = f"{r['handed_s']:.2f} s, {r['handed_max']:.2f} s" if r["handed_s"] is not None else "n/a"
        print(f"| {r['corpus']} | `{r['edited']}` | {r['first_s']:.2f} s | {r['warm_s']:.2f} s, {r['warm_max']:.2f} s | {r['files']:.0f} | {handed} | {cold} | {r['serve_rss']:.0f} MB |")


if __name__ == "__main__":
    main()
