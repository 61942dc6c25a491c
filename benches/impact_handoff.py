#!/usr/bin/env python3
"""`tsq impact` from the CLI beside a warm `tsq serve --listen-only`
(the warm hand-off, src/handoff.rs), and the same command answering
alone (`--local`) once the server is gone: the baseline, in the same run.

On an indexed git copy of trpc (ROOT, `tsq index --embedder none`), each
round: an API edit of `packages/client/src/getFetch.ts > getFetch` (an
optional parameter added), `tsq impact --json` timed, the edit undone
and `tsq impact` again (untimed: it re-checks the 279-file cascade),
IDLE seconds; a body edit (`void 0;`), timed, undone, IDLE seconds.
Then, the server stopped, one API round and the body rounds with
`--local`. The answers (changed, affected, tests) must be equal on both
paths. Nothing here is a test; figures go to benches/README.md.

  python3 benches/impact_handoff.py [--rounds N] [--idle S] [--tsq PATH] ROOT
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
    ap.add_argument("--idle", type=float, default=20.0)
    ap.add_argument("--tsq", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "/var/tmp/tsq-target"), "release/tsq"))
    args = ap.parse_args()
    root, env = args.root, dict(os.environ, TSQ_EMBEDDER="none", TSQ_LOG="debug")

    def edit(kind):
        edit_in(root, kind)

    def revert():
        revert_in(root)

    def impact(local):
        return impact_in(args.tsq, root, env, local)

    def rounds(local, n, kinds):
        times, answers = {}, {}
        for i in range(n):
            for name, kind in kinds:
                edit(kind)
                s, a = impact(local)
                times.setdefault(name, []).append(s)
                answers.setdefault(name, set()).add(a)
                print(f"{name} {'local' if local else 'handed'} {i}: {s:.2f} s", flush=True)
                revert()
                s2, _ = impact(local)
                print(f"  undone {s2:.2f} s", flush=True)
                time.sleep(args.idle)
        return times, answers

    server = subprocess.Popen([args.tsq, "serve", "--listen-only", "--root", root], env=dict(env, TSQ_LOG="warn"), stdin=subprocess.DEVNULL)
    time.sleep(args.idle)
    handed, h_answers = rounds(False, args.rounds, (("api", API), ("body", BODY)))
    server.terminate()
    server.wait()
    time.sleep(2)
    local_api, l_api = rounds(True, 1, (("api", API),))
    local_body, l_body = rounds(True, args.rounds, (("body", BODY),))
    local = {**local_api, **local_body}
    l_answers = {**l_api, **l_body}
    print("| edit | handed to the warm server (median, all) | answering alone, `--local` (median, all) | same answers |")
    print("|---|---|---|---|")
    for name in ("api", "body"):
        same = len(h_answers[name]) == 1 and h_answers[name] == l_answers[name]
        fmt = lambda xs: f"{statistics.median(xs):.2f} s ({', '.join(f'{x:.2f}' for x in xs)})"
        print(f"| {name} | {fmt(handed[name])} | {fmt(local[name])} | {same} |")


if __name__ == "__main__":
    main()
