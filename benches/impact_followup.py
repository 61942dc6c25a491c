#!/usr/bin/env python3
"""A follow-up `tsq impact` beside a warm `tsq serve --listen-only`: an
API edit is answered (its cascade of users is left to the server's
background pass), then GAP seconds later a second edit of the same file
is asked about while that pass runs. Before the background pass yielded
to a waiting answer, the follow-up waited for the whole cascade.

On an indexed git copy of trpc (ROOT, `tsq index --embedder none`), each
round: the API edit of `packages/client/src/getFetch.ts > getFetch` (an
optional parameter added), `tsq impact --json`; GAP seconds; a body edit
of the same function, `tsq impact --json` timed (the follow-up); both
edits undone, `tsq impact` (untimed), IDLE seconds for the server to
finish. Then, the server stopped, the same two edits answered by one
fresh `tsq --local impact` process: the follow-up's answers (changed,
affected, tests) must equal it. Nothing here is a
test; figures go to benches/README.md.

  python3 benches/impact_followup.py [--rounds N] [--gap S] [--idle S] [--tsq PATH] ROOT
"""
import argparse
import os
import statistics
import subprocess
import time

from impact_edits import API, BODY, edit as edit_in, impact as impact_in, revert as revert_in


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gap", type=float, default=2.0)
    ap.add_argument("--idle", type=float, default=150.0)
    ap.add_argument("--tsq", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "/var/tmp/tsq-target"), "release/tsq"))
    args = ap.parse_args()
    root, env = args.root, dict(os.environ, TSQ_EMBEDDER="none", TSQ_LOG="debug")

    def edit(kind):
        edit_in(root, kind)

    def revert():
        revert_in(root)

    def impact(local):
        return impact_in(args.tsq, root, env, local)

    server = subprocess.Popen([args.tsq, "serve", "--listen-only", "--root", root], env=dict(env, TSQ_LOG="warn"), stdin=subprocess.DEVNULL)
    time.sleep(20)
    first, follow, answers = [], [], set()
    for i in range(args.rounds):
        edit(API)
        s1, _ = impact(False)
        time.sleep(args.gap)
        edit(BODY)
        s2, a = impact(False)
        first.append(s1)
        follow.append(s2)
        answers.add(a)
        print(f"round {i}: API edit {s1:.2f} s, follow-up {args.gap:.0f} s later {s2:.2f} s", flush=True)
        revert()
        impact(False)
        time.sleep(args.idle)
    server.terminate()
    server.wait()
    time.sleep(2)
    edit(API)
    edit(BODY)
    s_local, local = impact(True)
    revert()
    impact(True)
    fmt = lambda xs: f"{statistics.median(xs):.2f} s ({', '.join(f'{x:.2f}' for x in xs)})"
    print("| step | handed (median, all) |")
    print("|---|---|")
    print(f"| API edit | {fmt(first)} |")
    print(f"| follow-up body edit, {args.gap:.0f} s later | {fmt(follow)} |")
    print(f"| both edits, one fresh `--local` process | {s_local:.2f} s |")
    print(f"same answers as `--local`: {len(answers) == 1 and answers == {local}}")


if __name__ == "__main__":
    main()
