#!/usr/bin/env python3
"""Files re-indexed per kind of edit, each synced by a fresh `tsq index`
process as a user's CLI would (issue 44, point 6).

    benches/edit_kinds.py TSQ_BINARY ROOT

ROOT is a copy of a corpus checkout (it is edited; every edit is undone
before the next). The script indexes it from nothing first (the baseline:
`tsq index --embedder none`), then makes each edit, runs `tsq index
--embedder none --json`, and prints the files it re-indexed, how many of
them through importers, and its wall time; then undoes the edit and syncs
again (not timed). Kinds: a body-only edit, an exported signature edit of
the file with about ten importers, that function renamed, a new export in
it, a new file, a file without importers deleted. Nothing here is a test:
figures go to benches/README.md.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from occurrences import body_edit_target  # noqa: E402
from serve_edits import IMPORT, ten_importer_target  # noqa: E402


def index(binary, root):
    t0 = time.monotonic()
    p = subprocess.run([binary, "index", "--embedder", "none", "--json", "--root", root], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise SystemExit(f"tsq index failed: {p.stderr}")
    occ = json.loads(p.stdout).get("occurrences") or {}
    return wall, occ


def unimported_file(root):
    """A non-test .ts file, not an `index.ts`, that no file imports by a
    relative path (the regex scan of `serve_edits`)."""
    files = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", ".tsq") and not d.startswith("."))
        files += [os.path.join(dirpath, f) for f in sorted(names) if f.endswith((".ts", ".tsx")) and not f.endswith(".d.ts")]
    imported = set()
    for f in files:
        for spec in IMPORT.findall(open(f, encoding="utf-8", errors="replace").read()):
            base = os.path.normpath(os.path.join(os.path.dirname(f), spec))
            imported.update((base, base + ".ts", base + ".tsx", os.path.join(base, "index.ts")))
    for f in files:
        rel = os.path.relpath(f, root)
        if f not in imported and "test" not in rel and os.path.basename(f) != "index.ts" and f.endswith(".ts"):
            return rel
    raise SystemExit("no file without importers")


def main():
    binary, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    wall, occ = index(binary, root)
    print(f"full index: {occ.get('indexed')} files in {wall:.1f} s")
    body_rel, body_fn, body_at = body_edit_target(root)
    sig_rel, sig_fn, sig_paren, sig_importers = ten_importer_target(root)

    def edit_text(rel, change):
        path = os.path.join(root, rel)
        before = open(path, encoding="utf-8").read()
        open(path, "w", encoding="utf-8").write(change(before))
        return lambda: open(path, "w", encoding="utf-8").write(before)

    def create(rel, text):
        path = os.path.join(root, rel)
        open(path, "w", encoding="utf-8").write(text)
        return lambda: os.remove(path)

    def delete(rel):
        path = os.path.join(root, rel)
        before = open(path, encoding="utf-8").read()
        os.remove(path)
        return lambda: open(path, "w", encoding="utf-8").write(before)

    sig_dir = os.path.dirname(sig_rel)
    kinds = [
        (f"body-only ({body_rel} > {body_fn})", lambda: edit_text(body_rel, lambda t: t[:body_at] + "  void 0;\n" + t[body_at:])),
        (f"exported signature ({sig_rel} > {sig_fn}, {sig_importers} direct importers)", lambda: edit_text(sig_rel, lambda t: t[: sig_paren + 1] + "tsqExtra?: number, " + t[sig_paren + 1 :])),
        (f"exported function renamed ({sig_rel} > {sig_fn})", lambda: edit_text(sig_rel, lambda t: t.replace(f"export function {sig_fn}(", f"export function {sig_fn}Renamed(", 1))),
        (f"new export ({sig_rel})", lambda: edit_text(sig_rel, lambda t: t + "\nexport const tsqAdded = 1;\n")),
        (f"new file ({os.path.join(sig_dir, 'tsqNewFile.ts')})", lambda: create(os.path.join(sig_dir, "tsqNewFile.ts"), "export function tsqNew(): number {\n  return 1;\n}\n")),
    ]
    lonely = unimported_file(root)
    kinds.append((f"file deleted ({lonely})", lambda: delete(lonely)))
    print("| edit | files re-indexed | through importers | removed | sync |")
    print("|---|---|---|---|---|")
    for name, make in kinds:
        undo = make()
        try:
            wall, occ = index(binary, root)
            print(f"| {name} | {occ.get('indexed')} | {occ.get('cascaded')} | {occ.get('removed')} | {wall:.1f} s |", flush=True)
        finally:
            undo()
            index(binary, root)


if __name__ == "__main__":
    main()
