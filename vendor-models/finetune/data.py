"""Training pairs (question, code) for fine-tuning the local model, from
code none of tsq's evaluation sets is built on (vue, rxjs, trpc, tanstack,
effect are left out):

- doc comments: a JSDoc block's first sentences -> the declaration it
  documents (without the comment), from zod and TypeScript's lib .d.ts (npm
  packages) and GitHub Desktop's app/src at a pinned commit;
- changes: a commit subject (its `type(scope):` prefix cut) -> the first
  hunk of each non-test source file it changed (at most two), from GitHub
  Desktop's history up to that commit.

    python data.py OUT.jsonl ZOD_SRC TS_LIB DESKTOP_GIT_DIR COMMIT

Deterministic: sorted inputs, a fixed shuffle seed.
"""
import json
import os
import random
import re
import subprocess
import sys

DOC = re.compile(r"/\*\*(.*?)\*/[ \t]*\n", re.S)
NAME = re.compile(r"^\s*(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:static\s+)?(?:readonly\s+)?(?:public\s+|private\s+|protected\s+)?(?:function\*?|class|interface|type|enum|const|let|var|namespace|get|set)?\s*([A-Za-z_$][\w$]*)")
PREFIX = re.compile(r"^\s*[\w-]+(\([^)]*\))?!?:\s*")
TEST = re.compile(r"(^|/)(test|tests|__tests__|spec|fixtures?)/|\.(test|spec)\.[jt]sx?$")
SOURCE = re.compile(r"\.(ts|tsx|js|jsx|mts|cts)$")
SKIP_SUBJECT = re.compile(r"^(merge|bump|release|revert|update (changelog|dependencies|deps)|v?\d+\.\d+)|^wip\b|\b(lint|prettier|typo|changelog)\b", re.I)


def comment_text(raw):
    lines = [re.sub(r"^\s*\*\s?", "", l) for l in raw.splitlines()]
    out = []
    for l in lines:
        if l.strip().startswith("@"):
            break
        out.append(l.strip())
    text = re.sub(r"\{@link\s+([^}|\s]+)[^}]*\}", r"\1", " ".join(out))
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("**", "").replace("`", "")
    text = re.sub(r"\s+", " ", text).strip()
    # The first sentences, up to about 200 characters.
    if len(text) > 200:
        cut = text.rfind(". ", 0, 200)
        text = text[: cut + 1] if cut > 40 else text[:200]
    return text


CONTINUES = ("{", "(", "[", "=", ",", "=>", "|", "&", ":", "<", "?")
PER_FILE = 300


def declaration(src, start, max_lines=40):
    """The lines from `start` to the end of the declaration: braces closed,
    or a `;` at depth 0, at most `max_lines`."""
    lines = src[start:].split("\n")
    depth, out, opened = 0, [], False
    for l in lines[:max_lines]:
        out.append(l)
        for c in l:
            if c in "{([":
                depth += 1
                opened = True
            elif c in "})]":
                depth -= 1
        if depth <= 0 and (opened or not l.rstrip().endswith(CONTINUES)):
            break
    return "\n".join(out)


def doc_pairs(path, src):
    n_kept = 0
    for m in DOC.finditer(src):
        if n_kept == PER_FILE:
            return
        q = comment_text(m.group(1))
        if len(q.split()) < 4:
            continue
        body = declaration(src, m.end())
        n = NAME.match(body)
        if not n or len(body.strip()) < 20:
            continue
        n_kept += 1
        yield {"query": q, "breadcrumb": f"{path} > {n.group(1)}", "body": body, "kind": "doc"}


def files_under(root, exts=SOURCE):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            if exts.search(f) and not TEST.search(os.path.relpath(p, root)):
                yield p


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True).stdout.decode("utf-8", "replace")


def desktop_docs(git_dir, commit):
    names = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", "app/src").splitlines()
    for n in sorted(names):
        if SOURCE.search(n) and not TEST.search(n):
            yield from doc_pairs(n, git(git_dir, "show", f"{commit}:{n}"))


def change_pairs(git_dir, commit):
    log = git(git_dir, "log", "--no-merges", "--format=@@@COMMIT %s", "-p", "-U3", "--no-color", commit, "--", "*.ts", "*.tsx")
    for entry in log.split("@@@COMMIT ")[1:]:
        subject, _, diff = entry.partition("\n")
        subject = re.sub(r":[a-z_]+:", "", PREFIX.sub("", subject)).strip()
        if SKIP_SUBJECT.search(subject) or len(subject.split()) < 3:
            continue
        files = re.split(r"^diff --git a/\S+ b/(\S+)\n", diff, flags=re.M)
        kept = 0
        for path, body in zip(files[1::2], files[2::2]):
            if TEST.search(path) or not SOURCE.search(path) or path.endswith(".d.ts"):
                continue
            hunks = body.split("\n@@")[1:]
            if not hunks:
                continue
            # The hunk that adds the most lines.
            best = max(hunks, key=lambda h: sum(1 for l in h.splitlines() if l.startswith("+")))
            header, _, lines = best.partition("\n")
            code = [l[1:] for l in lines.splitlines() if l[:1] in (" ", "+")][:40]
            context = header.partition("@@")[2].strip()
            text = "\n".join(([context] if context else []) + code)
            if len(text.strip()) < 40:
                continue
            yield {"query": subject, "breadcrumb": path, "body": text, "kind": "change"}
            kept += 1
            if kept == 2:
                break


def main():
    out, zod, tslib, desktop, commit = sys.argv[1:6]
    pairs = []
    for root in (zod,):
        for p in files_under(root):
            pairs += doc_pairs(os.path.relpath(p, root), open(p, encoding="utf-8", errors="replace").read())
    for p in sorted(os.listdir(tslib)):
        if p.startswith("lib.") and p.endswith(".d.ts"):
            pairs += doc_pairs(p, open(os.path.join(tslib, p), encoding="utf-8").read())
    pairs += desktop_docs(desktop, commit)
    pairs += change_pairs(desktop, commit)
    seen, unique = set(), []
    for p in pairs:
        key = (p["query"].lower(), p["body"])
        if key not in seen:
            seen.add(key)
            unique.append(p)
    random.Random(45).shuffle(unique)
    with open(out, "w") as f:
        for p in unique:
            f.write(json.dumps(p) + "\n")
    kinds = {}
    for p in unique:
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
    print(f"data: {len(unique)} pairs {kinds}", file=sys.stderr)


if __name__ == "__main__":
    main()
