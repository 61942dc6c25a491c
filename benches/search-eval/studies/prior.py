#!/usr/bin/env python3
"""Offline: history priors (how often/recently a file changed) and co-change over the features dump."""
import json, math, sys, subprocess, os, pickle, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from file_orderings import load, metrics, default, file_table, boot

MIRRORS = {'vue': '/work/.mirror/vuejs+core/repo', 'trpc': '/work/.mirror/trpc+trpc/repo', 'tanstack': '/work/.mirror/TanStack+query/repo'}

def log(repo, commit):
    cache = os.environ.get('TSQ_STUDY_DIR', '/var/tmp/study') + f'/log-{commit}.pkl'
    if os.path.exists(cache):
        return pickle.load(open(cache, 'rb'))
    out = subprocess.run(['git', '--git-dir', MIRRORS[repo], 'log', '--no-merges', '--no-renames', '--format=%x00%s', '--name-only', '-n', '5000', commit + '^', '--'], capture_output=True, text=True).stdout
    commits = []
    for e in out.split('\0')[1:]:
        lines = e.splitlines()
        files = [l.strip() for l in lines[1:] if l.strip()]
        commits.append((lines[0] if lines else '', files))
    pickle.dump(commits, open(cache, 'wb'))
    return commits

def repo_of(q):
    return q['id'].split('-')[2]

def make(w_prior=0.0, n=200, w_co=0.0, co_top=1, decay=None):
    def order(q):
        t = file_table(q)
        top = q['chunks'][0][1] if q['chunks'] else 1
        commits = q['_log']
        sc = {f: max(c[1] for c in cs) for f, cs in t.items()}
        if w_prior:
            cnt = collections.Counter()
            for i, (_, fs) in enumerate(commits[:n]):
                for f in fs:
                    cnt[f] += (decay ** i) if decay else 1.0
            mx = max((cnt[f] for f in sc), default=0)
            if mx > 0:
                for f in sc:
                    sc[f] += w_prior * top * math.log1p(cnt[f]) / math.log1p(mx)
        if w_co:
            first = sorted(sc, key=lambda f: -sc[f])[:co_top]
            for a in first:
                with_a = [fs for _, fs in commits if a in fs]
                if not with_a: continue
                co = collections.Counter(f for fs in with_a for f in fs if f != a)
                for f in sc:
                    if f != a:
                        sc[f] += w_co * top * co[f] / len(with_a)
        return sorted(sc, key=lambda f: -sc[f])
    return order

if __name__ == '__main__':
    qs = load(sys.argv[1])
    commit = {}
    import glob
    for p in glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'changes-train-*.jsonl')):
        for l in open(p):
            if l.strip():
                j = json.loads(l); commit[j['id']] = j['commit']
    for q in qs:
        q['_log'] = log(repo_of(q), commit[q['id']])
    by = collections.defaultdict(list)
    for q in qs: by[repo_of(q)].append(q)
    rows = [("prior 0.1 n200", make(0.1, 200)), ("prior 0.2 n200", make(0.2, 200)), ("prior 0.1 n1000", make(0.1, 1000)),
            ("prior 0.2 n1000", make(0.2, 1000)), ("prior 0.1 n50", make(0.1, 50)), ("prior 0.2 n5000", make(0.2, 5000)),
            ("prior 0.2 decay .99", make(0.2, 5000, decay=0.99)), ("prior 0.2 decay .995", make(0.2, 5000, decay=0.995)),
            ("co 0.1", make(w_co=0.1)), ("co 0.2", make(w_co=0.2)), ("co 0.3", make(w_co=0.3)), ("co 0.2 top2", make(w_co=0.2, co_top=2)),
            ("prior 0.1 + co 0.2", make(0.1, 1000, 0.2))]
    for name, subset in [('all', qs)] + sorted(by.items()):
        base, bper = metrics(subset, default)
        print(f"{name} {len(subset)} q  default  " + " ".join(f"{x:.3f}" for x in base))
        for rn, o in rows:
            m, per = metrics(subset, o)
            d, lo, hi = boot(per, bper)
            print(f"  {rn:<26}" + " ".join(f"{x:.3f}" for x in m) + f"   {d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
