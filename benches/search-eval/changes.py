#!/usr/bin/env python3
"""Change-localization sets from a monorepo's own history (issue 45).

For each corpus monorepo (vue, trpc, tanstack), the most recent commits
before the pinned commit that ../shared/corpus.sh checks out become
questions: "where would this change go?". The query is the commit subject
without its `type(scope):` prefix and its `(#123)` suffix; the truth is
the non-test source files the commit changed, kept only where they exist
at the pinned commit (and inside `packages/`, the part of the repository
`tsq-bench` copies). Commits that are releases, docs, CI, chores, tests or
formatting, that change no kept file, or more than 5, are left out.

    python3 benches/search-eval/changes.py [--per-repo 40]
    python3 benches/search-eval/changes.py --skip 40 --per-repo 200 --set train vue trpc
    python3 benches/search-eval/changes.py --skip 40 --per-repo 200 --set more tanstack

writes benches/search-eval/changes-<repo>.jsonl (with `--set S`,
changes-S-<repo>.jsonl: the next older commits after the first `--skip`
questions, so a larger set never shares a commit with the 40), one query a line in the
format of queries.jsonl (each file is one entry of grade 3 covering the
whole file). It needs the repositories' history: the search tool's
`fetch` of github:vuejs/core, github:trpc/trpc and github:TanStack/query
(under /work/.mirror). The sets are generated, never edited by hand, and
never tuned on: tanstack's is the one reported apart as never tuned.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

# name -> (mirror, pinned commit as in ../shared/corpus.sh)
REPOS = {
    "vue": ("vuejs+core", "e2bede96134f757aad5c5b33ac9be055022dbfc8"),
    "trpc": ("trpc+trpc", "340811ba5320637fbaf48fccf3dbfdd258bd34db"),
    "tanstack": ("TanStack+query", "40321a0b1b3bdd0afa11f0e439642ab84cdf6afe"),
}
MIRRORS = pathlib.Path("/work/.mirror")
SOURCE = re.compile(r"\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$")
TEST = re.compile(r"(^|/)(test|tests|__tests__|spec|e2e|__mocks__|fixtures?|examples?|bench|benchmarks?|playground|scripts)(/|$)|\.(test|spec|bench|test-d)\.[cm]?[jt]sx?$")
SKIP_TYPES = {"docs", "doc", "ci", "chore", "test", "tests", "build", "release", "style", "revert", "types-test", "example", "examples"}
PREFIX = re.compile(r"^(?P<type>[A-Za-z-]+)(\([^)]*\))?!?:\s*")
MAX_FILES = 5


def git(mirror, *args):
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True, capture_output=True, text=True).stdout


def question(subject):
    """The subject as a question, or None when the commit is not one."""
    s = subject.strip()
    m = PREFIX.match(s)
    if m:
        if m.group("type").lower() in SKIP_TYPES:
            return None
        s = s[m.end():]
    s = re.sub(r"\s*\(#\d+\)(\s*\(#\d+\))*\s*$", "", s).strip()
    if re.match(r"^v?\d+\.\d+", s) or s.lower().startswith(("merge", "release", "bump", "version packages", "update dependencies")):
        return None
    if len(s.split()) < 3:
        return None
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-repo", type=int, default=40)
    ap.add_argument("--skip", type=int, default=0, help="questions to pass over first (the newest)")
    ap.add_argument("--set", default="", help="the set's name in the file name (changes-SET-<repo>.jsonl)")
    ap.add_argument("repos", nargs="*", default=list(REPOS))
    args = ap.parse_args()
    out_dir = pathlib.Path(__file__).parent
    for name in args.repos:
        mirror_name, pinned = REPOS[name]
        mirror = MIRRORS / mirror_name / "repo"
        if not mirror.exists():
            print(f"{name}: no mirror at {mirror} (fetch github:{mirror_name.replace('+', '/')} first)", file=sys.stderr)
            continue
        present = set(git(mirror, "ls-tree", "-r", "--name-only", pinned).splitlines())
        log = git(mirror, "log", "--no-merges", "--format=%x00%H%x01%s", "--name-only", pinned, "-n", "20000")
        rows, seen, skipped = [], set(), 0
        for entry in log.split("\x00")[1:]:
            head, _, files = entry.partition("\n")
            sha, _, subject = head.partition("\x01")
            q = question(subject)
            if q is None or q.lower() in seen:
                continue
            kept = sorted({f for f in files.split("\n") if f.startswith("packages/") and SOURCE.search(f) and not TEST.search(f) and f in present})
            if not kept or len(kept) > MAX_FILES:
                continue
            seen.add(q.lower())
            if skipped < args.skip:
                skipped += 1
                continue
            rows.append({
                "id": f"chg-{args.set + '-' if args.set else ''}{name}-{len(rows) + 1:02d}",
                "repo": name,
                "split": "changes",
                "query": q,
                "commit": sha,
                "relevant": [{"path": f, "start": 1, "end": 1_000_000, "grade": 3, "symbol": f.rsplit("/", 1)[-1]} for f in kept],
            })
            if len(rows) >= args.per_repo:
                break
        path = out_dir / (f"changes-{args.set}-{name}.jsonl" if args.set else f"changes-{name}.jsonl")
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{name}: {len(rows)} questions -> {path}")


if __name__ == "__main__":
    main()
