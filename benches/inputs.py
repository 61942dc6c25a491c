#!/usr/bin/env python3
"""What tracking every file a program read costs, and `npm install` of
another version of a dependency, on real monorepos.

For each corpus (../shared/corpus.sh), on a fresh copy:
  1. the dependency's first version is unpacked into node_modules from
     its npm tarball (`npm pack`, cached under benches/.npm-cache, so the
     runs read no network once cached), then a full index (`tsq index
     --embedder none`);
  2. the inputs record (.tsq/occurrence-inputs.json): files and lookup
     directories tracked;
  3. RUNS no-op syncs (`tsq index` with nothing changed): wall time, and
     the occurrence freshness check's time (`tsq -v`'s log);
  4. the second version replaces the first (the package directory
     removed and unpacked again, as npm does): one `tsq index`, with the
     files re-checked, the inputs report by rule and the time;
  5. answers equal to live: every `symbol =` answer of the files that
     import the package, from the synced index and from a fresh index of
     the same tree (`tsq clean`, `tsq index`), must be the same text.

  python3 benches/inputs.py [--runs N] [--tsq PATH] [--package NAME@V1,V2] CORPUS...

Nothing here is a test: figures go to benches/README.md.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from occurrences import fresh_copies  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(REPO, "benches", ".npm-cache")


def tarball(name, version):
    """The package's npm tarball, fetched once by `npm pack`."""
    os.makedirs(CACHE, exist_ok=True)
    base = name.replace("@", "").replace("/", "-")
    path = os.path.join(CACHE, f"{base}-{version}.tgz")
    if not os.path.exists(path):
        subprocess.run(["npm", "pack", f"{name}@{version}", "--pack-destination", CACHE, "--silent"], check=True, capture_output=True)
    return path


def install(root, name, version):
    """Replaces node_modules/NAME with the tarball's package, as an
    install of another version does (the directory is new)."""
    dest = os.path.join(root, "node_modules", *name.split("/"))
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = dest + ".unpack"
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(tarball(name, version)) as t:
        t.extractall(tmp, filter="data")
    os.rename(os.path.join(tmp, "package"), dest)
    shutil.rmtree(tmp)


def tsq(binary, root, *args, verbose=False):
    cmd = [binary, *args, "--root", root]
    env = dict(os.environ, RUST_LOG="tsq=debug") if verbose else None
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    took = time.monotonic() - t
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p.stdout, p.stderr, took


def index(binary, root, verbose=False):
    out, err, took = tsq(binary, root, "index", "--embedder", "none", "--json", *(["--verbose"] if verbose else []), verbose=verbose)
    return json.loads(out), err, took


def importers(root, name):
    """Walked files whose text imports NAME (or a subpath)."""
    pat = re.compile(r"""from\s+['"]%s(/[^'"]*)?['"]""" % re.escape(name))
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in ("node_modules", ".git", ".tsq")]
        for f in files:
            if f.endswith((".ts", ".tsx", ".mts", ".cts")):
                p = os.path.join(d, f)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    if pat.search(fh.read()):
                        out.append(os.path.relpath(p, root))
    return sorted(out)


def declarations(binary, root, files):
    """Every `symbol = FILE > NAME` of the files' top-level functions."""
    qs = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for m in re.finditer(r"^export (?:async )?function (\w+)", fh.read(), re.M):
                qs.append(f"symbol = {f} > {m.group(1)}")
    return qs


def answers(binary, root, queries):
    out = {}
    for q in queries:
        text, _, _ = tsq(binary, root, "lookup", q)
        # The header's timing and structure source vary between runs.
        out[q] = "\n".join(l for l in text.splitlines() if not l.startswith(("structure:", "index:", "took")))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tsq", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target")), "release", "tsq"))
    ap.add_argument("--package", default="@babel/types@7.25.9,7.26.10")
    ap.add_argument("corpora", nargs="+")
    a = ap.parse_args()
    name, versions = a.package.rsplit("@", 1)
    v1, v2 = versions.split(",")
    for corpus, work, root in fresh_copies(a.corpora, "tsq-inputs"):
        try:
            install(root, name, v1)
            report, _, took = index(a.tsq, root)
            occ = report.get("occurrences") or {}
            print(f"{corpus}: full index with {name}@{v1}: {took:.1f} s, {occ.get('indexed')} files")
            rec = json.load(open(os.path.join(root, ".tsq", "occurrence-inputs.json")))
            nm = sum(1 for f in rec.get("files", {}) if "node_modules/" in f)
            print(f"{corpus}: inputs recorded: {len(rec.get('files', {}))} files ({nm} under node_modules), {len(rec.get('dirs', {}))} lookup directories")
            walls, checks = [], []
            for _ in range(a.runs):
                r, err, took = index(a.tsq, root, verbose=True)
                assert (r.get("occurrences") or {}).get("indexed", 0) == 0, r
                walls.append(took)
                m = re.findall(r"occurrence freshness check.*?ms=(\d+)", err)
                if m:
                    checks.append(int(m[-1]))
            print(f"{corpus}: no-op `tsq index`: median {statistics.median(walls):.2f} s; freshness check median {statistics.median(checks) if checks else 'n/a'} ms ({a.runs} runs)")
            users = importers(root, name)
            install(root, name, v2)
            r, _, took = index(a.tsq, root)
            occ = r.get("occurrences") or {}
            rules = {}
            for c in occ.get("inputs", []):
                rules[c["rule"]] = rules.get(c["rule"], 0) + 1
            print(f"{corpus}: {name} {v1} -> {v2}: `tsq index` {took:.1f} s, {occ.get('indexed')} files re-checked ({occ.get('cascaded')} by cascade, full={occ.get('full')}); inputs changed by rule: {rules}")
            qs = declarations(a.tsq, root, users)
            synced = answers(a.tsq, root, qs)
            tsq(a.tsq, root, "clean")
            _, _, fresh_took = index(a.tsq, root)
            fresh = answers(a.tsq, root, qs)
            same = sum(1 for q in qs if synced[q] == fresh[q])
            print(f"{corpus}: answers of the {len(users)} importers of {name}: {same}/{len(qs)} equal to a fresh index's ({fresh_took:.1f} s)")
            for q in qs:
                if synced[q] != fresh[q]:
                    print(f"  differs: {q}")
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
