"""Shared by benches/impact_handoff.py and benches/impact_followup.py:
the trpc edits they make and the `tsq impact` run they time. Not a
script of its own."""
import json
import os
import subprocess
import time

REL = "packages/client/src/getFetch.ts"
API = ("customFetchImpl?: FetchEsque | NativeFetchEsque,", "customFetchImpl?: FetchEsque | NativeFetchEsque, tsqProbe?: unknown,")
BODY = ("): FetchEsque {\n", "): FetchEsque {\n  void 0;\n")


def edit(root, kind):
    find, repl = kind
    p = os.path.join(root, REL)
    t = open(p).read()
    assert find in t
    open(p, "w").write(t.replace(find, repl, 1))


def revert(root):
    subprocess.run(["git", "-C", root, "checkout", "--", REL], check=True)


def impact(tsq, root, env, local):
    """Seconds, and the answer's (changed, affected, tests) to compare;
    asserts the command was handed to a server exactly when not `local`."""
    t = time.time()
    p = subprocess.run([tsq] + (["--local"] if local else []) + ["impact", "--json", "--root", root], capture_output=True, text=True, env=env)
    s = time.time() - t
    handed = "answered by the tsq serve" in p.stderr
    assert handed != local, f"local={local} but handed={handed}"
    j = json.loads(p.stdout)
    return s, (tuple(sorted(json.dumps(c, sort_keys=True) for c in j["changed"])), tuple(sorted(json.dumps(a, sort_keys=True) for a in j["affected"])), json.dumps(j["tests"], sort_keys=True))
