#!/usr/bin/env python3
"""The edit workflow inside `tsq serve`, over real stdio (issue 44, point 6).

    benches/serve_edits.py TSQ_BINARY ROOT [--runs N]

ROOT must hold a fresh index (`tsq index --root ROOT --embedder none`).
The server starts, and with no query asked it is left until idle (its
CPU time stops growing). Then, RUNS times each:
  1. a body-only edit (`void 0;` at the top of an exported function), and
     the edited function asked for at once (`symbol = file > fn`, full
     answer): the first one is "the first edit after start";
  2. an exported signature edit (a new optional parameter) of a file with
     about ten importers, and the same question of that file's function.
Each answer's time is printed with the structure line it carried (it must
come from the occurrence index, fresh), and the number of files the
server's sync re-indexed (its stderr log). Medians at the end. Edits are
undone before the script exits. Nothing here is a test: figures go to
benches/README.md.
"""
import argparse
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from occurrences import body_edit_target  # noqa: E402
from serve_edit import Mcp  # noqa: E402

IMPORT = re.compile(r"""(?:from|import)\s*\(?\s*['"](\.{1,2}/[^'"]+)['"]""")


def ten_importer_target(root):
    """A non-test .ts file with an exported function whose direct importers
    (relative imports, by a regex) number closest to ten: (relative path,
    function name, offset of its parameter list's `(`, importers)."""
    files = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", ".tsq") and not d.startswith("."))
        files += [os.path.join(dirpath, f) for f in names if f.endswith((".ts", ".tsx")) and not f.endswith(".d.ts")]
    importers = {}
    for f in files:
        text = open(f, encoding="utf-8", errors="replace").read()
        for spec in IMPORT.findall(text):
            base = os.path.normpath(os.path.join(os.path.dirname(f), spec))
            for cand in (base, base + ".ts", base + ".tsx", os.path.join(base, "index.ts")):
                if os.path.isfile(cand):
                    importers.setdefault(cand, set()).add(f)
                    break
    pat = re.compile(r"^export function (\w+)(\()", re.M)
    best = None
    for f, who in importers.items():
        rel = os.path.relpath(f, root)
        if "__tests__" in rel or ".spec." in rel or ".test." in rel:
            continue
        m = pat.search(open(f, encoding="utf-8", errors="replace").read())
        if m and (best is None or abs(len(who) - 10) < abs(best[3] - 10)):
            best = (rel, m.group(1), m.start(2), len(who))
    if best is None:
        raise SystemExit(f"no exported function with importers under {root}")
    return best


class Server(Mcp):
    """`tsq serve --root ROOT` (logs at info to `log`), with its CPU time
    and peak RSS read from /proc."""

    def __init__(self, binary, root, log):
        env = dict(os.environ, TSQ_EMBEDDER="none", TSQ_LOG=os.environ.get("TSQ_LOG", "info"))
        super().__init__([binary, "serve", "--root", root], env, stderr=open(log, "w"))

    def cpu(self):
        fields = open(f"/proc/{self.p.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_idle(self, quiet=3, limit=600):
        """Until the server's CPU time stops growing for `quiet` seconds."""
        t0, last, still = time.monotonic(), self.cpu(), 0
        while time.monotonic() - t0 < limit:
            time.sleep(1)
            now = self.cpu()
            still = still + 1 if now - last < 0.05 else 0
            last = now
            if still >= quiet:
                return time.monotonic() - t0
        return limit

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def reindexed(log, since):
    """Files re-indexed by the syncs logged after byte `since`."""
    text = open(log, encoding="utf-8", errors="replace").read()[since:]
    return sum(int(n) for n in re.findall(r"occurrence sync: (\d+) files re-indexed", text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("root")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    log = os.path.join("/tmp", f"serve-edits-{os.getpid()}.log")
    body_rel, body_fn, body_at = body_edit_target(root)
    sig_rel, sig_fn, sig_at, sig_importers = ten_importer_target(root)
    originals = {rel: open(os.path.join(root, rel), encoding="utf-8").read() for rel in (body_rel, sig_rel)}
    print(f"body-only edits: {body_rel} > {body_fn}; signature edits: {sig_rel} > {sig_fn} ({sig_importers} direct importers)")
    s = Server(args.binary, root, log)
    results = {"body": [], "signature": []}
    try:
        idle = s.wait_idle()
        print(f"server idle after {idle:.0f} s with no query asked (peak RSS {s.peak_rss_mb():.0f} MB)")
        for run in range(args.runs):
            for kind, rel, fn in (("body", body_rel, body_fn), ("signature", sig_rel, sig_fn)):
                path = os.path.join(root, rel)
                text = open(path, encoding="utf-8").read()
                if kind == "body":
                    text = text[:body_at] + "  void 0;\n" + text[body_at:]
                else:
                    text = text[: sig_at + 1] + f"tsqExtra{run}?: number, " + text[sig_at + 1 :]
                since = os.path.getsize(log)
                open(path, "w", encoding="utf-8").write(text)
                secs, line = s.ask(f"symbol = {rel} > {fn}")
                time.sleep(0.2)
                files = reindexed(log, since)
                results[kind].append((secs, files))
                print(f"run {run + 1}, {kind} edit: answered in {secs:.2f} s, {files} files re-indexed; {line}")
                s.wait_idle()
        print(f"peak RSS of the server: {s.peak_rss_mb():.0f} MB")
    finally:
        s.close()
        for rel, text in originals.items():
            open(os.path.join(root, rel), "w", encoding="utf-8").write(text)
    for kind, xs in results.items():
        if xs:
            print(f"{kind} edit: first {xs[0][0]:.2f} s, median {statistics.median(x[0] for x in xs):.2f} s, files re-indexed {[x[1] for x in xs]}")


if __name__ == "__main__":
    main()
